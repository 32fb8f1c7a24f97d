#!/usr/bin/env python3
"""The CPU executor takes dictionary pages and data pages two at a time and
decompresses two SNAPPY pages together (pages/cpu_exec.c dictionary_pair,
data_pair; pq_snappy_decompress_two) before decoding each. Files written here by pyarrow with snappy and small
pages (4-32 KiB: many pages a chunk, odd and even counts), pages v1 and v2,
columns whose pages take every path a pair meets: optional values with
nulls, PLAIN strings (sized in a pass, then placed), dictionary-encoded
strings, a list of int64 (levels), a required int64 decompressed two pages
at a time straight into their place in the output, PLAIN booleans (encrypted pages, each decrypted into a
buffer of its own in a pair, are tests/py/test_encryption.py's). Read whole, by columns, over a row range
and filtered, at 1 and 2 threads, with strings as `string` and as views,
each equal to pyarrow's read; with one dictionary and with dictionaries
for every column (pairs of dictionary pages). A corrupt data or dictionary
page beside a sound one is named in the error (its own page number, found with `pqstep pages --json`), and the
sound page of the pair is not blamed.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from read_oracle import Checks, pa, pq, pqstep  # noqa: E402

import numpy as np  # noqa: E402
import pyarrow.compute as pc  # noqa: E402

N = 20001
CLI = os.environ.get("PQSTEP_CLI")


def table():
    rng = np.random.default_rng(5)
    words = np.array(["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"])
    opt = rng.integers(-2**40, 2**40, N)
    nulls = rng.random(N) < 0.1
    lists = [list(range(int(v) % 5)) if v % 7 else None for v in rng.integers(0, 1000, N)]
    fields = [
        pa.field("opt_i64", pa.int64()),
        pa.field("req_i64", pa.int64(), nullable=False),
        pa.field("d", pa.float64()),
        pa.field("plain_s", pa.string()),
        pa.field("dict_s", pa.string()),
        pa.field("lst", pa.list_(pa.int64())),
        pa.field("b", pa.bool_()),
    ]
    return pa.table([
        pa.array(opt, mask=nulls),
        pa.array(np.repeat(rng.integers(0, 2**50, N // 3 + 1), 3)[:N]),
        pa.array(np.round(rng.random(N) * 1000, 2)),
        pa.array(["row %d %s" % (i, words[i % 8] * (i % 4)) if i % 11 else None for i in range(N)]),
        pa.array(words[rng.integers(0, 8, N)]),
        pa.array(lists, pa.list_(pa.int64())),
        pa.array(rng.random(N) < 0.5),
    ], schema=pa.schema(fields))


def write(t, path, version, page_size, dictionary=("dict_s",)):
    pq.write_table(t, path, row_group_size=7000, data_page_size=page_size, data_page_version=version,
                   compression="snappy", use_dictionary=dictionary if dictionary is True else list(dictionary),
                   write_statistics=True)


def pages_of(path, column):
    out = subprocess.run([CLI, "pages", "--json", "--column", column, path], capture_output=True, text=True,
                         check=True).stdout
    return [p for c in json.loads(out)["chunks"] for p in c["pages"]]


def varint(v):
    out = bytearray()
    while True:
        out.append(v & 0x7F | (0x80 if v >= 0x80 else 0))
        v >>= 7
        if not v:
            return bytes(out)


def corrupt_page(path, page):
    """The page's snappy preamble (the varint of its uncompressed bytes, the
    first bytes after its header, and after a v2 page's levels) made to say
    one byte fewer, in as many bytes. Returns the bytes it now says."""
    data = bytearray(open(path, "rb").read())
    at = page["offset"] + page["header_size"]
    if page["type"] == "DATA_PAGE_V2":
        at += (page["def_levels_byte_length"] or 0) + (page["rep_levels_byte_length"] or 0)
    n, shift, k = 0, 0, at
    while True:
        b = data[k]
        n |= (b & 0x7F) << shift
        k += 1
        shift += 7
        if b < 0x80:
            break
    assert n == page["uncompressed_size"] - (at - page["offset"] - page["header_size"]), "not the preamble"
    short = varint(n - 1)
    assert len(short) == k - at, "the preamble's length changes"
    data[at:k] = short
    open(path, "wb").write(bytes(data))
    return n - 1


def main():
    t = table()
    check = Checks()

    if not CLI or not os.access(CLI, os.X_OK):
        print("SKIP: PQSTEP_CLI is not set to an executable (%r): the corrupt pages are found with it" % CLI)
        return 77
    with tempfile.TemporaryDirectory(prefix="pqstep-pairs-") as tmp:
        path = os.path.join(tmp, "t.parquet")
        for version, page_size, dictionary in (("1.0", 4096, ("dict_s",)), ("1.0", 32768, ("dict_s",)),
                                               ("2.0", 4096, ("dict_s",)), ("2.0", 32768, ("dict_s",)),
                                               ("1.0", 8192, True), ("2.0", 8192, True)):
            if True:
                write(t, path, version, page_size, dictionary)
                want = pq.read_table(path)
                n_pages = len(pages_of(path, "plain_s"))
                what = "pages v%s of %d bytes (%d pages of plain_s), %s" % (
                    version, page_size, n_pages, "dictionaries for all" if dictionary is True else "one dictionary")
                check(n_pages >= 6, what + ": several pages a chunk")
                for threads in (1, 2):
                    for strings in ("string", "string_view"):
                        got = pqstep.read_table(path, threads=threads, strings=strings)
                        check(got.cast(want.schema).equals(want), "%s, whole, %d thread(s), %s" % (what, threads,
                                                                                                   strings))
                got = pqstep.read_table(path, columns=["plain_s", "opt_i64", "lst"], threads=2, strings="string")
                check(got.equals(want.select(["plain_s", "opt_i64", "lst"])), what + ", three columns (as named)")
                got = pqstep.read_table(path, row_offset=3001, row_limit=9000, threads=2, strings="string")
                check(got.equals(want.slice(3001, 9000)), what + ", rows 3001..12001")
                got = pqstep.read_table(path, filter="d < 300", threads=2, strings="string")
                check(got.equals(want.filter(pc.less(want["d"], 300))), what + ", filtered")

        # A corrupt page in each place of a pair: the error names it (an
        # optional column's pages go to the page buffers, a required
        # PLAIN one's straight into their place in the output).
        for version, column in (("1.0", "opt_i64"), ("2.0", "opt_i64"), ("1.0", "req_i64"), ("2.0", "req_i64")):
            write(t, path, version, 4096)
            pages = [p for p in pages_of(path, column) if p["type"] != "DICTIONARY_PAGE"]
            sound = open(path, "rb").read()
            for k in (2, 3):
                open(path, "wb").write(sound)
                declared = corrupt_page(path, pages[k])
                for threads in (1, 2):
                    try:
                        pqstep.read_table(path, columns=[column], threads=threads)
                        check(False, "v%s: a page declaring %d bytes was read" % (version, declared))
                    except pqstep.Error as e:
                        msg = str(e)
                        check("'%s': page %d " % (column, k) in msg and "SNAPPY" in msg and str(declared) in msg,
                              "v%s, %s page %d corrupt, %d thread(s): the error names it: %s" % (
                                  version, column, k, threads, msg))
        # A corrupt dictionary page (row group 1's of opt_i64, beside other
        # dictionaries of several KiB): named in the error.
        write(t, path, "1.0", 8192, True)
        dicts = [p for p in pages_of(path, "opt_i64") if p["type"] == "DICTIONARY_PAGE"]
        check(len(dicts) == 3 and dicts[1]["uncompressed_size"] >= 4096, "three dictionaries of opt_i64 of 4 KiB or more")
        declared = corrupt_page(path, dicts[1])
        for threads in (1, 2):
            try:
                pqstep.read_table(path, threads=threads)
                check(False, "a dictionary page declaring %d bytes was read" % declared)
            except pqstep.Error as e:
                msg = str(e)
                check("RowGroup[1]" in msg and "'opt_i64'" in msg and "DICTIONARY_PAGE" in msg and
                      str(declared) in msg, "the corrupt dictionary named, %d thread(s): %s" % (threads, msg))
    print("data and dictionary pages in pairs: %d checks, %d failed" % (check.n, check.failed))
    return 1 if check.failed else 0


if __name__ == "__main__":
    sys.exit(main())
