#!/usr/bin/env python3
"""Build the fuzzers' seed corpus from the parquet-testing corpus.

For every *.parquet under the corpus's data/, bad_data/ and
shredded_variant/ (recursively):
  - when the file ends with "<le32 length>PAR1" and the length fits, the footer
    bytes (the Thrift FileMetaData) become one seed;
  - otherwise the last 64 KiB of the file (a broken tail) become one seed;
  - the file's first 4 KiB after the leading magic (where the first column
    chunk's page headers usually are) become one seed for the page fuzzer;
  - a file of at most 64 KiB becomes a seed as a whole, for the read fuzzer;
  - a few predicate texts seed the predicate parser's fuzzer.
Seeds are named by content hash, so reruns and duplicates cost nothing.
Standard library only. The output is a build product: never commit it.

    tests/fuzz/make_seeds.py --out build-fuzz/fuzz-seeds [--corpus DIR]
"""

import argparse
import hashlib
import os
import struct
import sys

TAIL_SEED = 64 * 1024
WHOLE_SEED = 64 * 1024
CHUNK_SEED = 4 * 1024


PREDICATES = [
    "l_shipdate >= '1995-01-01' and l_quantity < 24 and l_returnflag in ('A','R') and l_comment is not null",
    "not (a = 1 or b <> 'x''y') and \"odd name\".c not in (1.5, -2e10, 3) and d is null",
    "((x < 1) or (y >= -0.0)) and z = true and w != false",
    "a between 1 and 5.5 and b not between 'x' and 'y' or c between '1995-01-01' and '1995-12-31'",
    "bbox_intersects(geom, -10, 40.5, 5, 52) and not bbox_intersects(\"g g\", 170, -90, -170, 90)",
]


def default_corpus():
    env = os.environ.get("PQSTEP_TEST_CORPUS")
    if env:
        return env
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return os.path.join(os.path.dirname(repo), "shared", "parquet-testing")


def seed_of(blob):
    """The footer span of a file image, or its tail when that is malformed."""
    if len(blob) >= 12 and blob[-4:] == b"PAR1":
        (flen,) = struct.unpack("<I", blob[-8:-4])
        if flen + 8 <= len(blob):
            return blob[len(blob) - 8 - flen:len(blob) - 8], "footer"
    return blob[-TAIL_SEED:], "tail"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default=default_corpus())
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    os.makedirs(args.out, exist_ok=True)
    if not os.path.isdir(os.path.join(args.corpus, "data")):
        # Fuzzing still works from an empty corpus, only slower to get deep.
        print(f"make_seeds: WARNING: no corpus at {args.corpus} (set PQSTEP_TEST_CORPUS); "
              f"no seeds", file=sys.stderr)
        return 0
    counts = {"footer": 0, "tail": 0, "pages": 0, "file": 0}
    # Predicate text for fuzz_predicate (the other targets reject it at once).
    for text in PREDICATES:
        with open(os.path.join(args.out, hashlib.sha1(text.encode()).hexdigest()), "wb") as f:
            f.write(text.encode())
    for sub in ("data", "bad_data", "shredded_variant"):
        top = os.path.join(args.corpus, sub)
        for dirpath, _, names in sorted(os.walk(top)):
            for name in sorted(names):
                if not name.endswith((".parquet", ".parquet.encrypted")):
                    continue
                with open(os.path.join(dirpath, name), "rb") as f:
                    blob = f.read()
                seed, kind = seed_of(blob)
                seeds = [(seed, kind), (blob[4:4 + CHUNK_SEED], "pages")]
                if len(blob) <= WHOLE_SEED:
                    seeds.append((blob, "file"))
                for s, k in seeds:
                    if not s:
                        continue
                    with open(os.path.join(args.out, hashlib.sha1(s).hexdigest()), "wb") as f:
                        f.write(s)
                    counts[k] += 1
    print(f"make_seeds: {counts['footer']} footers, {counts['tail']} broken tails, "
          f"{counts['pages']} page-header starts and {counts['file']} whole files "
          f"from {args.corpus} -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
