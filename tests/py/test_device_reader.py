#!/usr/bin/env python3
"""The reader's decode stage on the device executor (opts.device,
device/exec.h): its kernels run on the host (device="host-kernels",
the same kernel code a CUDA build runs on the GPU), through the whole
reader, against pyarrow and the CPU executor.

- every corpus file pyarrow reads: the table equals pyarrow's and the CPU
  read's; every file of the generated matrix (tests/fixtures/gen_matrix.py):
  it equals the CPU read's (which test_matrix.py holds against pyarrow); and the decode stage's counters say that the kernels
  decoded every chunk of the corpus, nested columns' included (none left
  to the CPU);
- output types (string views, dictionary arrays, decimal64) give the CPU's
  result; a filtered read of required columns decodes every payload chunk's
  matching rows on the kernels (selection-vector decode: whole pages, then
  compacted) and equals pyarrow's filtered table; with device_output those
  rows are built into Arrow arrays where the kernels left them (the note
  counts them), under each string type;
- device_output=True (the decoded arrays kept "on the device", host
  memory standing for it with host kernels: built there by the Arrow
  kernels, or copied there): every corpus file equals the CPU read, and
  so does read_table's host copy;
- Reader.device_batches(): Arrow C device data interface arrays through
  the PyCapsule device protocol, imported by pyarrow, equal read_table,
  with device_output too (slices of the kept arrays);
- device_file= (the file already in device memory; host memory with host
  kernels): the sample and the flat corpus files read from a copy of the
  file (bytes, a numpy array, an (address, size) tuple; Reader, read_table,
  device_batches) equal the CPU read, the note counts the chunks decoded
  from the copy, a copy with changed bytes reads differently, and a wrong
  size or type is refused;
- device="cuda" without a device fails the decode stage with the reason;
  "auto" falls back to the CPU and says why; an unknown device is refused;
- filtered reads: the predicate kernel (device/filter.h) on the
  host evaluates the filter row group by row group (the decode stage's
  device_filtered_groups / cpu_filtered_groups say where): every predicate
  of test_filter.py (comparisons, IN, IS NULL, AND / OR / NOT, strings,
  dictionary-encoded and nested columns, decimals, dates, timestamps) on
  its generated files, pruned and not, equals the CPU read and pyarrow's
  filtered table; so do predicates on the flat columns of the corpus and
  of the generated matrix (IS [NOT] NULL, comparisons and IN against a value
  of the column, AND / OR / NOT), and the sample under each string and
  decimal output type.
Exit 0 pass, 1 fail, 77 without the corpus.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from read_oracle import CORPUS, SKIP, SOURCE, pq, pqstep, same  # noqa: E402
from test_matrix import compare  # noqa: E402
from test_filter import CASES as FILTER_CASES, generate as generate_filter_files  # noqa: E402


def equal(got, want, what):
    """Tables equal: schema, then every column, floats by their bits at any
    depth (test_matrix.py's comparison)."""
    compare(got, want, what)


def pyarrow_reads(path):
    try:
        return pq.read_table(path)
    except Exception:  # pyarrow refuses it: no oracle
        return None


def check_file(path, name, totals, against_pyarrow=True, columns=None, device_output=False):
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
    if device_output:  # the output kept "on the device" (host memory standing for it)
        with pqstep.Reader(path, device="host-kernels", device_output=True) as r:
            kept = r.read(columns=columns)
            dnote = r.device_note
        equal(kept, cpu, name + " (host kernels, device_output, vs CPU)")
        built = int(dnote.split("output on the device: ")[1].split(" arrays built")[0])
        totals["built"] = totals.get("built", 0) + built
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
        check_file(p, os.path.relpath(p, CORPUS), totals, device_output=True)
    assert totals["kernels"] > 0 and totals["files_on_kernels"] > totals["files"] // 2, totals
    # Every chunk, of nested columns too (a plan each, assembled on the host), decodes on the kernels.
    assert totals["cpu"] == 0, totals
    assert totals.get("built", 0) > 100, totals
    print("corpus: %d files equal pyarrow and the CPU executor with the kernels run on the host; %d chunks "
          "on the kernels, %d left to the CPU; with device_output too (%d arrays built by the Arrow kernels)"
          % (totals["files"], totals["kernels"], totals["cpu"], totals["built"]))


def check_matrix():
    tmp = tempfile.mkdtemp(prefix="pqstep-device-matrix-")
    try:
        gen = subprocess.run([sys.executable, os.path.join(SOURCE, "tests", "fixtures", "gen_matrix.py"), tmp],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        assert gen.returncode == 0, gen.stdout.decode()[-2000:]
        totals = dict(files=0, files_on_kernels=0, kernels=0, cpu=0)
        ftotals = new_totals()
        nfiles = 0
        import pyarrow as pa
        for p in sorted(glob.glob(os.path.join(tmp, "**", "*.parquet"), recursive=True)):
            # The device executor takes flat selections: the file's flat columns.
            flat = [f.name for f in pq.read_schema(p) if not pa.types.is_nested(f.type)]
            if not check_file(p, os.path.basename(p), totals, against_pyarrow=False, columns=flat):
                continue
            # Filters on a few flat columns a file, rotating through them from
            # file to file so every type is filtered on (the CPU read is the
            # oracle): IS NULL, =, IN, and NOT / AND.
            whole = pq.read_table(p, columns=flat)
            for j in range(min(6, len(flat))):
                col = flat[(6 * nfiles + j) % len(flat)]
                cases = column_cases(whole, col)
                for k in (0, 2, 6, 8):
                    if k < len(cases):
                        filtered(p, cases[k][0], ftotals, columns=[col, flat[0]] if col != flat[0] else [col])
            nfiles += 1
        assert totals["files"] > 0 and totals["kernels"] > 0, totals
        assert ftotals["reads"] > 100 and ftotals["kernels"] > ftotals["cpu"], ftotals
        assert ftotals["col_kernels"] > 0 and ftotals["col_cpu"] == 0 and ftotals["kept_there"] > 0, ftotals
        print("matrix: %d files equal the CPU executor's read; %d chunks on the kernels, %d left to the CPU"
              % (totals["files"], totals["kernels"], totals["cpu"]))
        print(filter_summary("matrix filters: %d filtered reads equal the CPU's" % ftotals["reads"], ftotals))
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
        fs = r.stage_stats("filter")
        note = r.device_note
    same(got, want, "sample filtered")
    # Late materialization decodes the filter's 2 columns of each of the 61
    # row groups by the kernels, keeps them there and evaluates the filter
    # there (nothing handed over); the decode stage then decodes every
    # selected chunk by the kernels (whole, then taken: these columns are
    # optional), the filter's columns again.
    assert d["device_chunks"] == 976 and d["cpu_chunks"] == 0, d
    assert ("its columns: 122 chunks decoded on the kernels, 0 on the CPU, 61 row groups evaluated where they were "
            "decoded") in note, note
    # The filter stage evaluates the filter by the predicate kernel on every row group.
    assert fs["device_filtered_groups"] == 61 and fs["cpu_filtered_groups"] == 0, fs
    assert fs["groups"] == 61 and fs["rows"] == want.num_rows, fs
    with pqstep.Reader(sample) as r:
        r.read(filter=flt)
        fs = r.stage_stats("filter")
    assert fs["device_filtered_groups"] == 0 and fs["cpu_filtered_groups"] == 0, fs
    assert fs["groups"] == 61 and fs["rows"] == want.num_rows, fs
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


def check_required_filter():
    """Selection-vector decode on the kernels: a file of required columns
    (pyarrow, nullable=False: strings dictionary-encoded and PLAIN, int64,
    doubles, booleans) read with a filter that keeps scattered rows. Every
    payload chunk is decoded for the matching rows by the device executor
    (whole pages, then compacted): no chunk is left to the CPU, and the
    table equals the CPU read's and pyarrow's filtered table."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    rng = np.random.default_rng(7)
    n = 60000
    totals_built = totals_copied = 0
    fields = [pa.field("k", pa.int64(), nullable=False), pa.field("s", pa.string(), nullable=False),
              pa.field("p", pa.string(), nullable=False), pa.field("d", pa.float64(), nullable=False),
              pa.field("b", pa.bool_(), nullable=False)]
    t = pa.table([pa.array(np.arange(n, dtype=np.int64)),
                  pa.array(["v%d" % (i % 13) for i in range(n)]),
                  pa.array(["a longer plain value %d" % i for i in rng.integers(0, 1 << 30, n)]),
                  pa.array(rng.random(n)), pa.array(rng.random(n) < 0.5)], schema=pa.schema(fields))
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "required.parquet")
        pq.write_table(t, path, row_group_size=20000, data_page_size=8192,
                       use_dictionary=["s"], compression="snappy")
        for text, keep in (("s = 'v3'", lambda: pc.equal(t["s"], "v3")),
                           ("d < 0.05 and b = true", lambda: pc.and_(pc.less(t["d"], 0.05), t["b"])),
                           ("k >= 19990 and k < 20010", lambda: pc.and_(pc.greater_equal(t["k"], 19990),
                                                                     pc.less(t["k"], 20010)))):
            want = t.filter(keep())
            cpu = pqstep.read_table(path, filter=text)
            with pqstep.Reader(path, device="host-kernels") as r:
                got = r.read(filter=text)
                dec = r.stage_stats("decode")
            same(cpu, want, "required, CPU, %s" % text)
            same(got, want, "required, host kernels, %s" % text)
            assert got.num_rows > 0 and dec["cpu_chunks"] == 0 and dec["device_chunks"] > 0, (text, dec)
            # device_output: the payload columns' matching rows are built
            # into Arrow arrays where the kernels left them; the filter's own
            # columns (decoded whole, then taken) are built on the host and
            # copied. Under each string output type.
            for strings in ("string", "string_view", "dictionary"):
                cpu_s = pqstep.read_table(path, filter=text, strings=strings)
                with pqstep.Reader(path, device="host-kernels", device_output=True, strings=strings) as r:
                    got = r.read(filter=text)
                    note = r.device_note
                same(got, cpu_s, "required, device_output, %s, %s" % (strings, text))
                m = re.search(r"(\d+) arrays built there, (\d+) copied there", note)
                assert m, note
                built, copied = int(m.group(1)), int(m.group(2))
                # Every column is built there: the filter's decoded again for
                # the matching rows, a dictionary array of the PLAIN strings
                # from their values (an entry a slot).
                assert built > 0 and copied == 0, (text, strings, note)
                totals_built += built
                totals_copied += copied
    print("required columns: 3 filtered reads equal pyarrow's with every payload chunk's matching rows decoded "
          "and compacted by the kernels; with device_output under 3 string types, %d arrays built by the Arrow "
          "kernels from the compacted rows, %d copied"
          % (totals_built, totals_copied))


def filtered(path, text, totals, prune=True, columns=None, **kw):
    """The filtered read with the kernels on the host, checked against the
    CPU's; the filter's row-group counters added to totals. Returns the
    table, or None where the CPU read refuses the filter too."""
    try:
        cpu = pqstep.read_table(path, filter=text, prune=prune, columns=columns, **kw)
    except pqstep.Error:
        cpu = None
    with pqstep.Reader(path, device="host-kernels", **kw) as r:
        try:
            got = r.read(filter=text, prune=prune, columns=columns)
        except pqstep.Error as e:
            assert cpu is None, "%s: %s: host kernels failed (%s) where the CPU read" % (path, text, e)
            return None
        d = r.stage_stats("filter")  # where the filter stage evaluated it
        sel = r.stage_stats("select")
        note = r.device_note
    assert cpu is not None, "%s: %s: host kernels read what the CPU refused" % (path, text)
    equal(got, cpu, "%s: %s (host kernels vs CPU)" % (os.path.basename(path), text))
    totals["reads"] += 1
    totals["kernels"] += d["device_filtered_groups"]
    totals["cpu"] += d["cpu_filtered_groups"]
    if d["device_filtered_groups"] or d["cpu_filtered_groups"]:
        assert "; filter: %d row groups on the kernels, %d on the CPU" % (
            d["device_filtered_groups"], d["cpu_filtered_groups"]) in note, note
        # The filter's columns were decoded by the kernels too.
        m = re.search(r"its columns: (\d+) chunks decoded on the kernels, (\d+) on the CPU, (\d+) row groups "
                      r"evaluated where they were decoded", note)
        assert m, note
        totals["col_kernels"] += int(m.group(1))
        totals["col_cpu"] += int(m.group(2))
        totals["kept_there"] += int(m.group(3))
    if d["cpu_filtered_groups"] and len(totals["why"]) < 5:
        totals["why"].add(note.split("; filter: ", 1)[1])
    totals["last"] = d
    # Row groups the select stage kept (each pruning step counts those it
    # dropped beyond the earlier ones).
    totals["pruned"] = sum(sel[k] for k in ("pruned_statistics", "pruned_dictionary", "pruned_bloom_filter",
                                            "pruned_page_index"))
    return got


def filter_summary(head, totals):
    """A line on filtered reads' totals (filtered()'s counters)."""
    return ("%s; %d row groups evaluated by the kernel (%d with the filter's columns built and evaluated where the "
            "kernels decoded them), %d by the CPU%s; the filter's columns: %d chunks decoded by the kernels, %d by "
            "the CPU" % (head, totals["kernels"], totals["kept_there"], totals["cpu"],
                         " (%s)" % "; ".join(sorted(totals["why"])) if totals["why"] else "", totals["col_kernels"],
                         totals["col_cpu"]))


def new_totals():
    return dict(reads=0, kernels=0, cpu=0, why=set(), last=None, pruned=0, col_kernels=0, col_cpu=0, kept_there=0)


def group_cases():
    """IS [NOT] NULL on the struct s itself (its first leaf's definition
    levels per row), alone and with its leaves."""
    import pyarrow.compute as pc
    f = pc.field
    return [("s is null", f("s").is_null(), None),
            ("s is not null and s.x < 50", f("s").is_valid() & (f("s", "x") < 50), None),
            ("not (s is null) or key < 10", ~f("s").is_null() | (f("key") < 10), None)]


def check_filter_cases():
    """test_filter.py's predicates on its files: equal to pyarrow's filtered
    table and the CPU read, pruned and not; every row group the select
    stage keeps (all 8 without pruning) is evaluated, each by the kernel."""
    tmp = tempfile.mkdtemp(prefix="pqstep-device-filter-")
    try:
        files = generate_filter_files(tmp)
        totals = new_totals()
        for name, path in sorted(files.items()):
            whole = pq.read_table(path)
            for text, expr, _ in FILTER_CASES + group_cases():
                if expr is None:
                    continue
                want = whole.filter(expr)
                for prune in (True, False):
                    got = filtered(path, text, totals, prune=prune)
                    assert got is not None, "%s: %s refused" % (name, text)
                    same(got, want, "%s: %s (host kernels vs pyarrow, prune=%s)" % (name, text, prune),
                         float_bits=True)
                    d = totals["last"]
                    # Every row group the select stage kept is evaluated, by the kernel.
                    kept = 8 - totals["pruned"]
                    assert d["device_filtered_groups"] == kept and d["cpu_filtered_groups"] == 0, (
                        name, text, prune, kept, d)
            # The payload's output types with the filter on dictionary and string columns.
            for kw in (dict(strings="string_view"), dict(strings="dictionary"), dict(strings="large_string"),
                       dict(decimals="decimal64")):
                for text in ("cat in ('AIR', 'SHIP') and amount >= 100", "name < 'customer#0000005' or opt is null",
                             "not (cat = 'RAIL' or score > 0)"):
                    got = filtered(path, text, totals, **kw)
                    assert got is not None and totals["last"]["device_filtered_groups"] > 0, (name, text, kw)
        assert totals["cpu"] == 0 and totals["col_kernels"] > 0 and totals["col_cpu"] == 0, totals
        assert 0 < totals["kept_there"] <= totals["kernels"], totals
        print(filter_summary("filter cases: %d filtered reads equal pyarrow's and the CPU's" % totals["reads"], totals))
    finally:
        import shutil
        shutil.rmtree(tmp, ignore_errors=True)


def column_cases(table, path):
    """Predicates on a flat column whose rows pyarrow computes: IS [NOT]
    NULL, then for integers, floats and strings = < >= != and IN against
    values of the column, and AND / OR / NOT of them."""
    import math
    import pyarrow as pa
    import pyarrow.compute as pc
    f = pc.field
    parts = path.split(".")
    arr = table.column(parts[0])
    for p in parts[1:]:
        arr = pc.struct_field(arr, p)
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    fld = f(*parts)
    q = '"%s"' % path
    cases = [(q + " is null", fld.is_null()), (q + " is not null", fld.is_valid())]
    values = pc.drop_null(arr)
    ty = values.type
    if not len(values) or pa.types.is_dictionary(ty) or pa.types.is_float16(ty) or not (
            pa.types.is_integer(ty) or pa.types.is_floating(ty) or pa.types.is_string(ty)):
        return cases

    def lit(v):
        return "'" + v.replace("'", "''") + "'" if isinstance(v, str) else repr(v)

    picks = [values[len(values) // 2].as_py(), values[0].as_py()]
    if any(isinstance(v, float) and (math.isnan(v) or math.isinf(v)) for v in picks):
        return cases
    v, w = picks
    sv, sw = (v, w) if isinstance(v, str) else (pa.scalar(v, ty), pa.scalar(w, ty))
    cases += [("%s = %s" % (q, lit(v)), fld == sv), ("%s < %s" % (q, lit(v)), fld < sv),
              ("%s >= %s" % (q, lit(v)), fld >= sv), ("%s != %s" % (q, lit(v)), fld != sv),
              ("%s in (%s, %s)" % (q, lit(v), lit(w)), fld.isin(pa.array([v, w], ty))),
              ("%s < %s or %s is null" % (q, lit(v), q), (fld < sv) | fld.is_null()),
              ("not (%s = %s) and %s is not null" % (q, lit(w), q), ~(fld == sw) & fld.is_valid())]
    return cases


def check_filter_corpus():
    """Predicates on the flat columns of the corpus files pyarrow reads (a
    few columns a file): the host kernels' read equals the CPU's, and has
    pyarrow's rows."""
    totals = new_totals()
    for path in sorted(glob.glob(os.path.join(CORPUS, "data", "*.parquet"))):
        if os.path.getsize(path) > (1 << 20):
            continue
        try:
            t = pq.read_table(path)
            md = pq.ParquetFile(path).metadata
        except Exception:  # noqa: BLE001 (pyarrow cannot read it: no oracle)
            continue
        flat = [md.schema.column(i).path for i in range(md.num_columns)
                if md.schema.column(i).max_repetition_level == 0]
        for col in flat[:3]:
            for text, expr in column_cases(t, col):
                got = filtered(path, text, totals)
                if got is None:
                    continue
                want = t.filter(expr).num_rows
                assert got.num_rows == want, "%s: %s: %d rows, pyarrow %d" % (
                    os.path.basename(path), text, got.num_rows, want)
    assert totals["reads"] > 200 and totals["kernels"] > totals["cpu"], totals
    assert totals["col_kernels"] > totals["col_cpu"] and totals["kept_there"] > 0, totals
    print(filter_summary("filter corpus: %d filtered reads equal the CPU's and pyarrow's row counts" % totals["reads"],
                         totals))


def check_device_batches():
    import pyarrow as pa
    sample = os.path.join(SOURCE, "data", "sample", "lineitem_61rg.parquet")
    for device, device_output in (("cpu", False), ("host-kernels", False), ("auto", False),
                                  ("host-kernels", True), ("auto", True)):
        for strings in ("string", "string_view", "dictionary"):
            want = pqstep.read_table(sample, strings=strings)
            with pqstep.Reader(sample, device=device, strings=strings, device_output=device_output) as r:
                batches = list(r.device_batches(batch_size=7000))
            kinds = {b.device_type for b in batches}
            if kinds != {"cpu"}:  # a CUDA device: its batches are for gpu-check to read
                assert device == "auto" and kinds == {"cuda"}, kinds
                continue
            assert all(b.num_rows <= 7000 for b in batches)
            got = pa.Table.from_batches([pa.record_batch(b) for b in batches])
            same(got, want, "device batches (%s, %s, device_output=%s)" % (device, strings, device_output))
    with pqstep.Reader(sample) as r:
        b = next(r.device_batches())
    b.__arrow_c_device_array__()
    try:
        b.__arrow_c_device_array__()
        raise AssertionError("a DeviceBatch was exported twice")
    except ValueError:
        pass
    # read_table with device_output: the host copy equals the plain read.
    for strings in ("string", "large_string", "string_view"):
        got = pqstep.read_table(sample, strings=strings, device="host-kernels", device_output=True)
        same(got, pqstep.read_table(sample, strings=strings), "read_table device_output (%s)" % strings)
    print("device batches: Arrow C device arrays (PyCapsule device protocol) equal read_table for cpu, "
          "host-kernels and auto, with and without device_output, strings, views and dictionaries")


def check_device_file():
    import numpy as np
    import pyarrow as pa
    sample = os.path.join(SOURCE, "data", "sample", "lineitem_61rg.parquet")
    data = open(sample, "rb").read()
    want = pqstep.read_table(sample)
    arr = np.frombuffer(data, dtype=np.uint8).copy()
    for form in (data, arr, (arr.ctypes.data, arr.size)):
        for device_output in (False, True):
            with pqstep.Reader(sample, device="host-kernels", device_output=device_output, device_file=form) as r:
                got = r.read()
                note = r.device_note
            same(got, want, "device_file %s, device_output=%s" % (type(form).__name__, device_output))
            n = int(note.split(" chunks decoded from device_file")[0].rsplit("; ", 1)[1])
            assert n == 976, note
    got = pqstep.read_table(sample, device="host-kernels", device_file=arr)
    same(got, want, "read_table device_file")
    with pqstep.Reader(sample, device="host-kernels", device_output=True, device_file=arr) as r:
        batches = list(r.device_batches(batch_size=5000))
    same(pa.Table.from_batches([pa.record_batch(b) for b in batches]), want, "device_batches device_file")
    # every flat corpus file pyarrow reads, from a copy
    files = 0
    for path in sorted(glob.glob(os.path.join(CORPUS, "data", "*.parquet"))):
        if os.path.getsize(path) > (16 << 20) or pyarrow_reads(path) is None:
            continue
        try:
            cpu = pqstep.read_table(path)
        except pqstep.Error:
            continue
        got = pqstep.read_table(path, device="host-kernels", device_file=open(path, "rb").read())
        equal(got, cpu, os.path.basename(path) + " (device_file)")
        files += 1
    assert files > 40, files
    # a copy whose pages differ reads differently (an uncompressed file)
    plain = os.path.join(CORPUS, "data", "datapage_v1-uncompressed-checksum.parquet")
    if os.path.exists(plain):
        changed = bytearray(open(plain, "rb").read())
        for i in range(4, len(changed) // 2, 64):
            changed[i] ^= 0x5A
        try:
            got = pqstep.read_table(plain, device="host-kernels", device_file=bytes(changed))
            assert not got.equals(pqstep.read_table(plain)), "a changed device_file read as the file"
        except pqstep.Error:
            pass  # refused as corrupt: also read from the copy
    for bad, kind in ((data[:-1], pqstep.Error), (object(), TypeError), ((0, 10), ValueError)):
        try:
            pqstep.read_table(sample, device="host-kernels", device_file=bad)
            raise AssertionError("device_file %r was accepted" % (type(bad).__name__,))
        except kind as e:
            assert kind is not pqstep.Error or "device_file_size" in str(e), e
    print("device_file: the sample (bytes, numpy, address and size; Reader, read_table, device batches) and %d "
          "corpus files read from a copy equal the CPU read; a changed copy differs; bad ones refused" % files)


def main():
    if not CORPUS or not os.path.isdir(os.path.join(CORPUS, "data")):
        print("SKIP: no corpus (PQSTEP_TEST_CORPUS)")
        return SKIP
    check_corpus()
    check_options()
    check_required_filter()
    check_filter_cases()
    check_filter_corpus()
    check_device_batches()
    check_device_file()
    check_matrix()
    print("1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
