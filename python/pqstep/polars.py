"""pqstep as a polars scan: scan_parquet() returns a polars LazyFrame whose
query hands pqstep its projection, its predicate and its row limit
(polars.io.plugins.register_io_source), so that pqstep's pruning
(statistics, dictionaries, bloom filters, the page index) and late
materialization run inside the scan.

    import polars as pl, pqstep.polars
    lf = pqstep.polars.scan_parquet("lineitem.parquet")
    lf.filter(pl.col("l_shipdate") >= date(1994, 1, 1)).select(...).collect()

The predicate polars hands over is split at its top-level ANDs; each part
that pqstep's filter can express is pushed into the scan (comparisons of a
column with a literal, is_in, is_null / is_not_null, is_between,
str.starts_with as a range, &, |, ~, hive partition keys); the parts it
cannot express are applied by this source to every batch with polars'
own DataFrame.filter, since polars does not filter again what it handed to
a source. The result is always the predicate's. pushdown_log() tells what
was pushed. Tested with polars 2.1.
"""
import collections
import datetime
import decimal
import io
import json
import threading

import polars as pl
import pyarrow as pa
from polars.io.plugins import register_io_source

from ._dataset import Dataset
from ._errors import Error
from ._metadata import MetadataCache
from ._sources import non_path

__all__ = ["scan_parquet", "pushdown_log", "translate"]

# The last scans' pushdown records, newest last (see pushdown_log).
_LOG = collections.deque(maxlen=64)
_LOG_LOCK = threading.Lock()


def pushdown_log():
    """The last scans' records, oldest first: dicts with `columns` (read
    from pqstep; None: all), `pushed` (pqstep filter text or None),
    `row_range` ([lo, hi) of file rows read for a range on the row index,
    hi None for no end; None: every row),
    `residual` (the polars expression applied to each batch, as text, or
    None), `n_rows` (polars' limit), `batch_size`, `rows` (rows yielded)
    and `stats` (pqstep's pruning counts)."""
    with _LOG_LOCK:
        return list(_LOG)


class _NotPushed(Exception):
    """A part of the predicate pqstep's filter cannot express."""


# ---- literals --------------------------------------------------------------

_DATA_KEYS = {"Column", "Columns", "Nth", "Len", "Selector", "Wildcard", "Field", "DtypeColumn", "IndexColumn",
              "Window", "Agg", "Filter", "Gather", "SortBy", "Sort", "Slice", "Explode", "AnonymousFunction",
              "Eval", "RenameAlias", "KeepName", "Exclude"}


def _has_data(node):
    """Whether a serialized expression reads a column (is not a constant)."""
    if isinstance(node, dict):
        return any(k in _DATA_KEYS or _has_data(v) for k, v in node.items())
    if isinstance(node, list):
        return any(_has_data(v) for v in node)
    return False


def _expr(node):
    return pl.Expr.deserialize(io.StringIO(json.dumps(node)), format="json")


def _constant(node):
    """The polars Series a constant subtree evaluates to."""
    if not isinstance(node, dict) or _has_data(node):
        raise _NotPushed("not a constant")
    try:
        return pl.select(_expr(node)).to_series()
    except Exception as e:  # a constant polars cannot evaluate alone
        raise _NotPushed("constant: %s" % e) from None


def _quote(s):
    return "'" + s.replace("'", "''") + "'"


def _frac(value, digits):
    """'.ffff' for a fraction of `digits` digits, trailing zeros dropped."""
    if value == 0:
        return ""
    return ("." + str(value).rjust(digits, "0")).rstrip("0")


_UNIT_DIGITS = {"ms": 3, "us": 6, "ns": 9}


def _timestamp_text(ticks, unit):
    """A timestamp literal from integer ticks since the epoch (UTC)."""
    per = 10 ** _UNIT_DIGITS[unit]
    secs, sub = divmod(ticks, per)
    t = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=secs)
    return _quote(t.strftime("%Y-%m-%d %H:%M:%S") + _frac(sub, _UNIT_DIGITS[unit]))


def _literal_texts(series, typ):
    """pqstep literal texts for the values of `series`, compared with a
    column of Arrow type `typ`; _NotPushed when a value cannot be written
    so that pqstep and polars compare it alike."""
    if series.null_count():
        raise _NotPushed("a null literal")
    dt = series.dtype
    vals = series.to_list()
    if pa.types.is_integer(typ):
        if dt.is_integer():
            return [str(v) for v in vals]
        raise _NotPushed("an integer column against %s" % dt)
    if pa.types.is_decimal(typ):
        if dt.is_integer():
            return [str(v) for v in vals]
        if isinstance(dt, pl.Decimal):
            return [str(v) for v in vals]
        if dt.is_float():
            # polars compares a decimal with a float literal as the literal
            # cast to the decimal's scale; the shortest repr is that value
            # whenever it has no more digits than the scale.
            out = []
            for v in vals:
                d = decimal.Decimal(repr(v))
                if v != v or d.as_tuple().exponent < -typ.scale:
                    raise _NotPushed("a float literal with more digits than the decimal's scale")
                out.append(str(d))
            return out
        raise _NotPushed("a decimal column against %s" % dt)
    if pa.types.is_string(typ) or pa.types.is_large_string(typ) or pa.types.is_string_view(typ):
        if dt == pl.String:
            return [_quote(v) for v in vals]
        raise _NotPushed("a string column against %s" % dt)
    if pa.types.is_boolean(typ):
        if dt == pl.Boolean:
            return ["true" if v else "false" for v in vals]
        raise _NotPushed("a boolean column against %s" % dt)
    if pa.types.is_date32(typ):
        if dt == pl.Date:
            return [_quote(v.isoformat()) for v in vals]
        raise _NotPushed("a date column against %s" % dt)
    if pa.types.is_timestamp(typ):
        if isinstance(dt, pl.Datetime) and (dt.time_zone is None) == (typ.tz is None):
            ticks = series.cast(pl.Int64).to_list()
            return [_timestamp_text(t, dt.time_unit) for t in ticks]
        raise _NotPushed("a timestamp column against %s" % dt)
    # floats (polars orders NaN above every number; pqstep follows IEEE),
    # times, binary, nested types: not pushed
    raise _NotPushed("a column of type %s" % typ)


# ---- the predicate ---------------------------------------------------------

_OPS = {"Eq": "=", "NotEq": "!=", "Lt": "<", "LtEq": "<=", "Gt": ">", "GtEq": ">="}
_FLIP = {"=": "=", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
_AND = ("And", "LogicalAnd")
_OR = ("Or", "LogicalOr")


def _ident(name):
    return '"' + name.replace('"', '""') + '"'


class _Translator:
    """Serialized polars predicate -> pqstep filter text. Each method
    returns (text, exact): `exact` False means the text keeps a superset
    of the rows (the part is then also applied by polars)."""

    def __init__(self, schema, virtual=()):
        self.schema = schema  # pyarrow schema of the scan
        self.virtual = set(virtual)  # columns not in the files (the row index): never pushed

    def column(self, node):
        if isinstance(node, dict) and set(node) == {"Cast"}:
            return self.widened(node["Cast"])
        if isinstance(node, dict) and set(node) == {"Column"} and isinstance(node["Column"], str):
            name = node["Column"]
            if name in self.schema.names and name not in self.virtual:
                return name, self.schema.field(name).type
        if isinstance(node, dict) and set(node) == {"Function"}:
            body = node["Function"]
            inputs, fn = body.get("input") or [], body.get("function")
            if isinstance(fn, dict) and isinstance(fn.get("StructExpr"), dict) and \
                    isinstance(fn["StructExpr"].get("FieldByName"), str) and len(inputs) == 1:
                # st.struct.field("a"): the path st.a (null where st is, in
                # both), through structs only (not into lists)
                name, typ = self.column(inputs[0])
                field = fn["StructExpr"]["FieldByName"]
                if pa.types.is_struct(typ) and typ.get_field_index(field) >= 0 and "." not in field:
                    return name + "." + field, typ.field(field).type
        raise _NotPushed("not a column")

    _INT_BITS = {"Int8": 8, "Int16": 16, "Int32": 32, "Int64": 64, "Int128": 128}

    def widened(self, cast):
        """A column under a cast that keeps every value and its order (polars
        widens a decimal's precision or an integer to compare it with a
        literal): the column itself."""
        name, typ = self.column(cast.get("expr"))
        to = (cast.get("dtype") or {}).get("Literal")
        if isinstance(to, dict) and "Decimal" in to and pa.types.is_decimal(typ):
            precision, scale = to["Decimal"]
            if scale == typ.scale and precision >= typ.precision:
                return name, typ
        if isinstance(to, str) and to in self._INT_BITS and pa.types.is_signed_integer(typ):
            if self._INT_BITS[to] >= typ.bit_width:
                return name, typ
        raise _NotPushed("a cast of a column")

    def compare(self, op, left, right):
        try:
            name, typ = self.column(left)
            const = right
        except _NotPushed:
            name, typ = self.column(right)
            const, op = left, _FLIP[op]
        (lit,) = _literal_texts(_constant(const), typ)
        return "%s %s %s" % (_ident(name), op, lit), True

    def node(self, n):
        if not isinstance(n, dict) or len(n) != 1:
            raise _NotPushed("unknown")
        kind, body = next(iter(n.items()))
        if not _has_data(n):  # a constant predicate (polars folds is_in([]) to false)
            c = _constant(n)
            if c.dtype != pl.Boolean or len(c) != 1 or c.null_count():
                raise _NotPushed("a constant that is not true or false")
            return ("true" if c[0] else "false"), True
        if kind == "Column":  # a boolean column alone
            name, typ = self.column(n)
            if not pa.types.is_boolean(typ):
                raise _NotPushed("a column that is not boolean")
            return "%s = true" % _ident(name), True
        if kind == "BinaryExpr":
            op = body["op"]
            if op in _AND or op in _OR:
                lt, le = self.node(body["left"])
                rt, re_ = self.node(body["right"])
                word = "and" if op in _AND else "or"
                return "(%s %s %s)" % (lt, word, rt), le and re_
            if op in _OPS:
                return self.compare(_OPS[op], body["left"], body["right"])
            raise _NotPushed("operator %s" % op)
        if kind == "Function":
            return self.function(body.get("function"), body.get("input", []))
        raise _NotPushed(kind)

    def function(self, fn, inputs):
        if fn == {"Boolean": "Not"} and len(inputs) == 1:
            text, exact = self.node(inputs[0])
            if not exact:
                raise _NotPushed("not over an inexact part")
            return "(not %s)" % text, True
        if fn in ({"Boolean": "IsNull"}, {"Boolean": "IsNotNull"}) and len(inputs) == 1:
            name, _ = self.column(inputs[0])
            return "%s is %snull" % (_ident(name), "" if fn["Boolean"] == "IsNull" else "not "), True
        if isinstance(fn, dict) and isinstance(fn.get("Boolean"), dict):
            b = fn["Boolean"]
            if "IsIn" in b and len(inputs) == 2:
                name, typ = self.column(inputs[0])
                values = _constant(inputs[1])
                if isinstance(values.dtype, (pl.List, pl.Array)):
                    if len(values) != 1:
                        raise _NotPushed("is_in over many lists")
                    values = values.explode() if len(values[0]) else values.head(0).explode()
                if values.null_count():
                    raise _NotPushed("is_in with a null")
                if len(values) == 0:
                    return "false", True
                texts = _literal_texts(values, typ)
                return "%s in (%s)" % (_ident(name), ", ".join(texts)), True
            if "IsBetween" in b and len(inputs) == 3:
                closed = b["IsBetween"].get("closed", "Both")
                name, typ = self.column(inputs[0])
                (lo,) = _literal_texts(_constant(inputs[1]), typ)
                (hi,) = _literal_texts(_constant(inputs[2]), typ)
                lop = ">=" if closed in ("Both", "Left") else ">"
                hop = "<=" if closed in ("Both", "Right") else "<"
                return "(%s %s %s and %s %s %s)" % (_ident(name), lop, lo, _ident(name), hop, hi), True
        if fn == {"StringExpr": "StartsWith"} and len(inputs) == 2:
            name, typ = self.column(inputs[0])
            prefix = _constant(inputs[1])
            if prefix.dtype != pl.String or len(prefix) != 1 or prefix.null_count():
                raise _NotPushed("starts_with of a non-literal")
            (lo,) = _literal_texts(prefix, typ)
            p = prefix[0].encode("utf-8")
            # the least string above every string with this prefix, when one exists
            while p and p[-1] == 0xFF:
                p = p[:-1]
            if not p:
                return "%s >= %s" % (_ident(name), lo), False
            upper = p[:-1] + bytes([p[-1] + 1])
            try:
                hi = _quote(upper.decode("utf-8"))
            except UnicodeDecodeError:
                return "%s >= %s" % (_ident(name), lo), False
            return "(%s >= %s and %s < %s)" % (_ident(name), lo, _ident(name), hi), False
        raise _NotPushed("function %s" % json.dumps(fn)[:80])


def _conjuncts(node):
    if isinstance(node, dict) and "BinaryExpr" in node and node["BinaryExpr"].get("op") in _AND:
        return _conjuncts(node["BinaryExpr"]["left"]) + _conjuncts(node["BinaryExpr"]["right"])
    return [node]


def translate(predicate, schema, virtual=()):
    """(pushed, residual): `pushed` the pqstep filter text for the parts of
    the polars expression `predicate` that pqstep can express (None when
    none), `residual` a polars expression for the parts it cannot (None
    when all are pushed exactly). `schema` is the scan's pyarrow schema.
    Keeping the rows where both hold gives exactly the predicate's rows."""
    if predicate is None:
        return None, None
    try:
        tree = json.loads(predicate.meta.serialize(format="json"))
    except Exception:  # a predicate polars cannot serialize: polars applies it
        return None, predicate
    tr = _Translator(schema, virtual)
    pushed, residual = [], []
    for part in _conjuncts(tree):
        try:
            text, exact = tr.node(part)
        except (_NotPushed, KeyError, TypeError, ValueError):
            text, exact = None, False
        if text is not None:
            pushed.append(text)
        if not exact:
            residual.append(_expr(part))
    rest = None
    for r in residual:
        rest = r if rest is None else rest & r
    return (" and ".join(pushed) if pushed else None), rest


def row_range(predicate, name):
    """[lo, hi) of the row numbers that the top-level AND parts of
    `predicate` on the row index column `name` allow (comparisons with
    integers, is_between), or None when none does. The parts stay in
    polars' hands too: the range only spares reading the rows outside it."""
    if predicate is None or not name:
        return None
    try:
        tree = json.loads(predicate.meta.serialize(format="json"))
    except Exception:
        return None
    lo, hi, found = 0, None, False

    def is_index(node):
        return isinstance(node, dict) and node.get("Column") == name

    def const_int(node):
        try:
            c = _constant(node)
        except _NotPushed:
            return None
        if len(c) != 1 or c.null_count() or not c.dtype.is_integer():
            return None
        return int(c[0])

    for part in _conjuncts(tree):
        if not isinstance(part, dict):
            continue
        if "BinaryExpr" in part and part["BinaryExpr"].get("op") in _OPS:
            b = part["BinaryExpr"]
            op = _OPS[b["op"]]
            if is_index(b["left"]):
                v = const_int(b["right"])
            elif is_index(b["right"]):
                v, op = const_int(b["left"]), _FLIP[op]
            else:
                continue
            if v is None or op == "!=":
                continue
            found = True
            if op in (">=", ">", "="):
                lo = max(lo, v + (op == ">"))
            if op in ("<", "<=", "="):
                end = v + (op != "<")
                hi = end if hi is None else min(hi, end)
        elif "Function" in part:
            fn = part["Function"].get("function")
            inputs = part["Function"].get("input", [])
            if (isinstance(fn, dict) and isinstance(fn.get("Boolean"), dict) and "IsBetween" in fn["Boolean"]
                    and len(inputs) == 3 and is_index(inputs[0])):
                a, b = const_int(inputs[1]), const_int(inputs[2])
                if a is None or b is None:
                    continue
                closed = fn["Boolean"]["IsBetween"].get("closed", "Both")
                found = True
                lo = max(lo, a + (closed in ("Right", "None")))
                end = b + (closed in ("Both", "Right"))
                hi = end if hi is None else min(hi, end)
    if not found:
        return None
    lo = max(lo, 0)
    return lo, (max(hi, lo) if hi is not None else None)


# ---- the source ------------------------------------------------------------

def _batches(reader):
    """The record batches of a pyarrow RecordBatchReader over a pqstep
    stream; a read that fails inside the stream is a pqstep.Error."""
    with reader:
        while True:
            try:
                yield reader.read_next_batch()
            except StopIteration:
                return
            except (OSError, pa.ArrowException) as e:
                raise Error("read failed", str(e)) from None


def _polars_schema(arrow_schema):
    return pl.DataFrame(arrow_schema.empty_table()).schema


def scan_parquet(source, *, hive_partitioning=None, threads=None, batch_size=None, decryption=None, remote=None,
                 memory_limit=None, cache=None, int96_unit="ns", deleted_rows=None, row_index_name=None,
                 pushdown=True):
    """A polars LazyFrame over Parquet read by pqstep: `source` a file, a
    list of files, a directory, a glob pattern or a URL (as
    pqstep.dataset takes them), or one file's bytes or a binary file object
    (as read_table takes them). hive_partitioning=True reads `key=value`
    directories as columns (None: when `source` is a directory or a
    pattern whose paths hold `=`). Strings come out as polars' own string
    views (no copy). batch_size: rows per batch (default: a row group's). decryption, remote, memory_limit, cache, threads: as for
    pqstep.dataset; int96_unit as for read_table; deleted_rows (one file
    only): a deletion vector as for read_table, applied inside pqstep
    before the filter. row_index_name: an int64 column (the last) of each
    row's row number in its file, counted before any filter or deletion
    (polars' with_row_index numbers the rows delivered instead); a range on
    it (one file) is read as a row range, only those rows' pages. pushdown=False hands pqstep only the projection and
    applies the whole predicate in polars (for comparisons)."""
    one = None if isinstance(source, (list, tuple)) else non_path(source)
    if isinstance(one, str):  # a file object over a local file: its path
        source, one = one, None
    if one is not None and hive_partitioning:
        raise ValueError("hive_partitioning: %r is one file's bytes, with no directories" % (one,))
    if hive_partitioning is None:
        paths = [source] if isinstance(source, str) else list(source) if isinstance(source, (list, tuple)) else []
        hive_partitioning = any("=" in str(p) for p in paths)
    if cache is None:  # every collect() of this LazyFrame parses each footer once
        cache = MetadataCache(256 << 20)
    if one is not None:
        # Bytes or a file object (python/pqstep/_sources.py): one file, read
        # through a scan of its own each time (a dataset reopens by name).
        from ._reader import scan as file_scan
        ds = None
        arrow_schema = file_scan(one, strings="string_view", remote=remote, decryption=decryption,
                                 int96_unit=int96_unit, row_index=row_index_name, memory_limit=memory_limit).schema
        files = [one]
    else:
        ds = Dataset(source, partitioning="hive" if hive_partitioning else None, threads=threads, cache=cache,
                     memory_limit=memory_limit, strings="string_view", remote=remote, decryption=decryption,
                     int96_unit=int96_unit, row_index=row_index_name)
        arrow_schema = ds.schema
        files = ds.files
    schema = _polars_schema(arrow_schema)
    # A deletion vector is one file's: that file streams through its own
    # reader; otherwise the dataset scan streams (windows of row groups
    # decoded on every thread, files pruned by partition and statistics).
    if deleted_rows is not None and len(files) != 1:
        raise ValueError("deleted_rows: a deletion vector is one file's (%d files here)" % len(files))

    def file_batches(columns, pushed, record, rows=None):
        from ._reader import scan as file_scan
        lo, hi = rows if rows is not None else (0, None)
        return _batches(file_scan(files[0], columns=columns, filter=pushed, batch_size=batch_size, threads=threads,
                                  row_offset=lo, row_limit=None if hi is None else hi - lo,
                                  memory_limit=memory_limit, cache=cache, strings="string_view", remote=remote,
                                  int96_unit=int96_unit, decryption=decryption, deleted_rows=deleted_rows,
                                  row_index=row_index_name).to_reader())

    def stream_batches(columns, pushed, record):
        scan = ds.scan(columns=columns, filter=pushed, batch_size=batch_size)
        reader = scan.to_reader()
        record["stats"] = scan.stats
        return _batches(reader)

    def source_fn(with_columns, predicate, n_rows, hint):
        virtual = (row_index_name,) if row_index_name else ()
        pushed, residual = translate(predicate, arrow_schema, virtual) if pushdown else (None, predicate)
        columns = None
        if with_columns is not None:
            need = list(with_columns)
            if residual is not None:
                for name in residual.meta.root_names():
                    if name not in need:
                        need.append(name)
            columns = [c for c in arrow_schema.names if c in need and c not in virtual]
            if not columns and virtual and any(c in need for c in virtual):
                # the row index alone: a column comes along, for the row counts
                columns = [next(c for c in arrow_schema.names if c not in virtual)]
        record = {"columns": columns, "pushed": pushed, "residual": None if residual is None else str(residual),
                  "n_rows": n_rows, "batch_size": batch_size, "rows": 0, "stats": None}
        with _LOG_LOCK:
            _LOG.append(record)
        if n_rows == 0:
            return
        left = n_rows
        # a range on the row index of one file: only those rows are read
        rows = row_range(predicate, row_index_name) if row_index_name and len(files) == 1 else None
        record["row_range"] = rows
        if rows is not None and rows[1] is not None and rows[1] <= rows[0]:
            return
        if (rows is None and n_rows is not None and pushed is None and residual is None and len(files) == 1
                and not hive_partitioning and deleted_rows is None):
            # A limit with nothing to filter is the file's first n_rows
            # rows: read as a row range, only the row groups that hold
            # them are decoded (the stream's first window would be 64 MiB).
            rows = (0, n_rows)
            record["row_range"] = rows
        if deleted_rows is not None or rows is not None or ds is None:
            batches = file_batches(columns, pushed, record, rows)
        else:
            batches = stream_batches(columns, pushed, record)
        try:
            want = None if with_columns is None else list(with_columns)
            # Filtered batches are gathered up to polars' batch-size hint
            # before they are handed over: a row group's few matching rows
            # are a morsel too small for polars' engine to move cheaply.
            # Arrow batches are gathered before they become one DataFrame:
            # one conversion of a table of many batches (zero-copy, a
            # chunk each) costs less than a DataFrame a batch and a concat.
            gather = max(int(hint or 0), 1)
            held, held_rows = [], 0

            def frame(arrow_batches):
                return pl.from_arrow(pa.Table.from_batches(arrow_batches), rechunk=False)

            def take(df):
                nonlocal left
                if residual is not None:
                    df = df.filter(residual)
                if want is not None and df.columns != want:
                    df = df.select(want)
                if left is not None:
                    if df.height >= left:
                        df = df.head(left)
                    left -= df.height
                record["rows"] += df.height
                return df

            for batch in batches:
                if batch.num_rows:
                    held.append(batch)
                    held_rows += batch.num_rows
                if held and (held_rows >= gather or (left is not None and held_rows >= left)):
                    df = take(frame(held))
                    held, held_rows = [], 0
                    if df.height:
                        yield df
                if left == 0:
                    break
            if held and left != 0:
                df = take(frame(held))
                if df.height:
                    yield df
        finally:
            batches.close()

    detail = "pqstep %s file(s)" % len(files)
    return register_io_source(source_fn, schema=schema, validate_schema=False, is_pure=True,
                              explain_name="pqstep", explain_detail=detail)
