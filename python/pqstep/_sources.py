"""Files that are not paths: bytes in memory and Python file objects.

read_table, Reader, scan and pqstep.polars.scan_parquet take, besides a
path or URL,
  - a bytes-like object (bytes, bytearray, memoryview, mmap.mmap, a
    pyarrow.Buffer, anything with the buffer protocol): the whole file's
    bytes, read where they lie (pq_reader_open_memory), no copy. The
    binding holds a buffer export for as long as a reader over it lives,
    so a bytearray cannot be resized meanwhile; its bytes must not change.
  - a binary file object open for reading (io.BytesIO, open(path, "rb"),
    a pyarrow NativeFile, an fsspec file): a BytesIO is read as its
    buffer; a file object over a local file (its .name the same file as
    its descriptor) is read by that path, mapped like any path; any other
    seekable one through pread-like calls under a lock
    (pq_reader_open_source), from the file's start whatever its position.
Each becomes a location object the readers are opened over again (reads
and scans open readers of their own), named in errors by its repr.
"""
import ctypes
import io
import os
import threading

from . import _lib as _c


class _Py_buffer(ctypes.Structure):  # CPython's Py_buffer (stable ABI since 3.11)
    _fields_ = [
        ("buf", ctypes.c_void_p),
        ("obj", ctypes.c_void_p),  # the exporter, held by the export (PyBuffer_Release drops it)
        ("len", ctypes.c_ssize_t),
        ("itemsize", ctypes.c_ssize_t),
        ("readonly", ctypes.c_int),
        ("ndim", ctypes.c_int),
        ("format", ctypes.c_char_p),
        ("shape", ctypes.POINTER(ctypes.c_ssize_t)),
        ("strides", ctypes.POINTER(ctypes.c_ssize_t)),
        ("suboffsets", ctypes.POINTER(ctypes.c_ssize_t)),
        ("internal", ctypes.c_void_p),
    ]


_get_buffer = ctypes.pythonapi.PyObject_GetBuffer
_get_buffer.argtypes = [ctypes.py_object, ctypes.POINTER(_Py_buffer), ctypes.c_int]
_get_buffer.restype = ctypes.c_int
_release_buffer = ctypes.pythonapi.PyBuffer_Release
_release_buffer.argtypes = [ctypes.POINTER(_Py_buffer)]
_release_buffer.restype = None
_PyBUF_SIMPLE = 0  # contiguous bytes, read-only is fine


class InMemory:
    """A whole file in memory: the bytes of a buffer-protocol object, held
    (a buffer export) until this object is gone."""

    def __init__(self, obj, what=None):
        self._view = _Py_buffer()
        # PyBUF_SIMPLE refuses what is not one contiguous run of bytes
        # (a strided memoryview, say) with a BufferError.
        try:
            _get_buffer(obj, ctypes.byref(self._view), _PyBUF_SIMPLE)
        except BufferError as e:
            raise TypeError("a %s that is not one contiguous run of bytes cannot be read as a file (%s)"
                            % (type(obj).__name__, e)) from None
        self._held = True
        self.address = self._view.buf
        self.size = int(self._view.len)
        self._what = what or type(obj).__name__

    def __del__(self):
        if getattr(self, "_held", False):
            self._held = False
            _release_buffer(ctypes.byref(self._view))

    def open(self, opts, err):
        return _c.pq_reader_open_memory(self.address, self.size, ctypes.byref(opts), ctypes.byref(err))

    def __repr__(self):
        return "<%s of %d bytes>" % (self._what, self.size)

    __str__ = __repr__


def _set_error(err, code, message):
    e = err.contents
    e.code = code
    e.message = message.encode("utf-8", "replace")[:_c.PQ_ERROR_MESSAGE_SIZE - 1]
    return code


class FileObject:
    """A seekable binary file object, read at offsets under a lock (the
    object's position is shared state) through a pq_source callback."""

    def __init__(self, f):
        if isinstance(f, io.TextIOBase):
            raise TypeError("the file object %r is open in text mode: open the file in binary mode ('rb')" % (f,))
        self._file = f
        self._lock = threading.Lock()
        self._native = callable(getattr(f, "read_at", None)) and callable(getattr(f, "size", None))
        try:
            if self._native:  # pyarrow.NativeFile: positional reads of its own
                self.size = int(f.size())
            else:
                with self._lock:
                    here = f.tell()
                    f.seek(0, io.SEEK_END)
                    self.size = int(f.tell())
                    f.seek(here)
        except (OSError, ValueError, AttributeError, io.UnsupportedOperation) as e:
            raise TypeError("the file object %r cannot be read at offsets (%s): pass a path, bytes or a seekable "
                            "binary file" % (f, e)) from None
        self._callback = _c.READ_AT(self._read_at)  # kept: the C source calls it

    def _read_at(self, _user, offset, length, dst, err):
        try:
            if self._native:
                data = self._file.read_at(length, offset)
            else:
                parts, got = [], 0
                with self._lock:
                    self._file.seek(offset)
                    while got < length:
                        part = self._file.read(length - got)
                        if not part:
                            break
                        parts.append(part)
                        got += len(part)
                data = parts[0] if len(parts) == 1 else b"".join(parts)
            if isinstance(data, str):
                return _set_error(err, _c.PQ_ERR_IO, "the file object returned text, not bytes: open the file in "
                                  "binary mode ('rb')")
            if not isinstance(data, (bytes, bytearray)):
                data = memoryview(data).tobytes()
            if len(data) != length:
                return _set_error(err, _c.PQ_ERR_IO, "the file object gave %d bytes at offset %d, not %d (did it "
                                  "change?)" % (len(data), offset, length))
            ctypes.memmove(dst, data, length)
            return _c.PQ_OK
        except Exception as e:  # an exception must not cross into C
            return _set_error(err, _c.PQ_ERR_IO, "reading the file object at offset %d: %s: %s"
                              % (offset, type(e).__name__, e))

    def open(self, opts, err):
        src = _c.pq_source(read_at=self._callback, user=None, size=self.size, read_ranges=None)
        return _c.pq_reader_open_source(ctypes.byref(src), ctypes.byref(opts), ctypes.byref(err))

    def __repr__(self):
        return "<file object %r>" % (self._file,)

    __str__ = __repr__


def _local_path(f):
    """The path of a file object over a local regular file, when its .name
    names that same file; else None."""
    name = getattr(f, "name", None)
    fileno = getattr(f, "fileno", None)
    if not isinstance(name, (str, bytes, os.PathLike)) or not callable(fileno):
        return None
    try:
        st = os.fstat(fileno())
        return os.fspath(name) if os.path.samestat(st, os.stat(name)) and os.path.isfile(name) else None
    except (OSError, ValueError, io.UnsupportedOperation):
        return None


def non_path(source):
    """A location for a source that is no path or URL (an InMemory or a
    FileObject), `source` itself when it is one already, else None."""
    if isinstance(source, (InMemory, FileObject)):
        return source
    if isinstance(source, (str, os.PathLike)):
        return None
    if isinstance(source, io.BytesIO):
        return InMemory(source.getbuffer(), "BytesIO")
    try:
        memoryview(source).release()
    except TypeError:
        pass  # no buffer
    else:
        return InMemory(source)  # bytes, bytearray, mmap.mmap, pyarrow.Buffer, ...
    if callable(getattr(source, "read", None)) or callable(getattr(source, "read_at", None)):
        path = _local_path(source)
        return path if path is not None else FileObject(source)
    return None
