/*
 * test_encryption.c — Parquet Modular Encryption through the C API, and the
 * crypto layer beneath it (metadata/crypto.h) against hand-computed and
 * published vectors:
 *  - module AADs byte by byte, as the spec lays them out;
 *  - AES-GCM: the GCM specification's test cases 1 and 2 (zero key and
 *    nonce; the empty plaintext's tag, and 16 zero bytes' ciphertext and
 *    tag), as a module and through pq_aes_gcm_unwrap; a flipped tag fails;
 *  - the reader over parquet-testing's encrypted files with their keys:
 *    through a file, sans-IO (every range the stages name, supplied), the
 *    metadata handed to another reader, footer bytes handed on, the caller's key buffers wiped
 *    after the open, a metadata cache that keyed readers never use;
 *  - the two walks of an encrypted chunk agree: each page decrypted on its
 *    own (pq_page_walk_encrypted_headers, then pq_page_decrypt, as the
 *    decode does) equals the same page of the chunk decrypted whole; a
 *    flipped byte fails that page's authentication, a short chunk its bounds;
 *  - bad pq_decryption structs and keys refused with clear errors;
 *  - key material (pq_key_material): single and double wrapping, internal
 *    and external, built here with OpenSSL and a KMS of this test's own
 *    (the keys it unwraps are the keys it wrapped); Spark's files read
 *    through it and parquet-java's InMemoryKMS scheme, equal to Spark's
 *    plaintext copies; malformed material and KMS refusals refused.
 * Value checks against independent oracles are in tests/py/test_encryption.py.
 */
#include <check.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "metadata/crypto.h"
#include "pages/page_decrypt.h"
#include "pages/buffer_pool.h"
#include "reader/keys.h"
#include "pqstep.h"
#include "test_util.h"

static const uint8_t FOOTER_KEY[] = "0123456789012345";
static const uint8_t COL_KEY_1[] = "1234567890123450";
static const uint8_t COL_KEY_2[] = "1234567890123451";

static void unhex(const char *h, uint8_t *out)
{
    for (size_t i = 0; h[2 * i]; i++) {
        unsigned v;
        sscanf(h + 2 * i, "%2x", &v);
        out[i] = (uint8_t)v;
    }
}

START_TEST(test_aad_layout)
{
    uint8_t aad[PQ_CRYPTO_MAX_AAD];
    const uint8_t file[] = {'A', 'B'};
    ck_assert_uint_eq(pq_crypto_aad(aad, file, 2, PQ_MODULE_FOOTER, 9, 9, 9), 3);
    ck_assert_mem_eq(aad, "AB\x00", 3);
    ck_assert_uint_eq(pq_crypto_aad(aad, file, 2, PQ_MODULE_COLUMN_META, 1, 258, 9), 7);
    ck_assert_mem_eq(aad, "AB\x01\x01\x00\x02\x01", 7);
    ck_assert_uint_eq(pq_crypto_aad(aad, file, 2, PQ_MODULE_DATA_PAGE_HEADER, 1, 258, 3), 9);
    ck_assert_mem_eq(aad, "AB\x04\x01\x00\x02\x01\x03\x00", 9);
    ck_assert_uint_eq(pq_crypto_aad(aad, file, 2, PQ_MODULE_DICTIONARY_PAGE, 0, 0, 7), 7); /* no page ordinal */
    ck_assert_uint_eq(pq_crypto_aad(aad, file, 2, PQ_MODULE_DATA_PAGE, 0, 0, 32768), 0);   /* too large */
    ck_assert_uint_eq(pq_crypto_aad(aad, file, 2, PQ_MODULE_OFFSET_INDEX, 32768, 0, 0), 0);
}
END_TEST

/* The GCM specification's test case 2: key and nonce zero, 16 zero bytes. */
START_TEST(test_gcm_vectors)
{
    uint8_t key[16] = {0}, module[4 + 12 + 16 + 16] = {44, 0, 0, 0}, out[16];
    unhex("0388dace60b6a392f328c2b971b2fe78", module + 16);
    unhex("ab6e47d42cec13bdf53a67b21257bddf", module + 32);
    size_t total = 0;
    pq_error err;
    ck_assert_int_eq(pq_crypto_module_size(module, sizeof module, true, "m", &total, &err), PQ_OK);
    ck_assert_uint_eq(total, sizeof module);
    memset(out, 0xEE, sizeof out);
    ck_assert_int_eq(pq_crypto_gcm_decrypt(key, 16, module, total, NULL, 0, out, "m", &err), PQ_OK);
    for (int i = 0; i < 16; i++) ck_assert_uint_eq(out[i], 0);
    /* the same through the public helper (nonce, ciphertext, tag) */
    size_t n = 0;
    ck_assert_int_eq(pq_aes_gcm_unwrap(key, 16, module + 4, 44, NULL, 0, out, sizeof out, &n, &err), PQ_OK);
    ck_assert_uint_eq(n, 16);
    /* any AAD, or a flipped tag, fails and leaves no plaintext */
    ck_assert_int_eq(pq_aes_gcm_unwrap(key, 16, module + 4, 44, (const uint8_t *)"x", 1, out, sizeof out, &n, &err),
                     PQ_ERR_DECRYPT);
    module[40] ^= 1;
    memset(out, 0xEE, sizeof out);
    ck_assert_int_eq(pq_crypto_gcm_decrypt(key, 16, module, total, NULL, 0, out, "data page", &err), PQ_ERR_DECRYPT);
    ck_assert_ptr_nonnull(strstr(err.message, "data page: authentication failed"));
    for (int i = 0; i < 16; i++) ck_assert_uint_eq(out[i], 0);
    /* a module longer than the bytes there, a key of a wrong length */
    module[0] = 200;
    ck_assert_int_eq(pq_crypto_module_size(module, sizeof module, true, "m", &total, &err), PQ_ERR_CORRUPT_DATA);
    ck_assert_int_eq(pq_aes_gcm_unwrap(key, 15, module + 4, 44, NULL, 0, out, sizeof out, &n, &err),
                     PQ_ERR_INVALID_ARGUMENT);
    /* test case 1: the empty plaintext's tag, as a footer signature */
    uint8_t sig[28] = {0};
    unhex("58e2fccefa7e3061367f1d57a4e7455a", sig + 12);
    ck_assert_int_eq(pq_crypto_verify_signature(key, 16, (const uint8_t *)"", 0, sig, NULL, 0, &err), PQ_OK);
    sig[27] ^= 0x80;
    ck_assert_int_eq(pq_crypto_verify_signature(key, 16, (const uint8_t *)"", 0, sig, NULL, 0, &err), PQ_ERR_DECRYPT);
}
END_TEST

static void keys_init(pq_decryption *d, pq_column_key ck[2])
{
    pq_decryption_init(d);
    d->footer_key = FOOTER_KEY;
    d->footer_key_len = 16;
    ck[0] = (pq_column_key){"double_field", COL_KEY_1, 16};
    ck[1] = (pq_column_key){"float_field", COL_KEY_2, 16};
    d->column_keys = ck;
    d->column_keys_len = 2;
    d->aad_prefix = (const uint8_t *)"tester";
    d->aad_prefix_len = 6;
}

/* Read every row group to the end; returns the rows. */
static uint64_t read_all(pq_reader *r)
{
    pq_error err;
    uint64_t rows = 0;
    pq_status adv = pq_reader_advance_to(r, PQ_STAGE_DECODE, &err);
    ck_assert_msg(adv == PQ_OK, "%s", err.message);
    for (;;) {
        struct ArrowArray a;
        struct ArrowSchema s;
        pq_status st = pq_reader_next_batch(r, 1000, &a, &s, &err);
        ck_assert_msg(st == PQ_OK, "%s", err.message);
        if (!a.release) break;
        ck_assert_int_eq(a.n_children, 8);
        rows += (uint64_t)a.length;
        a.release(&a);
        s.release(&s);
    }
    return rows;
}

START_TEST(test_reader_with_keys)
{
    const char *files[] = {"data/encrypt_columns_and_footer.parquet.encrypted",
                           "data/encrypt_columns_plaintext_footer.parquet.encrypted",
                           "data/encrypt_columns_and_footer_ctr.parquet.encrypted",
                           "data/encrypt_columns_and_footer_disable_aad_storage.parquet.encrypted"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char *path = pq_test_corpus_path(files[f]);
        /* keys in buffers the caller wipes right after the open */
        uint8_t footer[16], k1[16];
        memcpy(footer, FOOTER_KEY, 16);
        memcpy(k1, COL_KEY_1, 16);
        pq_decryption d;
        pq_column_key ck[2];
        keys_init(&d, ck);
        d.footer_key = footer;
        ck[0].key = k1;
        pq_reader_options o;
        pq_reader_options_init(&o);
        o.decryption = &d;
        o.int96_unit = PQ_UNIT_SECONDS;
        pq_error err;
        pq_reader *r = pq_reader_open_path(path, &o, &err);
        ck_assert_msg(r, "%s", err.message);
        memset(footer, 0, 16);
        memset(k1, 0, 16);
        memset(&d, 0, sizeof d);
        ck_assert_uint_eq(read_all(r), 50);
        pq_file_encryption e;
        pq_metadata_encryption(pq_reader_metadata(r), &e);
        ck_assert_int_eq(e.algorithm, f == 2 ? PQ_ENCRYPTION_AES_GCM_CTR_V1 : PQ_ENCRYPTION_AES_GCM_V1);
        ck_assert(e.footer_encrypted == (f != 1));
        ck_assert_uint_eq(e.encrypted_columns, 2); /* double_field, float_field; the rest plaintext */
        ck_assert_uint_eq(e.keyless_columns, 0);
        if (f == 1) ck_assert(e.signature_verified);
        /* metadata handed on to another reader, with the keys again */
        pq_decryption d2;
        pq_column_key ck2[2];
        keys_init(&d2, ck2);
        pq_reader_options o2 = o;
        o2.metadata = pq_reader_metadata(r);
        o2.decryption = &d2;
        pq_reader *t = pq_reader_open_path(path, &o2, &err); /* takes its reference at the footer stage */
        ck_assert_msg(t, "%s", err.message);
        ck_assert_uint_eq(read_all(t), 50);
        pq_reader_close(r);
        pq_reader_close(t);
        free(path);
    }
}
END_TEST

START_TEST(test_sans_io_and_footer_bytes)
{
    char *path = pq_test_corpus_path("data/encrypt_columns_and_footer.parquet.encrypted");
    size_t len = 0;
    uint8_t *file = pq_test_read_file(path, &len);
    ck_assert_ptr_nonnull(file);
    pq_decryption d;
    pq_column_key ck[2];
    keys_init(&d, ck);
    pq_reader_options o;
    pq_reader_options_init(&o);
    o.decryption = &d;
    o.int96_unit = PQ_UNIT_SECONDS;
    pq_error err;
    pq_reader *r = pq_reader_open_sans_io(len, &o, &err);
    ck_assert_msg(r, "%s", err.message);
    int rounds = 0;
    pq_status st;
    while ((st = pq_reader_advance_to(r, PQ_STAGE_DECODE, &err)) == PQ_ERR_NEED_DATA) {
        pq_range need[16];
        size_t n = pq_reader_needed_ranges(r, need, 16);
        ck_assert_uint_gt(n, 0);
        for (size_t i = 0; i < n && i < 16; i++)
            ck_assert_int_eq(pq_reader_supply(r, need[i].offset, file + need[i].offset, (size_t)need[i].length,
                                              &err), PQ_OK);
        ck_assert_int_lt(++rounds, 20);
    }
    ck_assert_msg(st == PQ_OK, "%s", err.message);
    ck_assert_uint_eq(read_all(r), 50);

    /* footer bytes stay encrypted: a parse needs the key */
    size_t flen = 0;
    const uint8_t *fb = pq_metadata_footer_bytes(pq_reader_metadata(r), &flen);
    ck_assert_uint_eq(fb[0], 0x1C);
    ck_assert_ptr_null(pq_metadata_parse(fb, flen, NULL, &err));
    ck_assert_int_eq(err.code, PQ_ERR_ENCRYPTED);
    pq_metadata *md = pq_metadata_parse_decrypt(fb, flen, NULL, &d, &err);
    ck_assert_msg(md, "%s", err.message);
    ck_assert_int_eq(pq_metadata_file(md)->num_rows, 50);
    pq_metadata_release(md);
    pq_reader_close(r);
    /* the tail alone says what it is */
    size_t needed = 0;
    ck_assert_ptr_null(pq_metadata_parse_tail(file, len, NULL, &needed, &err));
    ck_assert_int_eq(err.code, PQ_ERR_ENCRYPTED);
    free(file);
    free(path);
}
END_TEST

START_TEST(test_cache_never_used_with_keys)
{
    char *path = pq_test_corpus_path("data/encrypt_columns_plaintext_footer.parquet.encrypted");
    pq_error err;
    pq_metadata_cache *cache = pq_metadata_cache_create(1 << 20, &err);
    pq_decryption d;
    pq_column_key ck[2];
    keys_init(&d, ck);
    pq_reader_options o;
    pq_reader_options_init(&o);
    o.cache = cache;
    o.decryption = &d;
    pq_reader *r = pq_reader_open_path(path, &o, &err);
    ck_assert_int_eq(pq_reader_advance_to(r, PQ_STAGE_FOOTER, &err), PQ_OK);
    pq_reader_close(r);
    pq_metadata_cache_stats cs;
    pq_metadata_cache_get_stats(cache, &cs);
    ck_assert_uint_eq(cs.entries, 0);
    /* a keyless reader caches its plaintext parse; a keyed one does not take it */
    o.decryption = NULL;
    r = pq_reader_open_path(path, &o, &err);
    ck_assert_int_eq(pq_reader_advance_to(r, PQ_STAGE_FOOTER, &err), PQ_OK);
    pq_reader_close(r);
    pq_metadata_cache_get_stats(cache, &cs);
    ck_assert_uint_eq(cs.entries, 1);
    o.decryption = &d;
    o.int96_unit = PQ_UNIT_SECONDS;
    r = pq_reader_open_path(path, &o, &err);
    ck_assert_uint_eq(read_all(r), 50); /* its own parse: the encrypted columns decrypt */
    pq_reader_close(r);
    pq_metadata_cache_destroy(cache);
    free(path);
}
END_TEST

START_TEST(test_bad_keys)
{
    char *path = pq_test_corpus_path("data/encrypt_columns_and_footer.parquet.encrypted");
    pq_decryption d;
    pq_column_key ck[2];
    pq_reader_options o;
    pq_reader_options_init(&o);
    o.decryption = &d;
    pq_error err;
    keys_init(&d, ck);
    d.struct_size = 0;
    ck_assert_ptr_null(pq_reader_open_path(path, &o, &err));
    ck_assert_int_eq(err.code, PQ_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(err.message, "pq_decryption_init"));
    keys_init(&d, ck);
    d.footer_key_len = 15;
    ck_assert_ptr_null(pq_reader_open_path(path, &o, &err));
    ck_assert_int_eq(err.code, PQ_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(err.message, "15 bytes"));
    keys_init(&d, ck);
    ck[1].path = NULL;
    ck_assert_ptr_null(pq_reader_open_path(path, &o, &err));
    ck_assert_int_eq(err.code, PQ_ERR_INVALID_ARGUMENT);
    /* a wrong key: authentication fails, naming the module, not the key */
    keys_init(&d, ck);
    ck[0].key = COL_KEY_2;
    pq_reader *r = pq_reader_open_path(path, &o, &err);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(pq_reader_advance_to(r, PQ_STAGE_FOOTER, &err), PQ_ERR_DECRYPT);
    ck_assert_msg(strstr(err.message, "column 'double_field': column metadata: authentication failed"), "%s",
                  err.message);
    ck_assert_ptr_null(strstr(err.message, (const char *)COL_KEY_2));
    pq_reader_close(r);
    free(path);
}
END_TEST


/* ---- key material ---- */

/* The master keys of this test's KMS; "kf", "kc1", "kc2" are also those of
 * tests/fixtures/gen_encrypted.py, which wrote the Spark files. */
static const struct {
    const char *id;
    const char *key;
} MASTERS[] = {{"kf", "0123456789012345"}, {"kc1", "1234567890123450"}, {"kc2", "1234567890123451"}};

static const uint8_t *master_key(const char *id)
{
    for (size_t i = 0; i < sizeof MASTERS / sizeof MASTERS[0]; i++)
        if (strcmp(MASTERS[i].id, id) == 0) return (const uint8_t *)MASTERS[i].key;
    return NULL;
}

/* AES-GCM of `key` with `kek` and `aad`: nonce, ciphertext, tag (as the key
 * tools store a wrapped key), base64 into `out`. */
static void gcm_wrap(const uint8_t *kek, const uint8_t *key, size_t n, const uint8_t *aad, size_t aad_len, char *out)
{
    uint8_t buf[12 + 32 + 16];
    int len = 0;
    ck_assert_int_eq(RAND_bytes(buf, 12), 1);
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    ck_assert_int_eq(EVP_EncryptInit_ex(c, EVP_aes_128_gcm(), NULL, kek, buf), 1);
    ck_assert_int_eq(EVP_EncryptUpdate(c, NULL, &len, aad, (int)aad_len), 1);
    ck_assert_int_eq(EVP_EncryptUpdate(c, buf + 12, &len, key, (int)n), 1);
    ck_assert_int_eq(EVP_EncryptFinal_ex(c, buf + 12 + n, &len), 1);
    ck_assert_int_eq(EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, 16, buf + 12 + n), 1);
    EVP_CIPHER_CTX_free(c);
    EVP_EncodeBlock((unsigned char *)out, buf, (int)(12 + n + 16));
}

static int kms_calls;

/* parquet-java's InMemoryKMS: base64(nonce, ciphertext, tag), AES-GCM with
 * the master key, AAD the master key id. */
static int test_kms_unwrap(void *user, const char *wrapped, const char *id, uint8_t key[32], size_t *key_len)
{
    (void)user;
    kms_calls++;
    const uint8_t *mk = master_key(id);
    uint8_t raw[256];
    size_t n = strlen(wrapped);
    if (!mk || n % 4 || n > 300) return 1;
    int got = EVP_DecodeBlock(raw, (const unsigned char *)wrapped, (int)n);
    got -= (wrapped[n - 1] == '=') + (wrapped[n - 2] == '=');
    return pq_aes_gcm_unwrap(mk, 16, raw, (size_t)got, (const uint8_t *)id, strlen(id), key, 32, key_len, NULL) ==
                   PQ_OK
               ? 0
               : 1;
}

/* Key material for `dek` under master key `id`, single or double wrapped,
 * as JSON text into `out`. */
static void make_material(const uint8_t *dek, const char *id, bool dbl, char *out, size_t cap)
{
    char wrapped_dek[128], wrapped_kek[128], kek_id_b64[64];
    if (!dbl) {
        gcm_wrap(master_key(id), dek, 16, (const uint8_t *)id, strlen(id), wrapped_dek);
        snprintf(out, cap,
                 "{\"keyMaterialType\":\"PKMT1\",\"internalStorage\":true,\"isFooterKey\":false,"
                 "\"masterKeyID\":\"%s\",\"wrappedDEK\":\"%s\",\"doubleWrapping\":false}",
                 id, wrapped_dek);
        return;
    }
    uint8_t kek[16], kek_id[16];
    ck_assert_int_eq(RAND_bytes(kek, 16), 1);
    ck_assert_int_eq(RAND_bytes(kek_id, 16), 1);
    gcm_wrap(kek, dek, 16, kek_id, 16, wrapped_dek);
    gcm_wrap(master_key(id), kek, 16, (const uint8_t *)id, strlen(id), wrapped_kek);
    EVP_EncodeBlock((unsigned char *)kek_id_b64, kek_id, 16);
    snprintf(out, cap,
             "{\"keyMaterialType\":\"PKMT1\",\"internalStorage\":true,\"masterKeyID\":\"%s\","
             "\"wrappedDEK\":\"%s\",\"doubleWrapping\":true,\"keyEncryptionKeyID\":\"%s\",\"wrappedKEK\":\"%s\"}",
             id, wrapped_dek, kek_id_b64, wrapped_kek);
}

static pq_status unwrap_text(const pq_key_material *km, const char *meta, uint8_t key[32], size_t *n, pq_error *err)
{
    return pq_key_material_unwrap(km, (const uint8_t *)meta, strlen(meta), key, n, err);
}

START_TEST(test_key_material)
{
    pq_key_material km;
    pq_key_material_init(&km);
    km.unwrap = test_kms_unwrap;
    char meta[1024], store[4096];
    uint8_t key[32];
    size_t n = 0;
    pq_error err;
    for (int dbl = 0; dbl < 2; dbl++) {
        make_material(COL_KEY_1, "kc1", dbl, meta, sizeof meta);
        memset(key, 0, sizeof key);
        ck_assert_msg(unwrap_text(&km, meta, key, &n, &err) == PQ_OK, "%s", err.message);
        ck_assert_uint_eq(n, 16);
        ck_assert_mem_eq(key, COL_KEY_1, 16);
        /* the retriever form */
        memset(key, 0, sizeof key);
        ck_assert_int_eq(pq_key_material_retriever(&km, (const uint8_t *)meta, strlen(meta), key, &n), 0);
        ck_assert_mem_eq(key, COL_KEY_1, 16);
    }

    /* external: a reference into _KEY_MATERIAL_FOR_<file>.json beside the file */
    char material[1024], escaped[2048];
    make_material(COL_KEY_2, "kc2", true, material, sizeof material);
    size_t e = 0;
    for (const char *c = material; *c; c++) {
        if (*c == '"') escaped[e++] = '\\';
        escaped[e++] = *c;
    }
    escaped[e] = '\0';
    snprintf(store, sizeof store, "{\"footerKey\":\"x\",\"columnKey7\":\"%s\"}", escaped);
    const char *ref = "{\"keyMaterialType\":\"PKMT1\",\"internalStorage\":false,\"keyReference\":\"columnKey7\"}";
    char dir[] = "/tmp/pq_keymat_XXXXXX", data_path[256], store_path[256];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(data_path, sizeof data_path, "%s/part-0.parquet", dir);
    snprintf(store_path, sizeof store_path, "%s/_KEY_MATERIAL_FOR_part-0.parquet.json", dir);
    ck_assert_int_eq(unwrap_text(&km, ref, key, &n, &err), PQ_ERR_INVALID_ARGUMENT); /* no path */
    ck_assert_ptr_nonnull(strstr(err.message, "file_path"));
    km.file_path = data_path;
    ck_assert_int_eq(unwrap_text(&km, ref, key, &n, &err), PQ_ERR_IO); /* no file there yet */
    ck_assert_ptr_nonnull(strstr(err.message, "_KEY_MATERIAL_FOR_part-0.parquet.json"));
    FILE *f = fopen(store_path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(store, f);
    fclose(f);
    memset(key, 0, sizeof key);
    ck_assert_msg(unwrap_text(&km, ref, key, &n, &err) == PQ_OK, "%s", err.message);
    ck_assert_mem_eq(key, COL_KEY_2, 16);
    /* the same bytes supplied by the caller (a remote file's store) */
    km.file_path = NULL;
    km.external_material = store;
    km.external_material_len = strlen(store);
    memset(key, 0, sizeof key);
    ck_assert_msg(unwrap_text(&km, ref, key, &n, &err) == PQ_OK, "%s", err.message);
    ck_assert_mem_eq(key, COL_KEY_2, 16);
    const char *missing_ref = "{\"keyMaterialType\":\"PKMT1\",\"internalStorage\":false,\"keyReference\":\"k9\"}";
    ck_assert_int_eq(unwrap_text(&km, missing_ref, key, &n, &err), PQ_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(err.message, "no key \"k9\""));
    /* the footerKey entry is not JSON */
    const char *bad_entry = "{\"keyMaterialType\":\"PKMT1\",\"internalStorage\":false,\"keyReference\":\"footerKey\"}";
    ck_assert_int_eq(unwrap_text(&km, bad_entry, key, &n, &err), PQ_ERR_INVALID_ARGUMENT);
    remove(store_path);
    rmdir(dir);

    /* malformed material, each with its reason */
    static const struct {
        const char *meta, *says;
    } bad[] = {
        {"not json", "not JSON"},
        {"[1,2]", "a JSON object"},
        {"{\"keyMaterialType\":\"PKMT2\"}", "PKMT1"},
        {"{\"keyMaterialType\":\"PKMT1\",\"wrappedDEK\":\"AAAA\",\"doubleWrapping\":false}", "masterKeyID"},
        {"{\"keyMaterialType\":\"PKMT1\",\"masterKeyID\":\"kc1\",\"doubleWrapping\":false}", "wrappedDEK"},
        {"{\"keyMaterialType\":\"PKMT1\",\"masterKeyID\":\"kc1\",\"wrappedDEK\":\"AAAA\"}", "wrappedKEK"},
        {"{\"keyMaterialType\":\"PKMT1\",\"masterKeyID\":\"kc1\",\"wrappedDEK\":\"A!\",\"wrappedKEK\":\"AAAA\","
         "\"keyEncryptionKeyID\":\"AAAAAAAAAAAAAAAAAAAAAA==\"}",
         "wrappedDEK is not base64"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(unwrap_text(&km, bad[i].meta, key, &n, &err), PQ_ERR_INVALID_ARGUMENT);
        ck_assert_msg(strstr(err.message, bad[i].says), "case %zu: %s", i, err.message);
    }
    ck_assert_int_eq(pq_key_material_unwrap(&km, NULL, 0, key, &n, &err), PQ_ERR_INVALID_ARGUMENT);
    /* a master key the KMS does not have: the message names it */
    make_material(COL_KEY_1, "kc1", false, meta, sizeof meta);
    char *id_at = strstr(meta, "\"kc1\"");
    id_at[3] = '9';
    ck_assert_int_eq(unwrap_text(&km, meta, key, &n, &err), PQ_ERR_ENCRYPTED);
    ck_assert_ptr_nonnull(strstr(err.message, "\"kc9\""));
    /* a double-wrapped key altered after wrapping fails authentication */
    make_material(COL_KEY_1, "kc1", true, meta, sizeof meta);
    char *dek_at = strstr(meta, "\"wrappedDEK\":\"") + 14 + 20;
    *dek_at = *dek_at == 'A' ? 'B' : 'A';
    memset(key, 0x5A, sizeof key);
    ck_assert_int_eq(unwrap_text(&km, meta, key, &n, &err), PQ_ERR_DECRYPT);
    ck_assert_uint_eq(n, 0);
    ck_assert_ptr_null(strstr(err.message, (const char *)COL_KEY_1));
    /* no unwrap function */
    km.unwrap = NULL;
    ck_assert_int_eq(unwrap_text(&km, meta, key, &n, &err), PQ_ERR_INVALID_ARGUMENT);
}
END_TEST

/* Every row of `a` equal to `b`'s (one-row batches: the two files' row
 * groups differ in size); returns the rows. */
static uint64_t assert_same_reads(pq_reader *a, pq_reader *b)
{
    pq_error err;
    uint64_t rows = 0;
    ck_assert_msg(pq_reader_advance_to(a, PQ_STAGE_DECODE, &err) == PQ_OK, "%s", err.message);
    ck_assert_msg(pq_reader_advance_to(b, PQ_STAGE_DECODE, &err) == PQ_OK, "%s", err.message);
    for (;;) {
        struct ArrowArray x, y;
        struct ArrowSchema sx, sy;
        ck_assert_msg(pq_reader_next_batch(a, 1, &x, &sx, &err) == PQ_OK, "%s", err.message);
        ck_assert_msg(pq_reader_next_batch(b, 1, &y, &sy, &err) == PQ_OK, "%s", err.message);
        ck_assert_int_eq(!x.release, !y.release);
        if (!x.release) break;
        char why[256];
        const char *d = pq_test_arrays_differ(&x, &y, &sx, why, sizeof why);
        ck_assert_msg(d == NULL, "rows %llu+: %s", (unsigned long long)rows, d);
        rows += (uint64_t)x.length;
        x.release(&x);
        y.release(&y);
        sx.release(&sx);
        sy.release(&sy);
    }
    return rows;
}

START_TEST(test_spark_key_material)
{
    static const char *names[] = {"spark_footer", "spark_external", "spark_plaintext_footer"};
    for (size_t i = 0; i < 3; i++) {
        char enc[512], plain[512];
        snprintf(enc, sizeof enc, "%s/tests/fixtures/encrypted_spark/%s.parquet", PQ_SOURCE_DIR, names[i]);
        snprintf(plain, sizeof plain, "%s/tests/fixtures/encrypted_spark/%s.plain.parquet", PQ_SOURCE_DIR, names[i]);
        pq_key_material km;
        pq_key_material_init(&km);
        km.unwrap = test_kms_unwrap;
        km.file_path = enc;
        pq_decryption d;
        pq_decryption_init(&d);
        d.key_retriever = pq_key_material_retriever;
        d.key_retriever_user = &km;
        /* every leaf but ts, which Spark stored as INT96 in one copy and as
         * TIMESTAMP_MICROS in the other (test_encryption.py compares it) */
        static const uint32_t leaves[] = {0, 1, 2, 3, 4, 6};
        pq_reader_options o;
        pq_reader_options_init(&o);
        o.columns = leaves;
        o.columns_len = 6;
        o.decryption = &d;
        pq_error err;
        kms_calls = 0;
        pq_reader *r = pq_reader_open_path(enc, &o, &err);
        ck_assert_msg(r, "%s: %s", names[i], err.message);
        o.decryption = NULL;
        pq_reader *p = pq_reader_open_path(plain, &o, &err);
        ck_assert_msg(p, "%s: %s", names[i], err.message);
        ck_assert_uint_eq(assert_same_reads(r, p), 2000);
        ck_assert_int_gt(kms_calls, 0);
        pq_reader_close(r);
        pq_reader_close(p);
    }
}
END_TEST

/* The walk the reader uses (headers now, each page when it is decoded)
 * against the walk that decrypts the chunk whole: the same pages, the same
 * plaintext, page by page. */
START_TEST(test_page_walks_agree)
{
    char *path = pq_test_corpus_path("data/encrypt_columns_and_footer.parquet.encrypted");
    pq_decryption d;
    pq_column_key ck[2];
    keys_init(&d, ck);
    pq_reader_options o;
    pq_reader_options_init(&o);
    o.decryption = &d;
    pq_error err;
    pq_reader *r = pq_reader_open_path(path, &o, &err);
    ck_assert_msg(r, "%s", err.message);
    ck_assert_msg(pq_reader_advance_to(r, PQ_STAGE_SELECT, &err) == PQ_OK, "%s", err.message);
    const pq_metadata *md = pq_reader_metadata(r);
    const pq_schema *schema = pq_metadata_schema(md);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    size_t checked = 0;
    for (uint32_t leaf = 0; leaf < schema->leaves_len; leaf++) {
        const pq_column_chunk *cc = pq_metadata_file(md)->row_groups[0].columns[leaf];
        if (strcmp(schema->leaves[leaf].path, "double_field") && strcmp(schema->leaves[leaf].path, "float_field"))
            continue;
        const pq_column_meta *m = &cc->meta_data;
        int64_t off = m->dictionary_page_offset > 0 && m->dictionary_page_offset < m->data_page_offset
                          ? m->dictionary_page_offset
                          : m->data_page_offset;
        size_t len = (size_t)m->total_compressed_size;
        uint8_t *chunk = malloc(len);
        ck_assert_int_eq(fseek(f, (long)off, SEEK_SET), 0);
        ck_assert_uint_eq(fread(chunk, 1, len, f), len);
        pq_chunk_cipher cipher;
        uint8_t key[PQ_CRYPTO_MAX_KEY];
        ck_assert_msg(pq_chunk_cipher_for(md, &d, 0, leaf, &cipher, key, &err) == PQ_OK, "%s", err.message);
        uint8_t *plain = NULL;
        size_t plain_len = 0, nw = 0, nh = 0;
        pq_page_info *wp = NULL, *hp = NULL;
        pq_page_module *mods = NULL;
        ck_assert_msg(pq_page_walk_encrypted(chunk, len, m->num_values, &cipher, &plain, &plain_len, &wp, &nw, NULL,
                                             &err) == PQ_OK, "%s", err.message);
        ck_assert_msg(pq_page_walk_encrypted_headers(chunk, len, m->num_values, &cipher, &hp, &mods, &nh, NULL,
                                                     &err) == PQ_OK, "%s", err.message);
        ck_assert_uint_eq(nw, nh);
        ck_assert_uint_ge(nh, 2); /* a dictionary page and data pages */
        uint64_t at = 0;
        for (size_t i = 0; i < nh; i++) {
            ck_assert_int_eq(hp[i].type, wp[i].type);
            ck_assert_int_eq(hp[i].num_values, wp[i].num_values);
            ck_assert_int_eq(hp[i].encoding, wp[i].encoding);
            ck_assert_int_eq(hp[i].uncompressed_size, wp[i].uncompressed_size);
            ck_assert_int_eq(hp[i].compressed_size, wp[i].compressed_size);
            /* in the stored chunk: header module, then the page, back to back */
            ck_assert_uint_eq(hp[i].header_offset, at);
            ck_assert_uint_eq(hp[i].data_offset, at + hp[i].header_len);
            at = hp[i].data_offset + mods[i].stored;
            ck_assert_uint_eq(mods[i].stored, (uint32_t)hp[i].compressed_size + PQ_CRYPTO_GCM_OVERHEAD);
            uint8_t *page = malloc((size_t)hp[i].compressed_size + 1);
            ck_assert_msg(pq_page_decrypt(&cipher, chunk, len, &hp[i], &mods[i], i, page, &err) == PQ_OK, "%s",
                          err.message);
            ck_assert_int_eq(memcmp(page, plain + wp[i].data_offset, (size_t)hp[i].compressed_size), 0);
            /* past the bytes at hand: refused before any decryption */
            ck_assert_int_eq(pq_page_decrypt(&cipher, chunk, hp[i].data_offset + mods[i].stored - 1, &hp[i],
                                             &mods[i], i, page, &err),
                             PQ_ERR_CORRUPT_DATA);
            /* a flipped byte of the ciphertext: that page fails, named */
            chunk[hp[i].data_offset + mods[i].stored / 2] ^= 0x20;
            ck_assert_int_eq(pq_page_decrypt(&cipher, chunk, len, &hp[i], &mods[i], i, page, &err), PQ_ERR_DECRYPT);
            char want[64];
            snprintf(want, sizeof want, "page %zu (%s page)", i,
                     hp[i].type == PQ_PAGE_DICTIONARY ? "dictionary" : "data");
            ck_assert_msg(strstr(err.message, want), "%s", err.message);
            chunk[hp[i].data_offset + mods[i].stored / 2] ^= 0x20;
            /* another page's ordinal (its AAD) does not authenticate a data page */
            if (hp[i].type != PQ_PAGE_DICTIONARY) {
                pq_page_module other = mods[i];
                other.ordinal++;
                ck_assert_int_eq(pq_page_decrypt(&cipher, chunk, len, &hp[i], &other, i, page, &err), PQ_ERR_DECRYPT);
            }
            free(page);
            checked++;
        }
        ck_assert_uint_eq(at, len);
        pq_crypto_wipe(key, sizeof key);
        pq_pool_give(plain);
        free(wp);
        free(hp);
        free(mods);
        free(chunk);
    }
    ck_assert_uint_ge(checked, 4);
    fclose(f);
    pq_reader_close(r);
    free(path);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("encryption");
    TCase *tc = tcase_create("crypto");
    tcase_add_test(tc, test_aad_layout);
    tcase_add_test(tc, test_gcm_vectors);
    tcase_add_test(tc, test_key_material);
    tcase_add_test(tc, test_spark_key_material);
    suite_add_tcase(s, tc);
    TCase *rd = tcase_create("reader");
    tcase_set_timeout(rd, 0);
    if (pq_test_corpus_dir()) {
        tcase_add_test(rd, test_reader_with_keys);
        tcase_add_test(rd, test_page_walks_agree);
        tcase_add_test(rd, test_sans_io_and_footer_bytes);
        tcase_add_test(rd, test_cache_never_used_with_keys);
        tcase_add_test(rd, test_bad_keys);
    } else {
        printf("test_encryption: reader cases skipped: no parquet-testing corpus (PQSTEP_TEST_CORPUS)\n");
    }
    suite_add_tcase(s, rd);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
