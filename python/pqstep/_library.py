"""The loaded libpqstep as a whole: its version, the default memory limit,
the process's kept file mappings and its count of footer parses."""
from . import _lib as _c


def library_version():
    """The version string of the loaded libpqstep, e.g. "0.1.0"."""
    return _c.pq_version().decode()


def default_memory_limit():
    """The memory limit readers get unless told otherwise: a quarter of
    physical memory, at least 256 MiB and at most 1 GiB
    (pq_default_memory_limit)."""
    return _c.pq_default_memory_limit()


def set_file_map_limit(count=None):
    """How many mappings of files no reader holds are kept for the next
    reader of the same file (pq_file_maps_set_limit; None: the default, 8).
    A path reader maps its file (mmap=True); at close the mapping is kept,
    so that a read of the file that follows finds its pages mapped (the
    kernel maps them in fault by fault, and unmapping takes them down: 25 ms
    of a 230 MB file's read). Keyed by the file's identity (device, inode,
    size, modification time): a file rewritten or replaced gets a fresh
    map. An idle mapping goes at the next open or close of a mapped reader
    2 s or more after its last reader closed; meanwhile it holds the file
    open (a deleted file keeps its disk space). 0 unmaps every idle
    mapping now and keeps none."""
    _c.pq_file_maps_set_limit(_c.PQ_FILE_MAPS_DEFAULT if count is None else int(count))


def file_maps_idle():
    """Mappings kept now that no reader holds (pq_file_maps_idle)."""
    return _c.pq_file_maps_idle()


def footer_parse_count():
    """Footer parses done in this process so far (every successful or failed
    parse, including those readers make); shows reuse at work."""
    return int(_c.pq_footer_parse_count())
