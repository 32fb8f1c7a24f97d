"""read_oracle.py — shared by the tests that read tables with pqstep and
compare them with pyarrow (test_read_flat.py, test_read_nested.py).

Importing it sets up the environment the same way for both: pyarrow, the
corpus and the library must be there, else the test exits 77 saying which is
missing; then `pqstep` is importable from the source tree's python/.
"""
import os
import sys

SKIP = 77
try:
    import pyarrow as pa
    import pyarrow.parquet as pq  # noqa: F401  (re-exported for the tests)
except ImportError as e:
    print("SKIP: pyarrow is not importable: %s" % e)
    sys.exit(SKIP)

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


def _float_bits(arr):
    """Floats as their bits, so that NaN equals NaN."""
    t = arr.type
    if pa.types.is_floating(t):
        return arr.view({2: pa.int16(), 4: pa.int32(), 8: pa.int64()}[t.bit_width // 8])
    return arr


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
