#!/usr/bin/env python3
"""test_check_layers.py — scripts/check-layers on planted trees, then on the repo.

Each check builds a small tree in a temporary directory (a CONTRIBUTING.md
with a "### Layers" table and a few folders of .c/.cu/.h files) and runs
scripts/check-layers --root on it: the clean tree passes; an upward include,
an upward call (no include), a peer include, an include cycle inside one
folder and a call cycle (no includes) each fail and are named in the report;
_cuda/_stub alternatives defining one function are one unit and not
reported; text in comments and strings is not read as includes or calls; a
missing or unreadable table stops it with exit 2. Finally the script runs
on this repository: it must parse the real table and finish with its
summary line (exit 0 or 1; the repository is not required to pass yet), and
its report is printed.

Environment: PQSTEP_SOURCE_DIR (set by ctest; default: two folders up).
Exit 0 when every check passes, 1 otherwise.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

SOURCE = os.environ.get("PQSTEP_SOURCE_DIR") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SCRIPT = os.path.join(SOURCE, "scripts", "check-layers")
SUMMARY_RE = re.compile(r"^check-layers: (\d+) files, (\d+) units, (\d+) violations, (\d+) cycles$", re.M)

TABLE = """# Contributing

### Layers

Lowest first.

| Rank | Folders |
|------|---------|
| 1 | `low/` |
| 2 | `mid/`, `side/` |
| 3 | `top/` |

### Something else

| Rank | Folders |
|------|---------|
| 1 | `top/` |
"""

# A clean tree: low <- mid, side <- top; public header in include/; a unit
# (low/dev) built from dev_cuda.cu or dev_stub.c, both defining dev_alloc;
# same-named static helpers in several files; decoys in comments and strings.
CLEAN = {
    "include/pub.h": "#pragma once\nint pub_fn(void);\n",
    "low/a.h": "#pragma once\n#include \"pub.h\"\nint a_fn(int);\n",
    "low/a.c": """#include "low/a.h"
/* #include "top/t.h"  -- only a comment */
// t_fn(1); in a line comment
static int helper(void) { return 1; }
int a_fn(int x)
{
    const char *s = "t_fn(2) and #include \\"top/t.h\\"";
    (void)s;
    return x + helper();
}
""",
    "low/b.h": "#pragma once\nint b_fn(int);\n",
    "low/b.c": """#include "b.h"
#include "a.h"
static int helper(void) { return 2; }
int b_fn(int x) { return a_fn(x) + helper(); }
""",
    "low/dev.h": "#pragma once\n#ifdef __cplusplus\nextern \"C\" {\n#endif\nint dev_alloc(void **p, unsigned long n);\nint dev_touch(void);\n#ifdef __cplusplus\n}\n#endif\n",
    "low/dev_cuda.cu": """#include "low/dev.h"
extern "C" int dev_alloc(void **p, unsigned long n)
{
    return cudaMalloc(p, n) == 0 ? 0 : -1;
}
extern "C" {
int dev_touch(void) { return dev_alloc(0, 0); }
}
""",
    "low/dev_stub.c": """#include "low/dev.h"
int dev_alloc(void **p, unsigned long n) { (void)p; (void)n; return -1; }
int dev_touch(void) { return dev_alloc(0, 0); }
""",
    "mid/m.h": "#pragma once\nint m_fn(void);\n",
    "mid/m.c": """#include "mid/m.h"
#include "low/a.h"
#include "low/dev.h"
#include "pub.h"

#define HOT static inline
HOT int fast(int x) { return x * 2; }

int m_fn(void)
{
    void *p;
    if (dev_alloc(&p, 16) != 0) return fast(a_fn(1));
    return b_fn(2);
}
""",
    "side/s.h": "#pragma once\nint s_fn(void);\n",
    "side/s.c": "#include \"side/s.h\"\n#include \"low/b.h\"\nint s_fn(void) { return b_fn(3); }\n",
    "top/t.h": "#pragma once\nint t_fn(int);\n",
    "top/t.c": """#include "top/t.h"
#include "mid/m.h"
#include "side/s.h"
static int helper(void) { return 3; }
int t_fn(int x) { return m_fn() + s_fn() + x + helper(); }
""",
    # out of scope: not in the table
    "tests/test_x.c": "#include \"top/t.h\"\nint main(void) { return t_fn(0); }\n",
}

failures = []


def plant(files, table=TABLE):
    d = tempfile.mkdtemp(prefix="pq_layers_")
    if table is not None:
        with open(os.path.join(d, "CONTRIBUTING.md"), "w") as f:
            f.write(table)
    for rel, text in files.items():
        p = os.path.join(d, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)
    return d


def run(root, *args):
    p = subprocess.run([sys.executable, SCRIPT, "--root", root] + list(args),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    return p.returncode, p.stdout, p.stderr


def check_tree(name, changes, want_rc, must=(), must_not=(), counts=None, args=(), table=TABLE):
    files = dict(CLEAN)
    for rel, text in changes.items():
        if text is None:
            files.pop(rel, None)
        else:
            files[rel] = text
    root = plant(files, table)
    try:
        rc, out, err = run(root, *args)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    problems = []
    if rc != want_rc:
        problems.append("exit %d, wanted %d" % (rc, want_rc))
    both = out + err
    for s in must:
        if s not in both:
            problems.append("report lacks %r" % s)
    for s in must_not:
        if s in both:
            problems.append("report has %r" % s)
    if counts is not None:
        m = SUMMARY_RE.search(out)
        if not m:
            problems.append("no summary line")
        elif (int(m.group(3)), int(m.group(4))) != counts:
            problems.append("violations, cycles = %s, %s; wanted %s" % (m.group(3), m.group(4), counts))
    if problems:
        failures.append(name)
        print("FAIL %s: %s" % (name, "; ".join(problems)))
        print("---- stdout\n%s---- stderr\n%s----" % (out, err))
    else:
        print("ok   %s" % name)
    return out


def test_clean():
    out = check_tree("clean tree passes", {}, 0, counts=(0, 0),
                     must=["check-layers: 13 files, 6 units, 0 violations, 0 cycles"],
                     must_not=["t_fn", "top/t.h\" (line", "tests/"])
    del out


def test_alternatives():
    out = check_tree("_cuda/_stub alternatives are one unit", {}, 0, counts=(0, 0), args=["--verbose"],
                     must=["low/dev [dev.h, dev_cuda.cu, dev_stub.c]",
                           "mid/m [m.c, m.h] -> low/a, low/b, low/dev\n"])
    # the unit low/dev depends on nothing (dev_touch calls dev_alloc in its own unit)
    if not re.search(r"^  low/dev \[dev.h, dev_cuda.cu, dev_stub.c\]$", out, re.M):
        failures.append("low/dev has no dependencies")
        print("FAIL low/dev has no dependencies:\n" + out)


def test_upward_include():
    check_tree("upward include fails", {
        "low/a.c": CLEAN["low/a.c"].replace('#include "low/a.h"\n', '#include "low/a.h"\n#include "top/t.h"\n'),
    }, 1, counts=(1, 1), must=["upward: low/a.c (low/, rank 1) -> top/t.h (top/, rank 3)",
                               '#include "top/t.h" (line 2)',
                               # top/t reaches low/a through mid/m: also a cycle
                               "shortest: low/a -> top/t -> mid/m -> low/a"])


def test_upward_call():
    check_tree("upward call (no include) fails", {
        "low/b.c": CLEAN["low/b.c"].replace("return a_fn(x) + helper();", "return a_fn(x) + helper() + t_fn(x);"),
    }, 1, must=["upward: low/b.c (low/, rank 1) -> top/t.c (top/, rank 3): calls t_fn (line 4)"],
        must_not=["top/t.h"])


def test_peer_include():
    check_tree("peer include fails", {
        "mid/m.c": CLEAN["mid/m.c"].replace('#include "pub.h"\n', '#include "pub.h"\n#include "side/s.h"\n'),
    }, 1, counts=(1, 0), must=["peer: mid/m.c (mid/, rank 2) -> side/s.h (side/, rank 2)",
                               '#include "side/s.h" (line 5)'])


def test_peer_call():
    check_tree("peer call fails", {
        "side/s.c": CLEAN["side/s.c"].replace("return b_fn(3);", "return b_fn(3) + m_fn();"),
    }, 1, counts=(1, 0), must=["peer: side/s.c (side/, rank 2) -> mid/m.c (mid/, rank 2): calls m_fn"])


def test_include_cycle():
    check_tree("include cycle inside one folder fails", {
        "low/p.h": "#pragma once\n#include \"low/q.h\"\nint p_fn(void);\n",
        "low/p.c": "#include \"low/p.h\"\nint p_fn(void) { return 0; }\n",
        "low/q.h": "#pragma once\nint q_fn(void);\n",
        "low/q.c": "#include \"low/q.h\"\n#include \"p.h\"\nint q_fn(void) { return 1; }\n",
    }, 1, counts=(0, 1), must=["cycle 1: low/p <-> low/q",
                               'low/p.h -> low/q.h: #include "low/q.h" (line 2)',
                               'low/q.c -> low/p.h: #include "p.h" (line 2)'])


def test_call_cycle():
    check_tree("call cycle (no includes) fails", {
        "low/a.c": CLEAN["low/a.c"].replace("return x + helper();", "return x + helper() + b_fn(0);"),
    }, 1, counts=(0, 1), must=["cycle 1: low/a <-> low/b",
                               "low/a.c -> low/b.c: calls b_fn (line 9)",
                               "low/b.c -> low/a.c: calls a_fn (line 4)"])


def test_cycle_across_folders():
    check_tree("cycle across folders is a violation and a cycle", {
        "low/a.c": CLEAN["low/a.c"].replace("return x + helper();", "return x + helper() + m_fn();"),
    }, 1, counts=(1, 1), must=["upward: low/a.c (low/, rank 1) -> mid/m.c (mid/, rank 2): calls m_fn",
                               "cycle 1: 3 units: low/a, low/b, mid/m",
                               "shortest: low/a -> mid/m -> low/a"])


def test_three_unit_cycle():
    check_tree("a cycle of three units is reported once", {
        "low/x.c": "int x_fn(void);\nint y_fn(void);\nint x_fn(void) { return y_fn(); }\n",
        "low/y.c": "int z_fn(void);\nint y_fn(void) { return z_fn(); }\n",
        "low/z.c": "int x_fn(void);\nint z_fn(void) { return x_fn(); }\n",
    }, 1, counts=(0, 1), must=["cycle 1: 3 units: low/x, low/y, low/z",
                               "shortest: low/x -> low/y -> low/z -> low/x"])


def test_extern_c_block_in_cu():
    check_tree("a function in an extern \"C\" block of a .cu counts", {
        "top/k_cuda.cu": "extern \"C\" {\nint top_gpu(void)\n{\n    return 0;\n}\n}\n",
        "low/b.c": CLEAN["low/b.c"].replace("return a_fn(x) + helper();", "return a_fn(x) + helper() + top_gpu();"),
    }, 1, counts=(1, 0), must=["upward: low/b.c (low/, rank 1) -> top/k_cuda.cu (top/, rank 3): calls top_gpu"])


def test_conditional_headers():
    check_tree("#if/#else around a function header keeps the braces right", {
        "low/c.c": """#ifdef WIDE
int c_fn(long a)
{
#else
int c_fn(int a)
{
#endif
    return (int)a;
}
static const int table[] = { 1, 2 };
int c_more(void) { return table[0] + t_fn(0); }
""",
    }, 1, counts=(1, 0), must=["upward: low/c.c (low/, rank 1) -> top/t.c (top/, rank 3): calls t_fn (line 11)"])


def test_static_is_not_a_definer():
    check_tree("static functions of other files do not count", {
        "top/t.c": CLEAN["top/t.c"] + "static int only_here(void) { return 4; }\n",
        "low/b.c": CLEAN["low/b.c"] + "int only_here(void);\nint b2(void) { return only_here(); }\n",
        "mid/m.c": CLEAN["mid/m.c"].replace("return b_fn(2);", "return b_fn(2) + fast(1);") +
        "int other(void) { return fast(2); }\n",
        "side/s.c": CLEAN["side/s.c"] + "int s2(void) { return fast(3); }\n",
    }, 0, counts=(0, 0))


def test_no_table():
    check_tree("no Layers table: exit 2", {}, 2, table="# Contributing\n\nNothing here.\n",
               must=["check-layers:", "Layers"])
    check_tree("no CONTRIBUTING.md: exit 2", {}, 2, table=None, must=["check-layers:", "CONTRIBUTING.md"])
    check_tree("a bad rank: exit 2", {}, 2, table=TABLE.replace("| 2 | `mid/`", "| two | `mid/`"),
               must=["rank is not a number"])


def test_real_repo():
    t0 = time.time()
    p = subprocess.run([sys.executable, SCRIPT], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, cwd=SOURCE)
    dt = time.time() - t0
    print("---- scripts/check-layers on %s (exit %d, %.2fs) ----" % (os.path.abspath(SOURCE), p.returncode, dt))
    sys.stdout.write(p.stdout)
    sys.stdout.write(p.stderr)
    print("----")
    problems = []
    if p.returncode not in (0, 1):
        problems.append("exit %d (0 or 1 wanted)" % p.returncode)
    m = SUMMARY_RE.search(p.stdout)
    if not m:
        problems.append("no summary line")
    elif int(m.group(1)) == 0:
        problems.append("no library file found")
    if "Traceback" in p.stderr:
        problems.append("it crashed")
    v = subprocess.run([sys.executable, SCRIPT, "--root", SOURCE, "--verbose"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if not re.search(r"^  1  kernels/$", v.stdout, re.M) or not re.search(r"^  2  metadata/$", v.stdout, re.M):
        problems.append("--verbose does not show the real table (kernels/ 1, metadata/ 2)")
    if problems:
        failures.append("real repository")
        print("FAIL real repository: %s" % "; ".join(problems))
    else:
        print("ok   real repository: table parsed, report printed (not required to pass yet)")


def main():
    if not os.path.isfile(SCRIPT):
        print("FAIL: %s not found" % SCRIPT)
        return 1
    tests = [fn for name, fn in sorted(globals().items()) if name.startswith("test_") and callable(fn)]
    for fn in tests:
        try:
            fn()
        except Exception as e:  # anything unexpected is a failure too
            failures.append(fn.__name__)
            print("FAIL %s: %s: %s" % (fn.__name__, type(e).__name__, e))
    print("%d failed" % len(failures) if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
