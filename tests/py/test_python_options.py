#!/usr/bin/env python3
"""pqstep._options.ReadOptions (issue 32): the one object that holds every
reader option and the only code that fills a C pq_reader_options.

- Each option, given a value other than its default, changes exactly the
  pq_reader_options fields it maps onto (read back from the ctypes struct
  to_c() filled), to the value include/pq_reader.h gives it: the enum and
  bit values are read from the header here, not from the binding.
- Every field of the struct is either some option's or one of the footer
  source's (metadata, footer bytes, cache), so a field added to the C
  struct fails this test until an option maps it.
- With no option given, the struct equals pq_reader_options_init's.
- A bad value raises ValueError or TypeError naming the option, from
  ReadOptions and from the entry points that build one (read_table,
  Reader, scan, dataset, pqstep.dask's read_parquet).
"""
import ctypes
import os
import pickle
import re
import sys

SOURCE = os.environ.get("PQSTEP_SOURCE_DIR") or os.path.join(os.path.dirname(__file__), "..", "..")
if not os.environ.get("PQSTEP_LIBRARY") or not os.path.exists(os.environ["PQSTEP_LIBRARY"]):
    print("SKIP: PQSTEP_LIBRARY is not set to an existing library")
    sys.exit(77)
sys.path.insert(0, os.path.join(SOURCE, "python"))
import pyarrow as pa  # noqa: E402

import pqstep  # noqa: E402
from pqstep import _lib as _c  # noqa: E402
from pqstep._options import FOOTER_SOURCE_FIELDS, OPTIONS, ReadOptions  # noqa: E402

SAMPLE = os.path.join(SOURCE, "data", "sample", "lineitem_61rg.parquet")


def header_enums():
    """NAME -> value of the PQ_STRINGS_*, PQ_DECIMALS_*, PQ_DEVICE_* and
    PQ_PRUNE_* enumerators, as include/pq_reader.h writes them, the
    PQ_UNIT_* of include/pq_metadata.h, and the test-only
    PQ_DEVICE_HOST_KERNELS, as device/choice.h defines it."""
    text = open(os.path.join(SOURCE, "include", "pq_reader.h")).read()
    text += open(os.path.join(SOURCE, "include", "pq_metadata.h")).read()
    out = {}
    choice = open(os.path.join(SOURCE, "device", "choice.h")).read()
    for name, value in re.findall(r"#define (PQ_DEVICE_HOST_KERNELS) ([0-9]+)u?", choice):
        out[name] = int(value)
    enumerator = r"\b(PQ_(?:STRINGS|DECIMALS|DEVICE|PRUNE|UNIT)_[A-Z0-9_]+)\s*=\s*([0-9]+)u?(?:\s*<<\s*([0-9]+))?"
    for name, value, shift in re.findall(enumerator, text):
        out[name] = int(value) << int(shift or 0)
    return out


H = header_enums()


def fields(o):
    """The struct's fields as Python values (arrays of indexes read back)."""
    out = {}
    for name, _ in type(o)._fields_:
        v = getattr(o, name)
        if name in ("columns", "row_groups"):
            n = getattr(o, name + "_len")
            v = None if not v else [v[i] for i in range(n)]
        if name == "deleted_rows":  # a const uint64_t * of deleted_rows_len entries
            n = getattr(o, "deleted_rows_len")
            v = None if not v else list((ctypes.c_uint64 * n).from_address(v))
        out[name] = v
    return out


def expr_text(handle):
    buf = ctypes.create_string_buffer(256)
    _c.pq_expr_format(handle, buf, len(buf))
    return buf.value.decode()


def check(ok, what):
    if not ok:
        raise AssertionError(what)


def test_mapping():
    init = _c.pq_reader_options()
    _c.pq_reader_options_init(ctypes.byref(init))
    base = fields(init)
    struct_fields = {n for n, _ in _c.pq_reader_options._fields_}
    mapped = {f for _, _, fs in OPTIONS.values() for f in fs}
    # struct_size is pq_reader_options_init's to set, and to_c calls it.
    check(mapped | set(FOOTER_SOURCE_FIELDS) | {"struct_size"} == struct_fields,
          "fields no option maps: %s; options mapping no field: %s"
          % (struct_fields - mapped - set(FOOTER_SOURCE_FIELDS) - {"struct_size"}, mapped - struct_fields))
    check(init.struct_size == ctypes.sizeof(init), "struct_size %d, sizeof %d" % (init.struct_size,
                                                                                   ctypes.sizeof(init)))
    got, keep = ReadOptions().to_c()
    check(fields(got) == base, "defaults differ from pq_reader_options_init: %s" % fields(got))

    host = b"PAR1 a file in host memory PAR1"
    # option: (value, {C field: value include/pq_reader.h gives it})
    cases = {
        "columns": ([3, 0, 7], {"columns": [3, 0, 7], "columns_len": 3}),
        "row_groups": ((5, 1), {"row_groups": [5, 1], "row_groups_len": 2}),
        "filter": ("l_quantity < 24", {"filter": "l_quantity < 24"}),
        "row_offset": (1500, {"row_offset": 1500}),
        "row_limit": (10, {"row_limit": 10}),
        "threads": (3, {"threads": 3}),
        "validate_utf8": (True, {"validate_utf8": True}),
        "memory_limit": (64 << 20, {"memory_limit": 64 << 20}),
        "prune": ({"statistics", "page_index"},
                  {"prune_disable": H["PQ_PRUNE_DICTIONARY"] | H["PQ_PRUNE_BLOOM_FILTER"]}),
        "prune_only": (True, {"prune_only": True}),
        "strings": ("large_string", {"string_type": H["PQ_STRINGS_LARGE"]}),
        "decimals": ("decimal64", {"decimal_type": H["PQ_DECIMALS_64"]}),
        "follow_arrow_schema": (False, {"follow_arrow_schema": False}),
        "int96_unit": ("us", {"int96_unit": H["PQ_UNIT_MICROS"]}),
        "device": ("host-kernels", {"device": H["PQ_DEVICE_HOST_KERNELS"]}),
        "device_output": (True, {"device_output": True}),
        "device_file": (host, {"device_file": pa.py_buffer(host).address, "device_file_size": len(host)}),
        "mmap": (False, {"no_mmap": True}),
        "coalescing": (False, {"no_coalescing": True}),
        "coalesce_gap": (4096, {"coalesce_gap": 4096}),
        "coalesce_max": (1 << 20, {"coalesce_max": 1 << 20}),
        "verify_checksums": (True, {"verify_checksums": True}),
        "footer_read_size": (1024, {"footer_read_size": 1024}),
        "decryption": (pqstep.Decryption(footer_key=b"k" * 16), {"decryption": "keys"}),
        "deleted_rows": (pa.array([9, 2, 2], pa.int64()), {"deleted_rows": [9, 2, 2], "deleted_rows_len": 3}),
        "row_index": ("pos", {"row_index_name": b"pos"}),
        "variant_storage": (True, {"variant_storage": True}),
    }
    check(set(cases) == set(OPTIONS), "options without a case: %s" % (set(OPTIONS) ^ set(cases)))
    for name, (value, want) in cases.items():
        o, keep = ReadOptions(**{name: value}).to_c()
        f = fields(o)
        if "filter" in want:
            check(f["filter"], "filter: no expression")
            f["filter"] = expr_text(f["filter"])
        if "decryption" in want:  # a pq_decryption holding the footer key given
            d = ctypes.cast(f["decryption"], ctypes.POINTER(_c.pq_decryption)).contents
            check(d.struct_size == ctypes.sizeof(_c.pq_decryption) and
                  ctypes.string_at(d.footer_key, d.footer_key_len) == b"k" * 16, "decryption: the keys")
            f["decryption"] = "keys"
        changed = {k: v for k, v in f.items() if v != base[k]}
        check(changed == want, "%s=%r sets %s, want %s" % (name, value, changed, want))
        check(set(want) == set(OPTIONS[name][2]), "%s: OPTIONS names %s" % (name, OPTIONS[name][2]))
    # prune=False: every step off; (address, size) as given
    check(ReadOptions(prune=False).to_c()[0].prune_disable == sum(v for k, v in H.items() if k.startswith("PQ_PRUNE_")),
          "prune=False")
    o = ReadOptions(device_file=(0x1000, 4096)).to_c()[0]
    check((o.device_file, o.device_file_size) == (0x1000, 4096), "device_file (address, size)")
    # the footer source: arguments of to_c, not options
    md = pqstep.read_metadata(SAMPLE)
    with pqstep.MetadataCache(1 << 20) as cache:
        o, keep = ReadOptions().to_c(metadata=md._live(), footer_bytes=b"abc", cache=cache._live())
        check(o.metadata == md._live() and o.cache == cache._live(), "metadata, cache")
        check(ctypes.string_at(o.footer_bytes, o.footer_bytes_len) == b"abc", "footer_bytes")
    # a caller's pq_reader_options filled in place
    into = _c.pq_reader_options()
    ReadOptions(strings="string_view", memory_limit=1 << 30).to_c(into=into)
    check((into.string_type, into.memory_limit, into.struct_size)
          == (H["PQ_STRINGS_VIEW"], 1 << 30, ctypes.sizeof(into)), "into=")
    # the selection a Reader reselects with
    sel, keep = ReadOptions(columns=[2], row_groups=[4], row_offset=9, row_limit=3, filter="l_orderkey = 1",
                            prune={"statistics"}).selection()
    check((sel.columns[0], sel.columns_len, sel.row_groups[0], sel.row_offset, sel.row_limit, sel.prune_disable)
          == (2, 1, 4, 9, 3, 0xF & ~H["PQ_PRUNE_STATISTICS"]), "selection")
    check(expr_text(sel.filter) == "l_orderkey = 1", "selection filter %r" % expr_text(sel.filter))
    print("mapping: %d options onto %d fields (+ %d footer-source fields), defaults = pq_reader_options_init"
          % (len(OPTIONS), len(mapped), len(FOOTER_SOURCE_FIELDS)))


def expect(exc, fn, needle):
    try:
        fn()
    except exc as e:
        check(needle in str(e), "%s %r does not name %r" % (exc.__name__, str(e), needle))
        return e
    raise AssertionError("%s: nothing raised (%s expected)" % (needle, exc.__name__))


def test_bad_values():
    bad = [("threads", -1, ValueError), ("threads", "4", ValueError), ("threads", 1 << 32, ValueError),
           ("row_offset", -5, ValueError), ("row_limit", 2.5, ValueError), ("memory_limit", True, ValueError),
           ("coalesce_gap", None, ValueError), ("footer_read_size", -1, ValueError),
           ("strings", "large", ValueError), ("decimals", "decimal32", ValueError),
           ("device", "gpu", ValueError), ("int96_unit", "ps", ValueError), ("int96_unit", 2, ValueError), ("prune", {"statistcs"}, ValueError), ("prune", 3, TypeError),
           ("filter", 7, TypeError), ("columns", "abc", TypeError), ("row_groups", 3, TypeError),
           ("device_file", object(), TypeError), ("device_file", (0, 10), ValueError)]
    for name, value, exc in bad:
        needle = {"prune": "prun", "device_file": "device_file"}.get(name, name)
        expect(exc, lambda: ReadOptions(**{name: value}), needle)
    for name, value in (("row_groups", [-1]), ("columns", [1 << 32])):
        e = expect(pqstep.Error, lambda: ReadOptions(**{name: value}), "index out of range")
        check(e.code == "invalid argument", e.code)
    expect(TypeError, lambda: ReadOptions(thread=2), "thread")
    o = ReadOptions(threads=2)
    expect(AttributeError, lambda: setattr(o, "threads", 3), "replace")
    check(o.replace(threads=4).threads == 4 and o.threads == 2, "replace")
    check(pickle.loads(pickle.dumps(o)) == o, "pickle")
    # the entry points build one ReadOptions: the same checks, the same messages
    expect(ValueError, lambda: pqstep.read_table(SAMPLE, threads=-2), "threads")
    expect(ValueError, lambda: pqstep.read_table(SAMPLE, memory_limit=-1), "memory_limit")
    expect(ValueError, lambda: pqstep.Reader(SAMPLE, strings="utf8"), "strings")
    expect(ValueError, lambda: pqstep.scan(SAMPLE, decimals="decimal256"), "decimals")
    expect(ValueError, lambda: pqstep.dataset(SAMPLE, threads=-1), "threads")
    with pqstep.Reader(SAMPLE) as r:
        expect(ValueError, lambda: r.read(row_offset=-1), "row_offset")
        expect(ValueError, lambda: r.scan(prune={"bloom"}), "prun")
        expect(ValueError, lambda: next(r.iter_batches(threads=-1)), "threads")
    print("bad values: %d refused by ReadOptions, 8 by the entry points" % (len(bad) + 3))


def test_read_through_options():
    """The options reach the C reader: the output types and row range of a
    real read are those asked for."""
    t = pqstep.read_table(SAMPLE, columns=["l_orderkey", "l_shipmode"], row_groups=[2], row_offset=5,
                          row_limit=7, strings="large_string", threads=1)
    check(t.num_rows == 7 and t.schema.field("l_shipmode").type == pa.large_string(), t.schema)
    import pyarrow.parquet as pq
    want = pq.ParquetFile(SAMPLE).read_row_group(2, columns=["l_orderkey"]).column(0).slice(5, 7)
    check(t.column("l_orderkey").combine_chunks() == want.combine_chunks(), "rows 5..12 of row group 2")
    with pqstep.Reader(SAMPLE, strings="string_view") as r:
        check(r.scan(columns=["l_shipmode"]).schema.field(0).type == pa.string_view(), "Reader.scan inherits")
        check(r.read_row_group(0, columns=["l_shipmode"]).schema.field(0).type == pa.string_view(),
              "read_row_group inherits")
    print("read: row range and output types reach the reader")


def main():
    test_mapping()
    test_bad_values()
    test_read_through_options()
    print("3 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
