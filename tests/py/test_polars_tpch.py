"""TPC-H through polars: the 8 tables that tpchgen-cli writes (parquet-rs;
scale factor 0.1 here, SF1 in bench/polars_tpch.py), queries 1, 3, 5, 6,
10, 12, 14 and 19 (bench/tpch_polars_queries.py, written once in polars'
lazy API) run over pl.scan_parquet and over pqstep.polars.scan_parquet,
with pushdown on and off: the results are equal (exact for integers,
strings, dates and decimals; floating-point averages to 1e-12 relative).
"""
import os
import shutil
import subprocess
import sys
import tempfile

from read_oracle import SOURCE  # noqa: F401  (sets up pqstep's import path)

try:
    import polars as pl
    from polars.testing import assert_frame_equal
except ImportError:
    print("SKIP: polars is not installed")
    sys.exit(77)
import pqstep.polars as pp  # noqa: E402

sys.path.insert(0, os.path.join(SOURCE, "bench"))
import tpch_polars_queries as Q  # noqa: E402


def tpchgen():
    exe = shutil.which("tpchgen-cli")
    near = os.path.join(os.path.dirname(sys.executable), "tpchgen-cli")
    return exe or (near if os.access(near, os.X_OK) else None)


def main():
    exe = tpchgen()
    if exe is None:
        print("SKIP: tpchgen-cli is not installed (pip install tpchgen-cli)")
        return 77
    with tempfile.TemporaryDirectory(prefix="pqstep-tpch-") as tmp:
        subprocess.check_call([exe, "parquet", "--scale-factor", "0.1", "--output-dir", tmp],
                              stdout=subprocess.DEVNULL)
        for n, q in Q.QUERIES.items():
            want = q(lambda t: pl.scan_parquet(os.path.join(tmp, t + ".parquet"))).collect()
            assert want.height > 0, n
            for pushdown in (True, False):
                got = q(lambda t: pp.scan_parquet(os.path.join(tmp, t + ".parquet"), pushdown=pushdown)).collect()
                assert_frame_equal(got, want, check_exact=False, rel_tol=1e-12, abs_tol=0)
            print("q%d: %d rows equal" % (n, want.height))
    print("TPC-H SF0.1 through polars: %d queries equal through pl.scan_parquet and pqstep.polars.scan_parquet"
          % len(Q.QUERIES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
