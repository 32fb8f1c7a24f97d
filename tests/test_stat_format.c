/*
 * test_stat_format.c — pq_stat_value_format on hand-computed vectors: every
 * physical type, every logical rendering, wrong widths, and the snprintf
 * buffer contract.
 *
 * Dates were cross-checked with numpy.datetime64 (which writes year -1 as
 * "-001"; we write "-0001"), half and single floats with numpy's shortest
 * repr, big decimals with Python integers.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pqstep.h"
#include "test_util.h"

static pq_leaf make_leaf(int physical, int type_length, pq_logical_type lt)
{
    pq_leaf lf;
    memset(&lf, 0, sizeof lf);
    lf.physical_type = physical;
    lf.type_length = type_length;
    lf.logical = lt;
    return lf;
}

static pq_logical_type none(void)
{
    pq_logical_type lt;
    memset(&lt, 0, sizeof lt);
    return lt;
}

static pq_logical_type kind(int k)
{
    pq_logical_type lt = none();
    lt.kind = (uint8_t)k;
    return lt;
}

static pq_logical_type integer(int bits, bool is_signed)
{
    pq_logical_type lt = kind(PQ_LOGICAL_INTEGER);
    lt.bit_width = (int8_t)bits;
    lt.is_signed = is_signed;
    return lt;
}

static pq_logical_type timeish(int k, int unit, bool utc)
{
    pq_logical_type lt = kind(k);
    lt.unit = (uint8_t)unit;
    lt.is_adjusted_to_utc = utc;
    return lt;
}

static pq_logical_type decimal(int precision, int scale)
{
    pq_logical_type lt = kind(PQ_LOGICAL_DECIMAL);
    lt.precision = precision;
    lt.scale = scale;
    return lt;
}

/* Format and compare; also checks the returned length. */
static void expect_bytes(const pq_leaf *lf, const uint8_t *p, size_t n, const char *want)
{
    char buf[512];
    pq_bytes v = {p, (uint32_t)n};
    size_t len = pq_stat_value_format(lf, v, buf, sizeof buf);
    ck_assert_msg(strcmp(buf, want) == 0, "got '%s', want '%s'", buf, want);
    ck_assert_uint_eq(len, strlen(want));
}

#define EXPECT(lf, want, ...)                                                               \
    do {                                                                                    \
        static const uint8_t bytes_[] = {__VA_ARGS__};                                      \
        expect_bytes(&(lf), bytes_, sizeof bytes_, want);                                   \
    } while (0)

static void expect_i32(const pq_leaf *lf, int32_t v, const char *want)
{
    uint32_t u = (uint32_t)v;
    uint8_t b[4] = {(uint8_t)u, (uint8_t)(u >> 8), (uint8_t)(u >> 16), (uint8_t)(u >> 24)};
    expect_bytes(lf, b, 4, want);
}

static void expect_i64(const pq_leaf *lf, int64_t v, const char *want)
{
    uint64_t u = (uint64_t)v;
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(u >> (8 * i));
    expect_bytes(lf, b, 8, want);
}

static void expect_f32(const pq_leaf *lf, float f, const char *want)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    uint8_t b[4] = {(uint8_t)u, (uint8_t)(u >> 8), (uint8_t)(u >> 16), (uint8_t)(u >> 24)};
    expect_bytes(lf, b, 4, want);
}

static void expect_f64(const pq_leaf *lf, double d, const char *want)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(u >> (8 * i));
    expect_bytes(lf, b, 8, want);
}

static void expect_half(const pq_leaf *lf, uint16_t h, const char *want)
{
    uint8_t b[2] = {(uint8_t)h, (uint8_t)(h >> 8)};
    expect_bytes(lf, b, 2, want);
}

/* ---------------------------------------------------------------------------
 * Fixed-width types
 * ------------------------------------------------------------------------- */

START_TEST(boolean)
{
    pq_leaf lf = make_leaf(PQ_BOOLEAN, 0, none());
    EXPECT(lf, "true", 1);
    EXPECT(lf, "false", 0);
    EXPECT(lf, "0x02", 2);
    EXPECT(lf, "0x0100", 1, 0);
    expect_bytes(&lf, NULL, 0, "0x");
}
END_TEST

START_TEST(int32_plain_and_integer)
{
    pq_leaf lf = make_leaf(PQ_INT32, 0, none());
    expect_i32(&lf, 0, "0");
    expect_i32(&lf, -1, "-1");
    expect_i32(&lf, INT32_MIN, "-2147483648");
    expect_i32(&lf, INT32_MAX, "2147483647");
    EXPECT(lf, "0x010203", 1, 2, 3);
    EXPECT(lf, "0x0102030405", 1, 2, 3, 4, 5);

    lf.logical = integer(32, false);
    expect_i32(&lf, -1, "4294967295");
    expect_i32(&lf, INT32_MIN, "2147483648");
    lf.logical = integer(8, false);
    expect_i32(&lf, 255, "255");
    lf.logical = integer(16, true);
    expect_i32(&lf, -5, "-5");
}
END_TEST

START_TEST(int64_plain_and_integer)
{
    pq_leaf lf = make_leaf(PQ_INT64, 0, none());
    expect_i64(&lf, INT64_MIN, "-9223372036854775808");
    expect_i64(&lf, INT64_MAX, "9223372036854775807");
    expect_i64(&lf, -42, "-42");
    EXPECT(lf, "0x01020304", 1, 2, 3, 4);
    lf.logical = integer(64, false);
    expect_i64(&lf, -1, "18446744073709551615");
    expect_i64(&lf, 7, "7");
    lf.logical = integer(64, true);
    expect_i64(&lf, -1, "-1");
}
END_TEST

START_TEST(dates)
{
    pq_leaf lf = make_leaf(PQ_INT32, 0, kind(PQ_LOGICAL_DATE));
    expect_i32(&lf, 0, "1970-01-01");
    expect_i32(&lf, -1, "1969-12-31");
    expect_i32(&lf, 19000, "2022-01-08");
    expect_i32(&lf, 11016, "2000-02-29");
    expect_i32(&lf, 11017, "2000-03-01");
    expect_i32(&lf, -25508, "1900-03-01"); /* 1900 is not a leap year */
    expect_i32(&lf, -25509, "1900-02-28");
    expect_i32(&lf, -719528, "0000-01-01");
    expect_i32(&lf, -719529, "-0001-12-31");
    expect_i32(&lf, 2932896, "9999-12-31");
    expect_i32(&lf, 2932897, "+10000-01-01");
    expect_i32(&lf, INT32_MAX, "+5881580-07-11");
    expect_i32(&lf, INT32_MIN, "-5877641-06-23");
    EXPECT(lf, "0x0000", 0, 0);
    /* DATE does not apply to INT64: the plain integer */
    pq_leaf l64 = make_leaf(PQ_INT64, 0, kind(PQ_LOGICAL_DATE));
    expect_i64(&l64, 19000, "19000");
}
END_TEST

START_TEST(times)
{
    pq_leaf ms = make_leaf(PQ_INT32, 0, timeish(PQ_LOGICAL_TIME, PQ_UNIT_MILLIS, true));
    expect_i32(&ms, 0, "00:00:00.000");
    expect_i32(&ms, 86399999, "23:59:59.999");
    expect_i32(&ms, 3723004, "01:02:03.004");
    expect_i32(&ms, -1, "-00:00:00.001");

    pq_leaf us = make_leaf(PQ_INT64, 0, timeish(PQ_LOGICAL_TIME, PQ_UNIT_MICROS, false));
    expect_i64(&us, 3723000004LL, "01:02:03.000004");
    expect_i64(&us, 0, "00:00:00.000000");

    pq_leaf ns = make_leaf(PQ_INT64, 0, timeish(PQ_LOGICAL_TIME, PQ_UNIT_NANOS, true));
    expect_i64(&ns, 86399999999999LL, "23:59:59.999999999");
    expect_i64(&ns, 1, "00:00:00.000000001");

    /* the unit must fit the physical type; else the plain integer */
    pq_leaf bad = make_leaf(PQ_INT32, 0, timeish(PQ_LOGICAL_TIME, PQ_UNIT_MICROS, true));
    expect_i32(&bad, 1000, "1000");
    bad = make_leaf(PQ_INT64, 0, timeish(PQ_LOGICAL_TIME, PQ_UNIT_MILLIS, true));
    expect_i64(&bad, 1000, "1000");
}
END_TEST

START_TEST(timestamps)
{
    pq_leaf ms = make_leaf(PQ_INT64, 0, timeish(PQ_LOGICAL_TIMESTAMP, PQ_UNIT_MILLIS, true));
    expect_i64(&ms, 0, "1970-01-01T00:00:00.000Z");
    expect_i64(&ms, -1, "1969-12-31T23:59:59.999Z");
    expect_i64(&ms, 1641600000000LL + 3723004, "2022-01-08T01:02:03.004Z");
    expect_i64(&ms, INT64_MIN, "-292275055-05-16T16:47:04.192Z");

    pq_leaf us = make_leaf(PQ_INT64, 0, timeish(PQ_LOGICAL_TIMESTAMP, PQ_UNIT_MICROS, false));
    expect_i64(&us, 1640995200123456LL, "2022-01-01T00:00:00.123456");
    expect_i64(&us, -1, "1969-12-31T23:59:59.999999");
    expect_i64(&us, -86400000001LL, "1969-12-30T23:59:59.999999");
    expect_i64(&us, INT64_MAX, "+294247-01-10T04:00:54.775807");

    pq_leaf ns = make_leaf(PQ_INT64, 0, timeish(PQ_LOGICAL_TIMESTAMP, PQ_UNIT_NANOS, true));
    expect_i64(&ns, -1, "1969-12-31T23:59:59.999999999Z");
    expect_i64(&ns, INT64_MIN + 1, "1677-09-21T00:12:43.145224193Z");
    expect_i64(&ns, INT64_MIN, "1677-09-21T00:12:43.145224192Z");
    expect_i64(&ns, 951782400000000000LL, "2000-02-29T00:00:00.000000000Z");

    /* unknown unit: the plain integer */
    pq_leaf odd = make_leaf(PQ_INT64, 0, timeish(PQ_LOGICAL_TIMESTAMP, PQ_UNIT_NONE, true));
    expect_i64(&odd, 5, "5");
}
END_TEST

START_TEST(decimals_int)
{
    pq_leaf d32 = make_leaf(PQ_INT32, 0, decimal(9, 2));
    expect_i32(&d32, -123, "-1.23");
    expect_i32(&d32, 5, "0.05");
    expect_i32(&d32, -5, "-0.05");
    expect_i32(&d32, 0, "0.00");
    expect_i32(&d32, 100, "1.00");
    d32.logical = decimal(9, 0);
    expect_i32(&d32, 123456789, "123456789");
    d32.logical = decimal(9, 3);
    expect_i32(&d32, INT32_MIN, "-2147483.648");
    d32.logical = decimal(9, -2);
    expect_i32(&d32, 5, "500");
    d32.logical = decimal(9, 300);
    expect_i32(&d32, -5, "-5E-300");

    pq_leaf d64 = make_leaf(PQ_INT64, 0, decimal(18, 4));
    expect_i64(&d64, -1, "-0.0001");
    expect_i64(&d64, 123456789012345678LL, "12345678901234.5678");
    d64.logical = decimal(18, 18);
    expect_i64(&d64, INT64_MIN, "-9.223372036854775808");
    d64.logical = decimal(18, 20);
    expect_i64(&d64, 42, "0.00000000000000000042");
}
END_TEST

START_TEST(floats)
{
    pq_leaf f = make_leaf(PQ_FLOAT, 0, none());
    expect_f32(&f, 1.5f, "1.5");
    expect_f32(&f, 0.1f, "0.1");
    expect_f32(&f, 0.3f, "0.3");
    expect_f32(&f, -0.0f, "-0");
    expect_f32(&f, 0.0f, "0");
    expect_f32(&f, 16777216.0f, "16777216");
    expect_f32(&f, 3.4028235e38f, "3.4028235e+38");
    expect_f32(&f, 1e-45f, "1e-45");
    expect_f32(&f, 1.1754944e-38f, "1.1754944e-38");
    EXPECT(f, "nan", 0x00, 0x00, 0xc0, 0x7f);
    EXPECT(f, "nan", 0x01, 0x00, 0x80, 0xff); /* negative signalling NaN: still "nan" */
    EXPECT(f, "inf", 0x00, 0x00, 0x80, 0x7f);
    EXPECT(f, "-inf", 0x00, 0x00, 0x80, 0xff);
    EXPECT(f, "0x0000803f00", 0x00, 0x00, 0x80, 0x3f, 0x00);

    pq_leaf d = make_leaf(PQ_DOUBLE, 0, none());
    expect_f64(&d, 0.1, "0.1");
    expect_f64(&d, 1.0 / 3.0, "0.3333333333333333");
    expect_f64(&d, 5e-324, "5e-324");
    expect_f64(&d, 1e21, "1e+21");
    expect_f64(&d, 123456789012.0, "123456789012");
    expect_f64(&d, 1.7976931348623157e308, "1.7976931348623157e+308");
    expect_f64(&d, -2.5, "-2.5");
    EXPECT(d, "nan", 0, 0, 0, 0, 0, 0, 0xf8, 0x7f);
    EXPECT(d, "-inf", 0, 0, 0, 0, 0, 0, 0xf0, 0xff);
    EXPECT(d, "0x000000000000f07f00", 0, 0, 0, 0, 0, 0, 0xf0, 0x7f, 0);
    /* plain notation for exponents -4..15, as Python's repr */
    expect_f64(&d, 100.0, "100");
    expect_f64(&d, 1e15, "1000000000000000");
    expect_f64(&d, 1e16, "1e+16");
    expect_f64(&d, 0.0001, "0.0001");
    expect_f64(&d, 0.00001, "1e-05");
    expect_f64(&d, 9007199254740993.0, "9007199254740992");
}
END_TEST

START_TEST(float16)
{
    pq_leaf h = make_leaf(PQ_FIXED_LEN_BYTE_ARRAY, 2, kind(PQ_LOGICAL_FLOAT16));
    expect_half(&h, 0x3c00, "1");
    expect_half(&h, 0xc000, "-2");
    expect_half(&h, 0x5640, "100");
    expect_half(&h, 0x2e66, "0.1");
    expect_half(&h, 0x3555, "0.3333");
    expect_half(&h, 0x7bff, "65504");
    expect_half(&h, 0x0001, "6e-08");
    expect_half(&h, 0x8001, "-6e-08");
    expect_half(&h, 0x03ff, "6.1e-05");
    expect_half(&h, 0x0400, "6.104e-05");
    expect_half(&h, 0x0000, "0");
    expect_half(&h, 0x8000, "-0");
    expect_half(&h, 0x7e00, "nan");
    expect_half(&h, 0x7c00, "inf");
    expect_half(&h, 0xfc00, "-inf");
    EXPECT(h, "0x003c00", 0x00, 0x3c, 0x00); /* wrong width */
}
END_TEST

START_TEST(int96_is_hex)
{
    pq_leaf lf = make_leaf(PQ_INT96, 0, none());
    EXPECT(lf, "0x00a0ee8e3c2e0000d8842500", 0x00, 0xa0, 0xee, 0x8e, 0x3c, 0x2e, 0x00, 0x00, 0xd8,
           0x84, 0x25, 0x00);
}
END_TEST

/* ---------------------------------------------------------------------------
 * Byte arrays
 * ------------------------------------------------------------------------- */

START_TEST(decimals_bytes)
{
    pq_leaf f4 = make_leaf(PQ_FIXED_LEN_BYTE_ARRAY, 4, decimal(9, 2));
    EXPECT(f4, "-1.23", 0xff, 0xff, 0xff, 0x85);
    EXPECT(f4, "1.23", 0x00, 0x00, 0x00, 0x7b);
    EXPECT(f4, "0.00", 0x00, 0x00, 0x00, 0x00);
    EXPECT(f4, "-21474836.48", 0x80, 0x00, 0x00, 0x00);
    EXPECT(f4, "0x0000007b00", 0x00, 0x00, 0x00, 0x7b, 0x00); /* wrong width */

    pq_leaf f16 = make_leaf(PQ_FIXED_LEN_BYTE_ARRAY, 16, decimal(38, 0));
    EXPECT(f16, "170141183460469231731687303715884105727", 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff,
           0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff);
    EXPECT(f16, "-170141183460469231731687303715884105728", 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
           0, 0, 0, 0, 0);
    f16.logical = decimal(38, 10);
    EXPECT(f16, "-0.0000000001", 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
           0xff, 0xff, 0xff, 0xff, 0xff, 0xff);

    pq_leaf f32 = make_leaf(PQ_FIXED_LEN_BYTE_ARRAY, 32, decimal(76, 38));
    EXPECT(f32, "578960446186580977117854925043439539266.34992332820282019728792003956564819967",
           0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
           0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
           0xff, 0xff, 0xff, 0xff);
    f32.logical = decimal(76, 0);
    EXPECT(f32, "-57896044618658097711785492504343953926634992332820282019728792003956564819968",
           0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
           0, 0, 0, 0, 0);

    /* variable width on BYTE_ARRAY: any length, sign from the first byte */
    pq_leaf ba = make_leaf(PQ_BYTE_ARRAY, 0, decimal(4, 2));
    EXPECT(ba, "12.34", 0x04, 0xd2);
    EXPECT(ba, "-0.01", 0xff);
    EXPECT(ba, "-1.28", 0x80);
    EXPECT(ba, "1.28", 0x00, 0x80);
    EXPECT(ba, "0.00", 0x00);
    EXPECT(ba, "-12.34", 0xff, 0xff, 0xff, 0xfb, 0x2e);
    expect_bytes(&ba, NULL, 0, "0x");
    ba.logical = decimal(4, 5);
    EXPECT(ba, "0.00001", 0x01);

    /* more than 64 bytes: hex */
    uint8_t big[65];
    memset(big, 0, sizeof big);
    big[64] = 1;
    char want[2 + 2 * 65 + 1] = "0x";
    for (int i = 0; i < 64; i++) strcat(want, "00");
    strcat(want, "01");
    expect_bytes(&ba, big, sizeof big, want);
    /* 64 bytes is still a number */
    expect_bytes(&ba, big + 1, 64, "0.00001");
}
END_TEST

START_TEST(strings)
{
    pq_leaf s = make_leaf(PQ_BYTE_ARRAY, 0, kind(PQ_LOGICAL_STRING));
    EXPECT(s, "hello", 'h', 'e', 'l', 'l', 'o');
    EXPECT(s, "h\xc3\xa9llo \xf0\x9f\x98\x80", 'h', 0xc3, 0xa9, 'l', 'l', 'o', ' ', 0xf0, 0x9f, 0x98,
           0x80);
    EXPECT(s, "a \"quoted\" \\ line\n", 'a', ' ', '"', 'q', 'u', 'o', 't', 'e', 'd', '"', ' ', '\\',
           ' ', 'l', 'i', 'n', 'e', '\n');
    expect_bytes(&s, NULL, 0, "");
    /* not text: hex */
    EXPECT(s, "0xfffe", 0xff, 0xfe);
    EXPECT(s, "0x61006263", 'a', 0, 'b', 'c');            /* NUL */
    EXPECT(s, "0xf09f98", 0xf0, 0x9f, 0x98);              /* truncated character */
    EXPECT(s, "0xc080", 0xc0, 0x80);                      /* overlong NUL */
    EXPECT(s, "0xeda080", 0xed, 0xa0, 0x80);              /* surrogate */
    EXPECT(s, "0xf4908080", 0xf4, 0x90, 0x80, 0x80);      /* above U+10FFFF */
    EXPECT(s, "0x4b66ff", 'K', 'f', 0xff);

    pq_leaf e = make_leaf(PQ_BYTE_ARRAY, 0, kind(PQ_LOGICAL_ENUM));
    EXPECT(e, "RED", 'R', 'E', 'D');
    pq_leaf j = make_leaf(PQ_BYTE_ARRAY, 0, kind(PQ_LOGICAL_JSON));
    EXPECT(j, "{\"a\":1}", '{', '"', 'a', '"', ':', '1', '}');
    /* STRING does not apply to FLBA */
    pq_leaf fs = make_leaf(PQ_FIXED_LEN_BYTE_ARRAY, 2, kind(PQ_LOGICAL_STRING));
    EXPECT(fs, "0x6869", 'h', 'i');
}
END_TEST

START_TEST(binary_and_uuid)
{
    pq_leaf b = make_leaf(PQ_BYTE_ARRAY, 0, none());
    EXPECT(b, "0x0a1b", 0x0a, 0x1b);
    EXPECT(b, "0x616263", 'a', 'b', 'c');
    expect_bytes(&b, NULL, 0, "0x");
    b.logical = kind(PQ_LOGICAL_BSON);
    EXPECT(b, "0x05000000", 5, 0, 0, 0);
    b.logical = kind(PQ_LOGICAL_GEOMETRY);
    EXPECT(b, "0x0101", 1, 1);

    pq_leaf f = make_leaf(PQ_FIXED_LEN_BYTE_ARRAY, 3, none());
    EXPECT(f, "0x010203", 1, 2, 3);
    EXPECT(f, "0x0102", 1, 2);

    pq_leaf u = make_leaf(PQ_FIXED_LEN_BYTE_ARRAY, 16, kind(PQ_LOGICAL_UUID));
    EXPECT(u, "00112233-4455-6677-8899-aabbccddeeff", 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66,
           0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff);
    EXPECT(u, "0x0011", 0x00, 0x11);
}
END_TEST

START_TEST(unknown_physical_type)
{
    pq_leaf lf = make_leaf(-7, 0, none());
    EXPECT(lf, "0x01", 1);
    expect_bytes(NULL, (const uint8_t *)"\x01\x02", 2, "0x0102");
}
END_TEST

/* ---------------------------------------------------------------------------
 * Buffer contract
 * ------------------------------------------------------------------------- */

START_TEST(buffer_contract)
{
    pq_leaf lf = make_leaf(PQ_INT32, 0, kind(PQ_LOGICAL_DATE));
    static const uint8_t v19000[4] = {0x38, 0x4a, 0, 0}; /* 19000 */
    pq_bytes v = {v19000, 4};
    char buf[16];

    ck_assert_uint_eq(pq_stat_value_format(&lf, v, NULL, 0), 10);
    memset(buf, 'X', sizeof buf);
    ck_assert_uint_eq(pq_stat_value_format(&lf, v, buf, 5), 10);
    ck_assert_str_eq(buf, "2022");
    ck_assert_int_eq(buf[5], 'X'); /* nothing written past cap */
    ck_assert_uint_eq(pq_stat_value_format(&lf, v, buf, 1), 10);
    ck_assert_str_eq(buf, "");
    ck_assert_uint_eq(pq_stat_value_format(&lf, v, buf, 11), 10);
    ck_assert_str_eq(buf, "2022-01-08");
    memset(buf, 'X', sizeof buf);
    ck_assert_uint_eq(pq_stat_value_format(&lf, v, buf, 10), 10);
    ck_assert_str_eq(buf, "2022-01-0");
    ck_assert_int_eq(buf[10], 'X');

    /* hex of a long value: the full length is reported */
    pq_leaf b = make_leaf(PQ_BYTE_ARRAY, 0, none());
    static uint8_t big[1000];
    pq_bytes vb = {big, sizeof big};
    ck_assert_uint_eq(pq_stat_value_format(&b, vb, buf, sizeof buf), 2 + 2000);
    ck_assert_str_eq(buf, "0x0000000000000");
}
END_TEST

/* pq_text.h directly: the snprintf contract, time without a fraction,
 * pre-1970 timestamps, negative and exponent scales. Hand-computed. */
START_TEST(text_functions)
{
    char b[64];
    ck_assert_uint_eq(pq_format_date(-1, b, sizeof b), 10);
    ck_assert_str_eq(b, "1969-12-31");
    ck_assert_uint_eq(pq_format_date(0, b, 5), 10); /* cut, but says what it needs */
    ck_assert_str_eq(b, "1970");
    ck_assert_uint_eq(pq_format_date(0, NULL, 0), 10);
    pq_format_time(3661, 0, b, sizeof b);
    ck_assert_str_eq(b, "01:01:01");
    pq_format_time(-1500, 3, b, sizeof b);
    ck_assert_str_eq(b, "-00:00:01.500");
    ck_assert_uint_eq(pq_format_time(1, 2, b, sizeof b), 0); /* no such unit */
    pq_format_timestamp(-1, 0, true, b, sizeof b);
    ck_assert_str_eq(b, "1969-12-31T23:59:59Z");
    pq_format_timestamp(-1, 9, false, b, sizeof b);
    ck_assert_str_eq(b, "1969-12-31T23:59:59.999999999");
    const uint8_t minus_105[2] = {0xff, 0x97}; /* -105 */
    pq_format_decimal(minus_105, 2, 2, b, sizeof b);
    ck_assert_str_eq(b, "-1.05");
    pq_format_decimal(minus_105, 2, 5, b, sizeof b);
    ck_assert_str_eq(b, "-0.00105");
    pq_format_decimal(minus_105, 2, -3, b, sizeof b);
    ck_assert_str_eq(b, "-105000");
    pq_format_decimal(minus_105, 2, -300, b, sizeof b);
    ck_assert_str_eq(b, "-105E+300");
    const uint8_t zero[1] = {0};
    pq_format_decimal(zero, 1, -2, b, sizeof b);
    ck_assert_str_eq(b, "0");
    ck_assert_uint_eq(pq_format_decimal(zero, 0, 0, b, sizeof b), 0);
    /* 2^255 - 1 at scale 0 is 77 digits; with scale 255 it needs 0. + 255 */
    uint8_t big[32];
    memset(big, 0xff, sizeof big);
    big[0] = 0x7f;
    ck_assert_uint_eq(pq_format_decimal(big, 32, 0, NULL, 0), 77);
    ck_assert_uint_le(pq_format_decimal(big, 32, 255, NULL, 0) + 1, PQ_FORMAT_DECIMAL_MAX);
    /* floats: shortest round trip, plain notation for exponents 0..15 */
    pq_format_double(0.1, b, sizeof b);
    ck_assert_str_eq(b, "0.1");
    pq_format_double(100.0, b, sizeof b);
    ck_assert_str_eq(b, "100");
    pq_format_double(1e16, b, sizeof b);
    ck_assert_str_eq(b, "1e+16");
    pq_format_double(-1e-5, b, sizeof b);
    ck_assert_str_eq(b, "-1e-05");
    pq_format_float(0.1f, b, sizeof b);
    ck_assert_str_eq(b, "0.1");
    pq_format_float16(0x7bff, b, sizeof b); /* the largest binary16 */
    ck_assert_str_eq(b, "65504");
    pq_format_float16(0x3555, b, sizeof b); /* 0.333251953125 */
    ck_assert_str_eq(b, "0.3333");
    pq_format_float16(0xfc00, b, sizeof b);
    ck_assert_str_eq(b, "-inf");
    uint8_t widest[64];
    memset(widest, 0x80, 1);
    memset(widest + 1, 0, 63); /* -2^511: the longest magnitude */
    ck_assert_uint_le(pq_format_decimal(widest, 64, 255, NULL, 0) + 1, PQ_FORMAT_DECIMAL_MAX);
}
END_TEST

static Suite *stat_format_suite(void)
{
    Suite *s = suite_create("stat_format");
    TCase *tc = tcase_create("fixed");
    tcase_add_test(tc, boolean);
    tcase_add_test(tc, text_functions);
    tcase_add_test(tc, int32_plain_and_integer);
    tcase_add_test(tc, int64_plain_and_integer);
    tcase_add_test(tc, dates);
    tcase_add_test(tc, times);
    tcase_add_test(tc, timestamps);
    tcase_add_test(tc, decimals_int);
    tcase_add_test(tc, floats);
    tcase_add_test(tc, float16);
    tcase_add_test(tc, int96_is_hex);
    suite_add_tcase(s, tc);

    tc = tcase_create("bytes");
    tcase_add_test(tc, decimals_bytes);
    tcase_add_test(tc, strings);
    tcase_add_test(tc, binary_and_uuid);
    tcase_add_test(tc, unknown_physical_type);
    tcase_add_test(tc, buffer_contract);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(stat_format_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
