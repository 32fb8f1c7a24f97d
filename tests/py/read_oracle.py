"""read_oracle.py — shared by the tests that read tables with pqstep and
compare them with pyarrow (test_read_flat.py, test_read_nested.py).

Importing it sets up the environment the same way for both: pyarrow, the
corpus and the library must be there, else the test exits 77 saying which is
missing; then `pqstep` is importable from the source tree's python/.
"""
import os
import sys

SKIP = 77
import pyarrow as pa
import pyarrow.parquet as pq  # noqa: F401  (re-exported for the tests)

CORPUS = os.environ.get("PQSTEP_TEST_CORPUS") or os.environ.get("PQSTEP_DEFAULT_CORPUS")
SOURCE = os.environ.get("PQSTEP_SOURCE_DIR") or os.path.join(os.path.dirname(__file__), "..", "..")
if not os.environ.get("PQSTEP_LIBRARY") or not os.path.exists(os.environ["PQSTEP_LIBRARY"]):
    print("SKIP: PQSTEP_LIBRARY is not set to an existing library")
    sys.exit(SKIP)
if not CORPUS or not os.path.isdir(os.path.join(CORPUS, "data")):
    print("SKIP: corpus not found (PQSTEP_TEST_CORPUS / PQSTEP_DEFAULT_CORPUS = %r)" % CORPUS)
    sys.exit(SKIP)
sys.path.insert(0, os.path.join(SOURCE, "python"))
import pqstep  # noqa: E402,F401


def int96_beyond_ns(path):
    """Whether the file holds an INT96 timestamp outside the nanosecond
    range, which pyarrow wraps into a wrong date and pqstep refuses by
    default (README, "Where pqstep differs from pyarrow"; test_int96 checks
    such files): the one accepted exception of the tests that compare whole
    files with pyarrow."""
    try:
        schema = pq.ParquetFile(path).schema
        if not any(schema.column(i).physical_type == "INT96" for i in range(len(schema))):
            return False
        t = pq.read_table(path, coerce_int96_timestamp_unit="s")
    except Exception:
        return False
    lo, hi = -9223372037, 9223372036  # int64 nanoseconds, as whole seconds

    def beyond(arr):
        if pa.types.is_timestamp(arr.type):
            v = [x for x in arr.cast(pa.int64()).to_pylist() if x is not None]
            return any(x < lo or x > hi for x in v)
        if pa.types.is_struct(arr.type):
            return any(beyond(arr.field(i)) for i in range(arr.type.num_fields))
        if pa.types.is_list(arr.type) or pa.types.is_large_list(arr.type):
            return beyond(arr.flatten())
        if pa.types.is_map(arr.type):
            return beyond(arr.keys) or beyond(arr.items)
        return False
    return any(beyond(c.combine_chunks()) for c in t.columns)


class Checks:
    """A test's checks: check(ok, what) counts one and prints "FAIL what"
    when ok is false; .n and .failed for the summary and exit status."""

    def __init__(self):
        self.n = self.failed = 0

    def __call__(self, ok, what):
        self.n += 1
        if not ok:
            self.failed += 1
            print("FAIL " + what)


def _float_bits(arr):
    """Floats as their bits, so that NaN equals NaN."""
    t = arr.type
    if pa.types.is_floating(t):
        return arr.view({2: pa.int16(), 4: pa.int32(), 8: pa.int64()}[t.bit_width // 8])
    return arr


def same_value(p, q):
    """Python values equal, NaN equal to NaN at any depth."""
    if isinstance(p, float) and isinstance(q, float):
        return p == q or (p != p and q != q)
    if isinstance(p, (list, tuple)) and isinstance(q, (list, tuple)):
        return len(p) == len(q) and all(same_value(x, y) for x, y in zip(p, q))
    if isinstance(p, dict) and isinstance(q, dict):
        return p.keys() == q.keys() and all(same_value(p[k], q[k]) for k in p)
    return p == q


def same(ours, theirs, what, float_bits=False, validate=False):
    """Assert two tables or record batches are equal column by column, naming
    the first differing row. float_bits: compare top-level float columns by
    their bits (NaN equals NaN). validate: run ours through
    Array.validate(full=True) first."""
    conv = _float_bits if float_bits else (lambda a: a)
    assert ours.num_columns == theirs.num_columns, "%s: %d columns, pyarrow %d" % (
        what, ours.num_columns, theirs.num_columns)
    assert ours.num_rows == theirs.num_rows, "%s: %d rows, pyarrow %d" % (
        what, ours.num_rows, theirs.num_rows)
    for k in range(ours.num_columns):
        a = ours.column(k)
        b = theirs.column(k)
        if isinstance(a, pa.ChunkedArray):
            a = a.combine_chunks()
        if isinstance(b, pa.ChunkedArray):
            b = b.combine_chunks()
        name = ours.schema.field(k).name
        assert a.type == b.type, "%s column %s: type %s, pyarrow %s" % (what, name, a.type, b.type)
        if validate:
            a.validate(full=True)
        assert a.null_count == b.null_count, "%s column %s: %d nulls, pyarrow %d" % (
            what, name, a.null_count, b.null_count)
        if not conv(a).equals(conv(b)):
            for i in range(len(a)):
                if not conv(a.slice(i, 1)).equals(conv(b.slice(i, 1))):
                    raise AssertionError("%s column %s row %d: %r, pyarrow %r" % (
                        what, name, i, a[i], b[i]))
            raise AssertionError("%s column %s differs" % (what, name))


def open_sans_io(data, text, **options):
    """A sans-IO reader of `data` (a file's bytes) with the filter `text`,
    given the footer alone up front (footer_read_size), other
    pq_reader_options fields as `options`; its handle (close it)."""
    import ctypes
    from pqstep import _lib as _c
    err = _c.pq_error()
    flt = _c.pq_expr_parse(text.encode(), ctypes.byref(err))
    assert flt, err.message
    opts = _c.pq_reader_options()
    _c.pq_reader_options_init(ctypes.byref(opts))
    opts.filter = flt
    opts.footer_read_size = int.from_bytes(data[-8:-4], "little") + 8  # just the footer
    for name, value in options.items():
        setattr(opts, name, value)
    h = _c.pq_reader_open_sans_io(len(data), ctypes.byref(opts), ctypes.byref(err))
    _c.pq_expr_free(flt)  # the reader keeps its own copy
    assert h, err.message
    return h


def sans_io_advance(h, data, max_rounds=10):
    """Drive sans-IO reader handle `h` to the decode stage, supplying from
    `data` (the file's bytes) every range it asks for. Returns the rounds:
    [(stage it was at, [(offset, length), ...]), ...]."""
    import ctypes
    from pqstep import _lib as _c
    err = _c.pq_error()
    rounds = []
    while True:
        st = _c.pq_reader_advance_to(h, _c.PQ_STAGE_DECODE, ctypes.byref(err))
        if st == _c.PQ_OK:
            return rounds
        assert st == _c.PQ_ERR_NEED_DATA, err.message
        n = _c.pq_reader_needed_ranges(h, None, 0)
        assert n > 0, "NEED_DATA without ranges at stage %d" % _c.pq_reader_stage(h)
        arr = (_c.pq_range * n)()
        assert _c.pq_reader_needed_ranges(h, arr, n) == n
        rounds.append((_c.pq_reader_stage(h), [(x.offset, x.length) for x in arr]))
        for x in arr:
            chunk = data[x.offset:x.offset + x.length]
            assert _c.pq_reader_supply(h, x.offset, chunk, len(chunk), ctypes.byref(err)) == 0, err.message
        assert len(rounds) < max_rounds, rounds


def all_batches(h, max_rows=0):
    """Every record batch of reader handle `h` (pq_reader_next_batch) until
    the end of data, as pyarrow.RecordBatch objects."""
    import ctypes
    from pqstep import _lib as _c
    err = _c.pq_error()
    batches = []
    while True:
        abuf = ctypes.create_string_buffer(_c.ARROW_ARRAY_SIZE)
        sbuf = ctypes.create_string_buffer(_c.ARROW_SCHEMA_SIZE)
        st = _c.pq_reader_next_batch(h, max_rows, ctypes.addressof(abuf), ctypes.addressof(sbuf), ctypes.byref(err))
        assert st == _c.PQ_OK, err.message
        if not ctypes.c_void_p.from_buffer(abuf, _c.ARROW_ARRAY_SIZE - 16).value:
            return batches
        batches.append(pa.RecordBatch._import_from_c(ctypes.addressof(abuf), ctypes.addressof(sbuf)))
