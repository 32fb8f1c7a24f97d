/*
 * key_material.c — the key material that parquet-java's and Arrow's key
 * tools write (type "PKMT1"), read with Jansson, and its keys unwrapped
 * through the caller's KMS (pq_key_material in pq_metadata.h).
 *
 * Fields read (KeyMaterial in parquet-java, key_material.h in Arrow):
 * keyMaterialType, internalStorage, keyReference (external storage),
 * masterKeyID, wrappedDEK, doubleWrapping, keyEncryptionKeyID, wrappedKEK.
 * The external store is a JSON object from key reference to key material,
 * each a JSON string holding the material's JSON (an object is taken too).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <openssl/evp.h>

#include "metadata/crypto.h"
#include "metadata/error.h"
#include "pq_metadata.h"

/* The key material file of one data file is small; a bigger one is not one. */
#define PQ_KEY_MATERIAL_FILE_MAX (64u << 20)
#define PQ_KEY_MATERIAL_PREFIX "_KEY_MATERIAL_FOR_"
/* Wrapped keys and key ids are short base64 strings. */
#define PQ_WRAPPED_MAX 1024

void pq_key_material_init(pq_key_material *m)
{
    if (!m) return;
    memset(m, 0, sizeof *m);
    m->struct_size = (uint32_t)sizeof *m;
}

static json_t *parse_json(const void *bytes, size_t len, const char *what, pq_error *err)
{
    json_error_t je;
    json_t *j = json_loadb(bytes, len, JSON_REJECT_DUPLICATES, &je);
    if (!j) pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "%s is not JSON (line %d: %s)", what, je.line, je.text);
    return j;
}

/* A string field into *out. */
static pq_status string_field(json_t *obj, const char *name, const char **out, pq_error *err)
{
    json_t *v = json_object_get(obj, name);
    if (!json_is_string(v))
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "key material without the string field \"%s\"", name);
    *out = json_string_value(v);
    return PQ_OK;
}

/* A boolean field that may be absent (then `dflt`); parquet-java writes
 * booleans, and strings "true"/"false" are taken too. */
static bool bool_field(json_t *obj, const char *name, bool dflt)
{
    json_t *v = json_object_get(obj, name);
    if (json_is_boolean(v)) return json_is_true(v);
    if (json_is_string(v)) return strcmp(json_string_value(v), "true") == 0;
    return dflt;
}

/* Standard base64 into `out` (at most `cap` bytes). */
static pq_status base64_decode(const char *text, const char *what, uint8_t *out, size_t cap, size_t *out_len,
                               pq_error *err)
{
    size_t n = strlen(text);
    if (n == 0 || n % 4 || n > PQ_WRAPPED_MAX || n / 4 * 3 > cap)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "key material: %s is not base64 of a key", what);
    int got = EVP_DecodeBlock(out, (const unsigned char *)text, (int)n);
    if (got < 0) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "key material: %s is not base64", what);
    got -= (text[n - 1] == '=') + (text[n - 2] == '=');
    *out_len = (size_t)got;
    return PQ_OK;
}

/* The bytes of the key material file beside `path`, into *buf (malloc). */
static pq_status read_material_file(const char *path, char **buf, size_t *len, pq_error *err)
{
    const char *slash = strrchr(path, '/');
    size_t dir = slash ? (size_t)(slash - path + 1) : 0;
    size_t n = strlen(path) + sizeof PQ_KEY_MATERIAL_PREFIX + sizeof ".json";
    char *name = malloc(n);
    if (!name) return pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    snprintf(name, n, "%.*s" PQ_KEY_MATERIAL_PREFIX "%s.json", (int)dir, path, path + dir);
    FILE *f = fopen(name, "rb");
    if (!f) {
        pq_status st = pq_error_set(err, PQ_ERR_IO, "cannot open the key material file %s: %s", name, strerror(errno));
        free(name);
        return st;
    }
    pq_status st = PQ_OK;
    size_t cap = 4096, used = 0;
    char *data = malloc(cap);
    while (data) {
        used += fread(data + used, 1, cap - used, f);
        if (used < cap) break;
        if (cap >= PQ_KEY_MATERIAL_FILE_MAX) {
            st = pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "the key material file %s is over %u MiB", name,
                              PQ_KEY_MATERIAL_FILE_MAX >> 20);
            break;
        }
        char *bigger = realloc(data, cap * 2);
        if (!bigger) {
            free(data);
            data = NULL;
            break;
        }
        data = bigger;
        cap *= 2;
    }
    if (!data) st = pq_error_set(err, PQ_ERR_NOMEM, "out of memory");
    else if (st == PQ_OK && ferror(f))
        st = pq_error_set(err, PQ_ERR_IO, "cannot read the key material file %s", name);
    fclose(f);
    free(name);
    if (st != PQ_OK) {
        free(data);
        return st;
    }
    *buf = data;
    *len = used;
    return PQ_OK;
}

/* The key material an external reference names, as a new JSON reference. */
static json_t *external_material(const pq_key_material *m, const char *ref, pq_status *st, pq_error *err)
{
    char *owned = NULL;
    const void *bytes = m->external_material;
    size_t len = m->external_material_len;
    if (!bytes) {
        if (!m->file_path) {
            *st = pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                               "the key material is stored beside the file, and no file path or key material "
                               "file was given (pq_key_material.file_path)");
            return NULL;
        }
        if ((*st = read_material_file(m->file_path, &owned, &len, err)) != PQ_OK) return NULL;
        bytes = owned;
    }
    *st = PQ_ERR_INVALID_ARGUMENT; /* what every failure below is */
    json_t *store = parse_json(bytes, len, "the key material file", err);
    free(owned);
    if (!store) return NULL;
    json_t *entry = json_object_get(store, ref);
    json_t *out = NULL;
    if (json_is_string(entry))
        out = parse_json(json_string_value(entry), json_string_length(entry), "the stored key material", err);
    else if (json_is_object(entry))
        out = json_incref(entry);
    else
        pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "the key material file has no key \"%s\"", ref);
    json_decref(store);
    if (out) *st = PQ_OK;
    return out;
}

/* Ask the KMS; its failure names the master key, never a key. */
static pq_status kms_unwrap(const pq_key_material *m, const char *wrapped, const char *master, uint8_t key[32],
                            size_t *key_len, pq_error *err)
{
    *key_len = 0;
    if (m->unwrap(m->unwrap_user, wrapped, master, key, key_len) != 0)
        return pq_error_set(err, PQ_ERR_ENCRYPTED, "the KMS did not unwrap a key with master key \"%s\"", master);
    if (!pq_crypto_key_len_ok(*key_len)) {
        pq_crypto_wipe(key, 32);
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                            "the KMS unwrapped a key of %zu bytes with master key \"%s\" (AES keys are 16, 24 "
                            "or 32 bytes)", *key_len, master);
    }
    return PQ_OK;
}

static pq_status unwrap_material(const pq_key_material *m, json_t *mat, uint8_t key[32], size_t *key_len,
                                 pq_error *err)
{
    const char *master = NULL, *dek = NULL, *kek_text = NULL, *kek_id_text = NULL;
    pq_status st = string_field(mat, "masterKeyID", &master, err);
    if (st == PQ_OK) st = string_field(mat, "wrappedDEK", &dek, err);
    if (st != PQ_OK) return st;
    if (!bool_field(mat, "doubleWrapping", true)) return kms_unwrap(m, dek, master, key, key_len, err);

    st = string_field(mat, "wrappedKEK", &kek_text, err);
    if (st == PQ_OK) st = string_field(mat, "keyEncryptionKeyID", &kek_id_text, err);
    if (st != PQ_OK) return st;
    uint8_t kek[32], kek_id[PQ_WRAPPED_MAX], wrapped[PQ_WRAPPED_MAX];
    size_t kek_len = 0, kek_id_len = 0, wrapped_len = 0;
    st = base64_decode(kek_id_text, "keyEncryptionKeyID", kek_id, sizeof kek_id, &kek_id_len, err);
    if (st == PQ_OK) st = base64_decode(dek, "wrappedDEK", wrapped, sizeof wrapped, &wrapped_len, err);
    if (st == PQ_OK) st = kms_unwrap(m, kek_text, master, kek, &kek_len, err);
    if (st == PQ_OK) {
        st = pq_aes_gcm_unwrap(kek, kek_len, wrapped, wrapped_len, kek_id, kek_id_len, key, 32, key_len, err);
        if (st == PQ_OK && !pq_crypto_key_len_ok(*key_len)) {
            st = pq_error_set(err, PQ_ERR_INVALID_ARGUMENT,
                              "a double-wrapped key of %zu bytes (AES keys are 16, 24 or 32 bytes)", *key_len);
        }
    }
    pq_crypto_wipe(kek, sizeof kek);
    if (st != PQ_OK) {
        pq_crypto_wipe(key, 32);
        *key_len = 0;
    }
    return st;
}

pq_status pq_key_material_unwrap(const pq_key_material *m, const uint8_t *key_metadata, size_t key_metadata_len,
                                 uint8_t key[32], size_t *key_len, pq_error *err)
{
    if (key_len) *key_len = 0;
    if (!m || !key || !key_len || (key_metadata_len && !key_metadata))
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "pq_key_material_unwrap: NULL argument");
    if (m->struct_size < sizeof *m)
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "pq_key_material.struct_size: call pq_key_material_init");
    if (!m->unwrap) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "pq_key_material.unwrap is NULL");
    if (key_metadata_len == 0) return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "the key metadata is empty");
    json_t *meta = parse_json(key_metadata, key_metadata_len, "the key metadata", err);
    if (!meta) return PQ_ERR_INVALID_ARGUMENT;
    if (!json_is_object(meta)) {
        json_decref(meta);
        return pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "the key metadata is not key material (a JSON object)");
    }
    json_t *type = json_object_get(meta, "keyMaterialType");
    pq_status st = PQ_OK;
    if (!json_is_string(type) || strcmp(json_string_value(type), "PKMT1") != 0) {
        st = pq_error_set(err, PQ_ERR_INVALID_ARGUMENT, "the key metadata is not key material of type PKMT1");
    } else if (bool_field(meta, "internalStorage", true)) {
        st = unwrap_material(m, meta, key, key_len, err);
    } else {
        const char *ref = NULL;
        st = string_field(meta, "keyReference", &ref, err);
        json_t *mat = st == PQ_OK ? external_material(m, ref, &st, err) : NULL;
        if (mat) st = unwrap_material(m, mat, key, key_len, err);
        json_decref(mat);
    }
    json_decref(meta);
    return st;
}

int pq_key_material_retriever(void *user, const uint8_t *key_metadata, size_t key_metadata_len, uint8_t key[32],
                              size_t *key_len)
{
    return pq_key_material_unwrap(user, key_metadata, key_metadata_len, key, key_len, NULL) == PQ_OK ? 0 : 1;
}
