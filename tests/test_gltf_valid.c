/* glTF files the Khronos validator reports with zero errors must load (issue #12):
 * an unused buffer without `uri` outside a GLB, unused buffers with a non-base64
 * data: URI or an http: URI, MAT2/MAT3 accessors of BYTE/SHORT whose last element
 * needs no trailing column padding, a GLB with one byte after its declared length,
 * an unknown accessor `type` on an unused accessor. Each loads with a located
 * warning; the same defect where ossa reads the data is still the old error. */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/gltf/gltf_internal.h"

/* one triangle: 36 bytes of positions in a data: URI (buffer 0, view 0, accessor 0) */
#define POS_URI "data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA"

static char doc[4096];

/* Builds a document with extra buffers / views / accessors appended (JSON fragments
 * starting with ",", or "" for none); position accessor type and buffer 0 uri overridable. */
static const char *make(const char *buffer0_uri, const char *extra_buffers, const char *extra_views,
                        const char *pos_type, const char *extra_accessors) {
    snprintf(doc, sizeof doc,
             "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
             "\"nodes\":[{\"mesh\":0}],\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],"
             "\"buffers\":[{\"byteLength\":36%s%s%s}%s],"
             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}%s],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"%s\","
             "\"min\":[0,0,0],\"max\":[1,1,0]}%s]}",
             buffer0_uri ? ",\"uri\":\"" : "", buffer0_uri ? buffer0_uri : "", buffer0_uri ? "\"" : "", extra_buffers,
             extra_views, pos_type, extra_accessors);
    return doc;
}

static ossa_asset *load_text(const char *text, ossa_result expect, const char *message_part) {
    ossa_asset *a = NULL;
    ossa_diagnostic d;
    ossa_result r = ossa_gltf_load_memory(text, strlen(text), NULL, &a, &d);
    if (r != expect)
        fail_msg("expected %s, got %s: %s\n%s", ossa_result_string(expect), ossa_result_string(r), d.message, text);
    if (r && message_part && !strstr(d.message, message_part)) fail_msg("'%s' lacks '%s'", d.message, message_part);
    return a;
}

static void expect_warning(const ossa_asset *a, const char *part) {
    for (uint32_t i = 0; i < a->warning_count; i++)
        if (strstr(a->warnings[i], part)) return;
    for (uint32_t i = 0; i < a->warning_count; i++) printf("warning: %s\n", a->warnings[i]);
    fail_msg("no warning with '%s'", part);
}

/* the triangle itself must be intact */
static void expect_triangle(const ossa_asset *a) {
    assert_int_equal(a->mesh_count, 1);
    assert_int_equal(a->meshes[0]->vertex_count, 3);
    ot_assert_near(a->meshes[0]->positions[3], 1, 0);
    ot_assert_near(a->meshes[0]->positions[7], 1, 0);
}

static void unused_buffers_load(void **state) {
    (void)state;
    static const struct {
        const char *buffer, *warning;
    } cases[] = {
        {",{\"byteLength\":4}", "buffers[1]: not loaded (buffers[1]: buffer has no uri and is not the GLB-stored buffer)"},
        {",{\"byteLength\":4,\"uri\":\"data:application/octet-stream,abcd\"}", "buffers[1]: not loaded (buffers[1]: data: URI is not base64)"},
        {",{\"byteLength\":4,\"uri\":\"http://example.com/a.bin\"}", "URI scheme in 'http://example.com/a.bin' is not supported"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* unused, and also referenced by an unused bufferView */
        for (int with_view = 0; with_view < 2; with_view++) {
            ossa_asset *a = load_text(make(POS_URI, cases[i].buffer, with_view ? ",{\"buffer\":1,\"byteLength\":4}" : "",
                                           "VEC3", ""),
                                      OSSA_OK, NULL);
            expect_warning(a, cases[i].warning);
            expect_triangle(a);
            ossa_asset_destroy(a);
        }
    }
    /* the same buffers where the positions live stay errors, with the old diagnostics */
    load_text(make(NULL, "", "", "VEC3", ""), OSSA_ERROR_INVALID_DATA,
              "buffers[0]: buffer has no uri and is not the GLB-stored buffer");
    load_text(make("data:application/octet-stream,abcd", "", "", "VEC3", ""), OSSA_ERROR_UNSUPPORTED,
              "buffers[0]: data: URI is not base64");
    load_text(make("http://example.com/a.bin", "", "", "VEC3", ""), OSSA_ERROR_UNSUPPORTED, "URI scheme");
    /* the error names the buffer (JSON path) like before */
    ossa_asset *a = NULL;
    ossa_diagnostic d;
    const char *t = make("http://example.com/a.bin", "", "", "VEC3", "");
    assert_int_equal(ossa_gltf_load_memory(t, strlen(t), NULL, &a, &d), OSSA_ERROR_UNSUPPORTED);
    assert_string_equal(d.path, "/buffers/0");
    /* a bufferView past an unloaded buffer's byteLength is still an error (the buffer's, as before) */
    load_text(make(POS_URI, ",{\"byteLength\":4}", ",{\"buffer\":1,\"byteLength\":8}", "VEC3", ""), OSSA_ERROR_INVALID_DATA,
              "buffer has no uri");
}

static void matrix_accessors_without_trailing_padding(void **state) {
    (void)state;
    /* 2 elements; bytes = element size + last element without its last column's padding */
    static const struct {
        const char *type;
        unsigned ct, bytes;
        const char *b64;
    } cases[] = {
        {"MAT2", 5120, 14, "AQIAAAMEAAAFBgAABwg="},                      /* columns of 2 bytes padded to 4 */
        {"MAT3", 5121, 23, "AQIDAAQFBgAHCAkACgsMAA0ODwAQERI="},          /* 3 bytes padded to 4 */
        {"MAT3", 5123, 46, "AQACAAMAAAAEAAUABgAAAAcACAAJAAAACgALAAwAAAANAA4ADwAAABAAEQASAA=="}, /* 6 padded to 8 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[256], view[96], acc[160];
        snprintf(buf, sizeof buf, ",{\"byteLength\":%u,\"uri\":\"data:application/octet-stream;base64,%s\"}", cases[i].bytes,
                 cases[i].b64);
        snprintf(view, sizeof view, ",{\"buffer\":1,\"byteLength\":%u}", cases[i].bytes);
        snprintf(acc, sizeof acc, ",{\"bufferView\":1,\"componentType\":%u,\"count\":2,\"type\":\"%s\"}", cases[i].ct,
                 cases[i].type);
        ossa_asset *a = load_text(make(POS_URI, buf, view, "VEC3", acc), OSSA_OK, NULL);
        expect_triangle(a);
        ossa_asset_destroy(a);
        /* one byte less is still past the view */
        snprintf(view, sizeof view, ",{\"buffer\":1,\"byteLength\":%u}", cases[i].bytes - 1);
        load_text(make(POS_URI, buf, view, "VEC3", acc), OSSA_ERROR_INVALID_DATA, "exceeds bufferView 1");
    }
}

static void unknown_type_on_unused_accessor(void **state) {
    (void)state;
    ossa_asset *a =
        load_text(make(POS_URI, "", "", "VEC3", ",{\"bufferView\":0,\"componentType\":5126,\"count\":1,\"type\":\"VEC5\"}"),
                  OSSA_OK, NULL);
    expect_warning(a, "accessors[1]: unknown accessor type 'VEC5'");
    expect_triangle(a);
    ossa_asset_destroy(a);
    /* used as POSITION: an error */
    load_text(make(POS_URI, "", "", "VEC5", ""), OSSA_ERROR_INVALID_DATA, "accessor 0 is unknown");
    /* a missing type stays an error (the validator reports it too) */
    load_text(make(POS_URI, "", "", "VEC3", ",{\"bufferView\":0,\"componentType\":5126,\"count\":1}"),
              OSSA_ERROR_INVALID_DATA, "missing or unknown accessor type");
}

/* GLB of the triangle with its positions in the BIN chunk, plus `extra` bytes after the container. */
static uint8_t *make_glb(size_t extra, size_t *size) {
    static const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    char json[1024];
    int n = snprintf(json, sizeof json,
                     "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"mesh\":0}],\"meshes\":[{\"primitives\":[{\"attributes\":"
                     "{\"POSITION\":0}}]}],\"buffers\":[{\"byteLength\":36}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],"
                     "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}]}");
    uint32_t jl = (uint32_t)((n + 3) & ~3), bl = 36, total = 12 + 8 + jl + 8 + bl;
    uint8_t *g = calloc(total + extra, 1);
    memcpy(g, "glTF", 4);
    uint32_t h[2] = {2, total};
    memcpy(g + 4, h, 8);
    uint32_t c0[2] = {jl, 0x4E4F534Au};
    memcpy(g + 12, c0, 8);
    memset(g + 20, ' ', jl);
    memcpy(g + 20, json, (size_t)n);
    uint32_t c1[2] = {bl, 0x004E4942u};
    memcpy(g + 20 + jl, c1, 8);
    memcpy(g + 28 + jl, pos, 36);
    for (size_t i = 0; i < extra; i++) g[total + i] = 0xAB;
    *size = total + extra;
    return g;
}

static void glb_with_bytes_after_its_length(void **state) {
    (void)state;
    size_t size;
    uint8_t *g = make_glb(1, &size);
    ossa_asset *a = NULL;
    ossa_diagnostic d;
    assert_int_equal(ossa_gltf_load_memory(g, size, NULL, &a, &d), OSSA_OK);
    expect_warning(a, "GLB: 1 bytes after the declared length");
    expect_triangle(a);
    ossa_asset_destroy(a);
    /* one byte short of the declared length is still an error */
    assert_int_equal(ossa_gltf_load_memory(g, size - 2, NULL, &a, &d), OSSA_ERROR_PARSE);
    assert_non_null(strstr(d.message, "does not match"));
    free(g);
}

/* base64 decoding (the AVX2 block path and the scalar path): random data of every length up
 * to 300 bytes round-trips; base64url characters decode like + and /; one bad character
 * anywhere is refused. The encoder here is written from RFC 4648. */
static size_t encode(const uint8_t *d, size_t n, char *out, bool url) {
    const char *A = url ? "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
                        : "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)d[i] << 16 | (i + 1 < n ? (uint32_t)d[i + 1] << 8 : 0) | (i + 2 < n ? d[i + 2] : 0);
        out[o++] = A[v >> 18 & 63];
        out[o++] = A[v >> 12 & 63];
        out[o++] = i + 1 < n ? A[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? A[v & 63] : '=';
    }
    return o;
}

static void base64_round_trips(void **state) {
    (void)state;
    uint64_t rng = 99;
    uint8_t data[300], back[300 + 8];
    char text[404];
    for (size_t n = 0; n <= 300; n++) {
        for (size_t i = 0; i < n; i++) data[i] = (uint8_t)ot_rand_u64(&rng);
        for (int url = 0; url < 2; url++) {
            size_t len = encode(data, n, text, url);
            size_t got = 0;
            assert_true(ossa__base64_decoded_bound(len) <= sizeof back);
            assert_true(ossa__base64_decode(text, len, back, &got));
            assert_int_equal(got, n);
            assert_memory_equal(back, data, n);
            if (len) { /* one bad character anywhere */
                char bad = "!*.\x80 \n"[ot_rand_u64(&rng) % 6];
                size_t at = (size_t)(ot_rand_u64(&rng) % len);
                if (text[at] == '=') continue;
                char keep = text[at];
                text[at] = bad;
                assert_false(ossa__base64_decode(text, len, back, &got));
                text[at] = keep;
            }
        }
    }
}

/* The tokeniser skips jsmn's character loop over long strings (embedded base64) by
 * resuming jsmn around them: on random documents with long strings as values, keys,
 * array elements and after the top-level object, mutated near the quotes and anywhere
 * (quotes, backslashes, NULs, brackets, primitives running into a quote), it gives the
 * same result, position and tokens as one jsmn_parse call over the whole text, with
 * enough tokens and with too few. */
#define JSMN_STATIC
#define JSMN_STRICT
#define JSMN_PARENT_LINKS
#include <jsmn.h>

static size_t put(char *d, size_t o, const char *s) {
    size_t n = strlen(s);
    memcpy(d + o, s, n);
    return o + n;
}

/* 0 to 40 bytes of JSON whitespace (pretty-printed files are mostly indentation) */
static size_t put_ws(char *d, size_t o, uint64_t *rng) {
    size_t n = ot_rand_u64(rng) % 3 ? 0 : (size_t)(ot_rand_u64(rng) % 41);
    for (size_t i = 0; i < n; i++) d[o++] = " \n\t\r"[ot_rand_u64(rng) % 4];
    return o;
}

static size_t put_long(char *d, size_t o, uint64_t *rng, size_t *opens, uint32_t *nopen) {
    static const char A[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = 4090 + (size_t)(ot_rand_u64(rng) % 3000); /* around the 4096 threshold */
    opens[(*nopen)++] = o;
    d[o++] = '"';
    for (size_t i = 0; i < n; i++) d[o++] = A[ot_rand_u64(rng) % 64];
    if (ot_rand_u64(rng) % 8 == 0) d[o - 1 - ot_rand_u64(rng) % n] = ot_rand_u64(rng) % 2 ? '\\' : '\0';
    d[o++] = '"';
    return o;
}

static void tokenize_equals_one_jsmn_call(void **state) {
    (void)state;
    uint64_t rng = 12;
    size_t cap = 64 * 1024;
    char *d = malloc(cap);
    jsmntok_t *a = malloc(4096 * sizeof *a), *b = malloc(4096 * sizeof *b);
    assert_non_null(d);
    assert_non_null(a);
    assert_non_null(b);
    unsigned skipped = 0, ok = 0, errors = 0;
    for (int iter = 0; iter < 3000; iter++) {
        size_t opens[16], o = 0;
        uint32_t nopen = 0;
        o = put_ws(d, o, &rng);
        o = put(d, o, "{\"a\":[1,2,{\"k\":");
        o = put_long(d, o, &rng, opens, &nopen);
        o = put_ws(d, o, &rng);
        o = put(d, o, "}],");
        o = put_ws(d, o, &rng);
        if (ot_rand_u64(&rng) % 2) o = put_long(d, o, &rng, opens, &nopen);
        else o = put(d, o, "\"key\"");
        o = put(d, o, " : ");
        o = put_long(d, o, &rng, opens, &nopen);
        o = put(d, o, ",\"arr\":[");
        o = put_ws(d, o, &rng);
        o = put_long(d, o, &rng, opens, &nopen);
        o = put(d, o, ", true, null, -1.5e3],");
        o = put_ws(d, o, &rng);
        o = put(d, o, "\"nested\":[[{\"x\":[0.25, {\"y\" :\"a,b:[{\"}]}],[ ]],");
        o = put_ws(d, o, &rng);
        o = put(d, o, "\"s\":\"short\\\"esc\\u0041\"}");
        if (ot_rand_u64(&rng) % 4 == 0) o = put_long(d, o, &rng, opens, &nopen); /* trailing data */
        int mutations = (int)(ot_rand_u64(&rng) % 4);
        for (int m = 0; m < mutations; m++) {
            static const char C[] = "\"\\{}[],:1x -tn";
            size_t at = ot_rand_u64(&rng) % 2 ? opens[ot_rand_u64(&rng) % nopen] + ot_rand_u64(&rng) % 7 - 3
                                               : (size_t)(ot_rand_u64(&rng) % o);
            if (at < o) d[at] = ot_rand_u64(&rng) % 16 ? C[ot_rand_u64(&rng) % (sizeof C - 1)] : '\0';
        }
        size_t bound;
        ossa__json_skip skips[OSSA__JSON_MAX_SKIPS];
        uint32_t nskip;
        assert_int_equal(ossa__json_scan(d, o, &bound, skips, &nskip), SIZE_MAX);
        assert_true(bound <= 4096);
        skipped += nskip;
        for (int small = 0; small < 2; small++) {
            unsigned tokens = small ? (unsigned)(ot_rand_u64(&rng) % (bound + 1)) : (unsigned)bound;
            jsmn_parser p;
            jsmn_init(&p);
            memset(a, 0x5A, 4096 * sizeof *a);
            memset(b, 0x5A, 4096 * sizeof *b);
            int n1 = jsmn_parse(&p, d, o, a, tokens);
            /* the bound holds where the pre-pass and jsmn agree on the strings (in strict mode a
             * jsmn primitive may swallow a quote of a malformed document: both then fail alike) */
            if (!small && !mutations) assert_int_not_equal(n1, JSMN_ERROR_NOMEM);
            unsigned pos = 0;
            int n2 = ossa__json_tokenize(d, o, skips, nskip, b, tokens, &pos);
            assert_int_equal(n1, n2);
            assert_int_equal(p.pos, pos);
            /* every token jsmn wrote (on errors too) */
            assert_memory_equal(a, b, (size_t)p.toknext * sizeof *a);
            if (n1 > 0) ok++;
            else errors++;
        }
    }
    assert_true(skipped > 3000); /* the fast path ran */
    assert_true(ok > 500 && errors > 500);
    free(d);
    free(a);
    free(b);
}

/* The SIMD decoder equals the scalar one (verdict and bytes) on random text of many
 * lengths, with every invalid, padding and base64url character at every position and each
 * padding form; ossa__base64_check gives the decoder's verdict and size without decoding;
 * ranges decoded on demand equal the same slice of the whole decode, for every offset and
 * length, and write nothing outside their range. */
/* SIMD and scalar decoders give the same verdict and bytes; the check gives that verdict and size. */
static void decoders_agree(const char *text, size_t len, uint8_t *a, uint8_t *b) {
    size_t ga = 0, gb = 0, text_len = 0, size = 0;
    bool va = ossa__base64_decode(text, len, a, &ga), vb = ossa__base64_decode_scalar(text, len, b, &gb);
    assert_int_equal(va, vb);
    assert_int_equal(ossa__base64_check(text, len, &text_len, &size), va);
    if (va) {
        assert_int_equal(ga, gb);
        assert_int_equal(size, ga);
        assert_memory_equal(a, b, ga);
    }
}

static void base64_simd_check_and_ranges(void **state) {
    (void)state;
    uint64_t rng = 7;
    enum { MAXB = 1200 };
    static uint8_t data[MAXB], a[MAXB + 64], b[MAXB + 64], r[MAXB + 64];
    static char text[MAXB * 2];
    static const size_t lens[] = {0, 1, 2, 3, 4, 5, 35, 36, 37, 47, 48, 49, 96, 200, 301, 1000, MAXB};
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        size_t n = lens[li];
        for (size_t i = 0; i < n; i++) data[i] = (uint8_t)ot_rand_u64(&rng);
        size_t len = encode(data, n, text, false);
        /* padding forms: as encoded, stripped, one '=' more or less */
        for (int form = 0; form < 3; form++) {
            size_t tl = len;
            if (form == 1)
                while (tl && text[tl - 1] == '=') tl--;
            if (form == 2) text[tl++] = '=';
            decoders_agree(text, tl, a, b);
        }
        /* one character replaced at every position (a sample for long texts) */
        static const char C[] = "!*.=\x80 \n\"-_A+/";
        for (size_t at = 0; at < len; at += len > 120 ? 1 + ot_rand_u64(&rng) % 13 : 1) {
            char keep = text[at];
            text[at] = C[ot_rand_u64(&rng) % (sizeof C - 1)];
            decoders_agree(text, len, a, b);
            text[at] = keep;
        }
        /* ranges of the valid text */
        size_t text_len = 0, size = 0, ga = 0;
        assert_true(ossa__base64_check(text, len, &text_len, &size));
        assert_int_equal(size, n);
        assert_true(ossa__base64_decode(text, len, a, &ga));
        size_t step = n > 100 ? 1 + n / 40 : 1;
        for (size_t off = 0; off <= n; off += step)
            for (size_t cnt = 0; off + cnt <= n; cnt += (cnt < 8 ? 1 : step)) {
                memset(r, 0xA5, cnt + 64);
                ossa__base64_decode_range(text, text_len, off, cnt, r + 32);
                assert_memory_equal(r + 32, a + off, cnt);
                for (size_t g = 0; g < 32; g++) assert_true(r[g] == 0xA5 && r[32 + cnt + g] == 0xA5);
            }
    }
}

/* ossa__path_join formats what snprintf "%s%s%lld" does (no number for -1), truncation included. */
static void path_join_equals_snprintf(void **state) {
    (void)state;
    uint64_t rng = 3;
    static const char *const bases[] = {"", "/animations/7", "/animations/12/channels/1023"};
    static const char *const segs[] = {"/samplers/", "/target", "/accessors/", ""};
    static const int64_t idx[] = {-1, 0, 9, 10, 1019, 4294967295LL};
    for (size_t b = 0; b < 3; b++)
        for (size_t s = 0; s < 4; s++)
            for (size_t i = 0; i < 6; i++)
                for (size_t size = 1; size < 64; size += 1 + ot_rand_u64(&rng) % 3) {
                    char got[64], want[64];
                    memset(got, 'x', sizeof got);
                    ossa__path_join(got, size, bases[b], segs[s], idx[i]);
                    if (idx[i] < 0) snprintf(want, size, "%s%s", bases[b], segs[s]);
                    else snprintf(want, size, "%s%s%lld", bases[b], segs[s], (long long)idx[i]);
                    assert_string_equal(got, want);
                }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unused_buffers_load),
        cmocka_unit_test(matrix_accessors_without_trailing_padding),
        cmocka_unit_test(unknown_type_on_unused_accessor),
        cmocka_unit_test(glb_with_bytes_after_its_length),
        cmocka_unit_test(base64_round_trips),
        cmocka_unit_test(base64_simd_check_and_ranges),
        cmocka_unit_test(tokenize_equals_one_jsmn_call),
        cmocka_unit_test(path_join_equals_snprintf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
