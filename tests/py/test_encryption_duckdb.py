#!/usr/bin/env python3
"""Encrypted files DuckDB writes (COPY ... (ENCRYPTION_CONFIG {footer_key:
...})), read with the footer key and compared with DuckDB's own reading.

DuckDB departs from the Parquet Modular Encryption spec in three ways that
a spec reader trips on: no module carries an AAD (the spec's AAD holds at
least the module type), no column names its crypto metadata (which would
mean the column is plaintext; DuckDB encrypts every column with the footer
key), and a page header's compressed_page_size is the size before
encryption. pqstep reads such a file when its algorithm names no unique
AAD part and its footer authenticates only without AAD (pq_footer_crypto
no_aad); a file written by the spec never takes that path (checked: a
wrong key fails; so does a file whose bytes are altered).

Checked: 128-, 192- and 256-bit keys; every codec; v1 and v2 pages;
dictionaries, nulls, nested columns, several row groups; whole, by row
group, in batches, filtered with pruning on and off (statistics,
dictionaries and bloom filters of encrypted columns), the CLI.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from read_oracle import pa, pqstep, same  # noqa: E402

import duckdb  # noqa: E402

KEYS = {"k128": b"0123456789112345", "k192": b"012345678911234501234567",
        "k256": b"01234567891123450123456789112345"}
QUERY = """SELECT i::BIGINT AS i, CASE WHEN i % 9 = 0 THEN NULL ELSE 'v' || (i % 500) END AS s,
                  i / 3 AS d, ['a' || i, NULL] AS l, {'x': i % 7, 'y': 'y' || i} AS st,
                  CASE WHEN i % 4 = 0 THEN NULL ELSE (i % 13)::INTEGER END AS small,
                  (i * 1.5)::DECIMAL(18, 3) AS dec
           FROM range(30000) t(i)"""
FILTERS = [("s = 'v7'", "s = 'v7'"), ("i >= 29000 or small = 3", "i >= 29000 or small = 3"),
           ("dec between 100 and 200", "dec between 100 and 200"), ("s = 'nope'", "s = 'nope'"),
           ("small is null and i < 1000", "small is null and i < 1000")]


def main():
    con = duckdb.connect()
    con.execute("SET force_mbedtls_unsafe = 'true'")  # writing encrypted files without httpfs' OpenSSL
    for name, key in KEYS.items():
        con.execute("PRAGMA add_parquet_key('%s', '%s')" % (name, key.decode()))
    checked = filtered = 0
    with tempfile.TemporaryDirectory(prefix="pqstep-duckdb-enc-") as tmp:
        cases = [("k128", "snappy", "v1"), ("k192", "zstd", "v2"), ("k256", "uncompressed", "v1"),
                 ("k256", "gzip", "v2"), ("k128", "lz4", "v1"), ("k128", "brotli", "v2")]
        for name, codec, version in cases:
            path = os.path.join(tmp, "%s_%s_%s.parquet" % (name, codec, version))
            con.execute("COPY (%s) TO '%s' (FORMAT parquet, ENCRYPTION_CONFIG {footer_key: '%s'}, COMPRESSION %s, "
                        "PARQUET_VERSION %s, ROW_GROUP_SIZE 8000)" % (QUERY, path, name, codec, version))
            with open(path, "rb") as f:
                assert f.read(4) == b"PARE", "DuckDB no longer encrypts the footer"
            cfg = "encryption_config = {footer_key: '%s'}" % name
            want = con.sql("SELECT * FROM read_parquet('%s', %s)" % (path, cfg)).to_arrow_table()
            keys = pqstep.Decryption(footer_key=KEYS[name])
            got = pqstep.read_table(path, decryption=keys)
            same(got, want, path)
            with pqstep.Reader(path, decryption=keys) as r:
                assert r.num_row_groups > 1
                parts = [r.read(row_groups=[g]) for g in range(r.num_row_groups)]
                same(pa.concat_tables(parts), want, path + " by row group")
                same(pa.Table.from_batches(list(r.iter_batches(batch_size=3000))), want, path + " batches")
            for text, sql in FILTERS:
                expect = con.sql("SELECT * FROM read_parquet('%s', %s) WHERE %s" % (path, cfg, sql)).to_arrow_table()
                for prune in (True, False):
                    same(pqstep.read_table(path, decryption=keys, filter=text, prune=prune), expect,
                         "%s where %s (prune %s)" % (path, text, prune))
                filtered += 1
            # a wrong key, no key, an altered byte: refused, never read
            for bad in (pqstep.Decryption(footer_key=KEYS[name][:-1] + b"X"), None):
                try:
                    pqstep.read_table(path, decryption=bad)
                except pqstep.Error as e:
                    assert e.code in ("decryption failed", "encrypted, key not given"), e
                else:
                    raise AssertionError("%s read with a wrong or no key" % path)
            data = bytearray(open(path, "rb").read())
            data[200] ^= 1
            altered = os.path.join(tmp, "altered.parquet")
            open(altered, "wb").write(bytes(data))
            try:
                pqstep.read_table(altered, decryption=keys)
            except pqstep.Error as e:
                assert e.code in ("decryption failed", "corrupt data"), e
            else:
                raise AssertionError("an altered module read")
            checked += 1
        cli = os.environ.get("PQSTEP_CLI")
        if cli:
            path = os.path.join(tmp, "k128_snappy_v1.parquet")
            out = subprocess.run([cli, "cat", path, "--footer-key", KEYS["k128"].hex(), "--where", "i = 12",
                                  "--format", "csv"], capture_output=True, text=True)
            assert out.returncode == 0, out.stderr
            assert out.stdout.splitlines()[1].startswith("12,v12,4,"), out.stdout
    print("DuckDB %s: %d encrypted files (128/192/256-bit keys, every codec, v1/v2 pages) equal to DuckDB's "
          "reading, whole, by row group, in batches and %d filters with pruning on and off; wrong keys and "
          "altered bytes refused" % (duckdb.__version__, checked, filtered))


if __name__ == "__main__":
    main()
