#!/usr/bin/env python3
"""Parquet Modular Encryption, read side (issue 34).

Oracles:
- The 13 encrypted files of parquet-testing (keys in its CATALOG.md). The
  parquet-cpp / parquet-mr interop files hold values their generator
  computes (Arrow's test_encryption_util.cc writes row i as: boolean i%2==0,
  int32 i (TIME_MILLIS), int64 [2i, 2i+1] x 10^12, INT96 words (i, i+1,
  i+2), float i*1.1f, double i*1.1111111, ba "parquet" + 3 digits of i on
  even rows (null on odd), flba 10 bytes of i): compared with those values
  computed here. external_key_material_java (parquet-mr, external, double
  wrapped key material) is compared with pyarrow's own read through its
  CryptoFactory and a KMS client of the test KMS.
- Files written by pyarrow's CryptoFactory at run time and by parquet-java
  (Spark) committed in tests/fixtures/encrypted_spark/ (both from
  tests/fixtures/gen_encrypted.py), compared with each writer's own
  decrypted read (X.plain.parquet).
- Hostile cases: wrong keys and AAD prefixes, every byte of a file flipped
  in turn (each read fails or, for bytes a read does not authenticate or
  use, equals the oracle: never other values), truncated files; no message
  holds a key.
"""
import base64
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from read_oracle import CORPUS, SOURCE, pa, pq, pqstep, same  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(SOURCE, "tests", "fixtures"))
import gen_encrypted  # noqa: E402

CLI = os.environ.get("PQSTEP_CLI")
DATA = os.path.join(CORPUS, "data")
SPARK = os.path.join(SOURCE, "tests", "fixtures", "encrypted_spark")

FOOTER_128 = b"0123456789012345"
KEYS_128 = {"double_field": b"1234567890123450", "float_field": b"1234567890123451"}
FOOTER_256 = b"01234567890123456789012345678901"
_B = b"123456789012345678901234567890"
KEYS_256 = {"double_field": _B + b"12", "float_field": _B + b"13", "boolean_field": _B + b"14",
            "int32_field": _B + b"15", "ba_field": _B + b"16", "flba_field": _B + b"17",
            "int64_field.list.element": _B + b"18", "int96_field": _B + b"19"}
CASES = ["uniform_encryption", "encrypt_columns_and_footer", "encrypt_columns_plaintext_footer",
         "encrypt_columns_and_footer_ctr", "encrypt_columns_and_footer_aad",
         "encrypt_columns_and_footer_disable_aad_storage"]
AES256_CASES = ["uniform_encryption", "encrypt_columns_and_footer", "encrypt_columns_plaintext_footer",
                "encrypt_columns_and_footer_ctr", "encrypt_columns_and_footer_disable_aad_storage"]
ALL_KEYS = [FOOTER_128, FOOTER_256] + list(KEYS_128.values()) + list(KEYS_256.values())


def dec128(**kw):
    return pqstep.Decryption(footer_key=FOOTER_128, column_keys=KEYS_128, aad_prefix=b"tester", **kw)


def dec256():
    return pqstep.Decryption(footer_key=FOOTER_256, column_keys=KEYS_256, aad_prefix=b"tester")


def interop_oracle(n):
    """The generator's values of rows 0..n-1 (INT96 as seconds: the day
    numbers are Julian days near 0, far outside timestamp[ns])."""
    i = np.arange(n, dtype=np.int64)
    f32 = (i.astype(np.float32) * np.float32(1.1)).astype(np.float32)
    nanos = i | ((i + 1) << 32)
    secs = (i + 2 - 2440588) * 86400 + nanos // 1_000_000_000
    ba = [b"parquet%d%d%d" % (k // 100, (k // 10) % 10, k % 10) if k % 2 == 0 else None for k in range(n)]
    return {
        "boolean_field": pa.array(i % 2 == 0),
        "int32_field": pa.array(i.astype(np.int32), pa.int32()).cast(pa.time32("ms")),
        "int64_field": pa.array([[2 * k * 10**12, (2 * k + 1) * 10**12] for k in range(n)], pa.list_(pa.int64())),
        "int96_field": pa.array(secs, pa.timestamp("s")),
        "float_field": pa.array(f32, pa.float32()),
        "double_field": pa.array(i * 1.1111111, pa.float64()),
        "ba_field": pa.array(ba, pa.binary()),
        "flba_field": pa.array([bytes([k & 0xFF]) * 10 for k in range(n)], pa.binary(10)),
    }


def check_interop(path, dec):
    t = pqstep.read_table(path, decryption=dec, int96_unit="s")
    want = interop_oracle(t.num_rows)
    assert t.num_rows >= 50, (path, t.num_rows)
    for name in t.schema.names:
        col = t.column(name).combine_chunks()
        exp = want[name]
        if pa.types.is_list(col.type):  # element field names differ between writers
            col = col.cast(pa.list_(col.type.value_type))
        assert col.equals(exp), "%s %s: %s != %s" % (path, name, col.slice(0, 3), exp.slice(0, 3))
    return t


def expect_error(fn, code, needle):
    try:
        fn()
    except pqstep.Error as e:
        msg = str(e)
        assert e.code == code, "%s: code %r, wanted %r" % (msg, e.code, code)
        assert needle in msg, "%r does not say %r" % (msg, needle)
        for k in ALL_KEYS:
            assert k.decode() not in msg and k.hex() not in msg, "a key in the message: " + msg
        return msg
    raise AssertionError("no error (%s expected)" % needle)


def check_corpus():
    for case in CASES:
        check_interop(os.path.join(DATA, case + ".parquet.encrypted"), dec128())
    for case in AES256_CASES:
        check_interop(os.path.join(DATA, "aes256", case + ".parquet.encrypted"), dec256())
    # the bloom filter file: a filter on an encrypted column with a bloom
    # filter reads the same rows with and without pruning (its bloom filter
    # is an encrypted module, not used)
    bloom = os.path.join(DATA, "encrypt_columns_and_footer_bloom_filter.parquet.encrypted")
    t = pqstep.read_table(bloom, decryption=dec128())
    names = t.column("name").to_pylist()
    assert names[:3] == ["name_0", "name_1", "name_2"] and t.num_rows == 2000, names[:3]
    assert t.column("int32_field").to_pylist() == list(range(2000))
    for prune in (True, False, {"bloom_filter"}):
        got = pqstep.read_table(bloom, decryption=dec128(), filter="name = 'name_77'", prune=prune)
        assert got.column("int32_field").to_pylist() == [77], got
        # the encrypted columns' bloom filters (header and bitset modules)
        for flt, want in (("double_field = 77.5", [77]), ("float_field = 77.25", [77]), ("double_field = 7.25", [])):
            got = pqstep.read_table(bloom, decryption=dec128(), filter=flt, prune=prune)
            assert got.column("int32_field").to_pylist() == want, (flt, prune, got)
    r = pqstep.Reader(bloom, decryption=dec128())
    assert r.read(filter="double_field = 7.25").num_rows == 0
    assert r.stage_stats("select")["pruned_bloom_filter"] == 1, r.stage_stats("select")

    # external key material, double wrapping, parquet-mr: pyarrow's own read
    ext = os.path.join(DATA, "external_key_material_java.parquet.encrypted")
    masters = {"kf": FOOTER_128, "kc1": KEYS_128["double_field"], "kc2": KEYS_128["float_field"]}

    def unwrap(wrapped, mid):
        return pqstep.aes_gcm_unwrap(masters[mid], base64.b64decode(wrapped), mid.encode())

    ours = pqstep.read_table(ext, decryption=pqstep.Decryption(kms_unwrap=unwrap))

    # A KMS that fails: the error names its exception (and chains it), for a
    # file and a scan; a dataset, which does not look for key material
    # beside each file (documented), names that; a wrong key names no cause.
    def down(wrapped, mid):
        raise ConnectionError("KMS at kms.example unreachable")
    failing = pqstep.Decryption(kms_unwrap=down)
    for what, read, cause in (
            ("read_table", lambda: pqstep.read_table(ext, decryption=failing),
             "ConnectionError: KMS at kms.example unreachable"),
            ("scan", lambda: pqstep.scan(ext, decryption=failing).read(),
             "ConnectionError: KMS at kms.example unreachable"),
            ("dataset", lambda: pqstep.dataset(ext, decryption=failing).scan().read(),
             "KeyMaterialError: the key material is stored beside the file, and no file path is known")):
        try:
            read()
            raise AssertionError(what + ": read with a failing KMS")
        except pqstep.Error as e:
            assert "asking for the key raised " + cause in str(e), (what, e)
            assert e.__cause__ is not None and type(e.__cause__).__name__ == cause.split(":")[0], what
    try:
        pqstep.read_table(ext, decryption=pqstep.Decryption(footer_key=b"w" * 16))
        raise AssertionError("a wrong footer key accepted")
    except pqstep.Error as e:
        assert "asking for the key" not in str(e) and e.__cause__ is None, e
    import pyarrow.parquet.encryption as pe

    class Kms(pe.KmsClient):
        def __init__(self, config):
            pe.KmsClient.__init__(self)

        def wrap_key(self, key, mid):
            raise NotImplementedError

        def unwrap_key(self, wrapped, mid):
            return unwrap(wrapped, mid)

    factory = pe.CryptoFactory(lambda config: Kms(config))
    props = factory.file_decryption_properties(pe.KmsConnectionConfig(), pe.DecryptionConfiguration(), ext,
                                               pa.fs.LocalFileSystem())
    theirs = pq.ParquetFile(ext, decryption_properties=props).read()
    same(ours, theirs, "external_key_material_java")
    return len(CASES) + len(AES256_CASES) + 2


def check_corpus_hostile():
    base = os.path.join(DATA, "encrypt_columns_and_footer.parquet.encrypted")
    plain_footer = os.path.join(DATA, "encrypt_columns_plaintext_footer.parquet.encrypted")
    no_aad = os.path.join(DATA, "encrypt_columns_and_footer_disable_aad_storage.parquet.encrypted")
    aad_stored = os.path.join(DATA, "encrypt_columns_and_footer_aad.parquet.encrypted")
    # no key at all, an encrypted footer
    expect_error(lambda: pqstep.read_table(base), "encrypted, key not given", "footer is encrypted")
    # a wrong footer key
    expect_error(lambda: pqstep.read_table(base, decryption=pqstep.Decryption(footer_key=b"x" * 16)),
                 "decryption failed", "footer: authentication failed")
    # a right footer key, a wrong column key: the column metadata fails
    wrong_col = pqstep.Decryption(footer_key=FOOTER_128, column_keys={"double_field": b"y" * 16,
                                                                      "float_field": KEYS_128["float_field"]})
    expect_error(lambda: pqstep.read_table(base, decryption=wrong_col), "decryption failed",
                 "column 'double_field': column metadata")
    # the footer key alone: the footer-key columns read, a column-key one is named
    fk = pqstep.Decryption(footer_key=FOOTER_128)
    t = pqstep.read_table(base, decryption=fk, columns=["int32_field", "ba_field"])
    assert t.num_rows == 50
    expect_error(lambda: pqstep.read_table(base, decryption=fk, columns=["float_field"]),
                 "encrypted, key not given", "column 'float_field' is encrypted with its own key")
    # a plaintext footer: no key needed for the plaintext columns
    md = pqstep.read_metadata(plain_footer)
    enc = md.encryption
    assert enc["algorithm"] == "AES_GCM_V1" and not enc["footer_encrypted"], enc
    assert enc["encrypted_columns"] == 2 and enc["keyless_columns"] == 2 and not enc["signature_verified"], enc
    t = pqstep.read_table(plain_footer, columns=["int32_field", "ba_field", "flba_field"])
    want = interop_oracle(t.num_rows)
    assert t.column("int32_field").combine_chunks().equals(want["int32_field"])
    assert t.column("ba_field").combine_chunks().equals(want["ba_field"])
    expect_error(lambda: pqstep.read_table(plain_footer, columns=["double_field"]), "encrypted, key not given",
                 "column 'double_field'")
    md = pqstep.read_metadata(plain_footer, decryption=dec128())
    assert md.encryption["signature_verified"] and md.encryption["keyless_columns"] == 0, md.encryption
    # its signature checked with a wrong footer key
    expect_error(lambda: pqstep.read_metadata(plain_footer, decryption=pqstep.Decryption(footer_key=b"z" * 16)),
                 "decryption failed", "footer signature does not match")
    # AAD prefixes: not stored and not given; wrong; differing from the stored one
    expect_error(lambda: pqstep.read_table(no_aad, decryption=pqstep.Decryption(footer_key=FOOTER_128)),
                 "encrypted, key not given", "did not store its AAD prefix")
    expect_error(lambda: pqstep.read_table(no_aad, decryption=pqstep.Decryption(
        footer_key=FOOTER_128, column_keys=KEYS_128, aad_prefix=b"other")), "decryption failed", "footer")
    expect_error(lambda: pqstep.read_table(aad_stored, decryption=pqstep.Decryption(
        footer_key=FOOTER_128, column_keys=KEYS_128, aad_prefix=b"other")), "invalid argument",
        "differs from the one the file stores")
    # bad keys are refused when given
    for bad in (lambda: pqstep.Decryption(footer_key=b"short"), lambda: pqstep.Decryption(footer_key="0" * 16),
                lambda: pqstep.Decryption(column_keys={"a": b"x" * 17}), lambda: pqstep.read_table(base, decryption=1)):
        try:
            bad()
        except (ValueError, TypeError):
            continue
        raise AssertionError("a bad key was taken")
    assert "0123456789012345" not in repr(dec128())


def check_flips(path, dec, columns=None):
    """Every byte of `path` flipped in turn (a sample of positions on large
    files): a read of `columns` (encrypted ones: a plaintext column's pages
    are no more authenticated than in any plaintext file) fails with a
    pqstep.Error or equals the unflipped read (bytes a read does not use:
    indexes, bloom filters, other columns). Returns how many flips failed."""
    oracle = pqstep.read_table(path, decryption=dec, columns=columns)
    data = open(path, "rb").read()
    step = max(1, len(data) // 1500)
    failed = 0
    with tempfile.TemporaryDirectory(prefix="pqstep-flip-") as tmp:
        bad = os.path.join(tmp, os.path.basename(path))
        for pos in range(0, len(data), step):
            b = bytearray(data)
            b[pos] ^= 0x5A
            with open(bad, "wb") as f:
                f.write(b)
            try:
                got = pqstep.read_table(bad, decryption=dec, mmap=False, columns=columns)
            except pqstep.Error as e:
                failed += 1
                for k in ALL_KEYS:
                    assert k.decode() not in str(e), str(e)
                continue
            except Exception as e:  # anything but pqstep.Error is a bug
                raise AssertionError("flip at %d: %r" % (pos, e))
            assert got.equals(oracle), "flip at byte %d of %s gave other values" % (pos, path)
    return failed


def check_index_flips(path, dec, flt):
    """Bytes flipped between the last column chunk and the footer (the page
    indexes and bloom filters of pyarrow's files): a filtered read that uses
    them fails or equals the unflipped read, and a flipped encrypted index
    fails it naming the module, never just dropping the pruning."""
    import pyarrow.parquet.encryption as pe
    cf = pe.CryptoFactory(lambda config: gen_encrypted.XorKmsClient(config))
    md = pq.ParquetFile(path, decryption_properties=cf.file_decryption_properties(pe.KmsConnectionConfig())).metadata
    data = open(path, "rb").read()
    end = max(c.data_page_offset + c.total_compressed_size if c.dictionary_page_offset is None
              else c.dictionary_page_offset + c.total_compressed_size
              for i in range(md.num_row_groups) for c in (md.row_group(i).column(j) for j in range(md.num_columns)))
    footer = len(data) - 8 - int.from_bytes(data[-8:-4], "little")
    want = pqstep.read_table(path, decryption=dec, filter=flt)
    named = 0
    with tempfile.TemporaryDirectory(prefix="pqstep-iflip-") as tmp:
        bad = os.path.join(tmp, "f.parquet")
        for pos in range(end, footer, max(1, (footer - end) // 300)):
            b = bytearray(data)
            b[pos] ^= 0x40
            with open(bad, "wb") as f:
                f.write(b)
            try:
                got = pqstep.read_table(bad, decryption=dec, filter=flt, prune={"page_index"})
            except pqstep.Error as e:
                assert e.code == "decryption failed", str(e)
                named += "column index" in str(e) or "offset index" in str(e)
                continue
            assert got.equals(want), "index flip at %d gave other rows" % pos
    assert named > 0, "no flipped index module failed the read"
    return named


def check_truncations(path, dec):
    data = open(path, "rb").read()
    with tempfile.TemporaryDirectory(prefix="pqstep-trunc-") as tmp:
        bad = os.path.join(tmp, "t.parquet")
        for cut in (1, 8, 40, len(data) // 2):
            with open(bad, "wb") as f:
                f.write(data[:-cut])
            try:
                pqstep.read_table(bad, decryption=dec)
            except pqstep.Error:
                continue
            raise AssertionError("a file cut by %d bytes was read" % cut)


def fixture_dec(entry, manifest):
    masters = {k: base64.b64decode(v) for k, v in manifest["master_keys"].items()}
    if entry["kms"] == "xor":
        return pqstep.Decryption(kms_unwrap=gen_encrypted.unwrap)

    def inmemory(wrapped, mid):
        return pqstep.aes_gcm_unwrap(masters[mid], base64.b64decode(wrapped), mid.encode())
    return pqstep.Decryption(kms_unwrap=inmemory)


def comparable(t):
    """Timestamps as microseconds since the epoch without a zone: INT96
    reads as timestamp[ns], Spark's oracle holds timestamp[us, tz=UTC]."""
    cols = []
    for c in t.columns:
        if pa.types.is_timestamp(c.type):
            c = c.cast(pa.timestamp("us", tz=c.type.tz)).cast(pa.int64())
        cols.append(c)
    return pa.table(cols, names=t.schema.names)


def _arrow_filter(text):
    """pyarrow's filters= for the few filter texts used here."""
    out = []
    for part in text.split(" and "):
        col, op, val = part.split(" ", 2)
        val = val.strip("'") if val.startswith("'") else float(val)
        if col == "id":
            val = int(val)
        out.append((col, op if op != "=" else "==", val))
    return out


def check_fixtures(folder):
    with open(os.path.join(folder, "manifest.json")) as f:
        manifest = json.load(f)
    n = 0
    for e in manifest["files"]:
        path = os.path.join(folder, e["file"])
        dec = fixture_dec(e, manifest)
        oracle = pq.read_table(os.path.join(folder, e["oracle"]))
        ours = pqstep.read_table(path, decryption=dec)
        same(comparable(ours), comparable(oracle), e["name"])
        # the device executor's kernels (run on the host): pages decrypted before them
        kern = pqstep.read_table(path, decryption=dec, device="host-kernels", device_output=True)
        same(comparable(kern), comparable(oracle), e["name"] + " host-kernels")
        # pages are decrypted by the decode, each just before its decompression:
        # every page mode of the CPU executor (direct, deferred with the page
        # kept decrypted, staged string views, a row range's selected rows),
        # on one thread and on several (each worker its own buffer)
        for threads in (1, 3):
            for strings in ("string", "string_view"):
                got = comparable(pqstep.read_table(path, decryption=dec, threads=threads, strings=strings))
                same(got.cast(comparable(oracle).schema), comparable(oracle),
                     "%s threads=%d strings=%s" % (e["name"], threads, strings))
            got = pqstep.read_table(path, decryption=dec, threads=threads, row_offset=1234, row_limit=777)
            same(comparable(got), comparable(oracle.slice(1234, 777)), "%s rows threads=%d" % (e["name"], threads))
        # streams and scans through the same keys
        scanned = pqstep.scan(path, decryption=dec, batch_size=333).to_reader().read_all()
        same(comparable(scanned), comparable(oracle), e["name"] + " scan")
        # a filter on an encrypted column: its statistics (decrypted) prune
        f = "id < 300"
        got = pqstep.read_table(path, decryption=dec, filter=f)
        want = oracle.filter(pa.compute.less(oracle.column("id"), 300))
        same(comparable(got), comparable(want), e["name"] + " filter")
        # every pruning step on the encrypted columns (statistics, dictionary,
        # page index: their modules decrypted) gives the filter's rows
        for flt, col in (("id >= 1000 and id < 1100", "id"), ("x < 5000", "x"), ("s = 's17'", "s"), ("s = 's17x'", "s")):
            if col not in oracle.schema.names:
                continue
            want = pq.read_table(os.path.join(folder, e["oracle"]), filters=_arrow_filter(flt))
            for prune in (True, False, {"dictionary"}, {"page_index"}):
                got = pqstep.read_table(path, decryption=dec, filter=flt, prune=prune)
                same(comparable(got), comparable(want), "%s %s prune=%s" % (e["name"], flt, prune))
        if e["name"] == "pa_per_column":  # id and s are encrypted (kc1): their modules prune
            r = pqstep.Reader(path, decryption=dec)
            r.read(filter="id >= 1000 and id < 1100", prune={"page_index"})
            assert r.stage_stats("select")["pages_pruned"] > 0, r.stage_stats("select")
            r = pqstep.Reader(path, decryption=dec)
            assert r.read(filter="s = 's17x'", prune={"dictionary"}).num_rows == 0
            assert r.stage_stats("select")["pruned_dictionary"] == e["row_groups"], r.stage_stats("select")
        # footer bytes handed on stay encrypted and need the keys
        md = pqstep.read_metadata(path, decryption=dec)
        fb = md.footer_bytes()
        if e["footer"] == "encrypted":
            assert fb[0] == 0x1C, e["name"]
            try:
                pqstep.FileMetadata.from_footer_bytes(fb)
                raise AssertionError("encrypted footer bytes parsed without keys")
            except pqstep.Error as err:
                assert err.code == "encrypted, key not given", str(err)
        again = pqstep.FileMetadata.from_footer_bytes(fb, decryption=dec, path=path)
        assert again.num_rows == oracle.num_rows
        t = pqstep.read_table(path, decryption=dec, metadata=again)
        same(comparable(t), comparable(oracle), e["name"] + " metadata handed in")
        # plaintext footers: the plaintext columns read without any key
        if e["footer"] == "plaintext":
            plain_cols = [c for c, k in e["columns"].items() if k is None]
            t = pqstep.read_table(path, columns=plain_cols)
            same(comparable(t), comparable(oracle.select([c.split(".")[0] for c in plain_cols])),
                 e["name"] + " without keys")
        # a cache never hands a keyed parse to a reader without keys
        cache = pqstep.MetadataCache(1 << 24)
        pqstep.read_table(path, decryption=dec, cache=cache)
        if e["footer"] == "encrypted":
            try:
                pqstep.read_table(path, cache=cache)
                raise AssertionError("read without keys through a cache")
            except pqstep.Error as err:
                assert err.code == "encrypted, key not given", str(err)
        n += 1
    return n


def check_dataset(folder):
    with open(os.path.join(folder, "manifest.json")) as f:
        manifest = json.load(f)
    xs = [e for e in manifest["files"] if e["kms"] == "xor" and e["internal_key_material"]][:3]
    dec = pqstep.Decryption(kms_unwrap=gen_encrypted.unwrap)
    ds = pqstep.dataset([os.path.join(folder, e["file"]) for e in xs], decryption=dec)
    got = ds.to_table()
    want = pa.concat_tables([pq.read_table(os.path.join(folder, e["oracle"])) for e in xs])
    same(got, want, "dataset")


def check_dask(folder):
    import dask
    import pqstep.dask as pd_
    with open(os.path.join(folder, "manifest.json")) as f:
        manifest = json.load(f)
    e = [e for e in manifest["files"] if e["name"] == "pa_per_column"][0]
    dec = pqstep.Decryption(kms_unwrap=gen_encrypted.unwrap)
    with dask.config.set(scheduler="sync"):
        df = pd_.read_parquet(os.path.join(folder, e["file"]), columns=["id", "s"], decryption=dec).compute()
    want = pq.read_table(os.path.join(folder, e["oracle"]), columns=["id", "s"]).to_pandas()
    assert list(df["id"]) == list(want["id"]), "dask ids"
    assert [x if isinstance(x, str) else None for x in df["s"]] == \
        [x if isinstance(x, str) else None for x in want["s"]], "dask strings"


def check_cli():
    if not CLI:
        print("CLI checks skipped: PQSTEP_CLI is not set")
        return
    path = os.path.join(DATA, "encrypt_columns_and_footer.parquet.encrypted")
    args = ["--footer-key", FOOTER_128.hex(), "--column-key", "double_field=" + KEYS_128["double_field"].hex(),
            "--column-key", "float_field=" + base64.b64encode(KEYS_128["float_field"]).decode()]
    p = subprocess.run([CLI, "cat", "--format", "jsonl", "--int96-unit", "s", *args, path],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    rows = [json.loads(line) for line in p.stdout.splitlines()]
    assert len(rows) == 50 and rows[3]["int32_field"] is not None, rows[:2]
    assert [r["double_field"] for r in rows[:3]] == [0.0, 1.1111111, 2.2222222], rows[:3]
    for cmd in (["meta", "--json"], ["schema"], ["pages"]):
        p = subprocess.run([CLI, *cmd, *args, path], capture_output=True, text=True)
        assert p.returncode == 0, (cmd, p.stderr)
        for k in ALL_KEYS:
            assert k.hex() not in p.stdout + p.stderr and k.decode() not in p.stdout + p.stderr, cmd
    with tempfile.NamedTemporaryFile("w", suffix=".key") as kf:
        kf.write(FOOTER_128.hex() + "\n")
        kf.flush()
        p = subprocess.run([CLI, "cat", "--columns", "int32_field", "--footer-key", "@" + kf.name, path],
                           capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
    p = subprocess.run([CLI, "cat", path], capture_output=True, text=True)
    assert p.returncode == 1 and "footer is encrypted" in p.stderr, p.stderr
    p = subprocess.run([CLI, "cat", "--footer-key", "abc123", path], capture_output=True, text=True)
    assert p.returncode == 2 and "not a key" in p.stderr and "abc123" not in p.stderr, p.stderr
    p = subprocess.run([CLI, "cat", "--footer-key", ("ab" * 16), path], capture_output=True, text=True)
    assert p.returncode == 1 and "authentication failed" in p.stderr and "ab" * 16 not in p.stderr, p.stderr
    check_cli_kms()


def check_cli_kms():
    """--kms-keys: Spark's files (internal and external key material,
    double wrapping, parquet-java's InMemoryKMS) read through the CLI,
    equal to Spark's plaintext copies read by pyarrow."""
    with open(os.path.join(SPARK, "manifest.json")) as f:
        manifest = json.load(f)
    masters = manifest["master_keys"]
    kms = ",".join("%s:%s" % (k, v) for k, v in sorted(masters.items()))
    for e in manifest["files"]:
        path = os.path.join(SPARK, e["file"])
        p = subprocess.run([CLI, "cat", "--format", "jsonl", "--columns", "id,s,x,flag", "--kms-keys", kms, path],
                           capture_output=True, text=True)
        assert p.returncode == 0, (e["name"], p.stderr)
        got = [json.loads(line) for line in p.stdout.splitlines()]
        want = pq.read_table(os.path.join(SPARK, e["oracle"]), columns=["id", "s", "x", "flag"]).to_pylist()
        assert got == want, (e["name"], got[:2], want[:2])
        for v in masters.values():
            assert v not in p.stdout + p.stderr, e["name"]
    # a wrong master key: the KMS's refusal is said, with no key in it
    wrong = ",".join("%s:%s" % (k, base64.b64encode(b"\x07" * 16).decode()) for k in sorted(masters))
    p = subprocess.run([CLI, "meta", "--kms-keys", wrong, os.path.join(SPARK, "spark_footer.parquet")],
                       capture_output=True, text=True)
    assert p.returncode == 1 and 'master key "kf"' in p.stderr and "authentication failed" in p.stderr, p.stderr
    p = subprocess.run([CLI, "meta", "--kms-keys", "kf", os.path.join(SPARK, "spark_footer.parquet")],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "ID:KEY" in p.stderr, p.stderr


def main():
    n = check_corpus()
    check_corpus_hostile()
    with tempfile.TemporaryDirectory(prefix="pqstep-enc-") as tmp:
        subprocess.check_call([sys.executable, os.path.join(SOURCE, "tests", "fixtures", "gen_encrypted.py"),
                               "--writers", "pyarrow", tmp], stdout=subprocess.DEVNULL)
        n += check_fixtures(tmp)
        n += check_fixtures(SPARK)
        check_dataset(tmp)
        check_dask(tmp)
        with open(os.path.join(tmp, "manifest.json")) as f:
            files = {e["name"]: e for e in json.load(f)["files"]}
        flips = 0
        for name in ("pa_per_column", "pa_plaintext_footer"):
            e = files[name]
            path = os.path.join(tmp, e["file"])
            dec = pqstep.Decryption(kms_unwrap=gen_encrypted.unwrap)
            encrypted = [c for c, k in e["columns"].items() if k is not None]
            flips += check_flips(path, dec, encrypted)
            check_truncations(path, dec)
        assert flips > 100, flips
        check_index_flips(os.path.join(tmp, files["pa_per_column"]["file"]),
                          pqstep.Decryption(kms_unwrap=gen_encrypted.unwrap), "id >= 1000 and id < 1100")
    small = os.path.join(DATA, "uniform_encryption.parquet.encrypted")
    oracle = pqstep.read_table(small, decryption=dec128(), int96_unit="s")
    with tempfile.TemporaryDirectory(prefix="pqstep-flip-") as tmp:
        data = open(small, "rb").read()
        bad = os.path.join(tmp, "u.parquet")
        for pos in range(4, len(data) - 8):  # every byte between the magics
            b = bytearray(data)
            b[pos] ^= 0x01
            with open(bad, "wb") as f:
                f.write(b)
            try:
                got = pqstep.read_table(bad, decryption=dec128(), int96_unit="s")
            except pqstep.Error:
                continue
            assert got.equals(oracle), "uniform_encryption: flip at byte %d gave other values" % pos
    check_cli()
    print("encryption: %d files equal their oracles (generator values, pyarrow's CryptoFactory read, "
          "parquet-java's own read); wrong keys, AAD prefixes, flipped bytes and truncations fail; "
          "no key in any message" % n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
