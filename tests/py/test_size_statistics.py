"""SizeStatistics (ColumnMetaData field 16) as `pqstep meta --json` shows
them (`size_stats`), against what the values pyarrow reads say they must
be, on files pyarrow writes (it writes size statistics by default) with
nulls, strings, lists (empty, null and with null elements), structs and
maps over several row groups:

- the definition-level histogram sums to the chunk's values (leaf slots)
  and its last entry is the leaf's non-null values;
- the repetition-level histogram (nested leaves) has one rep-0 entry per
  row of the row group and sums to the chunk's values;
- unencoded_byte_array_data_bytes is the bytes of the non-null BYTE_ARRAY
  values.
"""
import json
import os
import subprocess
import sys
import tempfile

from read_oracle import pa, pq, pqstep  # noqa: F401

CLI = os.environ.get("PQSTEP_CLI")


def leaf_values(col):
    """The leaf values of an Arrow column, nulls included, and how many of
    the leaf slots the levels count (a null or empty list is one slot)."""
    slots, values = 0, []

    def walk(v, t):
        nonlocal slots
        if pa.types.is_list(t) or pa.types.is_large_list(t):
            if v is None or len(v) == 0:
                slots += 1
                return
            for x in v:
                walk(x, t.value_type)
        elif pa.types.is_map(t):
            if v is None or len(v) == 0:
                slots += 1
                return
            for k, x in v:
                walk(x, t.item_type)
        else:
            slots += 1
            values.append(v)
    for v in col.to_pylist():
        walk(v, col.type)
    return slots, values


def main():
    if not CLI:
        print("SKIP: PQSTEP_CLI is not set")
        return 77
    n = 30_000
    t = pa.table({
        "s": pa.array([None if i % 7 == 0 else "v" * (i % 13) for i in range(n)]),
        "i": pa.array([None if i % 5 == 0 else i for i in range(n)], pa.int64()),
        "li": pa.array([None if i % 11 == 0 else [] if i % 11 == 1 else [i, None, i + 1][: i % 4]
                        for i in range(n)], pa.list_(pa.int64())),
        "ls": pa.array([None if i % 9 == 0 else ["x" * (i % 5), None][: i % 3] for i in range(n)],
                       pa.list_(pa.string())),
        "m": pa.array([None if i % 6 == 0 else [("k", "w" * (i % 4))] for i in range(n)],
                      pa.map_(pa.string(), pa.string())),
    })
    checked = 0
    with tempfile.TemporaryDirectory(prefix="pqstep-size-") as tmp:
        path = os.path.join(tmp, "s.parquet")
        pq.write_table(t, path, row_group_size=7000)
        p = subprocess.run([CLI, "meta", "--json", path], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        doc = json.loads(p.stdout)
        f = pq.ParquetFile(path)
        leaves = doc["columns"]
        for g, rg in enumerate(doc["row_groups"]):
            data = f.read_row_group(g)
            for c, chunk in enumerate(rg["columns"]):
                z = chunk["size_stats"]
                assert z is not None, (g, c)
                leaf = leaves[c]
                top = leaf["path"].split(".")[0]
                slots, values = leaf_values(data.column(top))
                if leaf["path"].endswith(".key"):  # a map's keys: one per entry, never null
                    values = [k for v in data.column(top).to_pylist() for k, _ in (v or [])]
                    slots = sum(max(len(v or []), 1) for v in data.column(top).to_pylist())
                dh = z["definition_level_histogram"]
                if dh:
                    assert sum(dh) == slots == chunk["num_values"], (leaf["path"], g, dh, slots)
                    assert dh[-1] == sum(v is not None for v in values), (leaf["path"], g, dh)
                rh = z["repetition_level_histogram"]
                if leaf["max_rep"] > 0:
                    assert rh[0] == data.num_rows and sum(rh) == slots, (leaf["path"], g, rh)
                if leaf["physical_type"] == "BYTE_ARRAY":
                    want = sum(len(v.encode()) for v in values if v is not None)
                    assert z["unencoded_byte_array_data_bytes"] == want, (leaf["path"], g, z, want)
                checked += 1
    print("size statistics: %d chunks' histograms and byte counts equal their values" % checked)
    return 0


if __name__ == "__main__":
    sys.exit(main())
