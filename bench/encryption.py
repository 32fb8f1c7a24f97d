#!/usr/bin/env python3
"""Encrypted reads: pqstep on an encrypted file against the same file
unencrypted, and against pyarrow reading the encrypted file (issue 34).

    python3 bench/encryption.py [--source FILE] [--repeat R] [--threads 1,2]
                                [--json FILE]

1. From TPC-H lineitem SF1 (tpchgen-cli's file, snappy; $PQSTEP_BENCH_CACHE
   or ~/.cache/pqstep-bench/tpch-sf1-snappy/lineitem.parquet, made by
   bench/tpch.py) pyarrow writes, with its default settings, two files once:
   lineitem.plain.parquet, and lineitem.enc.parquet encrypted with per-column
   keys (AES_GCM_V1, pyarrow's CryptoFactory, an encrypted footer, half the
   columns under one master key and half under another, single wrapping) by
   the test KMS of tests/fixtures/gen_encrypted.py. Same writer, same pages:
   only the encryption differs.
2. Checks that pqstep's read of the encrypted file equals pyarrow's (with
   follow_arrow_schema=True: pyarrow reads these strings as string_view).
   The timed reads use each reader's defaults (pqstep: string).
3. Each measurement is its own process (python3 -c ...): a warm-up read,
   then R timed whole-file reads into a pyarrow Table (pqstep.read_table
   with decryption=, or pq.read_table with decryption_properties=; the
   key unwrapping, one KMS call per key, is inside every read for both).
   The systems take turns, round by round, so a busy spell hits all alike.
4. Prints the median seconds and the ratios encrypted / plain (pqstep) and
   pyarrow / pqstep (encrypted).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(SOURCE, "python"))
sys.path.insert(0, os.path.join(SOURCE, "tests", "fixtures"))
CACHE = os.environ.get("PQSTEP_BENCH_CACHE", os.path.expanduser("~/.cache/pqstep-bench"))

SETUP = r"""
import sys, time
sys.path.insert(0, %(fixtures)r)
import pyarrow as pa, pyarrow.parquet as pq, pyarrow.parquet.encryption as pe
import gen_encrypted as g
pa.set_cpu_count(%(threads)d); pa.set_io_thread_count(%(threads)d)
def kms(config): return g.XorKmsClient(config)
"""

RUN = {
    "pqstep plain": "import pqstep\nread = lambda: pqstep.read_table(%(plain)r, threads=%(threads)d)\n",
    "pqstep encrypted": "import pqstep\ndec = pqstep.Decryption(kms_unwrap=g.unwrap)\n"
                        "read = lambda: pqstep.read_table(%(enc)r, threads=%(threads)d, decryption=dec)\n",
    "pyarrow encrypted": "cf = pe.CryptoFactory(kms)\n"
                         "def read():\n"
                         "    p = cf.file_decryption_properties(pe.KmsConnectionConfig(), pe.DecryptionConfiguration(cache_lifetime=0))\n"
                         "    return pq.read_table(%(enc)r, decryption_properties=p, use_threads=%(threads)d > 1)\n",
    "pyarrow plain": "read = lambda: pq.read_table(%(plain)r, use_threads=%(threads)d > 1)\n",
}
TIMED = "read()\nts = []\nfor _ in range(%(repeat)d):\n    t0 = time.perf_counter(); read(); ts.append(time.perf_counter() - t0)\nprint(' '.join(map(repr, ts)))\n"


def make_files(source, out):
    import pyarrow.parquet as pq
    import pyarrow.parquet.encryption as pe
    sys.path.insert(0, os.path.join(SOURCE, "tests", "fixtures"))
    import gen_encrypted as g
    plain = os.path.join(out, "lineitem.plain.parquet")
    enc = os.path.join(out, "lineitem.enc.parquet")
    if os.path.exists(plain) and os.path.exists(enc):
        return plain, enc
    t = pq.read_table(source)
    names = t.schema.names
    pq.write_table(t, plain)
    cf = pe.CryptoFactory(lambda config: g.XorKmsClient(config))
    cfg = pe.EncryptionConfiguration(footer_key="kf", column_keys={"kc1": names[::2], "kc2": names[1::2]},
                                     encryption_algorithm="AES_GCM_V1", double_wrapping=False)
    props = cf.file_encryption_properties(pe.KmsConnectionConfig(), cfg)
    with pq.ParquetWriter(enc, t.schema, encryption_properties=props) as w:
        w.write_table(t)
    return plain, enc


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--source", default=os.path.join(CACHE, "tpch-sf1-snappy", "lineitem.parquet"))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--json")
    args = ap.parse_args()
    if not os.path.exists(args.source):
        print("no %s: run bench/tpch.py first (it writes lineitem SF1 with tpchgen-cli)" % args.source)
        return 1
    out = os.path.join(CACHE, "encryption")
    os.makedirs(out, exist_ok=True)
    plain, enc = make_files(args.source, out)

    import pyarrow.parquet.encryption as pe
    import pqstep
    import pyarrow.parquet as pq
    import gen_encrypted as g
    cf = pe.CryptoFactory(lambda config: g.XorKmsClient(config))
    theirs = pq.read_table(enc, decryption_properties=cf.file_decryption_properties(pe.KmsConnectionConfig()))
    # (pyarrow follows the file's stored Arrow schema, string_view for these strings)
    ours = pqstep.read_table(enc, decryption=pqstep.Decryption(kms_unwrap=g.unwrap), follow_arrow_schema=True)
    assert ours.equals(theirs), "pqstep's read of the encrypted file differs from pyarrow's"

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(SOURCE, "python"), env.get("PYTHONPATH", "")])
    results = {}
    for threads in [int(x) for x in args.threads.split(",")]:
        params = {"fixtures": os.path.join(SOURCE, "tests", "fixtures"), "threads": threads, "plain": plain,
                  "enc": enc, "repeat": 1}
        times = {k: [] for k in RUN}
        for _ in range(args.repeat):  # rounds: one read of each system per round, each its own process
            for name, body in RUN.items():
                code = (SETUP + body + TIMED) % params
                p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
                if p.returncode:
                    raise SystemExit("%s failed: %s" % (name, p.stderr[-2000:]))
                times[name] += [float(x) for x in p.stdout.split()]
        med = {k: statistics.median(v) for k, v in times.items()}
        results[threads] = med
        print("threads %d (median of %d, seconds): %s" % (threads, args.repeat,
                                                          ", ".join("%s %.3f" % kv for kv in med.items())))
        print("  pqstep encrypted / plain: %.3fx   pyarrow encrypted / pqstep encrypted: %.2fx   "
              "pyarrow plain / pqstep plain: %.2fx" % (med["pqstep encrypted"] / med["pqstep plain"],
                                                       med["pyarrow encrypted"] / med["pqstep encrypted"],
                                                       med["pyarrow plain"] / med["pqstep plain"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"source": args.source, "repeat": args.repeat, "results": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
