#!/usr/bin/env python3
"""Markdown tables of a bench/tpch.py --json report: one row per writer's
file, case and thread count, pqstep's min time and the peers' ratios
(peer min / pqstep min: above 1, pqstep is faster), and the cases under a
target ratio listed with their size.

    python3 bench/tpch_table.py docs/tpch-writers.json [--target 1.2]
"""
import argparse
import json
import sys

LABEL = {"whole": "whole file", "cols3": "3 columns", "iter": "row groups one call each",
         "q1": "q1", "q2": "q2", "q3": "q3"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("report")
    ap.add_argument("--target", type=float, default=1.2)
    args = ap.parse_args()
    d = json.load(open(args.report))
    peers = [s for s in d["systems"] if s != "pqstep"]
    misses = []
    print("| file (writer) | case | threads | pqstep ms | " + " | ".join("vs %s" % p for p in peers) + " |")
    print("|---|---|---:|---:|" + "---:|" * len(peers))
    for name in d["files"]:
        res = d["results"][name]
        for case in d["cases"]:
            for t in d["threads"]:
                ours = res.get("pqstep/%d" % t, {}).get("cases", {}).get(case)
                if not ours:
                    continue
                cells = []
                for p in peers:
                    theirs = res.get("%s/%d" % (p, t), {}).get("cases", {}).get(case)
                    if not theirs:
                        cells.append("-")
                        continue
                    ratio = theirs["min"] / ours["min"]
                    cells.append("%.2f×" % ratio)
                    if p in ("polars", "duckdb") and ratio < args.target:
                        misses.append((name, case, t, p, ratio))
                print("| %s | %s | %d | %.0f | %s |" % (name, LABEL.get(case, case), t, ours["min"] * 1e3,
                                                      " | ".join(cells)))
    print()
    print("Under %.2f× against polars or DuckDB (%d of %d):" % (
        args.target, len(misses), len(d["files"]) * len(d["cases"]) * len(d["threads"]) * 2))
    for name, case, t, p, ratio in misses:
        print("- %s, %s, %d thread%s: %.2f× %s" % (name, LABEL.get(case, case), t, "" if t == 1 else "s", ratio, p))
    return 0


if __name__ == "__main__":
    sys.exit(main())
