"""Top-level fields with no leaf (issue 36): `nested: struct<inner: struct<>>`
read as all-null arrays of their type, where pyarrow reads them so.

Files: tests/fixtures/gen_empty_groups.py (pyarrow's files, the leaf under
the empty group taken out of the footer). Oracle: pyarrow's read of the
same files. Checked for each: read_table equal to pyarrow's (types,
nullability, values), the batches of iter_batches and of the Arrow stream,
a filtered read, `pqstep cat` (it used to fail: "the batch does not match
the file's schema") and `pqstep schema` listing the field; and that naming
columns leaves the field out (no column selects it).
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from read_oracle import SOURCE, pa, pq, pqstep  # noqa: E402

CLI = os.environ.get("PQSTEP_CLI")


def check(ok, what):
    if not ok:
        raise AssertionError(what)


def main():
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        names = subprocess.check_output([sys.executable, os.path.join(SOURCE, "tests", "fixtures",
                                                                      "gen_empty_groups.py"), tmp],
                                        text=True).split()
        for name in names:
            path = os.path.join(tmp, name + ".parquet")
            try:
                want = pq.read_table(path)
                got = pqstep.read_table(path)
                check(got.schema == want.schema, "%s: schema %s, pyarrow %s" % (name, got.schema, want.schema))
                check(got.equals(want), "%s: values %s, pyarrow %s" % (name, got.to_pylist(), want.to_pylist()))
                with pqstep.Reader(path) as r:
                    batches = list(r.iter_batches(batch_size=4))
                check(pa.Table.from_batches(batches).equals(want), "%s: iter_batches" % name)
                streamed = pa.RecordBatchReader.from_stream(pqstep.scan(path)).read_all()
                check(streamed.equals(want), "%s: the Arrow stream" % name)
                with pqstep.dataset([path]) as ds:
                    check(ds.to_table().equals(want), "%s: a dataset of it" % name)
                kept = pqstep.read_table(path, filter="id >= 3")
                check(kept.equals(want.filter(pa.compute.greater_equal(want["id"], 3))), "%s: filtered" % name)
                some = pqstep.read_table(path, columns=["id"])
                check(some.column_names == ["id"], "%s: columns=['id'] gave %s" % (name, some.column_names))
                if CLI:
                    p = subprocess.run([CLI, "cat", path], capture_output=True, text=True)
                    check(p.returncode == 0, "%s: pqstep cat exit %d: %s" % (name, p.returncode, p.stderr))
                    lines = p.stdout.splitlines()
                    check(len(lines) == want.num_rows + 1, "%s: pqstep cat printed %d lines" % (name, len(lines)))
                    empty = [f.name for f in want.schema if f.name not in ("id", "s")][0]
                    check(empty in lines[0], "%s: pqstep cat header %r" % (name, lines[0]))
                    p = subprocess.run([CLI, "schema", path], capture_output=True, text=True)
                    check(p.returncode == 0 and empty in p.stdout, "%s: pqstep schema" % name)
                print("ok   %s: %s" % (name, ", ".join(str(f.type) for f in want.schema)))
            except AssertionError as e:
                failures += 1
                print("FAIL %s" % e)
    if not CLI:
        print("NOTE: PQSTEP_CLI not set: the pqstep cat / schema checks were skipped")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
