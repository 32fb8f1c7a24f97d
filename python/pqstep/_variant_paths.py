"""Paths into VARIANT columns among a read's `columns` ("v.a.b",
"v.items[0].id"): the leaf columns they read (pq_variant_path_leaves) and
their values cut from each batch (pq_variant_path_extract)."""
import ctypes

from . import _lib as _c
from ._errors import error

_ARRAY_RELEASE = 64   # offsetof(struct ArrowArray, release)
_SCHEMA_RELEASE = 56  # offsetof(struct ArrowSchema, release)
_release_fn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


def path_leaves(md_handle, path):
    """The leaf indexes a projection of `path` reads, or None when `path`
    is no path into a VARIANT column of the file."""
    n = ctypes.c_size_t()
    err = _c.pq_error()
    raw = path.encode("utf-8")
    if _c.pq_variant_path_leaves(md_handle, raw, None, 0, ctypes.byref(n), ctypes.byref(err)) != _c.PQ_OK:
        return None
    out = (ctypes.c_uint32 * max(n.value, 1))()
    _c.pq_variant_path_leaves(md_handle, raw, out, n.value, ctypes.byref(n), ctypes.byref(err))
    return list(out[:n.value])


def _release(buf, offset):
    fn = ctypes.c_void_p.from_buffer(buf, offset).value
    if fn:
        _release_fn(fn)(ctypes.addressof(buf))


def extract(array, field, path, where=None):
    """The arrow.parquet.variant column of `path` cut from `array` (the
    VARIANT column `field` as read: stored, whole or in part): (array, field)."""
    import pyarrow as pa
    a = ctypes.create_string_buffer(_c.ARROW_ARRAY_SIZE)
    s = ctypes.create_string_buffer(_c.ARROW_SCHEMA_SIZE)
    oa = ctypes.create_string_buffer(_c.ARROW_ARRAY_SIZE)
    osch = ctypes.create_string_buffer(_c.ARROW_SCHEMA_SIZE)
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    array._export_to_c(ctypes.addressof(a))
    field._export_to_c(ctypes.addressof(s))
    err = _c.pq_error()
    try:
        st = _c.pq_variant_path_extract(ctypes.addressof(a), ctypes.addressof(s), path.encode("utf-8"),
                                        ctypes.addressof(oa), ctypes.addressof(osch), ctypes.byref(err))
    finally:
        _release(a, _ARRAY_RELEASE)
        _release(s, _SCHEMA_RELEASE)
    if st != _c.PQ_OK:
        raise error(err, where)
    out_field = pa.Field._import_from_c(ctypes.addressof(osch))
    return pa.Array._import_from_c(ctypes.addressof(oa), out_field.type), out_field


class Projection:
    """What a read's `columns` resolved to: `leaves` (indexes) to read, and
    per VARIANT column the paths cut from it (`paths`), the column itself
    kept only when some of its own leaves were named too (`keep`); `order`,
    the top-level fields in the order they were named, when the library's
    (file order, for a selection with nested leaves) differs from it."""

    def __init__(self, leaves, paths, keep, order=None):
        self.leaves = leaves
        self.paths = paths
        self.keep = keep
        self.order = order

    def apply(self, batch, where=None):
        """The batch with each VARIANT column read for paths replaced by
        the paths' columns (in the order named)."""
        import pyarrow as pa
        arrays, fields = [], []
        for i, f in enumerate(batch.schema):
            paths = self.paths.get(f.name)
            if paths is None or f.name in self.keep:
                arrays.append(batch.column(i))
                fields.append(f)
            for p in paths or ():
                a, pf = extract(batch.column(i), f, p, where)
                arrays.append(a)
                fields.append(pf)
        if self.order:  # as named, as pyarrow gives them; fields not named (a row index) stay last
            rank = {name: k for k, name in enumerate(self.order)}
            at = sorted(range(len(fields)), key=lambda k: (rank.get(fields[k].name, len(rank)), k))
            arrays, fields = [arrays[k] for k in at], [fields[k] for k in at]
        return pa.RecordBatch.from_arrays(arrays, schema=pa.schema(fields, metadata=batch.schema.metadata))

    def apply_schema(self, schema, where=None):
        import pyarrow as pa
        empty = pa.RecordBatch.from_arrays([pa.array([], f.type) for f in schema], schema=schema)
        return self.apply(empty, where).schema


class Leaves(list):
    """Leaf indexes, with the Projection of the VARIANT paths among the
    names they came from (None: no path)."""
    projection = None


def resolve(md, names, on_missing):
    """`names` (leaf indexes, leaf paths, group paths: every leaf under
    them, VARIANT paths) as Leaves;
    on_missing(name) raises for a name that is none of them."""
    out = Leaves()
    paths, keep = {}, set()
    schema_names = None
    named = []  # top-level fields in the order first named
    for c in names:
        if isinstance(c, int) and not isinstance(c, bool):
            found = [c] if 0 <= c < md.num_columns else []
        elif isinstance(c, str):
            found = md.find_leaves(c)  # a leaf, or every leaf of a group (as pyarrow selects a struct)
        else:
            raise TypeError("columns holds leaf indexes or paths, not %r" % (c,))
        if found:
            if schema_names is None:
                schema_names = [col.path.split(".")[0] for col in md.columns]
            for k in found:
                if k not in out:
                    out.append(k)
            keep.add(schema_names[found[0]])
            named.append(schema_names[found[0]])
            continue
        leaves = path_leaves(md._live(), c) if isinstance(c, str) else None
        if leaves is None:
            on_missing(c)
        top = md.columns[leaves[0]].path.split(".")[0]
        paths.setdefault(top, []).append(c)
        for i in leaves:
            if i not in out:
                out.append(i)
    if paths:
        out.sort()  # the batch's fields come in file order whatever the order named
        out.projection = Projection(list(out), paths, keep)
    elif schema_names is not None and any("." in md.columns[i].path for i in out):
        # With a nested leaf the library gives top-level fields in file order;
        # a flat selection it gives as named already.
        order = list(dict.fromkeys(named))
        if order != sorted(order, key=lambda name: schema_names.index(name)):
            out.projection = Projection(list(out), {}, keep, order)
    return out
