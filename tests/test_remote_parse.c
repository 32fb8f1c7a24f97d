/*
 * test_remote_parse.c — the pure parts of remote/, no network: URL parsing
 * (remote/url.c), %-encoding, S3 endpoint checks and S3 URL building, the
 * bounded XML extraction S3 answers go through (remote/xml.c), the
 * Content-Range parser of the request engine (remote/http.c), pq_is_url,
 * the option defaults, and the option checks of pq_remote_open, which fail
 * before any request is made.
 *
 * Oracle: hand-computed values only (every expected string below was worked
 * out by hand from the input, not by running the code). Inputs handed to
 * the XML functions are copied into malloc'd buffers of exactly their length
 * (no NUL after them), so under ASan a read past the length given is caught;
 * the truncation tests run every prefix of a ListObjectsV2 answer through
 * them that way.
 */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pq_remote.h"
#include "remote/http.h"
#include "remote/url.h"
#include "remote/xml.h"

/* ---- helpers ---- */

/* An exact-size heap copy of s[0, n) (no terminator): reads past n are
 * out of bounds for ASan. */
static char *exact(const char *s, size_t n)
{
    char *p = malloc(n ? n : 1);
    ck_assert_ptr_nonnull(p);
    if (n) memcpy(p, s, n);
    return p;
}

/* pq_xml_next over an exact copy of `xml`; the body as a string ("" when
 * empty), or NULL when not found. *pos in/out. */
static char *next_body(const char *xml, size_t *pos, const char *tag)
{
    size_t n = strlen(xml);
    char *copy = exact(xml, n);
    const char *b = NULL;
    size_t bl = 0;
    char *out = NULL;
    if (pq_xml_next(copy, n, pos, tag, &b, &bl)) {
        ck_assert(b >= copy && b + bl <= copy + n);
        out = malloc(bl + 1);
        ck_assert_ptr_nonnull(out);
        memcpy(out, b, bl);
        out[bl] = 0;
    }
    free(copy);
    return out;
}

static char *text_of(const char *xml, const char *tag)
{
    size_t n = strlen(xml);
    char *copy = exact(xml, n);
    char *t = pq_xml_text(copy, n, tag);
    free(copy);
    return t;
}

static char *unescape(const char *s)
{
    size_t n = strlen(s);
    char *copy = exact(s, n);
    char *t = pq_xml_unescape(copy, n);
    free(copy);
    ck_assert_ptr_nonnull(t);
    return t;
}

/* ---------------------------------------------------------------------------
 * pq_url_parse
 * ------------------------------------------------------------------------- */

static void parse_ok(const char *text, pq_url_scheme scheme, const char *bucket, const char *key)
{
    pq_url u;
    pq_error err = {0};
    ck_assert_msg(pq_url_parse(text, &u, &err) == PQ_OK, "%s: %s", text, err.message);
    ck_assert_int_eq(u.scheme, scheme);
    if (bucket) ck_assert_str_eq(u.bucket, bucket);
    else ck_assert_ptr_null(u.bucket);
    if (key) ck_assert_str_eq(u.key, key);
    else ck_assert_ptr_null(u.key);
    pq_url_free(&u);
    ck_assert_ptr_null(u.bucket);
    ck_assert_ptr_null(u.key);
}

static void parse_bad(const char *text)
{
    pq_url u;
    pq_error err = {0};
    ck_assert_msg(pq_url_parse(text, &u, &err) == PQ_ERR_INVALID_ARGUMENT, "accepted '%s'", text ? text : "NULL");
    ck_assert_int_eq(err.code, PQ_ERR_INVALID_ARGUMENT);
    ck_assert(err.message[0] != 0);
    ck_assert_ptr_null(u.bucket);
    ck_assert_ptr_null(u.key);
    pq_url_free(&u); /* harmless on a failed parse */
}

START_TEST(url_parse_http)
{
    parse_ok("http://example.com/a/b.parquet", PQ_URL_HTTP, NULL, NULL);
    parse_ok("http://127.0.0.1:8080/x?versionId=3#frag", PQ_URL_HTTP, NULL, NULL);
    parse_ok("https://h", PQ_URL_HTTPS, NULL, NULL);
    parse_ok("https://bucket.s3.amazonaws.com/k%20ey", PQ_URL_HTTPS, NULL, NULL);
    /* No host. */
    parse_bad("http://");
    parse_bad("https://");
    parse_bad("http:///path");
    parse_bad("https://?q=1");
    parse_bad("http://#x");
    /* Spaces and control characters anywhere. */
    parse_bad("http://exa mple.com/");
    parse_bad("http://h/a b");
    parse_bad("http://h/a\tb");
    parse_bad("http://h/a\nb");
    parse_bad("https://h/\x01");
    parse_bad("https://h/\x7f");
}
END_TEST

START_TEST(url_parse_s3)
{
    parse_ok("s3://bucket/key/part-0.parquet", PQ_URL_S3, "bucket", "key/part-0.parquet");
    parse_ok("s3://bucket", PQ_URL_S3, "bucket", "");
    parse_ok("s3://bucket/", PQ_URL_S3, "bucket", "");
    parse_ok("s3://b/dir/", PQ_URL_S3, "b", "dir/");
    parse_ok("s3://My_Bucket.v2-x/k", PQ_URL_S3, "My_Bucket.v2-x", "k");
    /* The key is taken as written: spaces, '=', '+', '%' and UTF-8 are kept
     * (they are encoded when the HTTP URL is built). */
    parse_ok("s3://b/a b=c+d%20\xC3\xA9", PQ_URL_S3, "b", "a b=c+d%20\xC3\xA9");
    parse_ok("s3://b//double", PQ_URL_S3, "b", "/double");
    /* A 255-byte bucket is the longest. */
    char longest[5 + 256 + 3];
    memcpy(longest, "s3://", 5);
    memset(longest + 5, 'a', 255);
    memcpy(longest + 260, "/k", 3);
    {
        pq_url u;
        pq_error err = {0};
        ck_assert_int_eq(pq_url_parse(longest, &u, &err), PQ_OK);
        ck_assert_uint_eq(strlen(u.bucket), 255);
        ck_assert_str_eq(u.key, "k");
        pq_url_free(&u);
    }
    char too_long[5 + 256 + 3]; /* "s3://", 256 bytes of bucket, "/k" */
    memcpy(too_long, "s3://", 5);
    memset(too_long + 5, 'a', 256);
    memcpy(too_long + 261, "/k", 3);
    parse_bad(too_long);
    /* No bucket. */
    parse_bad("s3://");
    parse_bad("s3:///key");
    /* Bad bucket characters. */
    parse_bad("s3://bad bucket/k");
    parse_bad("s3://bu$cket/k");
    parse_bad("s3://user@bucket/k");
    parse_bad("s3://bucket:9000/k");
    parse_bad("s3://b\xC3\xA9/k");
    /* Control characters in the key (a space is fine, see above). */
    parse_bad("s3://b/k\x01");
    parse_bad("s3://b/k\x1f");
    parse_bad("s3://b/a\nb");
    parse_bad("s3://b/k\x7f");
}
END_TEST

START_TEST(url_parse_bad_scheme)
{
    parse_bad(NULL);
    parse_bad("");
    parse_bad("/tmp/x.parquet");
    parse_bad("file:///tmp/x.parquet");
    parse_bad("ftp://h/x");
    parse_bad("http:/h/x");
    parse_bad("s3:/b/k");
    parse_bad("gs://b/k");
    parse_bad("s3");
}
END_TEST

/* ---------------------------------------------------------------------------
 * pq_url_encode
 * ------------------------------------------------------------------------- */

static void encode_is(const char *s, bool keep_slash, const char *want)
{
    char buf[256];
    size_t len = 0;
    ck_assert(pq_url_encode(buf, sizeof buf, &len, s, keep_slash));
    ck_assert_str_eq(buf, want);
    ck_assert_uint_eq(len, strlen(want));
}

START_TEST(url_encode_cases)
{
    encode_is("", false, "");
    encode_is("AZaz09-._~", false, "AZaz09-._~");
    encode_is("a b", false, "a%20b");
    encode_is("a/b/c", true, "a/b/c");
    encode_is("a/b/c", false, "a%2Fb%2Fc");
    encode_is("=+&?#%", false, "%3D%2B%26%3F%23%25");
    encode_is("!*'();:@$,[]", true, "%21%2A%27%28%29%3B%3A%40%24%2C%5B%5D");
    encode_is("\"<>\\^`{|}", false, "%22%3C%3E%5C%5E%60%7B%7C%7D");
    encode_is("\x01\x1f\x7f", false, "%01%1F%7F");
    encode_is("\xC3\xA9", false, "%C3%A9");              /* é */
    encode_is("\xE2\x98\xBA/x", true, "%E2%98%BA/x");    /* ☺ */
    encode_is("\xF0\x9F\x98\x80", false, "%F0%9F%98%80"); /* 😀 */
    encode_is("\xff", false, "%FF");
    /* Appends at *len. */
    char buf[32] = "k=";
    size_t len = 2;
    ck_assert(pq_url_encode(buf, sizeof buf, &len, "a b", false));
    ck_assert_str_eq(buf, "k=a%20b");
    ck_assert_uint_eq(len, 7);
    ck_assert(pq_url_encode(buf, sizeof buf, &len, "/", false));
    ck_assert_str_eq(buf, "k=a%20b%2F");
    ck_assert_uint_eq(len, 10);
}
END_TEST

/* Every capacity from 1 up: false exactly when the encoding and its NUL do
 * not fit, *len then unchanged, and no byte at or past cap ever written. */
START_TEST(url_encode_capacity)
{
    static const struct {
        const char *s;
        bool keep_slash;
        const char *want;
    } cases[] = {
        {"abc", false, "abc"},
        {" ", false, "%20"},
        {"a b", false, "a%20b"},
        {"a/b", true, "a/b"},
        {"a/b", false, "a%2Fb"},
        {"\xE2\x98\xBA", false, "%E2%98%BA"},
        {"x%y=z", false, "x%25y%3Dz"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        size_t need = strlen(cases[c].want) + 1;
        for (size_t cap = 1; cap <= need + 2; cap++) {
            unsigned char buf[64];
            memset(buf, 0xAA, sizeof buf);
            size_t len = 0;
            bool ok = pq_url_encode((char *)buf, cap, &len, cases[c].s, cases[c].keep_slash);
            ck_assert_msg(ok == (cap >= need), "'%s' cap %zu: %d", cases[c].want, cap, ok);
            if (ok) {
                ck_assert_str_eq((char *)buf, cases[c].want);
                ck_assert_uint_eq(len, need - 1);
            } else {
                ck_assert_uint_eq(len, 0);
            }
            for (size_t i = cap; i < sizeof buf; i++)
                ck_assert_msg(buf[i] == 0xAA, "'%s' cap %zu: byte %zu written", cases[c].want, cap, i);
        }
        /* Appending after a prefix: the prefix counts against cap. */
        for (size_t cap = 3; cap <= need + 4; cap++) {
            unsigned char buf[64];
            memset(buf, 0xAA, sizeof buf);
            memcpy(buf, "p=", 3);
            size_t len = 2;
            bool ok = pq_url_encode((char *)buf, cap, &len, cases[c].s, cases[c].keep_slash);
            ck_assert(ok == (cap >= need + 2));
            ck_assert_uint_eq(len, ok ? need + 1 : 2);
            for (size_t i = cap; i < sizeof buf; i++) ck_assert(buf[i] == 0xAA);
        }
    }
}
END_TEST

/* ---------------------------------------------------------------------------
 * pq_url_check_endpoint, pq_url_s3_http
 * ------------------------------------------------------------------------- */

static void endpoint_ok(const char *e, size_t scheme_len)
{
    size_t sl = 99;
    pq_error err = {0};
    ck_assert_msg(pq_url_check_endpoint(e, &sl, &err) == PQ_OK, "%s: %s", e, err.message);
    ck_assert_uint_eq(sl, scheme_len);
}

static void endpoint_bad(const char *e)
{
    size_t sl = 99;
    pq_error err = {0};
    ck_assert_msg(pq_url_check_endpoint(e, &sl, &err) == PQ_ERR_INVALID_ARGUMENT, "accepted %s", e);
    ck_assert(err.message[0] != 0);
    ck_assert_uint_eq(sl, 99);
}

START_TEST(url_endpoint)
{
    endpoint_ok("http://localhost:9000", 7);
    endpoint_ok("https://s3.eu-west-1.amazonaws.com", 8);
    endpoint_ok("http://127.0.0.1:9000/", 7); /* one trailing '/' */
    endpoint_ok("https://[::1]:9000", 8);
    endpoint_bad("ftp://h");
    endpoint_bad("localhost:9000");
    endpoint_bad("HTTP://h");
    endpoint_bad("http://");
    endpoint_bad("https:///");
    endpoint_bad("http://h/path");
    endpoint_bad("http://h//");
    endpoint_bad("http://h?x=1");
    endpoint_bad("http://h#f");
    endpoint_bad("http://user:pw@h");
    endpoint_bad("http://h p");
    endpoint_bad("http://h\t");
}
END_TEST

static void s3_http_is(const char *endpoint, bool vh, const char *bucket, const char *key, const char *query,
                       const char *want)
{
    pq_error err = {0};
    char *u = pq_url_s3_http(endpoint, vh, bucket, key, query, &err);
    ck_assert_msg(u != NULL, "%s: %s", want, err.message);
    ck_assert_str_eq(u, want);
    free(u);
}

START_TEST(url_s3_http)
{
    /* Path style. */
    s3_http_is("http://localhost:9000", false, "bkt", "dir/part-0.parquet", NULL,
               "http://localhost:9000/bkt/dir/part-0.parquet");
    s3_http_is("http://localhost:9000/", false, "bkt", "x", NULL, "http://localhost:9000/bkt/x");
    s3_http_is("http://h", false, "b", "a b=c+d.parquet", NULL, "http://h/b/a%20b%3Dc%2Bd.parquet");
    s3_http_is("http://h", false, "b", "k~_-.", NULL, "http://h/b/k~_-.");
    s3_http_is("http://h", false, "b", "\xC3\xA9t\xC3\xA9/%", NULL, "http://h/b/%C3%A9t%C3%A9/%25");
    s3_http_is("http://h", false, "b", "", NULL, "http://h/b/");
    /* Virtual-host style: the bucket joins the host. */
    s3_http_is("https://s3.us-east-1.amazonaws.com", true, "bkt", "k=1+2 3", NULL,
               "https://bkt.s3.us-east-1.amazonaws.com/k%3D1%2B2%203");
    s3_http_is("https://s3.amazonaws.com/", true, "bkt", "a/b", NULL, "https://bkt.s3.amazonaws.com/a/b");
    s3_http_is("http://minio:9000", true, "b", "x", NULL, "http://b.minio:9000/x");
    /* The query goes after '?' as given (already encoded). */
    s3_http_is("http://h:1", false, "b", "", "list-type=2&prefix=a%2Fb", "http://h:1/b/?list-type=2&prefix=a%2Fb");
    s3_http_is("https://s3.amazonaws.com", true, "b", "", "list-type=2&prefix=",
               "https://b.s3.amazonaws.com/?list-type=2&prefix=");
    s3_http_is("http://h", false, "b", "k y", "versionId=7", "http://h/b/k%20y?versionId=7");
    s3_http_is("http://h", false, "b", "k", "", "http://h/b/k?");
    /* A key of only bytes that take three characters each. */
    s3_http_is("http://h", false, "b", "   ", NULL, "http://h/b/%20%20%20");
    /* A bad endpoint. */
    pq_error err = {0};
    ck_assert_ptr_null(pq_url_s3_http("ftp://h", false, "b", "k", NULL, &err));
    ck_assert_int_eq(err.code, PQ_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_null(pq_url_s3_http("http://h/base", true, "b", "k", NULL, &err));
    ck_assert_int_eq(err.code, PQ_ERR_INVALID_ARGUMENT);
}
END_TEST

/* ---------------------------------------------------------------------------
 * pq_xml_next, pq_xml_text, pq_xml_unescape
 * ------------------------------------------------------------------------- */

START_TEST(xml_next_elements)
{
    const char *doc = "<a><b>1</b><b>2</b></a>";
    size_t pos = 0;
    char *s = next_body(doc, &pos, "b");
    ck_assert_str_eq(s, "1");
    ck_assert_uint_eq(pos, 11); /* just past the first "</b>" */
    free(s);
    s = next_body(doc, &pos, "b");
    ck_assert_str_eq(s, "2");
    ck_assert_uint_eq(pos, 19);
    free(s);
    ck_assert_ptr_null(next_body(doc, &pos, "b"));
    /* Nested: the outer body holds the inner elements as written. */
    pos = 0;
    s = next_body(doc, &pos, "a");
    ck_assert_str_eq(s, "<b>1</b><b>2</b>");
    ck_assert_uint_eq(pos, 23);
    free(s);
    /* A name that is a prefix of another is not confused with it. */
    pos = 0;
    s = next_body("<KeyCount>3</KeyCount><Keys>x</Keys><Key>k</Key>", &pos, "Key");
    ck_assert_str_eq(s, "k");
    free(s);
    pos = 0;
    ck_assert_ptr_null(next_body("<KeyCount>3</KeyCount>", &pos, "Key"));
    /* A closing tag is not an opening one. */
    pos = 0;
    ck_assert_ptr_null(next_body("</Key>x</Key>", &pos, "Key"));
    /* Names are case-sensitive. */
    pos = 0;
    ck_assert_ptr_null(next_body("<key>x</key>", &pos, "Key"));
    /* Text and other elements around. */
    pos = 0;
    s = next_body("<?xml version=\"1.0\"?>\n<R>\n  <Code>NoSuchKey</Code>\n</R>", &pos, "Code");
    ck_assert_str_eq(s, "NoSuchKey");
    free(s);
    /* An empty body. */
    pos = 0;
    s = next_body("<a></a>", &pos, "a");
    ck_assert_str_eq(s, "");
    ck_assert_uint_eq(pos, 7);
    free(s);
}
END_TEST

START_TEST(xml_next_empty_and_attributes)
{
    /* <Tag/> has an empty body; the search goes on after it. */
    const char *doc = "<x><Tag/><Tag>v</Tag></x>";
    size_t pos = 0;
    char *s = next_body(doc, &pos, "Tag");
    ck_assert_str_eq(s, "");
    ck_assert_uint_eq(pos, 9); /* past "<x><Tag/>" */
    free(s);
    s = next_body(doc, &pos, "Tag");
    ck_assert_str_eq(s, "v");
    ck_assert_uint_eq(pos, 21);
    free(s);
    ck_assert_ptr_null(next_body(doc, &pos, "Tag"));
    /* Attributes. */
    pos = 0;
    s = next_body("<Key a=\"1\" b='2'>val</Key>", &pos, "Key");
    ck_assert_str_eq(s, "val");
    ck_assert_uint_eq(pos, 26);
    free(s);
    pos = 0;
    s = next_body("<Key\n\txmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">v</Key>", &pos, "Key");
    ck_assert_str_eq(s, "v");
    free(s);
    /* <Tag attr="x"/> is empty too. */
    pos = 0;
    s = next_body("<Tag a=\"x\"/><Tag>w</Tag>", &pos, "Tag");
    ck_assert_str_eq(s, "");
    ck_assert_uint_eq(pos, 12);
    free(s);
    s = next_body("<Tag a=\"x\"/><Tag>w</Tag>", &pos, "Tag");
    ck_assert_str_eq(s, "w");
    free(s);
}
END_TEST

START_TEST(xml_next_malformed)
{
    size_t pos = 0;
    ck_assert_ptr_null(next_body("<Key>abc", &pos, "Key"));     /* no closing tag */
    pos = 0;
    ck_assert_ptr_null(next_body("<Key>abc</Ke", &pos, "Key")); /* closing tag cut */
    pos = 0;
    ck_assert_ptr_null(next_body("<Key>abc</Key", &pos, "Key"));
    pos = 0;
    ck_assert_ptr_null(next_body("<Key", &pos, "Key"));
    pos = 0;
    ck_assert_ptr_null(next_body("<Key ", &pos, "Key"));         /* no '>' */
    pos = 0;
    ck_assert_ptr_null(next_body("<Key a=\"1\"", &pos, "Key"));
    pos = 0;
    ck_assert_ptr_null(next_body("<Key/", &pos, "Key"));
    pos = 0;
    ck_assert_ptr_null(next_body("<", &pos, "Key"));
    pos = 0;
    ck_assert_ptr_null(next_body("", &pos, "Key"));
    pos = 0;
    ck_assert_ptr_null(next_body("no markup at all", &pos, "Key"));
    /* An empty tag name, one longer than 64 bytes, *pos past the end. */
    pos = 0;
    ck_assert_ptr_null(next_body("<>x</>", &pos, ""));
    char name[66];
    memset(name, 'N', 65);
    name[65] = 0;
    char doc[200];
    snprintf(doc, sizeof doc, "<%s>x</%s>", name, name);
    pos = 0;
    ck_assert_ptr_null(next_body(doc, &pos, name));
    name[64] = 0; /* 64 bytes: still taken */
    snprintf(doc, sizeof doc, "<%s>x</%s>", name, name);
    pos = 0;
    char *s = next_body(doc, &pos, name);
    ck_assert_str_eq(s, "x");
    free(s);
    pos = 8;
    ck_assert_ptr_null(next_body("<a>x</a>", &pos, "a")); /* *pos == len */
    pos = 9;
    ck_assert_ptr_null(next_body("<a>x</a>", &pos, "a")); /* *pos > len */
    ck_assert_uint_eq(pos, 9);
    /* A failed search leaves *pos alone. */
    pos = 0;
    ck_assert_ptr_null(next_body("<a>x</a>", &pos, "b"));
    ck_assert_uint_eq(pos, 0);
}
END_TEST

START_TEST(xml_text_cases)
{
    const char *err = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                      "<Error><Code>NoSuchKey</Code><Message>The key &lt;a&amp;b&gt; does not exist</Message>"
                      "<Key>a&amp;b</Key><RequestId>4442587FB7D0A2F9</RequestId></Error>";
    char *t = text_of(err, "Code");
    ck_assert_str_eq(t, "NoSuchKey");
    free(t);
    t = text_of(err, "Message");
    ck_assert_str_eq(t, "The key <a&b> does not exist");
    free(t);
    t = text_of(err, "Key");
    ck_assert_str_eq(t, "a&b");
    free(t);
    ck_assert_ptr_null(text_of(err, "Resource"));
    ck_assert_ptr_null(text_of("", "Code"));
    t = text_of("<Code/>", "Code");
    ck_assert_str_eq(t, "");
    free(t);
    /* The first one only. */
    t = text_of("<C>1</C><C>2</C>", "C");
    ck_assert_str_eq(t, "1");
    free(t);
}
END_TEST

START_TEST(xml_unescape_cases)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"", ""},
        {"plain", "plain"},
        {"a&amp;b", "a&b"},
        {"&lt;&gt;&quot;&apos;", "<>\"'"},
        {"&amp;amp;", "&amp;"},
        {"&&amp;", "&&"},
        {"&#65;", "A"},
        {"&#065;&#66;", "AB"},
        {"&#x41;&#X42;&#x6a;", "ABj"},
        {"&#233;", "\xC3\xA9"},
        {"&#x80;", "\xC2\x80"},
        {"&#x7FF;", "\xDF\xBF"},
        {"&#x800;", "\xE0\xA0\x80"},
        {"&#x263A;", "\xE2\x98\xBA"},
        {"&#xFFFF;", "\xEF\xBF\xBF"},
        {"&#x1F600;", "\xF0\x9F\x98\x80"},
        {"&#x10FFFF;", "\xF4\x8F\xBF\xBF"},
        {"&#x00000041;", "A"}, /* 12 bytes with the ';' */
        /* Malformed: kept as written. */
        {"&#xZZ;", "&#xZZ;"},
        {"&#x;", "&#x;"},
        {"&#;", "&#;"},
        {"&#12a;", "&#12a;"},
        {"&#xAG;", "&#xAG;"},
        {"&#0;", "&#0;"},
        {"&#x0;", "&#x0;"},
        {"&#xD800;", "&#xD800;"},
        {"&#xDFFF;", "&#xDFFF;"},
        {"&#x110000;", "&#x110000;"},
        {"&#99999999999999;", "&#99999999999999;"},
        {"&bogus;", "&bogus;"},
        {"&AMP;", "&AMP;"},
        {"&amp", "&amp"},
        {"&", "&"},
        {"a&", "a&"},
        {"&;", "&;"},
        {"x &#x263A y", "x &#x263A y"},
        {"&#x00000000041;", "&#x00000000041;"}, /* the ';' is past the 12 bytes looked at */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *t = unescape(cases[i].in);
        ck_assert_msg(strcmp(t, cases[i].out) == 0, "'%s' -> '%s'", cases[i].in, t);
        free(t);
    }
    /* The length given bounds it, not a NUL. */
    char *t = pq_xml_unescape("a&amp;bXYZ", 6);
    ck_assert_str_eq(t, "a&");
    free(t);
    t = pq_xml_unescape("&amp;", 4);
    ck_assert_str_eq(t, "&amp");
    free(t);
    t = pq_xml_unescape("&#x263A;", 7);
    ck_assert_str_eq(t, "&#x263A");
    free(t);
    t = pq_xml_unescape("a\0b", 3);
    ck_assert_int_eq(memcmp(t, "a\0b", 4), 0);
    free(t);
}
END_TEST

/* Every prefix of an entity-dense string, at its exact length: the output
 * never grows past the input. */
START_TEST(xml_unescape_prefixes)
{
    const char *s = "x&#x263A;&amp;&#65;&#x1F600;&lt;&#xZZ;&#233;&#x10FFFF;&quot;y";
    size_t n = strlen(s);
    for (size_t len = 0; len <= n; len++) {
        char *copy = exact(s, len);
        char *t = pq_xml_unescape(copy, len);
        ck_assert_ptr_nonnull(t);
        ck_assert_uint_le(strlen(t), len);
        free(t);
        free(copy);
    }
    char *t = unescape(s);
    ck_assert_str_eq(t, "x\xE2\x98\xBA&A\xF0\x9F\x98\x80<&#xZZ;\xC3\xA9\xF4\x8F\xBF\xBF\"y");
    free(t);
}
END_TEST

/* A ListObjectsV2 page (as S3 writes it, on one line after the prolog). */
static const char LIST_DOC[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
    "<Name>bkt</Name><Prefix>data/</Prefix><KeyCount>3</KeyCount><MaxKeys>1000</MaxKeys>"
    "<IsTruncated>true</IsTruncated>"
    "<NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>"
    "<Contents><Key>data/a&amp;b.parquet</Key><LastModified>2024-01-01T00:00:00.000Z</LastModified>"
    "<ETag>&quot;9b2cf535f27731c974343645a3985328&quot;</ETag><Size>1851</Size>"
    "<StorageClass>STANDARD</StorageClass></Contents>"
    "<Contents><Key>data/dir/</Key><Size>0</Size></Contents>"
    "<Contents><Key>data/&#x263A;.parquet</Key><ETag>\"abc-2\"</ETag><Size>18446744073709551615</Size></Contents>"
    "</ListBucketResult>";

static const struct {
    const char *key, *etag, *size;
} LIST_WANT[3] = {
    {"data/a&b.parquet", "\"9b2cf535f27731c974343645a3985328\"", "1851"},
    {"data/dir/", NULL, "0"},
    {"data/\xE2\x98\xBA.parquet", "\"abc-2\"", "18446744073709551615"},
};

/* The Contents of xml[0, len) as list.c walks them; checks what is found
 * against LIST_WANT and returns how many. */
static size_t walk_contents(const char *xml, size_t len)
{
    size_t pos = 0, found = 0, last = 0;
    const char *b;
    size_t bl;
    while (pq_xml_next(xml, len, &pos, "Contents", &b, &bl)) {
        ck_assert(b >= xml && b + bl <= xml + len);
        ck_assert(pos <= len && pos > last);
        last = pos;
        ck_assert_uint_lt(found, 3);
        char *key = pq_xml_text(b, bl, "Key");
        char *size = pq_xml_text(b, bl, "Size");
        char *etag = pq_xml_text(b, bl, "ETag");
        char *none = pq_xml_text(b, bl, "Owner");
        ck_assert_str_eq(key, LIST_WANT[found].key);
        ck_assert_str_eq(size, LIST_WANT[found].size);
        if (LIST_WANT[found].etag) ck_assert_str_eq(etag, LIST_WANT[found].etag);
        else ck_assert_ptr_null(etag);
        ck_assert_ptr_null(none);
        free(key);
        free(size);
        free(etag);
        found++;
    }
    return found;
}

START_TEST(xml_list_document)
{
    size_t n = strlen(LIST_DOC);
    char *doc = exact(LIST_DOC, n);
    ck_assert_uint_eq(walk_contents(doc, n), 3);
    char *t = pq_xml_text(doc, n, "IsTruncated");
    ck_assert_str_eq(t, "true");
    free(t);
    t = pq_xml_text(doc, n, "NextContinuationToken");
    ck_assert_str_eq(t, "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=");
    free(t);
    t = pq_xml_text(doc, n, "KeyCount");
    ck_assert_str_eq(t, "3");
    free(t);
    t = pq_xml_text(doc, n, "Name");
    ck_assert_str_eq(t, "bkt");
    free(t);
    free(doc);
}
END_TEST

/* Every prefix of the page, at its exact length: nothing is read past it,
 * and an element is found exactly when its closing tag is inside. */
START_TEST(xml_list_truncated)
{
    size_t n = strlen(LIST_DOC);
    /* Where each "</Contents>" ends, and "</IsTruncated>" and
     * "</NextContinuationToken>" (found with strstr on the whole text). */
    size_t ends[3];
    const char *p = LIST_DOC;
    for (int k = 0; k < 3; k++) {
        p = strstr(p, "</Contents>");
        ck_assert_ptr_nonnull(p);
        p += strlen("</Contents>");
        ends[k] = (size_t)(p - LIST_DOC);
    }
    size_t trunc_end = (size_t)(strstr(LIST_DOC, "</IsTruncated>") - LIST_DOC) + strlen("</IsTruncated>");
    size_t token_end = (size_t)(strstr(LIST_DOC, "</NextContinuationToken>") - LIST_DOC) +
                       strlen("</NextContinuationToken>");
    for (size_t len = 0; len <= n; len++) {
        char *doc = exact(LIST_DOC, len);
        size_t want = (len >= ends[0]) + (len >= ends[1]) + (len >= ends[2]);
        ck_assert_msg(walk_contents(doc, len) == want, "prefix %zu", len);
        char *t = pq_xml_text(doc, len, "IsTruncated");
        if (len >= trunc_end) ck_assert_str_eq(t, "true");
        else ck_assert_ptr_null(t);
        free(t);
        t = pq_xml_text(doc, len, "NextContinuationToken");
        if (len >= token_end) ck_assert_str_eq(t, "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=");
        else ck_assert_ptr_null(t);
        free(t);
        /* Whatever a prefix holds, an element name that is everywhere. */
        size_t pos = 0;
        const char *b;
        size_t bl;
        while (pq_xml_next(doc, len, &pos, "Key", &b, &bl)) ck_assert(b + bl <= doc + len && pos <= len);
        pos = 0;
        while (pq_xml_next(doc, len, &pos, "ListBucketResult", &b, &bl)) ck_assert(b + bl <= doc + len);
        t = pq_xml_unescape(doc, len);
        ck_assert_ptr_nonnull(t);
        ck_assert_uint_le(strlen(t), len);
        free(t);
        /* Each suffix too: a scan may start anywhere. */
        for (size_t at = 0; at <= len; at += 7) {
            pos = at;
            while (pq_xml_next(doc, len, &pos, "Size", &b, &bl)) ck_assert(b >= doc + at && b + bl <= doc + len);
        }
        free(doc);
    }
}
END_TEST

/* ---------------------------------------------------------------------------
 * pq_http_parse_content_range
 * ------------------------------------------------------------------------- */

START_TEST(content_range_cases)
{
    uint64_t a = 7, b = 7, t = 7;
    ck_assert(pq_http_parse_content_range("bytes 0-9/10", &a, &b, &t));
    ck_assert_uint_eq(a, 0);
    ck_assert_uint_eq(b, 9);
    ck_assert_uint_eq(t, 10);
    ck_assert(pq_http_parse_content_range("bytes 1048476-1048575/1048576", &a, &b, &t));
    ck_assert_uint_eq(a, 1048476);
    ck_assert_uint_eq(b, 1048575);
    ck_assert_uint_eq(t, 1048576);
    ck_assert(pq_http_parse_content_range("bytes 5-5/6", &a, &b, &t));
    ck_assert_uint_eq(a, 5);
    ck_assert_uint_eq(b, 5);
    ck_assert_uint_eq(t, 6);
    ck_assert(pq_http_parse_content_range("Bytes 0-0/1", &a, &b, &t)); /* the unit is case-insensitive */
    ck_assert_uint_eq(t, 1);
    ck_assert(pq_http_parse_content_range("bytes 4294967296-8589934591/8589934592", &a, &b, &t));
    ck_assert_uint_eq(a, 4294967296ull);
    ck_assert_uint_eq(b, 8589934591ull);
    ck_assert_uint_eq(t, 8589934592ull);
    /* Unsatisfied: "bytes * /total" (written without the space); first > last. */
    ck_assert(pq_http_parse_content_range("bytes */0", &a, &b, &t));
    ck_assert_uint_eq(a, 1);
    ck_assert_uint_eq(b, 0);
    ck_assert_uint_eq(t, 0);
    ck_assert(pq_http_parse_content_range("bytes */1234", &a, &b, &t));
    ck_assert_uint_eq(t, 1234);
    /* Bad forms. */
    static const char *bad[] = {
        "",
        "bytes",
        "bytes ",
        "bytes=0-9/10",
        "items 0-9/10",
        " bytes 0-9/10",
        "bytes  0-9/10",
        "bytes 0-9",
        "bytes 0-9/",
        "bytes 0-9/10x",
        "bytes 0-9/10 ",
        "bytes 0-9/-10",
        "bytes 0-9/+10",
        "bytes 0-9/*",
        "bytes 9-0/10",
        "bytes -1-9/10",
        "bytes 0--9/10",
        "bytes 0-+9/10",
        "bytes 0- 9/10",
        "bytes 0 -9/10",
        "bytes 0-9 /10",
        "bytes a-b/c",
        "bytes 0-/10",
        "bytes -9/10",
        "bytes */",
        "bytes */x",
        "bytes * /10",
        "bytes *-9/10",
        "bytes */10/",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        ck_assert_msg(!pq_http_parse_content_range(bad[i], &a, &b, &t), "accepted '%s'", bad[i]);
}
END_TEST

/* ---------------------------------------------------------------------------
 * Public entry points that need no server
 * ------------------------------------------------------------------------- */

START_TEST(is_url_cases)
{
    ck_assert_int_eq(pq_is_url("http://h/x"), 1);
    ck_assert_int_eq(pq_is_url("https://h/x"), 1);
    ck_assert_int_eq(pq_is_url("s3://b/k"), 1);
    ck_assert_int_eq(pq_is_url("http://"), 1); /* the prefix is what counts */
    ck_assert_int_eq(pq_is_url(NULL), 0);
    ck_assert_int_eq(pq_is_url(""), 0);
    ck_assert_int_eq(pq_is_url("/tmp/x.parquet"), 0);
    ck_assert_int_eq(pq_is_url("x.parquet"), 0);
    ck_assert_int_eq(pq_is_url("file:///x"), 0);
    ck_assert_int_eq(pq_is_url("http:/h"), 0);
    ck_assert_int_eq(pq_is_url("https:/h"), 0);
    ck_assert_int_eq(pq_is_url("s3:/b"), 0);
    ck_assert_int_eq(pq_is_url("gs://b/k"), 0);
    ck_assert_int_eq(pq_is_url("ftp://h/x"), 0);
    ck_assert_int_eq(pq_is_url("http"), 0);
}
END_TEST

START_TEST(options_defaults)
{
    pq_remote_options o;
    memset(&o, 0x5A, sizeof o);
    pq_remote_options_init(&o);
    ck_assert_ptr_null(o.endpoint);
    ck_assert_ptr_null(o.region);
    ck_assert_ptr_null(o.access_key_id);
    ck_assert_ptr_null(o.secret_access_key);
    ck_assert_ptr_null(o.session_token);
    ck_assert(!o.anonymous);
    ck_assert_uint_eq(o.addressing, PQ_S3_ADDRESSING_AUTO);
    ck_assert_uint_eq(o.max_connections, 8);
    ck_assert_uint_eq(o.max_retries, 4);
    ck_assert_uint_eq(o.retry_base_ms, 50);
    ck_assert_uint_eq(o.request_timeout_ms, 30000);
    ck_assert_uint_eq(o.connect_timeout_ms, 5000);
    ck_assert_uint_eq(o.tail_bytes, 65536);
    ck_assert(o.verify_tls);
    ck_assert_uint_eq(o.known_size, 0);
    ck_assert_ptr_null(o.known_version);
}
END_TEST

/* A URL nothing listens on (port 9, discard): these opens must fail
 * before any request. */
#define NOWHERE "http://127.0.0.1:9/x.parquet"

static void open_invalid(const char *url, const pq_remote_options *o, const char *msg_part)
{
    pq_error err = {0};
    pq_remote *rm = pq_remote_open(url, o, &err);
    ck_assert_ptr_null(rm);
    ck_assert_msg(err.code == PQ_ERR_INVALID_ARGUMENT, "%s: %s (%d)", url, err.message, err.code);
    if (msg_part) ck_assert_msg(strstr(err.message, msg_part) != NULL, "message: %s", err.message);
}

START_TEST(open_bad_options)
{
    pq_remote_options o;
    pq_remote_options_init(&o);
    o.max_connections = 0;
    open_invalid(NOWHERE, &o, "max_connections");
    o.max_connections = 65;
    open_invalid(NOWHERE, &o, "max_connections");
    o.max_connections = UINT32_MAX;
    open_invalid(NOWHERE, &o, "max_connections");
    pq_remote_options_init(&o);
    o.tail_bytes = (16u << 20) + 1;
    open_invalid(NOWHERE, &o, "tail_bytes");
    o.tail_bytes = UINT32_MAX;
    open_invalid(NOWHERE, &o, "tail_bytes");
    pq_remote_options_init(&o);
    o.addressing = 7;
    open_invalid(NOWHERE, &o, "addressing");
    o.addressing = 3;
    open_invalid(NOWHERE, &o, "addressing");
    pq_remote_options_init(&o);
    o.max_retries = 101;
    open_invalid(NOWHERE, &o, "max_retries");
    /* The bounds themselves are fine: with known_size no request is made. */
    pq_remote_options_init(&o);
    o.max_connections = 64;
    o.tail_bytes = 16u << 20;
    o.addressing = PQ_S3_ADDRESSING_VIRTUAL;
    o.max_retries = 100;
    o.known_size = 10;
    pq_error err = {0};
    pq_remote *rm = pq_remote_open(NOWHERE, &o, &err);
    ck_assert_msg(rm != NULL, "%s", err.message);
    pq_remote_close(rm);
    o.max_connections = 1;
    o.tail_bytes = 0;
    rm = pq_remote_open(NOWHERE, &o, &err);
    ck_assert_msg(rm != NULL, "%s", err.message);
    pq_remote_close(rm);
    /* Bad options fail the listing the same way. */
    pq_remote_options_init(&o);
    o.max_connections = 0;
    pq_remote_object *objs = (pq_remote_object *)1;
    size_t count = 7;
    ck_assert_int_eq(pq_remote_list("s3://b/p", &o, &objs, &count, &err), PQ_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_null(objs);
    ck_assert_uint_eq(count, 0);
}
END_TEST

START_TEST(open_bad_urls)
{
    open_invalid(NULL, NULL, NULL);
    open_invalid("", NULL, NULL);
    open_invalid("ftp://h/x", NULL, NULL);
    open_invalid("http://", NULL, "no host");
    open_invalid("http://h/a b", NULL, NULL);
    open_invalid("s3://", NULL, NULL);
    open_invalid("s3://bad$bucket/k", NULL, NULL);
    /* An s3 URL without a key, or naming a "directory", names no object. */
    open_invalid("s3://bucket", NULL, "names no object");
    open_invalid("s3://bucket/", NULL, "names no object");
    open_invalid("s3://bucket/dir/", NULL, "names no object");
    /* A bad endpoint. */
    pq_remote_options o;
    pq_remote_options_init(&o);
    o.endpoint = "ftp://h";
    open_invalid("s3://bucket/k", &o, "endpoint");
    o.endpoint = "http://h/base";
    open_invalid("s3://bucket/k", &o, "endpoint");
    /* Half a credential. */
    pq_remote_options_init(&o);
    o.endpoint = "http://127.0.0.1:9";
    o.access_key_id = "AKIDEXAMPLE";
    unsetenv("AWS_SECRET_ACCESS_KEY");
    open_invalid("s3://bucket/k", &o, "secret");
    /* Listing an http URL is not supported. */
    pq_error err = {0};
    pq_remote_object *objs = NULL;
    size_t count = 0;
    ck_assert_int_eq(pq_remote_list(NOWHERE, NULL, &objs, &count, &err), PQ_ERR_UNSUPPORTED);
    ck_assert_int_eq(pq_remote_list("ftp://x", NULL, &objs, &count, &err), PQ_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pq_remote_list(NOWHERE, NULL, NULL, &count, &err), PQ_ERR_INVALID_ARGUMENT);
}
END_TEST

/* known_size: no request; the identity and the cache key are as given;
 * reads past the end and empty reads need no request either. */
START_TEST(known_size_no_request)
{
    pq_remote_options o;
    pq_remote_options_init(&o);
    o.known_size = 1234;
    o.known_version = "\"abc\"";
    pq_error err = {0};
    pq_remote *rm = pq_remote_open(NOWHERE, &o, &err);
    ck_assert_msg(rm != NULL, "%s", err.message);
    ck_assert_str_eq(pq_remote_url(rm), NOWHERE);
    ck_assert_uint_eq(pq_remote_size(rm), 1234);
    ck_assert_str_eq(pq_remote_version(rm), "\"abc\"");
    static const char key[] = NOWHERE "\0" "1234\0" "\"abc\"";
    size_t kl = sizeof key - 1; /* the final NUL is not part of the key */
    ck_assert_uint_eq(pq_remote_cache_key(rm, NULL, 0), kl);
    char buf[128];
    memset(buf, 0x5A, sizeof buf);
    ck_assert_uint_eq(pq_remote_cache_key(rm, buf, 5), kl); /* too small: nothing written */
    ck_assert_int_eq((unsigned char)buf[0], 0x5A);
    ck_assert_uint_eq(pq_remote_cache_key(rm, buf, sizeof buf), kl);
    ck_assert_int_eq(memcmp(buf, key, kl), 0);
    /* Reads that need no request. */
    uint8_t b[4];
    ck_assert_int_eq(pq_remote_read(rm, 1234, 0, b, &err), PQ_OK);
    ck_assert_int_eq(pq_remote_read(rm, 0, 0, b, &err), PQ_OK);
    ck_assert_int_eq(pq_remote_read(rm, 1231, 4, b, &err), PQ_ERR_IO);
    ck_assert_ptr_nonnull(strstr(err.message, "past the end"));
    ck_assert_int_eq(pq_remote_read(rm, 1235, 0, b, &err), PQ_ERR_IO);
    ck_assert_int_eq(pq_remote_read(rm, UINT64_MAX, 1, b, &err), PQ_ERR_IO);
    ck_assert_int_eq(pq_remote_read_ranges(rm, NULL, 0, NULL, &err), PQ_OK);
    ck_assert_int_eq(pq_remote_read_ranges(rm, NULL, 1, NULL, &err), PQ_ERR_INVALID_ARGUMENT);
    pq_remote_stats st;
    pq_remote_get_stats(rm, &st);
    ck_assert_uint_eq(st.requests, 0);
    ck_assert_uint_eq(st.bytes, 0);
    ck_assert_uint_eq(st.retries, 0);
    ck_assert_uint_eq(st.tail_hits, 0);
    /* References. */
    ck_assert_ptr_eq(pq_remote_retain(rm), rm);
    pq_remote_close(rm);
    ck_assert_uint_eq(pq_remote_size(rm), 1234);
    /* The source over it. */
    pq_source src;
    pq_remote_source(rm, &src);
    ck_assert_ptr_eq(src.user, rm);
    ck_assert_uint_eq(src.size, 1234);
    ck_assert_ptr_nonnull(src.read_at);
    ck_assert_ptr_nonnull(src.read_ranges);
    pq_remote_close(rm);
    ck_assert_ptr_null(pq_remote_retain(NULL));
    pq_remote_close(NULL);
    /* No version: "" and no If-Match. */
    o.known_version = NULL;
    rm = pq_remote_open(NOWHERE, &o, &err);
    ck_assert_ptr_nonnull(rm);
    ck_assert_str_eq(pq_remote_version(rm), "");
    pq_remote_close(rm);
    /* pq_source_open_url with known_size, closed again. */
    o.known_version = "W/\"weak\"";
    ck_assert_int_eq(pq_source_open_url(NOWHERE, &o, &src, &err), PQ_OK);
    ck_assert_uint_eq(src.size, 1234);
    ck_assert_str_eq(pq_remote_version(src.user), "W/\"weak\"");
    pq_source_close_url(&src);
    ck_assert_ptr_null(src.user);
    pq_source_close_url(&src); /* a closed source is left alone */
    o.max_connections = 0;
    ck_assert_int_eq(pq_source_open_url(NOWHERE, &o, &src, &err), PQ_ERR_INVALID_ARGUMENT);
}
END_TEST

static Suite *remote_parse_suite(void)
{
    Suite *s = suite_create("remote_parse");
    TCase *tc = tcase_create("url");
    tcase_add_test(tc, url_parse_http);
    tcase_add_test(tc, url_parse_s3);
    tcase_add_test(tc, url_parse_bad_scheme);
    tcase_add_test(tc, url_encode_cases);
    tcase_add_test(tc, url_encode_capacity);
    tcase_add_test(tc, url_endpoint);
    tcase_add_test(tc, url_s3_http);
    suite_add_tcase(s, tc);
    tc = tcase_create("xml");
    tcase_set_timeout(tc, 0); /* no time limit */
    tcase_add_test(tc, xml_next_elements);
    tcase_add_test(tc, xml_next_empty_and_attributes);
    tcase_add_test(tc, xml_next_malformed);
    tcase_add_test(tc, xml_text_cases);
    tcase_add_test(tc, xml_unescape_cases);
    tcase_add_test(tc, xml_unescape_prefixes);
    tcase_add_test(tc, xml_list_document);
    tcase_add_test(tc, xml_list_truncated);
    suite_add_tcase(s, tc);
    tc = tcase_create("http");
    tcase_add_test(tc, content_range_cases);
    suite_add_tcase(s, tc);
    tc = tcase_create("api");
    tcase_add_test(tc, is_url_cases);
    tcase_add_test(tc, options_defaults);
    tcase_add_test(tc, open_bad_options);
    tcase_add_test(tc, open_bad_urls);
    tcase_add_test(tc, known_size_no_request);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(remote_parse_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
