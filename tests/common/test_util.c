#include <check.h>
#include <dirent.h>
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

char *pq_test_sample_path(void)
{
    size_t n = strlen(PQ_SOURCE_DIR) + 64;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s/data/sample/lineitem_61rg.parquet", PQ_SOURCE_DIR);
    return p;
}

const char *pq_test_corpus_dir(void)
{
    static int warned;
    const char *dir = getenv("PQSTEP_TEST_CORPUS");
    if (!dir || !*dir) dir = PQ_DEFAULT_CORPUS;
    struct stat st;
    char probe[4096];
    snprintf(probe, sizeof probe, "%s/manifest.tsv", dir);
    if (stat(probe, &st) != 0) {
        if (!warned) {
            fprintf(stderr, "SKIP: parquet-testing corpus not found at %s "
                            "(set PQSTEP_TEST_CORPUS)\n", dir);
            warned = 1;
        }
        return NULL;
    }
    return dir;
}

char *pq_test_corpus_path(const char *rel)
{
    const char *dir = pq_test_corpus_dir();
    if (!dir) return NULL;
    size_t n = strlen(dir) + strlen(rel) + 2;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s/%s", dir, rel);
    return p;
}

uint8_t *pq_test_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) != 0) { fclose(f); return NULL; }
    long sz = ftell(f);
    if (sz < 0) { fclose(f); return NULL; }
    rewind(f);
    uint8_t *buf = malloc(sz ? (size_t)sz : 1);
    if (buf && fread(buf, 1, (size_t)sz, f) != (size_t)sz) { free(buf); buf = NULL; }
    fclose(f);
    if (buf) *len = (size_t)sz;
    return buf;
}

pq_metadata *pq_test_read_parsed(const char *path, uint8_t **file, size_t *len, pq_error *err)
{
    *len = 0;
    *file = pq_test_read_file(path, len);
    ck_assert_msg(*file != NULL, "%s: cannot read", path);
    size_t needed = 0;
    pq_metadata *md = pq_metadata_parse_tail(*file, *len, NULL, &needed, err);
    if (!md) {
        free(*file);
        *file = NULL;
    }
    return md;
}

static int64_t parse_count(const char *s)
{
    if (!s || !*s || *s == '-') return -1;
    return strtoll(s, NULL, 10);
}

pq_test_manifest_row *pq_test_manifest(size_t *n)
{
    char *path = pq_test_corpus_path("manifest.tsv");
    if (!path) return NULL;
    FILE *f = fopen(path, "r");
    free(path);
    if (!f) return NULL;
    size_t cap = 128, len = 0;
    pq_test_manifest_row *rows = calloc(cap, sizeof *rows);
    char line[8192];
    int header = 1;
    while (rows && fgets(line, sizeof line, f)) {
        if (header) { header = 0; continue; }
        char *fields[8] = {0};
        int nf = 0;
        char *save = NULL;
        for (char *tok = strtok_r(line, "\t\n", &save); tok && nf < 8; tok = strtok_r(NULL, "\t\n", &save))
            fields[nf++] = tok;
        if (nf < 6) continue;
        if (len == cap) {
            cap *= 2;
            pq_test_manifest_row *grown = realloc(rows, cap * sizeof *rows);
            if (!grown) { free(rows); rows = NULL; break; }
            rows = grown;
        }
        pq_test_manifest_row *r = &rows[len++];
        memset(r, 0, sizeof *r);
        snprintf(r->file, sizeof r->file, "%s", fields[0]);
        r->bytes = strtoull(fields[1], NULL, 10);
        r->num_rows = parse_count(fields[3]);
        r->num_row_groups = parse_count(fields[4]);
        r->num_leaf_columns = parse_count(fields[5]);
    }
    fclose(f);
    *n = len;
    return rows;
}

const uint8_t *pq_test_footer_span(const uint8_t *file, size_t len, size_t *footer_len)
{
    if (len < 12 || memcmp(file + len - 4, "PAR1", 4) != 0) return NULL;
    uint32_t flen = (uint32_t)file[len - 8] | (uint32_t)file[len - 7] << 8 |
                    (uint32_t)file[len - 6] << 16 | (uint32_t)file[len - 5] << 24;
    if ((uint64_t)flen + 8 > len) return NULL;
    *footer_len = flen;
    return file + len - 8 - flen;
}

void pq_test_skip(const char *why)
{
    printf("SKIP: %s\n", why);
    fflush(stdout);
    exit(77);
}

/* ---------------------------------------------------------------------------
 * Listing the corpus
 * ------------------------------------------------------------------------- */

typedef struct file_list {
    char **v;
    int n, cap;
    size_t prefix; /* length of "<corpus>/" */
} file_list;

static void list_dir(file_list *l, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        struct stat st;
        if (lstat(path, &st) != 0) continue;
        size_t n = strlen(path);
        if (S_ISDIR(st.st_mode)) {
            list_dir(l, path);
        } else if (S_ISREG(st.st_mode) && n > 8 && strcmp(path + n - 8, ".parquet") == 0) {
            if (l->n == l->cap) {
                int cap = l->cap ? 2 * l->cap : 64;
                char **v = realloc(l->v, (size_t)cap * sizeof *v);
                if (!v) continue;
                l->v = v;
                l->cap = cap;
            }
            l->v[l->n++] = strdup(path + l->prefix);
        }
    }
    closedir(d);
}

static int cmp_path(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int pq_test_corpus_files(char ***files)
{
    file_list l = {0};
    *files = NULL;
    const char *dir = pq_test_corpus_dir();
    if (!dir) return 0;
    l.prefix = strlen(dir) + 1;
    char sub[4096];
    snprintf(sub, sizeof sub, "%s/data", dir);
    list_dir(&l, sub);
    snprintf(sub, sizeof sub, "%s/bad_data", dir);
    list_dir(&l, sub);
    if (l.n) qsort(l.v, (size_t)l.n, sizeof *l.v, cmp_path);
    *files = l.v;
    return l.n;
}

void pq_test_free_files(char **files, int n)
{
    for (int i = 0; files && i < n; i++) free(files[i]);
    free(files);
}

size_t pq_test_arrow_fixed_width(const char *f)
{
    switch (f[0]) {
    case 'c': case 'C': return 1;
    case 's': case 'S': case 'e': return 2;
    case 'i': case 'I': case 'f': return 4;
    case 'l': case 'L': case 'g': return 8;
    case 'w': return (size_t)atoi(f + 2);
    case 'd': return strstr(f, ",256") ? 32 : strstr(f, ",64") ? 8 : 16;
    case 't':
        if (f[1] == 'd') return f[2] == 'D' ? 4 : 8;
        if (f[1] == 't') return f[2] == 's' || f[2] == 'm' ? 4 : 8;
        return 8; /* ts*, tD* */
    default: return 0;
    }
}

pq_page_info pq_test_page(uint64_t at, int32_t type, int32_t size, int32_t n, int32_t enc)
{
    pq_page_info p;
    memset(&p, 0, sizeof p);
    p.data_offset = at;
    p.type = type;
    p.compressed_size = p.uncompressed_size = size;
    p.num_values = n;
    p.encoding = enc;
    p.def_level_encoding = PQ_ENC_RLE;
    p.is_compressed = true;
    return p;
}

size_t pq_test_put_str(uint8_t *at, const char *s)
{
    uint32_t n = (uint32_t)strlen(s);
    memcpy(at, &n, 4);
    memcpy(at + 4, s, n);
    return 4 + n;
}

/* ---------------------------------------------------------------------------
 * Logical comparison of Arrow arrays
 * ------------------------------------------------------------------------- */

static int valid_at(const struct ArrowArray *a, int64_t i)
{
    const uint8_t *v = a->n_buffers > 0 ? a->buffers[0] : NULL;
    int64_t at = a->offset + i;
    return !v || ((v[at >> 3] >> (at & 7)) & 1);
}

/* Slot i's bytes of a string / binary array of format f. */
static const uint8_t *bytes_at(const struct ArrowArray *a, const char *f, int64_t i, int64_t *len)
{
    int64_t at = a->offset + i;
    if (f[0] == 'v') { /* views: 16 bytes, inline up to 12 */
        const uint8_t *view = (const uint8_t *)a->buffers[1] + 16 * at;
        int32_t n, buf, off;
        memcpy(&n, view, 4);
        *len = n;
        if (n <= 12) return view + 4;
        memcpy(&buf, view + 8, 4);
        memcpy(&off, view + 12, 4);
        return (const uint8_t *)a->buffers[2 + buf] + off;
    }
    if (f[0] == 'U' || f[0] == 'Z') {
        const int64_t *o = a->buffers[1];
        *len = o[at + 1] - o[at];
        return (const uint8_t *)a->buffers[2] + o[at];
    }
    const int32_t *o = a->buffers[1];
    *len = o[at + 1] - o[at];
    return (const uint8_t *)a->buffers[2] + o[at];
}

/* Slot i's child range of a list or map array. */
static void list_range(const struct ArrowArray *a, int wide, int64_t i, int64_t *lo, int64_t *hi)
{
    int64_t at = a->offset + i;
    if (wide) {
        const int64_t *o = a->buffers[1];
        *lo = o[at];
        *hi = o[at + 1];
    } else {
        const int32_t *o = a->buffers[1];
        *lo = o[at];
        *hi = o[at + 1];
    }
}

/* Slot i of a against slot j of b: a message in why, or NULL. */
static const char *slot_differs(const struct ArrowArray *a, int64_t i, const struct ArrowArray *b, int64_t j,
                                const struct ArrowSchema *s, char *why, size_t cap, int depth);

/* Slots [ia, ia + n) of a against [ib, ib + n) of b. */
static const char *range_differs(const struct ArrowArray *a, int64_t ia, const struct ArrowArray *b, int64_t ib,
                                 int64_t n, const struct ArrowSchema *s, char *why, size_t cap, int depth)
{
    for (int64_t k = 0; k < n; k++) {
        const char *d = slot_differs(a, ia + k, b, ib + k, s, why, cap, depth);
        if (d) return d;
    }
    return NULL;
}

static const char *slot_differs(const struct ArrowArray *a, int64_t i, const struct ArrowArray *b, int64_t j,
                                const struct ArrowSchema *s, char *why, size_t cap, int depth)
{
    const char *f = s->format;
    const char *name = s->name ? s->name : "?";
    if (depth > 64) {
        snprintf(why, cap, "%s: nested deeper than 64", name);
        return why;
    }
    int va = strcmp(f, "n") == 0 ? 0 : valid_at(a, i), vb = strcmp(f, "n") == 0 ? 0 : valid_at(b, j);
    if (va != vb) {
        snprintf(why, cap, "%s row %lld: %s against %s", name, (long long)i, va ? "a value" : "null",
                 vb ? "a value" : "null");
        return why;
    }
    if (!va) return NULL;
    if (s->dictionary) { /* the entries the indices name */
        size_t w = pq_test_arrow_fixed_width(f);
        int64_t xa = 0, xb = 0;
        memcpy(&xa, (const uint8_t *)a->buffers[1] + (size_t)(a->offset + i) * w, w);
        memcpy(&xb, (const uint8_t *)b->buffers[1] + (size_t)(b->offset + j) * w, w);
        return slot_differs(a->dictionary, xa, b->dictionary, xb, s->dictionary, why, cap, depth + 1);
    }
    size_t w = pq_test_arrow_fixed_width(f);
    if (f[0] != '+' && w) {
        const uint8_t *x = (const uint8_t *)a->buffers[1] + (size_t)(a->offset + i) * w;
        const uint8_t *y = (const uint8_t *)b->buffers[1] + (size_t)(b->offset + j) * w;
        if (memcmp(x, y, w) == 0) return NULL;
        snprintf(why, cap, "%s row %lld: the %zu-byte values differ (format %s)", name, (long long)i, w, f);
        return why;
    }
    if (strcmp(f, "b") == 0) {
        const uint8_t *x = a->buffers[1], *y = b->buffers[1];
        int64_t p = a->offset + i, q = b->offset + j;
        if (((x[p >> 3] >> (p & 7)) & 1) == ((y[q >> 3] >> (q & 7)) & 1)) return NULL;
        snprintf(why, cap, "%s row %lld: the booleans differ", name, (long long)i);
        return why;
    }
    if (!f[1] || f[0] == 'v') {
        if (strchr("uzUZ", f[0]) || (f[0] == 'v' && (f[1] == 'u' || f[1] == 'z'))) {
            int64_t la, lb;
            const uint8_t *x = bytes_at(a, f, i, &la), *y = bytes_at(b, f, j, &lb);
            if (la == lb && (la == 0 || memcmp(x, y, (size_t)la) == 0)) return NULL;
            snprintf(why, cap, "%s row %lld: strings of %lld and %lld bytes differ", name, (long long)i,
                     (long long)la, (long long)lb);
            return why;
        }
    }
    if (strcmp(f, "+s") == 0) {
        for (int64_t c = 0; c < s->n_children; c++) {
            /* The struct's offset applies to its children. */
            const char *d = slot_differs(a->children[c], a->offset + i, b->children[c], b->offset + j,
                                         s->children[c], why, cap, depth + 1);
            if (d) return d;
        }
        return NULL;
    }
    if (strcmp(f, "+l") == 0 || strcmp(f, "+L") == 0 || strcmp(f, "+m") == 0) {
        int wide = strcmp(f, "+L") == 0;
        int64_t alo, ahi, blo, bhi;
        list_range(a, wide, i, &alo, &ahi);
        list_range(b, wide, j, &blo, &bhi);
        if (ahi - alo != bhi - blo) {
            snprintf(why, cap, "%s row %lld: lists of %lld and %lld entries", name, (long long)i,
                     (long long)(ahi - alo), (long long)(bhi - blo));
            return why;
        }
        /* List offsets count from the child's own offset, as slot indexes do here. */
        return range_differs(a->children[0], alo, b->children[0], blo, ahi - alo, s->children[0], why, cap,
                             depth + 1);
    }
    snprintf(why, cap, "%s: format '%s' not compared", name, f);
    return why;
}

const char *pq_test_arrays_differ(const struct ArrowArray *a, const struct ArrowArray *b,
                                  const struct ArrowSchema *s, char *why, size_t cap)
{
    if (a->length != b->length) {
        snprintf(why, cap, "%s: %lld rows against %lld", s->name ? s->name : "?", (long long)a->length,
                 (long long)b->length);
        return why;
    }
    return range_differs(a, 0, b, 0, a->length, s, why, cap, 0);
}
