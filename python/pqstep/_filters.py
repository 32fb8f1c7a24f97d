"""Filters given the way pyarrow takes them, as pqstep's predicate text.

pyarrow.parquet.read_table(filters=...), pandas.read_parquet and
dask.dataframe.read_parquet take a filter in disjunctive normal form: a
list of (column, op, value) tuples, all of which must hold, or a list of
such lists, any of which must hold. to_text() writes one as the text
pq_expr_parse reads, so every entry point that takes `filter=` takes both.
"""
import datetime as dt
import decimal
import math
import numbers

OPS = {"=": "=", "==": "=", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">=",
       "in": "in", "not in": "not in"}


def _column(name):
    if not isinstance(name, str) or not name:
        raise ValueError("filter: a column name must be a non-empty string, not %r" % (name,))
    if '"' in name or "\0" in name:
        raise ValueError("filter: column name %r cannot be written in a filter (it holds '\"')" % (name,))
    return '"%s"' % name


def _string(s):
    if "\0" in s:
        raise ValueError("filter: a string value holding NUL cannot be written in a filter: %r" % (s,))
    return "'%s'" % s.replace("'", "''")


def _timestamp(v):
    if v.tzinfo is not None:  # an instant: stored values of UTC-adjusted columns are UTC
        v = v.astimezone(dt.timezone.utc).replace(tzinfo=None)
    text = "%04d-%02d-%02d %02d:%02d:%02d" % (v.year, v.month, v.day, v.hour, v.minute, v.second)
    return "'%s.%06d'" % (text, v.microsecond) if v.microsecond else "'%s'" % text


def literal(value):
    """A Python value (or a numpy / pyarrow scalar) as a literal of the
    filter syntax."""
    if hasattr(value, "as_py") and not isinstance(value, (str, bytes)):  # a pyarrow scalar
        value = value.as_py()
    elif hasattr(value, "item") and not isinstance(value, (str, bytes, decimal.Decimal)):  # a numpy scalar
        value = value.item()
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            raise ValueError("filter: %r is not a finite decimal" % (value,))
        return format(value, "f")
    if isinstance(value, numbers.Real):
        x = float(value)
        if math.isnan(x) or math.isinf(x):
            raise ValueError("filter: %r cannot be compared in a filter (no NaN or infinity literal)" % (value,))
        return repr(x)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        try:
            return _string(bytes(value).decode("utf-8"))
        except UnicodeDecodeError:
            raise ValueError("filter: bytes that are not UTF-8 cannot be written in a filter: %r" % (bytes(value),))
    if isinstance(value, dt.datetime):
        return _timestamp(value)
    if isinstance(value, dt.date):
        return "'%s'" % value.isoformat()
    if isinstance(value, dt.time):
        return "'%s'" % value.isoformat()
    if value is None:
        raise ValueError("filter: None is not a value to compare with (write ('x', '=', ...) only for values; "
                         "pqstep's text has IS NULL)")
    raise TypeError("filter: a value of type %s cannot be written in a filter" % type(value).__name__)


def _term(t):
    if not isinstance(t, (tuple, list)) or len(t) != 3:
        raise ValueError("filter: each condition is a (column, op, value) tuple, not %r" % (t,))
    col, op, value = t
    key = op.lower().strip() if isinstance(op, str) else op
    if key not in OPS:
        raise ValueError("filter: operator %r is not one of %s" % (op, ", ".join(sorted(OPS))))
    name = _column(col)
    if OPS[key] in ("in", "not in"):
        if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
            raise ValueError("filter: %r needs a collection of values, not %r" % (op, value))
        values = list(value)
        # pyarrow's meaning for nulls: `in` matches a null row only where
        # None is listed; `not in` keeps null rows unless None is listed
        nulls = any(v is None for v in values)
        listed = ", ".join(literal(v) for v in values if v is not None)
        if OPS[key] == "in":
            if not listed:
                return "%s is null" % name if nulls else "false"
            return "(%s in (%s) or %s is null)" % (name, listed, name) if nulls else "%s in (%s)" % (name, listed)
        if not listed:
            return "%s is not null" % name if nulls else "true"
        return "%s not in (%s)" % (name, listed) if nulls else "(%s not in (%s) or %s is null)" % (name, listed, name)
    return "%s %s %s" % (name, OPS[key], literal(value))


def to_text(filter):
    """filter= as pqstep's predicate text: a string passes as it is; a list
    of (column, op, value) tuples (all must hold) or of such lists (any must
    hold), as pyarrow's `filters=`, is written as text that keeps the rows
    pyarrow keeps. ops: = == != < <= > >= in "not in" (a null row is kept
    by `not in` unless None is listed, and by `in` only where it is);
    values: numbers, strings, bytes (UTF-8), bool, Decimal, date, datetime
    (an aware one as UTC), time, and numpy or pyarrow scalars."""
    if filter is None or isinstance(filter, str):
        return filter
    if not isinstance(filter, (list, tuple)):
        raise TypeError("filter must be a string in pqstep's predicate syntax or a list of (column, op, value) "
                        "tuples as pyarrow's filters=, not %s" % type(filter).__name__)
    if not filter:
        raise ValueError("filter: an empty list")
    first = filter[0]
    # as pyarrow tells them apart: a conjunction's first item is a tuple whose first item is the column
    groups = [filter] if isinstance(first, (list, tuple)) and first and isinstance(first[0], str) else filter
    parts = []
    for g in groups:
        if not isinstance(g, (list, tuple)) or not g:
            raise ValueError("filter: each alternative is a non-empty list of (column, op, value) tuples, not %r"
                             % (g,))
        terms = [_term(t) for t in g]
        parts.append(" and ".join(terms))
    if len(parts) == 1:
        return parts[0]
    return " or ".join("(%s)" % p for p in parts)


def either(filter, filters):
    """filter= or filters= (pyarrow's and dask's name), as text; not both."""
    if filter is not None and filters is not None:
        raise TypeError("give filter= or filters=, not both")
    return to_text(filter if filter is not None else filters)
