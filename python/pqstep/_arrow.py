"""The Arrow C data interfaces: PyCapsules over structs malloc'd here (the
Arrow PyCapsule interface; each capsule's destructor releases what the
consumer did not take and frees the struct), the batches of a C reader as
pyarrow.RecordBatch objects or DeviceBatch objects (the Arrow C device data
interface), and a reader's output schema."""
import ctypes

from . import _lib as _c
from ._errors import error

libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
SCHEMA_NAME = b"arrow_schema"
STREAM_NAME = b"arrow_array_stream"
DEVICE_ARRAY_NAME = b"arrow_device_array"
# where each struct keeps `release` (an ArrowDeviceArray starts with its ArrowArray)
RELEASE_OFFSET = {SCHEMA_NAME: 56, STREAM_NAME: 24, DEVICE_ARRAY_NAME: 64}
_capsule_new = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)(
    ("PyCapsule_New", ctypes.pythonapi))
capsule_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))
_release_fn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


def _capsule_destructor(name):
    @ctypes.CFUNCTYPE(None, ctypes.c_void_p)
    def destroy(capsule):  # the raw PyObject *: no reference taken while it dies
        try:
            p = capsule_pointer(capsule, name)
            if p:
                release = ctypes.c_void_p.from_address(p + RELEASE_OFFSET[name]).value
                if release:
                    _release_fn(release)(p)
                libc.free(p)
        except Exception:  # noqa: BLE001 (at interpreter exit the module may be gone)
            pass
    return destroy


_DESTROY = {n: _capsule_destructor(n) for n in (SCHEMA_NAME, STREAM_NAME, DEVICE_ARRAY_NAME)}


def capsule(name, size, fill):
    """A PyCapsule `name` over a zeroed struct of `size` bytes that
    fill(address) exports into (it raises on failure; the struct is freed)."""
    p = libc.malloc(size)
    if not p:
        raise MemoryError("out of memory for an Arrow struct")
    ctypes.memset(p, 0, size)
    try:
        fill(p)
    except BaseException:
        libc.free(p)
        raise
    return wrap(p, name)


def wrap(p, name):
    """A PyCapsule `name` owning the malloc'd struct at p (released and
    freed when the capsule dies unexported)."""
    return _capsule_new(p, name, ctypes.cast(_DESTROY[name], ctypes.c_void_p))


def export_batches(h, batch_size, path):
    """pq_reader_next_batch until the end: pyarrow.RecordBatch objects."""
    import pyarrow as pa
    err = _c.pq_error()
    schema = None  # every batch of a selection has the same: imported once
    while True:
        abuf = ctypes.create_string_buffer(_c.ARROW_ARRAY_SIZE)
        sbuf = ctypes.create_string_buffer(_c.ARROW_SCHEMA_SIZE) if schema is None else None
        st = _c.pq_reader_next_batch(h, batch_size, ctypes.addressof(abuf),
                                     ctypes.addressof(sbuf) if sbuf is not None else None, ctypes.byref(err))
        if st != _c.PQ_OK:
            raise error(err, path)
        if not ctypes.c_void_p.from_buffer(abuf, _c.ARROW_ARRAY_SIZE - 16).value:
            return  # release == NULL: end of data
        # pyarrow takes ownership of the structs (it calls release).
        if schema is None:
            batch = pa.RecordBatch._import_from_c(ctypes.addressof(abuf), ctypes.addressof(sbuf))
            schema = batch.schema
            yield batch
        else:
            yield pa.RecordBatch._import_from_c(ctypes.addressof(abuf), schema)


def output_schema(h, path):
    """The schema of every batch of reader h's selection
    (pq_reader_output_schema, after the select stage), output types applied."""
    import pyarrow as pa
    sbuf = ctypes.create_string_buffer(_c.ARROW_SCHEMA_SIZE)
    err = _c.pq_error()
    if _c.pq_reader_output_schema(h, ctypes.addressof(sbuf), ctypes.byref(err)) != _c.PQ_OK:
        raise error(err, path)
    return pa.Schema._import_from_c(ctypes.addressof(sbuf))


_DEVICE_TYPES = {1: "cpu", 2: "cuda", 3: "cuda_host"}


class DeviceBatch:
    """One record batch as an Arrow C device data interface array (the
    Arrow PyCapsule device protocol: __arrow_c_device_array__), from
    Reader.device_batches(). Where the decode ran on a CUDA device its
    buffers are in that device's memory (device_type "cuda"), else in host
    memory ("cpu"); consumers (pyarrow, cuDF, CuPy-based tools) import it
    without a copy. It can be exported once; unexported, its buffers are
    freed with it."""

    def __init__(self, schema_capsule, array_capsule, num_rows, device_type, device_id):
        self._schema = schema_capsule
        self._array = array_capsule
        self.num_rows = num_rows
        self.device_type = device_type
        self.device_id = device_id

    def __arrow_c_device_array__(self, requested_schema=None, **kwargs):
        if self._array is None:
            raise ValueError("this DeviceBatch was exported already")
        out = (self._schema, self._array)
        self._schema = self._array = None
        return out

    def __repr__(self):
        return "DeviceBatch(%d rows, %s)" % (self.num_rows, self.device_type)


def device_batches(h, batch_size, path):
    """pq_reader_next_device_batch until the end: DeviceBatch objects."""
    err = _c.pq_error()
    while True:
        pa_ = libc.malloc(_c.ARROW_DEVICE_ARRAY_SIZE)
        ps = libc.malloc(_c.ARROW_SCHEMA_SIZE)
        if not pa_ or not ps:
            libc.free(pa_)
            libc.free(ps)
            raise MemoryError("out of memory for an Arrow struct")
        st = _c.pq_reader_next_device_batch(h, batch_size, pa_, ps, ctypes.byref(err))
        if st != _c.PQ_OK or not ctypes.c_void_p.from_address(pa_ + RELEASE_OFFSET[DEVICE_ARRAY_NAME]).value:
            libc.free(pa_)
            libc.free(ps)
            if st != _c.PQ_OK:
                raise error(err, path)
            return
        rows = ctypes.c_int64.from_address(pa_).value
        device_id = ctypes.c_int64.from_address(pa_ + 80).value
        device_type = ctypes.c_int32.from_address(pa_ + 88).value
        yield DeviceBatch(wrap(ps, SCHEMA_NAME), wrap(pa_, DEVICE_ARRAY_NAME), rows,
                          _DEVICE_TYPES.get(device_type, str(device_type)), device_id)
