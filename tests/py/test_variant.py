"""VARIANT values (pq_variant.h, pqstep.variant) against parquet-testing:

- variant/: every raw encoding (primitives of all 21 types, short and long
  strings, objects, arrays, nested) decoded by pqstep.variant.to_python
  and rendered by the C renderer (pq_variant_to_json), both equal to the
  value data_dictionary.json gives (its own text forms for dates, times and
  timestamps parsed; floats compared as floats);
- shredded_variant/: every case read by pqstep and turned into variants by
  pqstep.variant.values (rebuilt from typed_value where shredded), each
  row equal to the expected .variant.bin once both are decoded (values,
  not bytes); the cases cases.json marks as errors refused;
- the reader marks an unshredded VARIANT column with Arrow's extension
  name arrow.parquet.variant, and `pqstep cat` renders each of its rows as
  the JSON of the expected variant;
- hostile bytes: every prefix and every single-byte change of each
  encoding either decodes or raises pqstep.Error in both decoders, never
  anything else, and the two agree on which.
"""
import datetime
import decimal
import json
import os
import re
import subprocess
import sys
import uuid

from read_oracle import CORPUS, pq, pqstep  # noqa: F401

import pqstep.variant as pv

CLI = os.environ.get("PQSTEP_CLI")
VARIANT = os.path.join(CORPUS, "variant")
SHREDDED = os.path.join(CORPUS, "shredded_variant")


def expected_values():
    text = open(os.path.join(VARIANT, "data_dictionary.json")).read()
    text = re.sub(r",\s*}\s*$", "}", text)  # the file ends with a trailing comma
    return json.loads(text)


def normalize(name, got, want):
    """want (data_dictionary.json's text or number) as got's type."""
    if isinstance(got, datetime.datetime):
        w = datetime.datetime.fromisoformat(want.replace(" ", "T"))
        return got, w
    if isinstance(got, datetime.time):
        h, m, s, us = (int(x) for x in re.split(r"[:.]", want))  # "12:33:54:123456" or "12:33:54.123456"
        return got, datetime.time(h, m, s, us)
    if isinstance(got, datetime.date):
        return got, datetime.date.fromisoformat(want)
    if isinstance(got, decimal.Decimal):
        return float(got), float(want)
    if isinstance(got, bytes):
        import base64
        return got, base64.b64decode(want)
    if isinstance(got, uuid.UUID):
        return got, uuid.UUID(want)
    if isinstance(got, float) and name == "primitive_float":
        import struct
        return got, struct.unpack("<f", struct.pack("<f", want))[0]
    return got, want


def jsonable(v):
    """A to_python value as pq_variant_to_json writes it."""
    if isinstance(v, dict):
        return {k: jsonable(x) for k, x in v.items()}
    if isinstance(v, list):
        return [jsonable(x) for x in v]
    if isinstance(v, datetime.datetime):
        return v.isoformat(timespec="microseconds")
    if isinstance(v, (datetime.date, datetime.time, uuid.UUID)):
        return str(v) if not isinstance(v, datetime.time) else v.isoformat(timespec="microseconds")
    if isinstance(v, bytes):
        import base64
        return base64.b64encode(v).decode()
    if isinstance(v, decimal.Decimal):
        return float(v)
    return v


def check_raw_encodings():
    want = expected_values()
    names = sorted({f.rsplit(".", 1)[0] for f in os.listdir(VARIANT) if f.endswith(".value")})
    checked = 0
    for name in names:
        m = open(os.path.join(VARIANT, name + ".metadata"), "rb").read()
        v = open(os.path.join(VARIANT, name + ".value"), "rb").read()
        got = pv.to_python(m, v)
        text = pv.to_json(m, v)
        parsed = json.loads(text, parse_float=float)
        if name in want:
            g, w = got, want[name]
            if isinstance(got, (dict, list)):
                assert jsonable(got) == json.loads(json.dumps(w)), (name, got, w)
            else:
                g, w = normalize(name, got, w)
                assert g == w, (name, g, w)
        elif name == "long_string":  # no entry in the dictionary: the bytes themselves
            assert isinstance(got, str) and len(got.encode()) >= 64, name
        else:
            raise AssertionError("%s: no expected value" % name)
        # the C renderer and the Python decoder agree
        j = jsonable(got)
        if isinstance(got, datetime.datetime) and v[0] >> 2 in (18, 19):  # nanoseconds: C keeps all nine digits
            assert parsed.startswith(j[:26]), (name, parsed, j)
        elif isinstance(got, datetime.datetime):
            assert datetime.datetime.fromisoformat(parsed) == got, (name, parsed, got)
        else:
            assert parsed == j, (name, parsed, j)
        checked += 1
    return checked


def variant_field(table):
    names = [n for n in table.schema.names if n != "id"]
    return table.column(names[0]) if names else None


def check_shredded_corpus():
    """Every case, read two ways: as pqstep reads it by default (shredded
    variants rebuilt by the C reader into arrow.parquet.variant) and as
    stored (variant_storage=True) turned into variants by
    pqstep.variant.values (rebuilt from typed_value in Python); both equal
    to the expected .variant.bin rows, and `pqstep cat` renders every row
    as the expected variant's JSON. The cases cases.json marks as errors
    fail both ways with pqstep.Error; the files named INVALID (which the
    specification lets a reader refuse or read) give a value or
    pqstep.Error. Streams (scan, small batches) rebuild as the whole read."""
    cases = json.load(open(os.path.join(SHREDDED, "cases.json")))
    unshredded = shredded = errors = invalid = 0
    for c in cases:
        if "parquet_file" not in c:
            continue
        path = os.path.join(SHREDDED, c["parquet_file"])
        stored = pqstep.read_table(path, variant_storage=True)
        scol = variant_field(stored)
        is_shredded = "typed_value" in [f.name for f in scol.type]
        if "error_message" in c:
            try:
                pv.values(scol)
            except pqstep.Error:
                pass
            else:
                raise AssertionError("case %d (%s) read in Python without an error" % (c["case_number"],
                                                                                     c["error_message"]))
            try:
                pqstep.read_table(path)
            except pqstep.Error as e:
                assert "invalid variant" in str(e) or "VARIANT" in str(e), (c["case_number"], str(e))
                errors += 1
                continue
            raise AssertionError("case %d (%s) read without an error" % (c["case_number"], c["error_message"]))
        if "INVALID" in c["parquet_file"]:
            for read in (lambda: pv.values(scol), lambda: pv.values(variant_field(pqstep.read_table(path)))):
                try:
                    read()
                except pqstep.Error:
                    pass
            invalid += 1
            continue
        t = pqstep.read_table(path)
        col = variant_field(t)
        field = t.schema.field([n for n in t.schema.names if n != "id"][0])
        assert [f.name for f in col.type] == ["metadata", "value"], (c["case_number"], col.type)
        assert (field.metadata or {}).get(b"ARROW:extension:name") == b"arrow.parquet.variant", field
        files = c.get("variant_files") or [c.get("variant_file")]
        got = pv.values(col)
        got_stored = pv.values(scol)
        streamed = pv.values(variant_field(pqstep.scan(path, batch_size=2).to_reader().read_all()))
        cli_rows = None
        if CLI:
            p = subprocess.run([CLI, "cat", "--format", "jsonl", path], capture_output=True, text=True)
            assert p.returncode == 0, p.stderr
            cli_rows = [json.loads(line)[field.name] for line in p.stdout.splitlines()]
        for i, f in enumerate(files):
            if f is None:
                assert got[i] is None and got_stored[i] is None, (c["case_number"], i, got[i], got_stored[i])
                continue
            m, v = pv.split(open(os.path.join(SHREDDED, f), "rb").read())
            want = pv.to_python(m, v)
            assert got[i] == want, (c["case_number"], i, got[i], want)
            assert got_stored[i] == want, (c["case_number"], i, got_stored[i], want)
            assert streamed[i] == want, (c["case_number"], i, streamed[i], want)
            if cli_rows is not None:
                assert cli_rows[i] == json.loads(pv.to_json(m, v)), (c["case_number"], i, cli_rows[i])
        if is_shredded:
            shredded += 1
        else:
            unshredded += 1
    return unshredded, shredded, errors, invalid


def check_hostile():
    """Every prefix and single-byte change: a value or pqstep.Error, and
    the C renderer and Python decoder agree on which."""
    names = sorted({f.rsplit(".", 1)[0] for f in os.listdir(VARIANT) if f.endswith(".value")})
    tried = 0
    for name in names:
        m = open(os.path.join(VARIANT, name + ".metadata"), "rb").read()
        v = open(os.path.join(VARIANT, name + ".value"), "rb").read()
        cases = [(m, v[:k]) for k in range(len(v))] + [(m[:k], v) for k in range(len(m))]
        for pos in range(min(len(v), 64)):
            for delta in (1, 0x80):
                b = bytearray(v)
                b[pos] ^= delta
                cases.append((m, bytes(b)))
        for mm, vv in cases:
            c_ok = py_ok = True
            try:
                pv.to_json(mm, vv)
            except pqstep.Error:
                c_ok = False
            try:
                pv.to_python(mm, vv)
            except pqstep.Error as e:
                py_ok = None if e.code == "unsupported" else False  # a year Python's datetime cannot hold
            if py_ok is not None:
                assert c_ok == py_ok, (name, mm.hex(), vv.hex(), c_ok, py_ok)
            tried += 1
    return tried


def main():
    if not os.path.isdir(VARIANT) or not os.path.isdir(SHREDDED):
        print("SKIP: no variant/ or shredded_variant/ in the corpus")
        return 77
    n = check_raw_encodings()
    un, sh, err, inv = check_shredded_corpus()
    tried = check_hostile()
    print("variant (shredded ones rebuilt by the C reader and, from their storage, by pqstep.variant): %d raw encodings equal data_dictionary.json (C and Python); %d unshredded and %d shredded "
          "corpus cases equal their .variant.bin (pqstep.variant.values), %d error cases refused, %d INVALID "
          "files read or refused; %d hostile inputs refused alike" % (n, un, sh, err, inv, tried))
    return 0


if __name__ == "__main__":
    sys.exit(main())
