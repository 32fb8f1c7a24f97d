"""pqstep.Error and the mapping of a C pq_error onto it; pqstep.ParquetWarning
and the issuing of a file's warnings."""
import os
import warnings

from . import _lib as _c


def path_text(path):
    """A file's location as text: a path decoded, else (bytes in memory, a
    file object) its repr."""
    return os.fsdecode(path) if isinstance(path, (str, bytes, os.PathLike)) else str(path)


class Error(Exception):
    """An error reported by libpqstep.

    .code    the status name, e.g. "I/O error", "not a Parquet file"
    .status  the numeric pq_status
    .message the library's message
    .path    the file, when the error concerns one
    """

    def __init__(self, code, message, status=None, path=None):
        text = message if message.startswith(code) else "%s: %s" % (code, message)
        if path is not None:
            text = "%s: %s" % (path_text(path), text)
        super().__init__(text)
        self.code = code
        self.message = message
        self.status = status
        self.path = path


def status_name(status):
    """The library's name of a pq_status ("invalid argument", "I/O error", ...)."""
    return _c.pq_status_name(status).decode()


def error(err, path=None):
    """A pq_error the library filled in, as a pqstep.Error (about `path`)."""
    status = int(err.code)
    msg = err.message.decode("utf-8", "replace")
    return Error(status_name(status), msg, status, path)


def invalid_argument(message, path=None):
    """A pqstep.Error with the library's PQ_ERR_INVALID_ARGUMENT status, for
    the argument checks the binding makes itself."""
    return Error(status_name(_c.PQ_ERR_INVALID_ARGUMENT), message, _c.PQ_ERR_INVALID_ARGUMENT, path)


class ParquetWarning(UserWarning):
    """A file pqstep reads, but not as its footer says: what the library
    set aside to read it rather than refuse it (an annotation that cannot
    apply to its column's storage, an unknown converted type: the column
    reads by its physical type). FileMetadata.warnings lists them; read_table()
    and Reader.read() issue them with warnings.warn, one per message, as
    "FILE: column 'a': ..."."""


def warn_file(path, messages, stacklevel=3):
    """Issue a file's warnings (FileMetadata.warnings) as ParquetWarning."""
    for m in messages:
        warnings.warn("%s: %s" % (path_text(path), m), ParquetWarning, stacklevel=stacklevel)
