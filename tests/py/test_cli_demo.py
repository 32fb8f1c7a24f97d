#!/usr/bin/env python3
"""test_cli_demo.py — `pqstep demo`: the stages and both experiments.

On the bundled sample (and on a corpus file given as FILE) the demo must
print every stage with the row and row-group counts pyarrow reads from the
footer, and the experiments' footer parses as the library counts them:
1 for the bulk read that parses, 0 with the cached pq_metadata, one per row
group for the row-group reads without reuse, 1 with the cache; every
experiment must read every row. Usage errors exit 2, a missing file exits 1
with one line.

Environment (set by ctest): PQSTEP_CLI, PQSTEP_SOURCE_DIR, PQSTEP_TEST_CORPUS or
PQSTEP_DEFAULT_CORPUS. Exit 0 pass, 1 fail, 77 skip.
"""
import os
import re
import subprocess
import sys

SKIP = 77
import pyarrow.parquet as pq

CLI = os.environ.get("PQSTEP_CLI")
SOURCE = os.environ.get("PQSTEP_SOURCE_DIR") or os.path.join(os.path.dirname(__file__), "..", "..")
CORPUS = os.environ.get("PQSTEP_TEST_CORPUS") or os.environ.get("PQSTEP_DEFAULT_CORPUS")
ROW = re.compile(r"^\s+(A\.|B\.)?\s*(.+?)\s+([\d.]+) (us|ms)\s+(\d+)\s+(\d+)$")


def run(*args, cwd=None):
    p = subprocess.run([CLI] + [str(a) for a in args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       cwd=cwd)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def check_demo(path, args, cwd=None):
    md = pq.ParquetFile(path).metadata
    code, out, err = run("demo", "--repeat", "1", *args, cwd=cwd)
    assert code == 0, (code, err)
    assert "%d row groups, %d leaf columns, %d rows" % (md.num_row_groups, md.num_columns, md.num_rows) \
        in out, out
    for stage in ("init", "footer", "select", "pages", "decode"):
        assert re.search(r"^  %s\s" % stage, out, re.M), "no %s line:\n%s" % (stage, out)
    assert "%d rows, " % md.num_rows in out.split("  decode")[1], out
    rows = [m.groups() for m in map(ROW.match, out.splitlines()) if m]
    assert len(rows) == 4, out
    parses = [int(r[4]) for r in rows]
    assert parses == [1, 0, md.num_row_groups, 1], parses
    assert all(int(r[5]) == md.num_rows for r in rows), rows
    assert "footer parses counted by the library: B %d without reuse, 1 with reuse" % md.num_row_groups \
        in out, out


def main():
    if not CLI or not os.path.exists(CLI):
        print("SKIP: PQSTEP_CLI is not set to the pqstep binary")
        return SKIP
    failed = passed = 0
    tests = [("sample (default FILE, run from the source tree)",
              lambda: check_demo(os.path.join(SOURCE, "data", "sample", "lineitem_61rg.parquet"), [],
                                 cwd=SOURCE))]
    corpus_file = os.path.join(CORPUS or "", "data", "alltypes_tiny_pages.parquet")
    if os.path.exists(corpus_file):
        tests.append(("a corpus file as FILE", lambda: check_demo(corpus_file, [corpus_file])))
    else:
        print("skip corpus FILE: %s not found" % corpus_file)

    def usage():
        for args in (["--repeat", "0"], ["--repeat"], ["--bogus"], ["a", "b"]):
            code, _, err = run("demo", *args)
            assert code == 2 and "usage: pqstep demo" in err, (args, code, err)
        code, out, err = run("demo", "/nonexistent/x.parquet")
        assert code == 1 and err.count("\n") == 1 and err.startswith("pqstep: /nonexistent"), (code, err)
    tests.append(("usage and errors", usage))
    for name, fn in tests:
        try:
            fn()
            passed += 1
            print("ok   %s" % name)
        except AssertionError as e:
            failed += 1
            print("FAIL %s: %s" % (name, str(e)[:2000]))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
