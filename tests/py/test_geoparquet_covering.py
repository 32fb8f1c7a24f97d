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
no error). With a page index (one row group), the runs a read fetches are
exactly the covering's pages whose boxes' union meets the query.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from read_oracle import SOURCE, pa, pq, pqstep, same  # noqa: E402

HERE = os.path.join(SOURCE, "tests", "fixtures", "geoparquet")
CLI = os.environ.get("PQSTEP_CLI") or os.path.join(SOURCE, "build", "pqstep")
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


def page_starts(path, column):
    """First rows of the data pages of `column` (the CLI's page walk)."""
    out = subprocess.run([CLI, "pages", path, "--column", column, "--json"], check=True, capture_output=True,
                         text=True).stdout
    starts, row = [], 0
    for chunk in json.loads(out)["chunks"]:
        for p in chunk["pages"]:
            if p["type"] in ("DATA_PAGE", "DATA_PAGE_V2"):
                starts.append(row)
                row += p["num_values"]
    return starts


def check_pages(path, boxes):
    """One row group with a page index: the runs a read fetches are the
    covering's pages whose boxes' union meets the query (the four covering
    columns' pages start at the same rows here), and hold every matching
    row."""
    starts = page_starts(path, "bbox.xmin")
    for col in ("bbox.ymin", "bbox.xmax", "bbox.ymax"):
        assert page_starts(path, col) == starts, col
    assert len(starts) > 4, starts
    ends = starts[1:] + [len(boxes)]
    pruned = 0
    for q in BOXES:
        want = []
        for a, b in zip(starts, ends):
            part = [x for x in boxes[a:b] if x is not None]
            if part and meets({"xmin": min(x["xmin"] for x in part), "ymin": min(x["ymin"] for x in part),
                               "xmax": max(x["xmax"] for x in part), "ymax": max(x["ymax"] for x in part)}, q):
                if want and want[-1][0] + want[-1][1] == a:
                    want[-1] = (want[-1][0], want[-1][1] + b - a)
                else:
                    want.append((a, b - a))
        with pqstep.Reader(path) as r:
            runs = r.kept_rows(filter="bbox_intersects(geometry, %r, %r, %r, %r)" % q).get(0, [])
        assert runs == want, (q, runs, want)
        for i, x in enumerate(boxes):
            if x is not None and meets(x, q):
                assert any(a <= i < a + n for a, n in runs), (q, i)
        pruned += len(boxes) - sum(n for _, n in runs)
    assert pruned > 0
    return pruned


def check_sans_io(path, boxes, q):
    """A sans-IO reader asks for the covering columns' page indexes with the
    filter's own (the select stage names them), prunes as a file reader
    does, with no warning, and returns the same rows."""
    import ctypes
    from pqstep import _lib as _c
    from read_oracle import all_batches, open_sans_io, sans_io_advance
    data = open(path, "rb").read()
    h = open_sans_io(data, "bbox_intersects(geometry, %r, %r, %r, %r)" % q)
    try:
        sans_io_advance(h, data)
        sel = _c.pq_select_stats()
        _c.pq_reader_select_stats(h, ctypes.byref(sel), ctypes.sizeof(sel))
        assert sel.prune_warnings == 0
        assert sel.pages_pruned > 0, sel.pages_pruned
        batches = all_batches(h)
        ids = [i for b in batches for i in b.column(b.schema.get_field_index("id")).to_pylist()]
        assert ids == [i for i, b in enumerate(boxes) if b is not None and meets(b, q)]
    finally:
        _c.pq_reader_close(h)


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
    paged = os.path.join(HERE, "paged_cover.parquet")
    for q in BOXES:  # the rows, read through the narrowed runs
        keep = [i for i, b in zip(ids, boxes) if b is not None and meets(b, q)]
        got, _, _ = read(paged, q)
        assert got.column("id").to_pylist() == keep, q
    rows_skipped = check_pages(paged, boxes)
    check_sans_io(paged, boxes, BOXES[0])
    print("GeoParquet bbox covering: %d boxes x %d files equal to a brute force on the covering's boxes; %d row "
          "groups pruned by the covering's statistics (planar x and y, spherical y only), none without a usable "
          "covering; with a page index, the runs read are the covering's pages that may match (%d rows skipped "
          "over the boxes)" % (len(BOXES), len(files), pruned_total, rows_skipped))


if __name__ == "__main__":
    main()
