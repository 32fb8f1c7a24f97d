/*
 * cli_keys.c — the keys of encrypted files, taken from any command's
 * arguments: --footer-key KEY, --column-key PATH=KEY, --aad-prefix TEXT.
 * A KEY is hex (32, 48 or 64 digits), base64 (of 16, 24 or 32 bytes) or
 * @FILE (the file's bytes, one trailing newline dropped; hex or base64 text
 * in it is decoded the same way). The values never reach any output.
 *
 * --kms-keys ID:KEY[,ID:KEY...] (or @FILE holding that list) gives the
 * master keys of a test KMS (parquet-java's InMemoryKMS, whose
 * parquet.encryption.key.list has this form): the key material that
 * parquet-java and Arrow's key tools write is read (pq_key_material) and
 * each wrapped key is unwrapped as that KMS does: base64 of nonce,
 * ciphertext and tag, AES-GCM with the master key, AAD the master key id.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "cli.h"

#define MAX_COLUMN_KEYS 1024
#define KEY_FILE_MAX 4096
#define MAX_MASTER_KEYS 64
#define MASTER_ID_MAX 128

static pq_decryption keys;
static bool have_keys;
static uint8_t footer_key[32];
static pq_column_key column_keys[MAX_COLUMN_KEYS];
static uint8_t column_key_bytes[MAX_COLUMN_KEYS][32];
static char aad_prefix[KEY_FILE_MAX];

static struct master_key {
    char id[MASTER_ID_MAX];
    uint8_t key[32];
    size_t len;
} master_keys[MAX_MASTER_KEYS];
static size_t master_key_count;
static pq_key_material key_material;
static char *key_material_file; /* the one file read, for external key material */

const pq_decryption *cli_decryption(void)
{
    return have_keys ? &keys : NULL;
}

static void wipe_keys(void)
{
    OPENSSL_cleanse(footer_key, sizeof footer_key);
    OPENSSL_cleanse(column_key_bytes, sizeof column_key_bytes);
    OPENSSL_cleanse(aad_prefix, sizeof aad_prefix);
    OPENSSL_cleanse(master_keys, sizeof master_keys);
    free(key_material_file);
}

/* The text of @FILE, or the argument itself. */
static bool read_value(const char *arg, char *buf, size_t cap, size_t *len, const char *opt)
{
    if (arg[0] != '@') {
        size_t n = strlen(arg);
        if (n >= cap) {
            fprintf(stderr, "pqstep: %s: the value is too long\n", opt);
            return false;
        }
        memcpy(buf, arg, n);
        *len = n;
        return true;
    }
    FILE *f = fopen(arg + 1, "rb");
    if (!f) {
        fprintf(stderr, "pqstep: %s: cannot open '%s'\n", opt, arg + 1);
        return false;
    }
    size_t n = fread(buf, 1, cap, f);
    bool too_long = n == cap;
    fclose(f);
    if (too_long) {
        fprintf(stderr, "pqstep: %s: '%s' is too long for a key\n", opt, arg + 1);
        return false;
    }
    if (n && buf[n - 1] == '\n') n--;
    if (n && buf[n - 1] == '\r') n--;
    *len = n;
    return true;
}

static int hex_digit(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    c = tolower(c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Standard base64 `text` (n characters) into `out` (room for n / 4 * 3
 * bytes): the decoded length, or -1 when it is not base64. */
static int base64_decode(const char *text, size_t n, uint8_t *out)
{
    if (n == 0 || n % 4 || n > 4096) return -1;
    int got = EVP_DecodeBlock(out, (const unsigned char *)text, (int)n);
    if (got < 0) return -1;
    return got - (text[n - 1] == '=') - (text[n - 2] == '=');
}

/* A key from its text: hex, else base64; raw bytes of a key file as they are. */
static bool parse_key(const char *arg, uint8_t out[32], size_t *out_len, const char *opt)
{
    char text[KEY_FILE_MAX];
    size_t n = 0;
    bool ok = read_value(arg, text, sizeof text, &n, opt);
    if (ok && (n == 32 || n == 48 || n == 64)) {
        bool hex = true;
        for (size_t i = 0; i < n && hex; i++) hex = hex_digit((unsigned char)text[i]) >= 0;
        if (hex) {
            for (size_t i = 0; i < n / 2; i++)
                out[i] = (uint8_t)(hex_digit((unsigned char)text[2 * i]) << 4 | hex_digit((unsigned char)text[2 * i + 1]));
            *out_len = n / 2;
            OPENSSL_cleanse(text, sizeof text);
            return true;
        }
    }
    if (ok && n >= 24 && n <= 44) {
        uint8_t dec[48];
        int got = base64_decode(text, n, dec);
        if (got == 16 || got == 24 || got == 32) {
            memcpy(out, dec, (size_t)got);
            *out_len = (size_t)got;
            OPENSSL_cleanse(dec, sizeof dec);
            OPENSSL_cleanse(text, sizeof text);
            return true;
        }
        OPENSSL_cleanse(dec, sizeof dec);
    }
    if (ok && arg[0] == '@' && (n == 16 || n == 24 || n == 32)) { /* a raw key file */
        memcpy(out, text, n);
        *out_len = n;
        OPENSSL_cleanse(text, sizeof text);
        return true;
    }
    OPENSSL_cleanse(text, sizeof text);
    if (ok)
        fprintf(stderr, "pqstep: %s: not a key: give 32, 48 or 64 hex digits, the base64 of 16, 24 or 32 bytes, "
                        "or @FILE\n", opt);
    return false;
}

/* The test KMS: `wrapped` is base64(nonce, ciphertext, tag), AES-GCM with
 * the master key `id`, AAD the id's bytes. */
static int inmemory_unwrap(void *user, const char *wrapped, const char *id, uint8_t key[32], size_t *key_len)
{
    (void)user;
    const struct master_key *mk = NULL;
    for (size_t i = 0; i < master_key_count && !mk; i++)
        if (strcmp(master_keys[i].id, id) == 0) mk = &master_keys[i];
    size_t n = strlen(wrapped);
    if (!mk) {
        fprintf(stderr, "pqstep: --kms-keys has no master key \"%s\"\n", id);
        return 1;
    }
    uint8_t raw[768];
    int got = n <= 1024 ? base64_decode(wrapped, n, raw) : -1;
    if (got < 0) return 1;
    pq_error err = {0};
    pq_status st = pq_aes_gcm_unwrap(mk->key, mk->len, raw, (size_t)got, (const uint8_t *)id, strlen(id), key, 32,
                                     key_len, &err);
    OPENSSL_cleanse(raw, sizeof raw);
    if (st != PQ_OK) fprintf(stderr, "pqstep: master key \"%s\": %s\n", id, err.message);
    return st == PQ_OK ? 0 : 1;
}

/* The retriever --kms-keys installs: key material, unwrapped by the test
 * KMS; a failure is said on stderr (the read then names the keyless column). */
static int material_retriever(void *user, const uint8_t *meta, size_t len, uint8_t key[32], size_t *key_len)
{
    pq_error err = {0};
    (void)user;
    key_material.file_path = key_material_file;
    pq_status st = pq_key_material_unwrap(&key_material, meta, len, key, key_len, &err);
    if (st != PQ_OK) fprintf(stderr, "pqstep: key material: %s\n", err.message);
    return st == PQ_OK ? 0 : 1;
}

void cli_keys_for_file(const char *path)
{
    if (master_key_count == 0 || pq_is_url(path)) return;
    free(key_material_file);
    key_material_file = strdup(path);
}

/* "ID:KEY,ID:KEY..." (KEY as parse_key takes it), or @FILE holding it. */
static bool parse_master_keys(const char *arg)
{
    char text[KEY_FILE_MAX];
    size_t n = 0;
    if (!read_value(arg, text, sizeof text, &n, "--kms-keys")) return false;
    text[n] = '\0';
    bool ok = n > 0;
    char *save = NULL;
    for (char *item = strtok_r(text, ",\n", &save); ok && item; item = strtok_r(NULL, ",\n", &save)) {
        while (*item == ' ') item++;
        char *colon = strchr(item, ':');
        if (!colon || colon == item || (size_t)(colon - item) >= MASTER_ID_MAX ||
            master_key_count == MAX_MASTER_KEYS) {
            ok = false;
            break;
        }
        struct master_key *mk = &master_keys[master_key_count];
        memcpy(mk->id, item, (size_t)(colon - item));
        mk->id[colon - item] = '\0';
        if (colon[1] == '@' || !parse_key(colon + 1, mk->key, &mk->len, "--kms-keys")) {
            OPENSSL_cleanse(text, sizeof text);
            return false;
        }
        master_key_count++;
    }
    OPENSSL_cleanse(text, sizeof text);
    if (!ok) fprintf(stderr, "pqstep: --kms-keys wants ID:KEY[,ID:KEY...]\n");
    return ok;
}

/* The option's value: "--opt VALUE" or "--opt=VALUE". */
static const char *value_of(int argc, char **argv, int *i, const char *opt, bool *matched)
{
    size_t n = strlen(opt);
    *matched = false;
    if (strncmp(argv[*i], opt, n) != 0) return NULL;
    if (argv[*i][n] == '=') {
        *matched = true;
        return argv[*i] + n + 1;
    }
    if (argv[*i][n] != '\0') return NULL;
    *matched = true;
    if (*i + 1 >= argc) return NULL;
    return argv[++*i];
}

int cli_take_keys(int *argc, char **argv)
{
    int out = 0, rc = CLI_EXIT_OK;
    bool done = false;
    pq_decryption_init(&keys);
    atexit(wipe_keys);
    for (int i = 0; i < *argc; i++) {
        bool m = false;
        const char *v = NULL;
        if (done || i == 0 || strcmp(argv[i], "--") == 0) {
            done = done || (i && strcmp(argv[i], "--") == 0);
            argv[out++] = argv[i];
            continue;
        }
        if ((v = value_of(*argc, argv, &i, "--footer-key", &m)) || m) {
            if (!v || !parse_key(v, footer_key, &keys.footer_key_len, "--footer-key")) {
                if (!v) fprintf(stderr, "pqstep: --footer-key wants a key\n");
                rc = CLI_EXIT_USAGE;
                break;
            }
            keys.footer_key = footer_key;
        } else if ((v = value_of(*argc, argv, &i, "--column-key", &m)) || m) {
            const char *eq = v ? strrchr(v, '=') : NULL;
            /* base64 may end in '=': the path ends at the first '=' followed by a key */
            eq = v ? strchr(v, '=') : NULL;
            if (!eq || eq == v || keys.column_keys_len == MAX_COLUMN_KEYS) {
                fprintf(stderr, "pqstep: --column-key wants PATH=KEY\n");
                rc = CLI_EXIT_USAGE;
                break;
            }
            size_t k = keys.column_keys_len;
            char *path = strndup(v, (size_t)(eq - v));
            if (!path || !parse_key(eq + 1, column_key_bytes[k], &column_keys[k].key_len, "--column-key")) {
                free(path);
                rc = CLI_EXIT_USAGE;
                break;
            }
            column_keys[k].path = path;
            column_keys[k].key = column_key_bytes[k];
            keys.column_keys = column_keys;
            keys.column_keys_len++;
        } else if ((v = value_of(*argc, argv, &i, "--aad-prefix", &m)) || m) {
            size_t n = 0;
            if (!v || !read_value(v, aad_prefix, sizeof aad_prefix, &n, "--aad-prefix")) {
                if (!v) fprintf(stderr, "pqstep: --aad-prefix wants a value\n");
                rc = CLI_EXIT_USAGE;
                break;
            }
            keys.aad_prefix = (const uint8_t *)aad_prefix;
            keys.aad_prefix_len = n;
        } else if ((v = value_of(*argc, argv, &i, "--kms-keys", &m)) || m) {
            if (!v || !parse_master_keys(v)) {
                if (!v) fprintf(stderr, "pqstep: --kms-keys wants ID:KEY[,ID:KEY...]\n");
                rc = CLI_EXIT_USAGE;
                break;
            }
            pq_key_material_init(&key_material);
            key_material.unwrap = inmemory_unwrap;
            keys.key_retriever = material_retriever;
        } else {
            argv[out++] = argv[i];
            continue;
        }
        have_keys = true;
    }
    if (rc == CLI_EXIT_OK) {
        *argc = out;
        argv[out] = NULL;
    }
    return rc;
}
