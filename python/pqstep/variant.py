"""VARIANT values (parquet-format's VariantEncoding.md) as Python values or
JSON text.

    import pqstep.variant as pv
    pv.to_python(metadata, value)   # -> None, bool, int, float, Decimal, str,
                                    #    bytes, date, time, datetime, UUID, list, dict
    pv.to_json(metadata, value)     # -> str (pqstep's C renderer, pq_variant.h)
    pv.values(array)                # a struct array of (metadata, value) rows
    pv.split(blob)                  # metadata and value laid end to end -> (metadata, value)

Timestamps with a time zone come back as UTC datetimes (nanosecond ones
rounded down to microseconds: Python has no finer); objects as dicts in
their stored (name) order. A value the encoding forbids raises
pqstep.Error ("corrupt data") naming what is wrong.
"""
import ctypes
import datetime
import decimal
import struct
import uuid

from . import _lib as _c
from ._errors import Error, error as _error

__all__ = ["to_python", "to_json", "values", "split"]

_MAX_DEPTH = 128
_EPOCH = datetime.datetime(1970, 1, 1)
_EPOCH_UTC = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


_PER_SECOND = {"s": 1, "ms": 10 ** 3, "us": 10 ** 6, "ns": 10 ** 9}


def _micros(ticks, unit):
    """Ticks of `unit` ("s", "ms", "us", "ns") as whole microseconds (down)."""
    return ticks * 10 ** 6 // _PER_SECOND[unit]


def _time_of_day(us):
    s, us = divmod(us, 10 ** 6)
    return datetime.time(s // 3600, s // 60 % 60, s % 60, us)


def _corrupt(what):
    return Error("corrupt data", "variant value: %s" % what)


def to_json(metadata, value):
    """The variant as JSON text (pq_variant_to_json)."""
    m, v = bytes(metadata), bytes(value)
    n = ctypes.c_size_t()
    err = _c.pq_error()
    cap = 256 + 4 * (len(m) + len(v))
    while True:
        buf = ctypes.create_string_buffer(cap)
        if _c.pq_variant_to_json(m, len(m), v, len(v), buf, cap, ctypes.byref(n), ctypes.byref(err)) != _c.PQ_OK:
            raise _error(err)
        if n.value < cap:
            return buf.raw[:n.value].decode("utf-8")
        cap = n.value + 1


def split(blob):
    """(metadata, value) of a metadata and a value laid end to end (the
    .variant.bin files of parquet-testing)."""
    blob = bytes(blob)
    err = _c.pq_error()
    n = _c.pq_variant_metadata_size(blob, len(blob), ctypes.byref(err))
    if n == 0:
        raise _error(err)
    return blob[:n], blob[n:]


class _Meta:
    def __init__(self, m):
        if not m or m[0] & 15 != 1:
            raise _corrupt("metadata version %s (only 1 is known)" % (m[0] & 15 if m else "missing"))
        osize = (m[0] >> 6) + 1
        n = int.from_bytes(m[1:1 + osize], "little")
        offs = [int.from_bytes(m[1 + osize * (i + 1):1 + osize * (i + 2)], "little") for i in range(n + 1)]
        base = 1 + osize * (n + 2)
        if len(m) < base or offs[0] != 0 or any(b < a for a, b in zip(offs, offs[1:])) or base + offs[-1] > len(m):
            raise _corrupt("metadata offsets")
        try:
            self.names = [m[base + a:base + b].decode("utf-8") for a, b in zip(offs, offs[1:])]
        except UnicodeDecodeError:
            raise _corrupt("a metadata string that is not UTF-8") from None


def _decode(meta, v, pos, end, depth):
    """(value, position after it)."""
    if depth > _MAX_DEPTH:
        raise _corrupt("nested deeper than %d" % _MAX_DEPTH)
    if pos >= end:
        raise _corrupt("a value with no bytes at %d" % pos)
    basic, h = v[pos] & 3, v[pos] >> 2
    p = pos + 1

    def take(n):
        if p + n > end:
            raise _corrupt("%d bytes past the end at %d" % (n, p))
        return v[p:p + n]
    if basic == 1:
        return take(h).decode("utf-8"), p + h
    if basic == 0:
        t = h
        if t == 0:
            return None, p
        if t in (1, 2):
            return t == 1, p
        fixed = {3: ("<b", 1), 4: ("<h", 2), 5: ("<i", 4), 6: ("<q", 8), 7: ("<d", 8), 14: ("<f", 4)}
        if t in fixed:
            fmt, n = fixed[t]
            return struct.unpack(fmt, take(n))[0], p + n
        if t in (8, 9, 10):
            n = {8: 4, 9: 8, 10: 16}[t]
            raw = take(1 + n)
            if raw[0] > 38:
                raise _corrupt("a decimal scale over 38")
            unscaled = int.from_bytes(raw[1:], "little", signed=True)
            return decimal.Decimal(unscaled).scaleb(-raw[0]), p + 1 + n
        try:
            if t == 11:
                return datetime.date(1970, 1, 1) + datetime.timedelta(days=struct.unpack("<i", take(4))[0]), p + 4
            if t in (12, 13, 18, 19):
                ticks = struct.unpack("<q", take(8))[0]
                us = _micros(ticks, "us" if t in (12, 13) else "ns")
                base = _EPOCH_UTC if t in (12, 18) else _EPOCH
                return base + datetime.timedelta(microseconds=us), p + 8
        except OverflowError:
            raise Error("unsupported", "variant value: a date or timestamp outside the years 1..9999 of Python's "
                        "datetime (to_json renders it)") from None
        if t == 17:
            us = struct.unpack("<q", take(8))[0]
            if not 0 <= us < 86400 * 10 ** 6:
                raise _corrupt("a time of day outside 00:00..24:00")
            return _time_of_day(us), p + 8
        if t in (15, 16):
            n = struct.unpack("<I", take(4))[0]
            p += 4
            raw = take(n)
            return (bytes(raw) if t == 15 else raw.decode("utf-8")), p + n
        if t == 20:
            return uuid.UUID(bytes=bytes(take(16))), p + 16
        raise _corrupt("an unknown primitive type %d" % t)
    osize = (h & 3) + 1
    obj = basic == 2
    idsize = ((h >> 2) & 3) + 1 if obj else 0
    large = (h >> 4) & 1 if obj else (h >> 2) & 1
    nsize = 4 if large else 1
    n = int.from_bytes(take(nsize), "little")
    p += nsize
    raw = take(idsize * n)
    ids = [int.from_bytes(raw[idsize * i:idsize * (i + 1)], "little") for i in range(n)]
    p += idsize * n
    raw = take(osize * (n + 1))
    offs = [int.from_bytes(raw[osize * i:osize * (i + 1)], "little") for i in range(n + 1)]
    p += osize * (n + 1)
    total = offs[-1]
    if p + total > end:
        raise _corrupt("elements past the end at %d" % p)
    items = []
    for i in range(n):
        val, _ = _decode(meta, v, p + offs[i], p + total, depth + 1)
        items.append(val)
    if not obj:
        return items, p + total
    out = {}
    prev = None
    for i, fid in enumerate(ids):
        if fid >= len(meta.names):
            raise _corrupt("a field id outside the metadata dictionary")
        name = meta.names[fid]
        if prev is not None and name.encode() <= prev.encode():
            raise _corrupt("object fields not in ascending order of their names, or repeated")
        prev = name
        out[name] = items[i]
    return out, p + total


def to_python(metadata, value):
    """The variant as a Python value (see the module's doc)."""
    m, v = bytes(metadata), bytes(value)
    try:
        val, used = _decode(_Meta(m), v, 0, len(v), 0)
    except UnicodeDecodeError:
        raise _corrupt("a string that is not UTF-8") from None
    if used != len(v):
        raise _corrupt("%d bytes after the value" % (len(v) - used))
    return val


_MISSING = object()


def _conflict(what):
    return Error("corrupt data", "invalid variant: %s" % what)


def _check_primitive(t, where):
    import pyarrow as pa
    storage = getattr(t, "storage_type", t)
    ok = (pa.types.is_boolean(storage) or pa.types.is_signed_integer(storage) or pa.types.is_floating(storage)
          or pa.types.is_decimal(storage) or pa.types.is_date32(storage) or pa.types.is_time64(storage)
          or pa.types.is_timestamp(storage) or pa.types.is_string(storage) or pa.types.is_large_string(storage)
          or pa.types.is_string_view(storage) or pa.types.is_binary(storage) or pa.types.is_large_binary(storage)
          or pa.types.is_binary_view(storage)
          or (pa.types.is_fixed_size_binary(storage) and storage.byte_width == 16
              and getattr(t, "extension_name", "") == "arrow.uuid"))
    if not ok:
        raise Error("unsupported", "invalid variant: %s is shredded as %s, which is no variant type" % (where, t))


def _check_typed(t, where):
    """The shredded layout under typed_value `t`: objects of {value,
    typed_value} groups, lists of them, and variant primitive types."""
    import pyarrow as pa
    if pa.types.is_struct(t):
        for f in t:
            if not pa.types.is_struct(f.type):
                raise Error("unsupported", "invalid variant: shredded field %s.%s is not a group" % (where, f.name))
            if f.type.get_field_index("typed_value") >= 0:
                _check_typed(f.type.field("typed_value").type, where + "." + f.name)
    elif pa.types.is_list(t) or pa.types.is_large_list(t):
        e = t.value_type
        if pa.types.is_struct(e) and e.get_field_index("typed_value") >= 0:
            _check_typed(e.field("typed_value").type, where + "[]")
    else:
        _check_primitive(t, where)


def _typed_py(arr, i):
    """Row i of a shredded typed_value leaf as the Python value the variant
    decoder gives for the same variant type."""
    import pyarrow as pa
    import pyarrow.compute as pc
    t = arr.type
    if pa.types.is_timestamp(t):
        us = _micros(pc.cast(arr.slice(i, 1), pa.int64())[0].as_py(), t.unit)
        return (_EPOCH_UTC if t.tz is not None else _EPOCH) + datetime.timedelta(microseconds=us)
    if pa.types.is_time(t):
        return _time_of_day(_micros(pc.cast(arr.slice(i, 1), pa.int64())[0].as_py(), t.unit))
    v = arr[i].as_py()
    if getattr(t, "extension_name", "") == "arrow.uuid" and not isinstance(v, uuid.UUID):
        return uuid.UUID(bytes=bytes(v))
    return v


def _field(arr, name):
    import pyarrow as pa
    if arr is None or not pa.types.is_struct(arr.type) or arr.type.get_field_index(name) < 0:
        return None
    return arr.field(name)


def _shredded(meta, value, typed, i, where):
    """The variant that (value, typed_value) hold at row i: a Python value,
    or _MISSING when both are null (a missing object field)."""
    import pyarrow as pa
    v = value[i].as_py() if value is not None and value[i].is_valid else None
    if typed is None or not typed[i].is_valid:
        return _MISSING if v is None else to_python(meta, v)
    t = typed.type
    if pa.types.is_struct(t):  # an object, perhaps partially shredded
        obj = {}
        if v is not None:
            base = to_python(meta, v)
            if not isinstance(base, dict):
                raise _conflict("non-object value with shredded fields (%s)" % where)
            obj.update(base)
        for f in t:
            child = typed.field(f.name)
            got = _shredded(meta, _field(child, "value"), _field(child, "typed_value"), i, where + "." + f.name)
            if got is not _MISSING:
                obj[f.name] = got
        return dict(sorted(obj.items(), key=lambda kv: kv[0].encode("utf-8")))
    if v is not None:
        raise _conflict("conflicting value and typed_value (%s)" % where)
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        start, end = typed.offsets[i].as_py(), typed.offsets[i + 1].as_py()
        elems = typed.values
        ev, et = _field(elems, "value"), _field(elems, "typed_value")
        out = []
        for j in range(start, end):
            got = _shredded(meta, ev, et, j, where + "[%d]" % (j - start))
            out.append(None if got is _MISSING else got)  # a missing element reads as a variant null
        return out
    return _typed_py(typed, i)


def values(array):
    """The Python values of a pyarrow struct array (or chunked array) of
    variants: unshredded (children `metadata` and `value`) or shredded
    (`metadata`, `value` and `typed_value`, rebuilt as VariantShredding.md
    says: objects merged with the fields left in `value`, arrays, every
    primitive); None for a null row or a missing value. The invalid
    layouts the specification names (a non-object value beside shredded
    fields, both value and typed_value set outside an object, a shredded
    type that is no variant type) raise pqstep.Error; a missing array
    element reads as a variant null."""
    import pyarrow as pa
    chunks = array.chunks if isinstance(array, pa.ChunkedArray) else [array]
    out = []
    for ch in chunks:
        ms = ch.field("metadata")
        vs, ts = _field(ch, "value"), _field(ch, "typed_value")
        if ts is not None:
            _check_typed(ts.type, "typed_value")
        for i in range(len(ch)):
            if not ch[i].is_valid:
                out.append(None)
                continue
            got = _shredded(ms[i].as_py(), vs, ts, i, "row %d" % i)
            out.append(None if got is _MISSING else got)
    return out
