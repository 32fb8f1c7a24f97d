"""The newest float statistics (parquet-format 2.13) on parquet-testing's
floating_orders_nan_count.parquet (FLOAT, DOUBLE and FLOAT16 columns in
pairs, one with TYPE_ORDER and one with IEEE_754_TOTAL_ORDER, five row
groups: no NaN, some NaN, all NaN, a zero minimum, a zero maximum):

- `pqstep meta --json` gives each leaf's column order (the column names say
  which: *_ieee754 and *_typedef) and each chunk's nan_count, equal to the
  NaNs pyarrow reads in that row group (the oracle: the values);
- filters on every float column (each comparison, NOT of each, literals on
  both sides of the values, -0.0 and 0.0) keep the same rows with pruning
  on as with every pruning step off;
- the statistics are used as the format says (counted from the values
  pyarrow reads in each row group): a comparison no value meets prunes
  every row group of an IEEE_754_TOTAL_ORDER column (min and max are the
  non-NaN extremes; an all-NaN group is ruled out by nan_count) and every
  group of a TYPE_ORDER column but those mixing NaN and other values
  (written without min and max); NOT (x < 100), true only for NaN rows,
  prunes exactly the groups whose nan_count is 0; the same for the pages
  of the IEEE_754_TOTAL_ORDER columns through their column index (its
  min_values, max_values and nan_counts).
"""
import json
import math
import os
import subprocess
import sys

from read_oracle import CORPUS, pq, pqstep  # noqa: F401

CLI = os.environ.get("PQSTEP_CLI")
PATH = os.path.join(CORPUS, "data", "floating_orders_nan_count.parquet")


def check_meta():
    if not CLI:
        print("meta check skipped: PQSTEP_CLI is not set")
        return 0
    p = subprocess.run([CLI, "meta", "--json", PATH], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    f = pq.ParquetFile(PATH)
    names = f.schema_arrow.names
    want_orders = ["ieee754_total" if n.endswith("_ieee754") else "type" for n in names]
    assert doc["column_orders"] == want_orders, doc["column_orders"]
    checked = 0
    for g, rg in enumerate(doc["row_groups"]):
        t = f.read_row_group(g)
        for c, chunk in enumerate(rg["columns"]):
            nan = chunk["stats"].get("nan_count") if chunk["stats"] else None
            if nan is None:
                continue
            values = t.column(c).to_pylist()
            want = sum(1 for v in values if v is not None and isinstance(v, float) and math.isnan(v))
            assert nan == want, (g, names[c], nan, want)
            checked += 1
    assert checked >= 20, checked
    return checked


def check_pruning():
    t = pqstep.read_table(PATH)
    n = 0
    for c in t.schema.names:
        if "float16" in c:  # half floats: no comparison in pqstep's filter
            continue
        for op in ("<", "<=", ">", ">=", "=", "!="):
            for lit in ("-100", "-2", "-1", "-0.0", "0", "0.5", "1", "2.5", "5", "100"):
                text = '"%s" %s %s' % (c, op, lit)
                for flt in (text, "not (%s)" % text):
                    a = pqstep.read_table(PATH, columns=[c], filter=flt)
                    b = pqstep.read_table(PATH, columns=[c], filter=flt, prune=False)
                    # NaN equals no NaN: compare the values' texts
                    assert [repr(v) for v in a.column(0).to_pylist()] == \
                        [repr(v) for v in b.column(0).to_pylist()], (flt, a.num_rows, b.num_rows)
                    n += 1
    return n


def check_nan_counts():
    f = pq.ParquetFile(PATH)
    n = 0
    for c in f.schema_arrow.names:
        if "float16" in c:
            continue
        kinds = []
        for g in range(f.num_row_groups):
            vals = [v for v in f.read_row_group(g, columns=[c]).column(0).to_pylist() if v is not None]
            nans = sum(1 for v in vals if math.isnan(v))
            kinds.append("none" if nans == 0 else "all" if nans == len(vals) else "mixed")
        groups = len(kinds)
        for flt, want in (('"%s" > 100', None), ('"%s" = 100', None), ('"%s" < -10', None),
                          ('not ("%s" < 100)', kinds.count("none"))):
            if want is None:
                want = groups if c.endswith("_ieee754") else groups - kinds.count("mixed")
            r = pqstep.Reader(PATH, columns=[c])
            r.read(filter=flt % c)
            got = r.stage_stats("select")["pruned_statistics"]
            assert got == want, (c, flt, got, want, kinds)
            n += 1
            if c.endswith("_ieee754"):  # one page a group: its column index entry and nan_counts judge alike
                r = pqstep.Reader(PATH, columns=[c])
                r.read(filter=flt % c, prune={"page_index"})
                got = r.stage_stats("select")["pages_pruned"]
                assert got == want, (c, flt, "page index", got, want, kinds)
                n += 1
    assert n == 24, n
    return n


def main():
    if not os.path.exists(PATH):
        print("SKIP: %s is not in the corpus" % PATH)
        return 77
    m = check_meta()
    n = check_pruning()
    k = check_nan_counts()
    print("float orders: column orders and %d nan_counts equal the file's values; %d filters keep the same rows "
          "with pruning on and off; %d prune the row groups nan_count and the column order allow" % (m, n, k))
    return 0


if __name__ == "__main__":
    sys.exit(main())
