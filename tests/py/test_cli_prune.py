"""`pqstep prune` and `pqstep cat --where` on the predicate fixtures
(tests/fixtures/gen_filter.py), against pyarrow.

prune --json: every row group that holds a matching row (pyarrow's filter
on that row group) is kept (never unsound); on the sorted file, a key range
keeps exactly the row groups it touches, and the kept rows of such a row
group cover every matching row. cat --where --format jsonl prints exactly
pyarrow's matching rows; --limit counts matching rows; --stats goes to
stderr. Usage errors exit 2.
"""
import json
import os
import subprocess
import sys
import tempfile

SKIP = 77
import pyarrow.compute as pc
import pyarrow.parquet as pq

CLI = os.environ.get("PQSTEP_CLI")
SOURCE = os.environ.get("PQSTEP_SOURCE_DIR") or os.path.join(os.path.dirname(__file__), "..", "..")
f = pc.field

CASES = [
    ("key >= 1234 and key < 1240", (f("key") >= 1234) & (f("key") < 1240)),
    ("key < 10 or key >= 3995", (f("key") < 10) | (f("key") >= 3995)),
    ("name = 'customer#000002718'", f("name") == "customer#000002718"),
    ("cat in ('AIR') and opt is null", f("cat").isin(["AIR"]) & f("opt").is_null()),
    ("key = 99999", f("key") == 99999),
]


def run(*args):
    p = subprocess.run([CLI] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def check_prune(path, text, expr, sorted_file):
    code, out, err = run("prune", "--where", text, "--json", path)
    assert code == 0, (code, err)
    doc = json.loads(out)
    pf = pq.ParquetFile(path)
    assert len(doc["row_groups"]) == pf.metadata.num_row_groups
    for g, rg in enumerate(doc["row_groups"]):
        t = pf.read_row_group(g)
        match = t.filter(expr)
        if match.num_rows:
            assert rg["kept"], "%s: row group %d holds %d matches but was pruned" % (text, g, match.num_rows)
            # the kept runs of rows hold every match, and add up to rows_kept
            keys = t.column("key").to_pylist()
            runs = rg["runs"]
            assert sum(n for _, n in runs) == rg["rows_kept"] and runs[0][0] == rg["first_row_kept"], rg
            assert all(a + n < b for (a, n), (b, _) in zip(runs, runs[1:])), runs  # sorted, apart
            for k in match.column("key").to_pylist():
                i = keys.index(k)
                assert any(a <= i < a + n for a, n in runs), (text, g, k, runs)
        if sorted_file and text.startswith("key") and not match.num_rows:
            assert not rg["kept"], "%s: row group %d has no match, statistics must prune it" % (text, g)
        if rg["kept"]:
            # every column's plan: kept pages <= total, bytes <= the chunk
            cols = {c["path"]: c for c in rg["columns"]}
            assert len(cols) == pf.metadata.num_columns, rg
            for i in range(pf.metadata.num_columns):
                cm = pf.metadata.row_group(g).column(i)
                c = cols[cm.path_in_schema]
                assert c["pages_kept"] <= c["pages_total"] and c["bytes"] <= cm.total_compressed_size, (text, c)
    assert doc["bytes_to_read"] <= doc["kept_row_groups_bytes"] <= doc["file_size"], doc


def check_cat(path, text, expr):
    theirs = pq.read_table(path).filter(expr)
    code, out, err = run("cat", "--where", text, "--format", "jsonl", "--columns", "key,name", path)
    assert code == 0, (code, err)
    keys = [json.loads(line)["key"] for line in out.splitlines()]
    assert keys == theirs.column("key").to_pylist(), (text, keys[:5], theirs.num_rows)
    code, out, err = run("cat", "--where", text, "--format", "csv", "--columns", "key", "--limit", "2",
                         "--stats", path)
    assert code == 0, (code, err)
    assert out.splitlines()[1:] == [str(k) for k in theirs.column("key").to_pylist()[:2]], (text, out)
    assert "select" in err and "by statistics" in err, err


def main():
    if not CLI or not os.path.exists(CLI):
        print("SKIP: PQSTEP_CLI is not set to the pqstep binary")
        return SKIP
    tmp = tempfile.mkdtemp(prefix="pqstep-prune-")
    subprocess.check_call([sys.executable, os.path.join(SOURCE, "tests", "fixtures", "gen_filter.py"), tmp],
                          stdout=subprocess.DEVNULL)
    passed = failed = 0
    tests = []
    for name in ("sorted", "unsorted", "plain"):
        path = os.path.join(tmp, name + ".parquet")
        for text, expr in CASES:
            tests.append(("prune %s: %s" % (name, text),
                          lambda p=path, t=text, e=expr, s=name != "unsorted": check_prune(p, t, e, s)))
            tests.append(("cat --where %s: %s" % (name, text), lambda p=path, t=text, e=expr: check_cat(p, t, e)))

    def usage():
        path = os.path.join(tmp, "sorted.parquet")
        for args in (["prune", path], ["prune", "--where"], ["cat", "--where", "key <", path],
                     ["prune", "--where", "k", "--bogus", path]):
            code, _, err = run(*args)
            assert code == 2 and "usage:" in err, (args, code, err)
        code, _, err = run("prune", "--where", "nokey = 1", path)
        assert code == 1 and "no column 'nokey'" in err and err.count("\n") == 1, (code, err)
    tests.append(("usage and errors", usage))

    def printed_filter_round_trips():
        # At the parser's 64-level limit (64 NOTs; 64 nested groups of four
        # AND-ed terms) the filter prune prints goes back into --where and
        # prints the same (it once printed every NOT and AND in parentheses,
        # twice as deep as the text it came from).
        path = os.path.join(tmp, "sorted.parquet")
        deep = ["not " * 64 + "key = 5",
                "".join("key >= %d and key < 4000 and name != 'x' and (" % k for k in range(63)) +
                "key = 7 or key = 9" + ")" * 63]
        for text in deep:
            code, out, err = run("prune", "--where", text, "--json", path)
            assert code == 0, (code, err)
            printed = json.loads(out)["filter"]
            code, out2, err = run("prune", "--where", printed, "--json", path)
            assert code == 0, (code, err[:200])
            again = json.loads(out2)
            assert again["filter"] == printed, (printed[:80], again["filter"][:80])
            assert again["kept_rows"] == json.loads(out)["kept_rows"]
    tests.append(("printed filters round-trip at the depth limit", printed_filter_round_trips))
    for name, fn in tests:
        try:
            fn()
            passed += 1
        except Exception as e:  # noqa: BLE001
            failed += 1
            print("FAIL %s: %s: %s" % (name, type(e).__name__, str(e)[:300]))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
