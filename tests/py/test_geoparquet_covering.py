#!/usr/bin/env python3
"""bbox_intersects on GeoParquet 1.1 files with a bbox covering (written by
geopandas, tests/fixtures/gen_geoparquet.py, committed in
tests/fixtures/geoparquet/): the covering columns' statistics prune row
groups whose rows' boxes all miss the query's.

Oracle: each row's box from the covering column as pyarrow reads it
(points and axis-aligned boxes: the covering is the geometry's envelope),
checked by brute force against every query box (closed intervals, a box
across the antimeridian). Checked: the rows kept, with pruning on and off;
row groups pruned (counted) where the covering says no row can match, and
never one with a match; only y prunes where the metadata says the edges
are spherical; nothing prunes without a covering, or with "geo" metadata
that does not parse or names no usable columns (the rows stay the same,
no error).
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from read_oracle import SOURCE, pa, pq, pqstep, same  # noqa: E402

HERE = os.path.join(SOURCE, "tests", "fixtures", "geoparquet")
BOXES = [(10, -90, 20, 90), (-180, 85, 180, 89), (170, -90, -170, 90), (-50.5, 0, -50.5, 80),
         (0, -10, 60, 10), (-180, -90, 180, 90), (200, 0, 300, 10)]


def row_boxes():
    t = pq.read_table(os.path.join(HERE, "points_cover.parquet"))
    geom = t.column("geometry").to_pylist()
    boxes = t.column("bbox").to_pylist()
    return [None if g is None else b for g, b in zip(geom, boxes)]


def meets(b, q):
    x0, y0, x1, y1 = q
    if not (b["ymin"] <= y1 and y0 <= b["ymax"]):
        return False
    if x0 <= x1:
        return b["xmin"] <= x1 and x0 <= b["xmax"]
    return b["xmax"] >= x0 or b["xmin"] <= x1  # across the antimeridian


def read(path, box, prune=True):
    text = "bbox_intersects(geometry, %r, %r, %r, %r)" % box
    with pqstep.Reader(path) as r:
        t = r.read(filter=text, prune=prune)
        return t, r.stage_stats("select")["pruned_statistics"], r.num_row_groups


def groups_with_match(boxes, q, rows_per_group=500):
    hit = set()
    for i, b in enumerate(boxes):
        if b is not None and meets(b, q):
            hit.add(i // rows_per_group)
    return hit


def union_misses(boxes, q, use_x, rows_per_group=500):
    """Row groups whose boxes' union (least xmin and ymin, greatest xmax
    and ymax) misses q; with use_x False, in y alone."""
    n = 0
    for g in range(0, len(boxes), rows_per_group):
        part = [b for b in boxes[g:g + rows_per_group] if b is not None]
        if not part:
            continue
        u = {"xmin": min(b["xmin"] for b in part), "ymin": min(b["ymin"] for b in part),
             "xmax": max(b["xmax"] for b in part), "ymax": max(b["ymax"] for b in part)}
        if not use_x:
            u["xmin"], u["xmax"] = -1e300, 1e300
        n += not meets(u, q)
    return n


def rewrite_geo(src, dst, change):
    t = pq.read_table(src)
    meta = dict(t.schema.metadata)
    meta[b"geo"] = change(meta[b"geo"])
    pq.write_table(t.replace_schema_metadata(meta), dst, row_group_size=500)


def main():
    boxes = row_boxes()
    ids = pq.read_table(os.path.join(HERE, "points_cover.parquet"), columns=["id"]).column("id").to_pylist()
    pruned_total = 0
    with tempfile.TemporaryDirectory(prefix="pqstep-geoparquet-") as tmp:
        def bad_path(raw):
            geo = json.loads(raw)
            geo["columns"]["geometry"]["covering"]["bbox"]["xmin"] = ["bbox", "nope"]
            return json.dumps(geo).encode()

        def not_double(raw):
            geo = json.loads(raw)
            geo["columns"]["geometry"]["covering"]["bbox"]["xmin"] = ["id"]
            return json.dumps(geo).encode()
        variants = {"garbled": lambda raw: raw[:-7], "bad_path": bad_path, "not_double": not_double}
        for name, change in variants.items():
            rewrite_geo(os.path.join(HERE, "points_cover.parquet"), os.path.join(tmp, name + ".parquet"), change)
        files = {"points_cover": "planar", "spherical_cover": "spherical", "no_cover": None}
        files.update({name: None for name in variants})
        for name, kind in files.items():
            path = os.path.join(HERE if name in ("points_cover", "spherical_cover", "no_cover") else tmp,
                                name + ".parquet")
            for q in BOXES:
                keep = [b is not None and meets(b, q) for b in boxes]
                want = [i for i, k in zip(ids, keep) if k]
                got, pruned, groups = read(path, q)
                assert got.column("id").to_pylist() == want, (name, q, got.num_rows, len(want))
                unpruned, none, _ = read(path, q, prune=False)
                same(unpruned, got, "%s %r without pruning" % (name, q))
                assert none == 0
                can = groups - len(groups_with_match(boxes, q))  # groups no row of which matches
                assert pruned <= can, (name, q, pruned, can)
                if kind is None:
                    assert pruned == 0, (name, q, pruned)
                else:  # what the statistics can tell: each group's union of boxes (spherical: y alone)
                    assert pruned == union_misses(boxes, q, kind == "planar"), (name, q, pruned)
                pruned_total += pruned
    assert pruned_total > 20, pruned_total
    print("GeoParquet bbox covering: %d boxes x %d files equal to a brute force on the covering's boxes; %d row "
          "groups pruned by the covering's statistics (planar x and y, spherical y only), none without a usable "
          "covering" % (len(BOXES), len(files), pruned_total))


if __name__ == "__main__":
    main()
