"""pqstep.dask — read Parquet files into a dask.dataframe with pqstep, each
footer parsed once on the client and at most once per worker process.

    import pqstep.dask
    from distributed import Client, LocalCluster

    client = Client(LocalCluster(n_workers=2, threads_per_worker=1))
    df = pqstep.dask.read_parquet("data/lineitem/*.parquet",
                                  columns=["l_orderkey", "l_quantity"],
                                  filter="l_shipdate >= '1995-01-01'")
    print(df.npartitions, len(df))            # one partition per kept row group
    print(client.run(pqstep.dask.worker_counters))

read_parquet(paths, columns=None, filter=None, min_rows_per_partition=0,
             threads=1, strings="string", decimals="decimal128",
             follow_arrow_schema=True, arrow_to_pandas=None,
             storage_options=None, decryption=None, filters=None)

paths    a file, a directory, a glob pattern ("data/*.parquet",
         "data/**/*.parquet") or a list of them, expanded as pqstep.dataset
         expands them (key=value directories are not read as columns); or
         URLs (a str starting with http://, https:// or s3://): one object,
         which goes to pqstep.Reader as it is (never os.stat'ed), or an
         s3:// prefix ending in "/" or pattern ("s3://bucket/data/*.parquet"),
         listed by pqstep.dataset. Every file must give the same output
         schema.
columns  names: top-level fields (a struct or list field reads all its
         leaves), dotted leaf paths, or None for every column. The
         partitions hold them in the order asked for where they are
         top-level names, else in file order.
filter   a predicate in pqstep's syntax, as read_table takes it
         ("l_shipdate >= '1995-01-01' and l_quantity < 24"), or in the
         form dask's and pyarrow's filters= take ([("l_quantity", "<",
         24), ...], or a list of such lists for OR); `filters=` is the
         same option under dask's name: the client
         prunes row groups with it (statistics, dictionaries, bloom
         filters, page index: Reader.kept_rows) before the graph is built,
         a row group pruned away gets no partition, and each task returns
         only the rows where the filter is true (SQL semantics: null is not
         true). The filter may name columns that are not read.
min_rows_per_partition
         0 (the default): one partition per kept row group. Else kept row
         groups of one file that follow each other are put in one partition
         until it holds at least this many rows (counted before the filter).
threads  decode threads per task (default 1: Dask runs tasks in parallel).
strings, decimals, follow_arrow_schema
         the output types, as for pqstep.read_table.
arrow_to_pandas
         keyword arguments for pyarrow.Table.to_pandas, e.g.
         {"types_mapper": pandas.ArrowDtype}. While Dask's
         "dataframe.convert-string" is on (its default), types the given
         types_mapper leaves alone map as dask.dataframe.read_parquet maps
         them: string -> pd.StringDtype("pyarrow"), date32, date64 and
         decimals -> pd.ArrowDtype; every other type (and all of them with
         the option off) as pyarrow's to_pandas makes it. Structs, lists,
         maps and binary stay object columns (Dask's blanket conversion of
         object columns to strings is not applied).
decryption
         a pqstep.Decryption with the keys of encrypted files (as for
         read_table). It travels in the graph as the user's object (pickled
         with its keys and callables, as storage_options travel); the footer
         bytes shipped to the workers stay encrypted and each worker parses
         them with it.
storage_options
         for URLs: a dict of remote options, handed to pqstep.Reader (and
         pqstep.dataset) as remote= (endpoint, region, credentials,
         retries: see pqstep.Reader). They travel in the graph, as Dask's
         own storage_options do. Not used for local files.

Returns a dask.dataframe.DataFrame with unknown divisions; each partition
is a pandas DataFrame with a RangeIndex from 0. Its meta is the output
schema as an empty frame (no data is read to build the graph). When the
filter prunes every row group the frame has one empty partition that reads
nothing.

Errors (a path that does not exist, files whose schemas differ, an unknown
column, a filter that does not parse or names an unknown column or a
literal the column cannot take) raise on the client, from read_parquet,
before any task exists: pqstep.Error, ValueError or TypeError.

What is read where, and counted:
- The client opens every file once, parses its footer once (a
  pqstep.MetadataCache shared with the dataset expansion), prunes its row
  groups and takes the footer bytes (FileMetadata.footer_bytes()).
- Each file's footer bytes are one key of the graph ("pqstep-footer-..."),
  a dependency of that file's read tasks: Dask ships them to a worker once
  (a worker keeps a dependency while its tasks need it), not inside every
  task.
- A task finds the parsed footer in a per-process cache keyed by the
  file's identity (local: absolute path, size, mtime_ns, as the library's
  cache key "path\\0size\\0mtime_ns"; URL: the URL, its size and the
  version the client's open found, Reader.version: ETag or
  Last-Modified), or parses
  the bytes it was given (FileMetadata.from_footer_bytes) once for every
  thread of that process, then reads its row groups with
  pqstep.Reader(path, metadata=...). So a worker reads no footer from
  storage, and parses at most one footer per file it touched, however many
  row groups it reads, as long as the cache holds them (bounded LRU,
  $PQSTEP_DASK_CACHE_BYTES bytes of parsed metadata, default 256 MiB; an
  evicted footer is parsed again when needed).
- A local file is os.stat'ed by the task: if its size or mtime changed
  since the graph was built, the task raises rather than read with a stale
  footer. A URL is opened with the size and version the client found
  (remote options known_size, known_version): no request to open it, and
  every read sends If-Match with the version, so a changed object fails
  the read instead of mixing old footer and new bytes.
- worker_counters() returns this process's counts (client.run(
  pqstep.dask.worker_counters) collects every worker's):
    tasks              partitions read
    row_groups_read    row groups those tasks read
    rows               rows they returned (after the filter)
    files_touched      distinct files (identities) they read
    footer_parses      footers the cache parsed (<= files_touched unless
                       entries were evicted)
    cache_hits         lookups the cache answered with a parsed footer
    cache_entries, cache_bytes, cache_evictions
    library_footer_parses  pqstep.footer_parse_count() since this module
                       was imported (every parse the library made here)
    footer_reads, footer_bytes_read
                       storage reads for footers by the tasks' readers
                       (Reader.stage_stats("footer")): 0
    pid                the process
  reset_worker_counters(clear_cache=False) sets them back to 0.
"""
import collections
import os
import threading

import pqstep

from . import _filters
from ._options import ReadOptions as _ReadOptions
from ._remote import is_url as _is_url

__all__ = ["read_parquet", "worker_counters", "reset_worker_counters"]

_GLOB_CHARS = "*?["


# ---------------------------------------------------------------------------
# Worker side: one parsed footer per file identity and process
# ---------------------------------------------------------------------------

_CACHE_BYTES = int(os.environ.get("PQSTEP_DASK_CACHE_BYTES") or (256 << 20))
_lock = threading.Lock()
_cache = collections.OrderedDict()   # identity -> FileMetadata, least recently used first
_cache_bytes = 0
_parsing = {}                        # identity -> lock held by the thread parsing it
_files = set()                       # identities this process's tasks read
_COUNTER_NAMES = ("tasks", "row_groups_read", "rows", "footer_parses", "cache_hits", "cache_evictions",
                  "footer_reads", "footer_bytes_read")
_counters = dict.fromkeys(_COUNTER_NAMES, 0)
_parse_base = pqstep.footer_parse_count()


def _metadata(identity, footer, decryption=None):
    """The parsed footer of `identity`: from this process's cache, or parsed
    from `footer` (bytes) by exactly one thread while the others wait. An
    encrypted file's footer bytes stay encrypted on their way here and are
    parsed with `decryption` (the user's keys); its cache entry is keyed by
    a digest of those keys too, so a task with other keys never gets it."""
    global _cache_bytes
    if decryption is not None:
        import hashlib
        d = decryption
        who = (d.footer_key, sorted(d.column_keys.items()), d.aad_prefix,
               getattr(d.key_retriever, "__qualname__", None), getattr(d.kms_unwrap, "__qualname__", None))
        identity = (identity, hashlib.sha256(repr(who).encode()).hexdigest())
    with _lock:
        md = _cache.get(identity)
        if md is not None:
            _cache.move_to_end(identity)
            _counters["cache_hits"] += 1
            return md
        parse_lock = _parsing.setdefault(identity, threading.Lock())
    with parse_lock:
        with _lock:
            md = _cache.get(identity)
            if md is not None:  # another thread parsed it while this one waited
                _cache.move_to_end(identity)
                _counters["cache_hits"] += 1
                return md
        try:
            md = pqstep.FileMetadata.from_footer_bytes(footer, decryption=decryption)
        except BaseException:
            with _lock:
                _parsing.pop(identity, None)
            raise
        with _lock:
            _cache[identity] = md
            _cache_bytes += md.memory_size
            _counters["footer_parses"] += 1
            _parsing.pop(identity, None)
            while _cache_bytes > _CACHE_BYTES and len(_cache) > 1:
                _, old = _cache.popitem(last=False)  # readers still using it hold their own reference
                _cache_bytes -= old.memory_size
                _counters["cache_evictions"] += 1
    return md


def worker_counters():
    """This process's counts (see the module docstring) as a dict."""
    with _lock:
        out = dict(_counters)
        out["files_touched"] = len(_files)
        out["cache_entries"] = len(_cache)
        out["cache_bytes"] = _cache_bytes
    out["library_footer_parses"] = pqstep.footer_parse_count() - _parse_base
    out["pid"] = os.getpid()
    return out


def reset_worker_counters(clear_cache=False):
    """Set this process's counts back to 0 (and empty its footer cache when
    clear_cache is true). Returns worker_counters() from before."""
    global _parse_base, _cache_bytes
    before = worker_counters()
    with _lock:
        for k in _counters:
            _counters[k] = 0
        _files.clear()
        _parse_base = pqstep.footer_parse_count()
        if clear_cache:
            _cache.clear()
            _cache_bytes = 0
    return before


def _check_unchanged(path, identity):
    st = os.stat(path)
    if (st.st_size, st.st_mtime_ns) != identity[1:]:
        raise RuntimeError("%s changed since the dask graph was built (size %d -> %d, mtime_ns %d -> %d): "
                           "call pqstep.dask.read_parquet again" % (path, identity[1], st.st_size, identity[2],
                                                                     st.st_mtime_ns))


def _read_partition(path, identity, footer, row_groups, leaves, filter, order, options):
    """One partition: `row_groups` of the file, as a pandas DataFrame. Runs
    on a worker; `footer` is the file's footer bytes (a graph dependency),
    options["reader"] the ReadOptions read_parquet made."""
    remote = None
    if _is_url(path):
        # The object as the client found it: the open sends no request, and
        # every read carries If-Match with its version.
        remote = dict(options["remote"] or {}, known_size=identity[1], known_version=identity[2])
    else:
        _check_unchanged(path, identity)
    md = _metadata(identity, footer, options["reader"].decryption)
    with pqstep.Reader._with_options(path, options["reader"], columns=leaves, metadata=md, remote=remote) as r:
        table = r.read(row_groups=row_groups, filter=filter)
        st = r.stage_stats("footer")
    if order is not None:
        table = table.select(order)
    with _lock:
        _files.add(identity)
        _counters["tasks"] += 1
        _counters["row_groups_read"] += len(row_groups)
        _counters["rows"] += table.num_rows
        _counters["footer_reads"] += st["reads"]
        _counters["footer_bytes_read"] += st["bytes_read"]
    return table.to_pandas(**options["to_pandas"])


# ---------------------------------------------------------------------------
# Client side: footers, pruning, the graph
# ---------------------------------------------------------------------------

def _expand(paths, cache, remote):
    """The files (and URLs) `paths` names, in order, each once."""
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    out = []
    for p in paths:
        if _is_url(p):
            if p.startswith("s3://") and (p.endswith("/") or any(c in p for c in _GLOB_CHARS)):
                ds = pqstep.dataset(p, cache=cache, remote=remote)  # a prefix or a pattern: listed
                try:
                    out.extend(ds.files)
                finally:
                    ds.close()
            else:
                out.append(p)
            continue
        p = os.path.abspath(os.fsdecode(os.fspath(p)))  # workers may run elsewhere than the cwd
        if os.path.isfile(p):
            out.append(p)
        else:  # a directory or a pattern: as pqstep.dataset lists them (a missing path raises there)
            ds = pqstep.dataset(p, cache=cache)
            try:
                out.extend(os.path.abspath(f) for f in ds.files)
            finally:
                ds.close()
    seen = set()
    return [f for f in out if not (f in seen or seen.add(f))]


def _leaves(md, columns, path):
    """Leaf indexes for `columns` (top-level names, leaf paths) and the
    top-level order to put the output in (None: file order), or raise."""
    if columns is None:
        return None, None
    if isinstance(columns, str):
        raise TypeError("columns must be a list of names, not a str")
    paths = [c.path for c in md.columns]
    leaves = set()
    for name in columns:
        if not isinstance(name, str):
            raise TypeError("columns holds names (str), not %r" % (name,))
        i = md.find_column(name)
        found = [i] if i is not None else [k for k, p in enumerate(paths) if p.startswith(name + ".")]
        if not found:
            raise pqstep.Error("invalid argument", "no column %r" % (name,), None, path)
        leaves.update(found)
    tops = [p.split(".")[0] for p in paths]
    order = list(dict.fromkeys(columns))
    if any(name not in tops for name in order):
        order = None  # a leaf path inside a struct: keep file order
    return sorted(leaves), order


class _File:
    """What the client learned of one file: identity, footer bytes, kept row
    groups and their row counts."""

    def __init__(self, path, identity, footer, kept, rows):
        self.path = path
        self.identity = identity
        self.footer = footer
        self.kept = kept
        self.rows = rows


def _open_file(path, cache, options, remote):
    """A Reader over `path` with `options` (a ReadOptions; its footer
    parsed, or found in `cache`) and the file's identity: (url, size,
    version) for a URL (version: the ETag or Last-Modified the open found,
    "" when none), else (path, size, mtime_ns)."""
    if _is_url(path):
        r = pqstep.Reader._with_options(path, options, cache=cache, remote=remote)
        return r, (path, r.file_size, r.version or "")
    st = os.stat(path)
    return pqstep.Reader._with_options(path, options, cache=cache), (path, st.st_size, st.st_mtime_ns)


def _plan(paths, columns, filter, options, remote):
    """Open every file once: (files, leaves, order, empty pyarrow table of
    the output schema)."""
    cache = pqstep.MetadataCache(1 << 40)  # a bound only: holds what the footers take
    try:
        names = _expand(paths, cache, remote)
        if not names:
            raise ValueError("no Parquet file in %r" % (paths,))
        files = []
        leaves = order = empty = None
        for n, path in enumerate(names):
            r, identity = _open_file(path, cache, options, remote)
            with r:
                md = r.metadata
                if n == 0:
                    leaves, order = _leaves(md, columns, path)
                    empty = _select(r.read(row_limit=0, columns=leaves), order)
                else:
                    lv, _ = _leaves(md, columns, path)
                    schema = _select(r.read(row_limit=0, columns=lv), order).schema
                    if lv != leaves or not schema.equals(empty.schema):
                        raise ValueError("%s has another schema than %s:\n%s\nvs\n%s" % (
                            path, names[0], schema, empty.schema))
                if filter is not None:
                    kept = sorted(r.kept_rows(filter=filter))
                else:
                    kept = list(range(md.num_row_groups))
                rows = [md.row_groups[g].num_rows for g in kept]
                files.append(_File(path, identity, md.footer_bytes(), kept, rows))
        return files, leaves, order, empty
    finally:
        cache.close()


def _select(table, order):
    return table if order is None else table.select(order)


def _groups(f, min_rows):
    """The file's kept row groups cut into partitions."""
    out, cur, n = [], [], 0
    for g, rows in zip(f.kept, f.rows):
        cur.append(g)
        n += rows
        if n >= min_rows:
            out.append(cur)
            cur, n = [], 0
    if cur:
        out.append(cur)
    return out


def _types_mapper(user, arrow_type):
    """pyarrow.Table.to_pandas(types_mapper=) as dask.dataframe.read_parquet
    maps types when Dask's "dataframe.convert-string" is on: the user's
    mapper first, then string -> pd.StringDtype("pyarrow"), date32, date64
    and decimals -> pd.ArrowDtype."""
    import pandas as pd
    import pyarrow as pa
    if user is not None:
        got = user(arrow_type)
        if got is not None:
            return got
    if arrow_type == pa.string():
        return pd.StringDtype("pyarrow")
    if arrow_type in (pa.date32(), pa.date64()) or pa.types.is_decimal(arrow_type):
        return pd.ArrowDtype(arrow_type)
    return None


def read_parquet(paths, columns=None, filter=None, min_rows_per_partition=0, threads=1, strings="string",
                 decimals="decimal128", follow_arrow_schema=True, arrow_to_pandas=None, storage_options=None,
                 decryption=None, filters=None):
    """A dask.dataframe.DataFrame of the Parquet files `paths`, one
    partition per kept row group (see the module docstring for every
    option and what is read and counted where)."""
    import functools

    import dask
    import dask.dataframe as dd
    from dask.base import tokenize
    from dask.dataframe.utils import pyarrow_strings_enabled

    filter = _filters.either(filter, filters)  # pyarrow's and dask's filters= form too
    if not isinstance(min_rows_per_partition, int) or min_rows_per_partition < 0:
        raise ValueError("min_rows_per_partition must be a non-negative int")
    # The client's readers and the tasks' share one ReadOptions (the
    # threads are the tasks' decode threads).
    reader_options = _ReadOptions(threads=threads, strings=strings, decimals=decimals,
                                  follow_arrow_schema=follow_arrow_schema, decryption=decryption)
    files, leaves, order, empty = _plan(paths, columns, filter, reader_options, storage_options)
    to_pandas = dict(arrow_to_pandas or {})
    if pyarrow_strings_enabled():
        to_pandas["types_mapper"] = functools.partial(_types_mapper, to_pandas.get("types_mapper"))
    meta = empty.to_pandas(**to_pandas)
    options = {"reader": reader_options, "remote": storage_options, "to_pandas": to_pandas}

    parts = []
    name = "pqstep-read-parquet-" + tokenize(tuple(f.identity for f in files), tuple(tuple(f.kept) for f in files),
                                             leaves, order, filter, min_rows_per_partition, options)
    for f in files:
        groups = _groups(f, min_rows_per_partition)
        if not groups:
            continue
        footer = dask.delayed(f.footer, name="pqstep-footer-" + tokenize(f.identity), pure=True)
        for rgs in groups:
            parts.append(dask.delayed(_read_partition, pure=True)(
                f.path, f.identity, footer, rgs, leaves, filter, order, options,
                dask_key_name=(name, len(parts))))
    # The partitions' types are chosen above (to_pandas); Dask's own string
    # conversion of from_delayed would also turn object columns that are not
    # strings (structs, lists, binary) into strings.
    with dask.config.set({"dataframe.convert-string": False}):
        if not parts:
            return dd.from_pandas(meta, npartitions=1)
        return dd.from_delayed(parts, meta=meta, divisions=None, verify_meta=False)
