#!/usr/bin/env python3
"""The reader's decode stage on the device executor (opts.device,
pages/device_exec.h): its kernels run on the host (device="host-kernels",
the same kernel code a CUDA build runs on the GPU), through the whole
reader, against pyarrow and the CPU executor.

- every corpus file pyarrow reads: the table equals pyarrow's and the CPU
  read's; every file of the generated matrix (tests/fixtures/gen_matrix.py):
  it equals the CPU read's (which test_matrix.py holds against pyarrow); and the decode stage's counters say how many chunks the kernels
  decoded and how many were left to the CPU (chunks the kernels do not
  cover: DELTA_*, BYTE_STREAM_SPLIT, RLE booleans, nested columns);
- output types and filters the kernels leave to the CPU (string views,
  dictionary arrays, selection-vector decode) still give the CPU's result;
- Reader.device_batches(): Arrow C device data interface arrays through
  the PyCapsule device protocol, imported by pyarrow, equal read_table;
- device="cuda" without a device fails the decode stage with the reason;
  "auto" falls back to the CPU and says why; an unknown device is refused.
Exit 0 pass, 1 fail, 77 without the corpus.
"""
import glob
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from read_oracle import CORPUS, SKIP, SOURCE, pq, pqstep, same  # noqa: E402
from test_matrix import compare  # noqa: E402


def equal(got, want, what):
    """Tables equal: schema, then every column, floats by their bits at any
    depth (test_matrix.py's comparison)."""
    compare(got, want, what)


def pyarrow_reads(path):
    try:
        return pq.read_table(path)
    except Exception:  # pyarrow refuses it: no oracle
        return None


def check_file(path, name, totals, against_pyarrow=True, columns=None):
    """against_pyarrow False: the CPU read alone is the oracle (the matrix,
    whose pyarrow oracle test_matrix.py reads with the Parquet schema alone,
    holds the CPU read against it)."""
    want = pyarrow_reads(path)
    if want is None:
        return False
    try:
        cpu = pqstep.read_table(path, columns=columns)
    except pqstep.Error:
        cpu = None
    with pqstep.Reader(path, device="host-kernels") as r:
        try:
            got = r.read(columns=columns)
        except pqstep.Error as e:
            assert cpu is None, "%s: host kernels failed (%s) where the CPU read" % (name, e)
            return False
        d = r.stage_stats("decode")
        note = r.device_note
    assert cpu is not None, "%s: host kernels read a file the CPU executor refused" % name
    equal(got, cpu, name + " (host kernels vs CPU)")
    if against_pyarrow:
        equal(got, want, name + " (host kernels vs pyarrow)")
    assert note.startswith("host kernels"), note
    totals["kernels"] += d["device_chunks"]
    totals["cpu"] += d["cpu_chunks"]
    totals["files"] += 1
    if d["device_chunks"]:
        totals["files_on_kernels"] += 1
    return True


def check_corpus():
    totals = dict(files=0, files_on_kernels=0, kernels=0, cpu=0)
    for p in sorted(glob.glob(os.path.join(CORPUS, "data", "**", "*.parquet"), recursive=True)):
        if os.path.getsize(p) > (64 << 20):
            continue  # the 2 GiB-string file: decoded by the CPU tests
        check_file(p, os.path.relpath(p, CORPUS), totals)
    assert totals["kernels"] > 0 and totals["files_on_kernels"] > totals["files"] // 2, totals
    print("corpus: %d files equal pyarrow and the CPU executor with the kernels run on the host; %d chunks "
          "on the kernels, %d left to the CPU" % (totals["files"], totals["kernels"], totals["cpu"]))


def check_matrix():
    tmp = tempfile.mkdtemp(prefix="pqstep-device-matrix-")
    try:
        gen = subprocess.run([sys.executable, os.path.join(SOURCE, "tests", "fixtures", "gen_matrix.py"), tmp],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        assert gen.returncode == 0, gen.stdout.decode()[-2000:]
        totals = dict(files=0, files_on_kernels=0, kernels=0, cpu=0)
        import pyarrow as pa
        for p in sorted(glob.glob(os.path.join(tmp, "**", "*.parquet"), recursive=True)):
            # The device executor takes flat selections: the file's flat columns.
            flat = [f.name for f in pq.read_schema(p) if not pa.types.is_nested(f.type)]
            check_file(p, os.path.basename(p), totals, against_pyarrow=False, columns=flat)
        assert totals["files"] > 0 and totals["kernels"] > 0, totals
        print("matrix: %d files equal the CPU executor's read; %d chunks on the kernels, %d left to the CPU"
              % (totals["files"], totals["kernels"], totals["cpu"]))
    finally:
        import shutil
        shutil.rmtree(tmp, ignore_errors=True)


def check_options():
    sample = os.path.join(SOURCE, "data", "sample", "lineitem_61rg.parquet")
    cpu = pqstep.read_table(sample)
    for kw in (dict(strings="string_view"), dict(strings="dictionary"), dict(decimals="decimal64")):
        want = pqstep.read_table(sample, **kw)
        got = pqstep.read_table(sample, device="host-kernels", **kw)
        same(got, want, "sample %s" % kw)
    flt = "l_shipmode in ('AIR', 'RAIL') and l_quantity < 10"
    want = pqstep.read_table(sample, filter=flt)
    with pqstep.Reader(sample, device="host-kernels") as r:
        got = r.read(filter=flt)
        d = r.stage_stats("decode")
    same(got, want, "sample filtered")
    # The filter's columns are decoded by late materialization (on the CPU),
    # the others by the kernels (whole, then taken: these columns are optional).
    assert 0 < d["device_chunks"] < 976, d
    with pqstep.Reader(sample, device="host-kernels") as r:
        same(r.read(), cpu, "sample")
        d = r.stage_stats("decode")
        assert d["device_chunks"] == 976 and d["cpu_chunks"] == 0, d
    try:
        pqstep.read_table(sample, device="cuda")
        cuda = True
    except pqstep.Error as e:
        cuda = False
        assert e.code == "unsupported" and "no usable CUDA device" in e.message, e.message
    with pqstep.Reader(sample, device="auto") as r:
        same(r.read(), cpu, "sample auto")
        assert r.device_note.startswith("cuda" if cuda else "cpu (auto: "), r.device_note
    try:
        pqstep.read_table(sample, device="gpu")
        raise AssertionError("device='gpu' was accepted")
    except ValueError as e:
        assert "device must be one of" in str(e)
    print("options: string views, dictionary arrays, decimal64 and a filtered read equal the CPU's; "
          "cuda %s; auto says where it ran" % ("present" if cuda else "absent: a clear error"))


def check_device_batches():
    import pyarrow as pa
    sample = os.path.join(SOURCE, "data", "sample", "lineitem_61rg.parquet")
    for device in ("cpu", "host-kernels", "auto"):
        for strings in ("string", "string_view", "dictionary"):
            want = pqstep.read_table(sample, strings=strings)
            with pqstep.Reader(sample, device=device, strings=strings) as r:
                batches = list(r.device_batches(batch_size=7000))
            kinds = {b.device_type for b in batches}
            if kinds != {"cpu"}:  # a CUDA device: its batches are for gpu-check to read
                assert device == "auto" and kinds == {"cuda"}, kinds
                continue
            assert all(b.num_rows <= 7000 for b in batches)
            got = pa.Table.from_batches([pa.record_batch(b) for b in batches])
            same(got, want, "device batches (%s, %s)" % (device, strings))
    with pqstep.Reader(sample) as r:
        b = next(r.device_batches())
    b.__arrow_c_device_array__()
    try:
        b.__arrow_c_device_array__()
        raise AssertionError("a DeviceBatch was exported twice")
    except ValueError:
        pass
    print("device batches: Arrow C device arrays (PyCapsule device protocol) equal read_table for cpu, "
          "host-kernels and auto, strings, views and dictionaries")


def main():
    if not CORPUS or not os.path.isdir(os.path.join(CORPUS, "data")):
        print("SKIP: no corpus (PQSTEP_TEST_CORPUS)")
        return SKIP
    check_corpus()
    check_options()
    check_device_batches()
    check_matrix()
    print("1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
