"""GEOMETRY and GEOGRAPHY columns (parquet-testing's data/geospatial/):

- every file reads equal to pyarrow's read (the WKB bytes, row for row);
- the column is marked as GeoArrow's geoarrow.wkb extension type, its
  ARROW:extension:metadata derived from the logical type pyarrow reports
  (LogicalType.to_json()) as GeoArrow's extension-types.md says: no CRS is
  the format's default OGC:CRS84 (an authority code), `srid:N` an SRID,
  `projjson:KEY` the PROJJSON object the file's key/value metadata holds
  under KEY (pyarrow's FileMetaData.metadata), a PROJJSON string the
  object itself; GEOGRAPHY's edges `spherical` unless the type names
  another algorithm;
- the same marks reach streams, scans and datasets;
- bbox_intersects(column, xmin, ymin, xmax, ymax): the rows kept equal a
  brute-force evaluation of the same envelopes computed here (by a WKB
  reader written here, checked against the WKT column the GEOMETRY files
  carry; a GEOGRAPHY's longitudes as their shortest covering arc), for boxes that meet some,
  all, none and only the edges of the geometries, boxes across the
  antimeridian, and NOT; with pruning on and off; row groups whose
  geospatial statistics miss the box are pruned (counted), never one with a
  matching row; over a dataset of several files; through the CLI (`prune`
  names the pruned row groups, `cat --where` the rows);
- errors: a malformed call, a non-binary column, ymin > ymax, and WKB that
  is cut short or altered (every prefix and every single-byte change of a
  collection with Z and M) either reads as the brute force says or fails
  with pqstep.Error, never anything else.
"""
import json
import math
import os
import re
import struct
import subprocess
import tempfile

import pyarrow as pa

from read_oracle import CORPUS, pq, pqstep  # noqa: F401

GEO = os.path.join(CORPUS, "data", "geospatial")
CLI = os.environ.get("PQSTEP_CLI")


def wkt_envelope(text):
    """(xmin, ymin, xmax, ymax) of a WKT text's coordinates (NaN ones left
    out), or None when it has none; every innermost tuple's first two
    numbers are x and y."""
    xs, ys = [], []
    for piece in re.split(r"[(),]", text):
        nums = piece.split()
        if not nums or not all(re.fullmatch(r"-?[0-9.eE+-]+|nan", n) for n in nums):
            continue
        x, y = float(nums[0]), float(nums[1])
        if math.isnan(x) or math.isnan(y):
            continue
        xs.append(x)
        ys.append(y)
    return (min(xs), min(ys), max(xs), max(ys)) if xs else None


def shortest_arc(xs):
    """GEOGRAPHY: the longitudes' shortest covering arc (lo > hi across the
    antimeridian): the circle less the widest gap between neighbours."""
    v = sorted(xs)
    widest, lo, hi = v[0] + 360 - v[-1], v[0], v[-1]
    for a, b in zip(v, v[1:]):
        if b - a > widest:
            widest, lo, hi = b - a, b, a
    return lo, hi


def wkb_envelope(b, geography=False):
    """The same from WKB (ISO and extended), read here independently."""
    xs, ys = [], []

    def geom(at):
        le = b[at] == 1
        e = "<" if le else ">"
        (t,) = struct.unpack_from(e + "I", b, at + 1)
        at += 5
        z, m = bool(t & 0x80000000), bool(t & 0x40000000)
        if t & 0x20000000:
            at += 4
        t &= 0x0FFFFFFF
        base, iso = t % 1000, t // 1000
        dims = 2 + (z or iso in (1, 3)) + (m or iso in (2, 3))

        def pts(at, n):
            for _ in range(n):
                x, y = struct.unpack_from(e + "dd", b, at)
                if not (math.isnan(x) or math.isnan(y)):
                    xs.append(x)
                    ys.append(y)
                at += 8 * dims
            return at
        if base == 1:
            return pts(at, 1)
        (n,) = struct.unpack_from(e + "I", b, at)
        at += 4
        if base == 2:
            return pts(at, n)
        if base == 3:
            for _ in range(n):
                (k,) = struct.unpack_from(e + "I", b, at)
                at = pts(at + 4, k)
            return at
        for _ in range(n):
            at = geom(at)
        return at
    end = geom(0)
    assert end == len(b)
    if not xs:
        return None
    lo, hi = shortest_arc(xs) if geography else (min(xs), max(xs))
    return (lo, min(ys), hi, max(ys))


def x_meet(a0, a1, b0, b1):
    wa, wb = a0 > a1, b0 > b1
    if wa and wb:
        return True
    if wa:
        return b1 >= a0 or b0 <= a1
    if wb:
        return a1 >= b0 or a0 <= b1
    return a0 <= b1 and b0 <= a1


def brute(envelopes, box, negate=False):
    """Row indexes bbox_intersects (or its NOT) keeps: nulls never."""
    out = []
    for i, env in enumerate(envelopes):
        if env == "null":
            continue
        hit = env is not None and x_meet(env[0], env[2], box[0], box[2]) and env[1] <= box[3] and box[1] <= env[3]
        if hit != negate:
            out.append(i)
    return out


def geo_columns(path):
    """(name, logical type JSON) of each GEOMETRY/GEOGRAPHY column, from pyarrow."""
    s = pq.ParquetFile(path).schema
    out = []
    for i in range(len(s)):
        lt = json.loads(s.column(i).logical_type.to_json())
        if lt.get("Type") in ("Geometry", "Geography"):
            out.append((s.column(i).path, lt))
    return out


def expected_metadata(path, lt):
    """GeoArrow's metadata for logical type `lt` of the file at `path`."""
    crs = lt.get("crs", "")
    want = {}
    if not crs:
        want = {"crs": "OGC:CRS84", "crs_type": "authority_code"}
    else:
        if crs.startswith("projjson:"):
            kv = pq.read_metadata(path).metadata or {}
            crs = kv.get(crs[len("projjson:"):].encode(), crs.encode()).decode()
        if crs.startswith("{"):
            want = {"crs": json.loads(crs), "crs_type": "projjson"}
        elif crs.startswith("srid:"):
            want = {"crs": crs[len("srid:"):], "crs_type": "srid"}
        else:
            want = {"crs": crs}
    if lt["Type"] == "Geography":
        want["edges"] = lt.get("algorithm", "spherical").lower()
    return want


def check_marks(schema, path, what):
    for name, lt in geo_columns(path):
        field = schema.field(name)
        meta = field.metadata or {}
        assert meta.get(b"ARROW:extension:name") == b"geoarrow.wkb", (what, name, meta)
        got = json.loads(meta[b"ARROW:extension:metadata"])
        assert got == expected_metadata(path, lt), (what, name, got, lt)


def main():
    if not os.path.isdir(GEO):
        print("test_geospatial: skipped: no %s (PQSTEP_TEST_CORPUS)" % GEO)
        return
    files = sorted(f for f in os.listdir(GEO) if f.endswith(".parquet"))
    assert len(files) >= 10, files
    kinds = set()
    for f in files:
        path = os.path.join(GEO, f)
        ours = pqstep.read_table(path)
        theirs = pq.read_table(path)
        assert ours.num_rows == theirs.num_rows, f
        for name in theirs.schema.names:
            a = ours.column(name).combine_chunks()
            b = theirs.column(name).combine_chunks()
            assert a.equals(b.cast(a.type)), (f, name)
        check_marks(ours.schema, path, f)
        check_marks(pqstep.scan(path, batch_size=7).to_reader().schema, path, f + " scan")
        check_marks(pqstep.dataset(path).to_table().schema, path, f + " dataset")
        for _, lt in geo_columns(path):
            kinds.add((lt["Type"], "crs" in lt))
    assert ("Geometry", False) in kinds and ("Geometry", True) in kinds and ("Geography", False) in kinds, kinds
    pruned = check_bbox(files)
    check_dataset_and_cli()
    check_errors()
    print("geospatial: %d files equal pyarrow's read; GEOMETRY/GEOGRAPHY marked geoarrow.wkb with their CRS "
          "and edges as GeoArrow says; bbox_intersects equal to a brute-force evaluation of the envelopes "
          "(%d row groups pruned by geospatial statistics); malformed WKB refused" % (len(files), pruned))


BOXES = [(0, 0, 15, 15), (35, 35, 36, 36), (30, 10, 30, 10), (40, 40, 50, 50), (100, 100, 200, 200),
         (-1000, -1000, 1000, 1000), (-180, -90, 180, 90), (170, -90, -170, 90), (-111, 44, -110, 46),
         (0.5, 0.5, 0.6, 0.6), (-50, -60, 10, 20), (150, -20, -60, 20)]


def envelopes_of(table, geography):
    geo = table.column(table.schema.names[-1]).to_pylist()
    wkts = table.column("wkt").to_pylist() if "wkt" in table.schema.names else None
    out = []
    for i, g in enumerate(geo):
        if g is None:
            out.append("null")
            continue
        env = wkb_envelope(g, geography)
        if wkts is not None and wkts[i] is not None and not geography:
            assert env == wkt_envelope(wkts[i]), (i, env, wkts[i])
        out.append(env)
    return out


def check_bbox(files):
    pruned = 0
    for f in files:
        path = os.path.join(GEO, f)
        theirs = pq.read_table(path)
        envs = envelopes_of(theirs, geo_columns(path)[0][1]["Type"] == "Geography")
        col = theirs.schema.names[-1]
        for box in BOXES:
            for negate in (False, True):
                text = "%sbbox_intersects(%s, %r, %r, %r, %r)" % ("not " if negate else "", col, *box)
                want = theirs.take(pa.array(brute(envs, box, negate), pa.int64()))
                for prune in (True, False):
                    r = pqstep.Reader(path)
                    got = r.read(filter=text, prune=prune)
                    assert got.num_rows == want.num_rows, (f, text, prune, got.num_rows, want.num_rows)
                    assert got.column(col).to_pylist() == want.column(col).to_pylist(), (f, text, prune)
                    st = r.stage_stats("select")
                    if prune:
                        pruned += st["pruned_statistics"]
                    else:
                        assert st["pruned_statistics"] == 0, st
    assert pruned > 0, "no row group was pruned by its geospatial statistics"
    return pruned


def check_dataset_and_cli():
    files = [os.path.join(GEO, n) for n in ("geography-points.parquet", "geography-lines.parquet")]
    box = (-20, -20, 20, 20)
    want = 0
    for p in files:
        want += len(brute(envelopes_of(pq.read_table(p), True), box))
    got = pqstep.dataset(files).to_table(filter="bbox_intersects(geometry, -20, -20, 20, 20)")
    assert got.num_rows == want, (got.num_rows, want)
    if not CLI:
        print("test_geospatial: CLI checks skipped: PQSTEP_CLI is not set")
        return
    path = os.path.join(GEO, "geospatial.parquet")
    out = subprocess.run([CLI, "prune", "--where", "bbox_intersects(geometry, 100, 100, 200, 200)", path],
                         capture_output=True, text=True)
    assert out.returncode == 0 and "pruned by statistics" in out.stdout, out
    out = subprocess.run([CLI, "cat", "--where", "bbox_intersects(geometry, 35, 35, 36, 36)", "--columns", "wkt",
                          path], capture_output=True, text=True)
    want = brute(envelopes_of(pq.read_table(path), False), (35, 35, 36, 36))
    assert out.returncode == 0, out
    assert len(out.stdout.strip().splitlines()) - 1 == len(want), (out.stdout, len(want))


def check_errors():
    path = os.path.join(GEO, "geospatial.parquet")
    for text, says in (("bbox_intersects(geometry, 1, 2, 3)", "expected ','"),
                       ("bbox_intersects(geometry, 1, 5, 3, 2)", "ymin"),
                       ("bbox_intersects(geometry, 1, 2, 3, 1e999)", "finite"),
                       ("bbox_intersects(1, 2, 3, 4, 5)", "expected a column"),
                       ("bbox_intersects(group, 0, 0, 1, 1) and bbox_intersects(nope, 0, 0, 1, 1)", "nope")):
        try:
            pqstep.read_table(path, filter=text)
        except pqstep.Error as e:
            assert says in str(e), (text, str(e))
        else:
            raise AssertionError("no error for %s" % text)
    with tempfile.TemporaryDirectory() as tmp:
        ints = os.path.join(tmp, "ints.parquet")
        pq.write_table(pa.table({"g": pa.array([1, 2], pa.int64())}), ints)
        try:
            pqstep.read_table(ints, filter="bbox_intersects(g, 0, 0, 1, 1)")
        except pqstep.Error as e:
            assert "binary (WKB)" in str(e), str(e)
        else:
            raise AssertionError("bbox_intersects on an int64 column")
        # a collection with Z and M (ISO) and an extended-WKB point with an SRID
        good = [bytes.fromhex("01") + struct.pack("<I", 3007) + struct.pack("<I", 2) +
                bytes.fromhex("01") + struct.pack("<I", 3001) + struct.pack("<4d", 1, 2, 3, 4) +
                bytes.fromhex("01") + struct.pack("<I", 3002) + struct.pack("<I", 2) + struct.pack("<8d", 5, 6, 7, 8,
                                                                                                     -1, 9, 0, 0),
                bytes.fromhex("00") + struct.pack(">I", 0x20000001) + struct.pack(">I", 4326) +
                struct.pack(">2d", 7.5, -3)]
        boxes = [(0, 0, 6, 10), (7, -4, 8, -2), (-2, 8, 0, 10)]
        cases = []
        for g in good:
            cases += [g[:k] for k in range(len(g))]
            for k in range(len(g)):
                for bit in (0x01, 0x80):
                    cases.append(g[:k] + bytes([g[k] ^ bit]) + g[k + 1:])
        for n, value in enumerate(cases):
            path = os.path.join(tmp, "w.parquet")
            pq.write_table(pa.table({"g": pa.array([value], pa.binary())}), path)
            try:
                env = wkb_envelope(value)
            except Exception:
                env = "bad"
            for box in boxes:
                text = "bbox_intersects(g, %r, %r, %r, %r)" % box
                try:
                    got = pqstep.read_table(path, filter=text).num_rows
                except pqstep.Error as e:
                    assert "WKB" in str(e) and "row 0" in str(e), (n, str(e))
                    continue
                assert env != "bad", (n, value.hex(), "read, but not WKB")
                assert got == len(brute([env], box)), (n, value.hex(), box, got)
        # the untouched values: each meets the boxes it should (read, not refused)
        for g, hits in zip(good, ([0, 2], [1])):
            path = os.path.join(tmp, "w.parquet")
            pq.write_table(pa.table({"g": pa.array([g], pa.binary())}), path)
            for b, box in enumerate(boxes):
                got = pqstep.read_table(path, filter="bbox_intersects(g, %r, %r, %r, %r)" % box).num_rows
                assert got == (b in hits), (g.hex(), box, got)


if __name__ == "__main__":
    main()
