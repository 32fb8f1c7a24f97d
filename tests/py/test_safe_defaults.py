#!/usr/bin/env python3
"""The default memory limit (issue 10): a service that reads untrusted files
with default options must not let a 4 KB file take gigabytes.

data/large_string_map.brotli.parquet (4,325 bytes) declares a 1 GiB
dictionary page and a 1 GiB data page of strings, honestly: under no limit
it took 3.2 GB of memory before failing on int32 offsets. Under the default
limit (pqstep.default_memory_limit(): a quarter of physical memory, in
[256 MiB, 1 GiB]) the read fails before the allocation, naming the chunk
and page; measured here as the CLI's peak RSS (getrusage), not as time.
"""
import os
import resource
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from read_oracle import CORPUS, pqstep  # noqa: E402

CLI = os.environ.get("PQSTEP_CLI")


def main():
    phys = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    want = min(max(phys // 4, 256 << 20), 1 << 30)
    assert pqstep.default_memory_limit() == want, (pqstep.default_memory_limit(), want)

    path = os.path.join(CORPUS, "data", "large_string_map.brotli.parquet")
    assert os.path.getsize(path) < 8192
    try:
        pqstep.read_table(path)
    except pqstep.Error as e:
        assert e.code == "memory limit exceeded", e
        assert "RowGroup[0].columns[0] 'arr.key_value.key'" in str(e) and "DICTIONARY_PAGE" in str(e), e
    else:
        raise AssertionError("read under the default limit")
    # an explicit limit below the page fails the same way; a larger one is the caller's choice
    try:
        pqstep.read_table(path, memory_limit=64 << 20)
    except pqstep.Error as e:
        assert e.code == "memory limit exceeded" and "67108864" in str(e), e
    else:
        raise AssertionError("read under a 64 MiB limit")

    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    r = subprocess.run([CLI, "cat", path], capture_output=True, text=True)
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    assert r.returncode != 0 and "exceed the memory limit" in r.stderr, (r.returncode, r.stderr)
    assert peak_kb < 256 * 1024 or peak_kb == before, "pqstep cat peaked at %d KiB" % peak_kb
    print("default limit %d bytes; large_string_map fails before allocating (CLI peak %d KiB): %s"
          % (want, peak_kb, r.stderr.strip().split(": ", 2)[-1][:80]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
