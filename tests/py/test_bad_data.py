"""bad_data/ read whole, against pyarrow: each file either reads into a
table equal to pyarrow's, or fails with a pqstep.Error whose message names
where the problem is (the footer field, or the row group and column) while
pyarrow rejects it too. A file we reject but pyarrow reads, or the reverse,
fails the test, unless listed in DIFFERENCES with the reason.
"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
from read_oracle import CORPUS, pq, pqstep, same  # noqa: E402

# Files where pqstep and pyarrow disagree on purpose: none today.
DIFFERENCES = {}

WHERE = re.compile(r"(RowGroup\[\d+\]\.columns\[\d+\]|SchemaElement\[\d+\]|FileMetaData|footer)")


def main():
    passed = failed = 0
    files = sorted(glob.glob(os.path.join(CORPUS, "bad_data", "*.parquet")))
    if not files:
        print("SKIP: no bad_data/ in the corpus at %s" % CORPUS)
        return 77
    for path in files:
        name = "bad_data/" + os.path.basename(path)
        try:
            theirs, their_error = pq.read_table(path), None
        except Exception as e:  # pyarrow's own message, for the report
            theirs, their_error = None, str(e).splitlines()[0][:100]
        try:
            ours, our_error = pqstep.read_table(path), None
        except pqstep.Error as e:
            ours, our_error = None, e
        try:
            if name in DIFFERENCES:
                print("note %s: %s" % (name, DIFFERENCES[name]))
            elif ours is not None:
                assert theirs is not None, "we read it, pyarrow rejects it: %s" % their_error
                same(ours, theirs, name, float_bits=True, validate=True)
            else:
                assert theirs is None, "we reject it (%s), pyarrow reads it" % our_error
                msg = str(our_error)
                assert WHERE.search(msg), "the error does not say where: %s" % msg
                assert "\n" not in msg, msg
            passed += 1
            print("ok   %s: %s" % (name, "same table" if ours is not None else our_error.message))
        except AssertionError as e:
            failed += 1
            print("FAIL %s: %s" % (name, e))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
