"""Bloom filters with no bloom_filter_length, longer than the speculative
first read (PQ_BLOOM_SPECULATIVE_READ, 65 KiB), read by a sans-IO reader.

pyarrow writes 200k distinct even int64 keys in 2 row groups with a 128 KiB
bloom filter per chunk; the footer is then patched, keeping its size, so
that bloom_filter_length reads 0 (a non-canonical varint of 0), which the
reader takes as "no length". The sans-IO select stage must ask for the
speculative guess, then (its header saying the filter is longer) for header
+ bitset whole: two rounds, no prune_warnings. An odd key inside min/max
that both filters reject (checked with a Python XXH64 + split-block check
of the file's bitsets, itself checked on the present keys) prunes both row
groups; a present key's rows equal pyarrow's. A file-source read of the
same file prunes the same way.
"""
import ctypes
import os
import shutil
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from read_oracle import all_batches, open_sans_io, pa, pq, pqstep, same, sans_io_advance  # noqa: E402

import pyarrow.compute as pc  # noqa: E402

import numpy as np  # noqa: E402

from pqstep import _lib as _c  # noqa: E402

# PQ_PRUNE_* (include/pq_reader.h): statistics and dictionary steps off
PQ_PRUNE_STATISTICS, PQ_PRUNE_DICTIONARY = 1 << 0, 1 << 1

M64 = (1 << 64) - 1
P1, P2, P3, P4, P5 = (0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9,
                      0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5)
SALT = (0x47B6137B, 0x44974D91, 0x8824AD5B, 0xA2B7289D, 0x705495C7, 0x2DF1424B, 0x9EFC4947, 0x5C6BFB31)


def rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & M64


def xxh64_i64(v):
    """XXH64, seed 0, of one int64's 8 little-endian bytes (the spec's hash)."""
    lane = v & M64
    h = (P5 + 8) & M64
    k = rotl(lane * P2 & M64, 31) * P1 & M64
    h ^= k
    h = (rotl(h, 27) * P1 + P4) & M64
    h ^= h >> 33
    h = h * P2 & M64
    h ^= h >> 29
    h = h * P3 & M64
    h ^= h >> 32
    return h


def sbbf_has(words, h):
    nblocks = len(words) // 8
    b = ((h >> 32) * nblocks) >> 32
    key = h & 0xFFFFFFFF
    for i in range(8):
        if not (words[8 * b + i] >> (((key * SALT[i]) & 0xFFFFFFFF) >> 27)) & 1:
            return False
    return True


def varint(n):
    out = bytearray()
    while True:
        if n < 0x80:
            out.append(n)
            return bytes(out)
        out.append(n & 0x7F | 0x80)
        n >>= 7


def make_file(tmp):
    rng = np.random.default_rng(20240611)
    keys = rng.permutation(np.arange(0, 400000, 2, dtype=np.int64))  # even: odd values are absent
    t = pa.table({"key": pa.array(keys), "v": pa.array(np.arange(len(keys), dtype=np.int32))})
    path = os.path.join(tmp, "bloom_nolen.parquet")
    pq.write_table(t, path, row_group_size=100000, use_dictionary=False,
                   bloom_filter_options={"key": {"ndv": 200000, "fpp": 0.01}})
    md = pq.ParquetFile(path).metadata
    assert md.num_row_groups == 2, md.num_row_groups
    data = bytearray(open(path, "rb").read())
    flen = struct.unpack("<I", data[-8:-4])[0]
    fstart = len(data) - 8 - flen
    filters = []
    for g in range(md.num_row_groups):
        d = md.row_group(g).column(0).to_dict()
        off, length = d["bloom_filter_offset"], d["bloom_filter_length"]
        assert off and length and length > 65 * 1024, d  # longer than the speculative read
        nbytes = 1 << (length.bit_length() - 1)  # the bitset: a power of two, after a short header
        assert 0 < length - nbytes < 64, (length, nbytes)
        words = struct.unpack("<%dI" % (nbytes // 4), bytes(data[off + length - nbytes:off + length]))
        # field 14 (i64, delta 1) = offset, field 15 (i32, delta 1) = length, zigzag varints
        lenv = varint(2 * length)
        pat = b"\x16" + varint(2 * off) + b"\x15" + lenv
        footer = bytes(data[fstart:len(data) - 8])
        at = footer.find(pat)
        assert at >= 0 and footer.find(pat, at + 1) < 0, "row group %d: bloom fields not found once" % g
        zero = b"\x80" * (len(lenv) - 1) + b"\x00"  # 0, same byte count
        p = fstart + at + len(pat) - len(lenv)
        data[p:p + len(lenv)] = zero
        filters.append((off, length, nbytes, words))
    open(path, "wb").write(bytes(data))
    md = pq.ParquetFile(path).metadata  # pyarrow still reads it, and sees no length
    for g in range(md.num_row_groups):
        d = md.row_group(g).column(0).to_dict()
        assert d["bloom_filter_offset"] == filters[g][0] and not d["bloom_filter_length"], d
    assert pq.read_table(path).equals(t)
    return path, t, keys, filters


def pick_values(t, keys, filters):
    """A present key, and an odd key inside every row group's min/max that
    no filter may hold (by the Python oracle, checked on present keys)."""
    md_groups = [keys[:100000], keys[100000:]]
    for g, (_, _, _, words) in enumerate(filters):
        sample = md_groups[g][:2000]
        assert all(sbbf_has(words, xxh64_i64(int(k))) for k in sample), "oracle misses a present key"
    lo = max(int(k.min()) for k in md_groups)
    hi = min(int(k.max()) for k in md_groups)
    for cand in range((lo | 1) + 2000, hi, 2):  # odd, inside every row group's range
        h = xxh64_i64(cand)
        if not any(sbbf_has(w, h) for (_, _, _, w) in filters):
            return int(keys[123]), cand
    raise AssertionError("no absent key the filters reject")


def sans_io(path, text):
    """Drive a sans-IO reader as test_filter.check_sans_io does, with only
    the bloom step (and page index) on; returns (rows, select stats, rounds
    the select stage asked for)."""
    data = open(path, "rb").read()
    h = open_sans_io(data, text, prune_disable=PQ_PRUNE_STATISTICS | PQ_PRUNE_DICTIONARY)
    try:
        stages = [stage for stage, _ in sans_io_advance(h, data)]
        sel = _c.pq_select_stats()
        _c.pq_reader_select_stats(h, ctypes.byref(sel), ctypes.sizeof(sel))
        batches = all_batches(h)
    finally:
        _c.pq_reader_close(h)
    return batches, sel, stages.count(_c.PQ_STAGE_FOOTER)


def main():
    tmp = tempfile.mkdtemp(prefix="pqstep-bloomsans-")
    try:
        path, t, keys, filters = make_file(tmp)
        present, absent = pick_values(t, keys, filters)
        groups = len(filters)

        # absent: the bloom step prunes every row group, after two rounds
        batches, sel, rounds = sans_io(path, "key = %d" % absent)
        assert sel.prune_warnings == 0, "absent: %d prune warnings" % sel.prune_warnings
        assert sel.pruned_bloom_filter == groups, "absent: %d pruned by bloom" % sel.pruned_bloom_filter
        assert sum(b.num_rows for b in batches) == 0
        assert rounds == 2, "absent: select asked %d rounds, want 2" % rounds
        absent_rounds = rounds

        # present: rows equal pyarrow's; its row group kept
        batches, sel, rounds = sans_io(path, "key = %d" % present)
        assert sel.prune_warnings == 0, "present: %d prune warnings" % sel.prune_warnings
        assert rounds == 2, "present: select asked %d rounds, want 2" % rounds
        assert sel.pruned_bloom_filter <= groups - 1, sel.pruned_bloom_filter
        theirs = t.filter(pc.field("key") == present)
        assert theirs.num_rows == 1
        ours = pa.Table.from_batches(batches) if batches else theirs.schema.empty_table()
        same(ours, theirs, "sans-IO key = %d" % present)

        # a file source reads the rest itself
        with pqstep.Reader(path) as r:
            ours = r.read(filter="key = %d" % absent, prune={"bloom_filter"})
            st = r.stage_stats("select")
        assert ours.num_rows == 0 and st["prune_warnings"] == 0 and st["pruned_bloom_filter"] == groups, st
        with pqstep.Reader(path) as r:
            ours = r.read(filter="key = %d" % present, prune={"bloom_filter"})
            st = r.stage_stats("select")
        assert st["prune_warnings"] == 0, st
        same(ours, theirs, "file source key = %d" % present)

        print("bloom filters %s bytes (no length in the footer), speculative read %d; absent key %d pruned "
              "%d/%d row groups in %d select rounds; present key %d: %d row" % (
                  "/".join(str(f[1]) for f in filters), 64 * 1024 + 1024, absent, groups, groups,
                  absent_rounds, present, theirs.num_rows))
        print("ok")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
