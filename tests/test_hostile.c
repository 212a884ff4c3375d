/* Hostile input (issue #6): every class of bad file in docs/hostile-input.md has a case
 * here that checks the exact result code and the diagnostic's JSON place. The documents
 * are generated in this file (a small skinned, animated triangle: .gltf with a data: URI,
 * or .glb), then broken one way each. Also: regressions for the bugs the fuzzers found,
 * the max_allocation cap, deep nesting and deep node chains, and every file of
 * ../shared/assets/malformed/ (skipped with a printed reason when absent). */
#include "gltf_writer.h"
#include "test_support.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- document builder */

/* Binary buffer layout of the base document (byte offsets). */
enum {
    OFF_POS = 0,      /* 3 x VEC3 float        36 B */
    OFF_IDX = 36,     /* 3 x u16 (+2 pad)       8 B */
    OFF_JNT = 44,     /* 3 x VEC4 u8           12 B */
    OFF_WGT = 56,     /* 3 x VEC4 float        48 B */
    OFF_IBM = 104,    /* 2 x MAT4 float       128 B */
    OFF_TIME = 232,   /* 3 x float             12 B */
    OFF_ROT = 244,    /* 3 x VEC4 float        48 B */
    BIN_SIZE = 292
};

static void put_f(uint8_t *bin, size_t off, const float *v, size_t n) { memcpy(bin + off, v, n * sizeof *v); }

static void base_bin(uint8_t *bin) {
    memset(bin, 0, BIN_SIZE);
    const float pos[] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const uint16_t idx[] = {0, 1, 2};
    const uint8_t jnt[] = {0, 1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0};
    const float wgt[] = {0.5f, 0.5f, 0, 0, 1, 0, 0, 0, 0.75f, 0.25f, 0, 0};
    const float ibm[] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1};
    const float times[] = {0, 0.5f, 1};
    const float rot[] = {0, 0, 0, 1, 0, 0, 0.70710678f, 0.70710678f, 0, 0, 1, 0};
    put_f(bin, OFF_POS, pos, 9);
    memcpy(bin + OFF_IDX, idx, sizeof idx);
    memcpy(bin + OFF_JNT, jnt, sizeof jnt);
    put_f(bin, OFF_WGT, wgt, 12);
    put_f(bin, OFF_IBM, ibm, 32);
    put_f(bin, OFF_TIME, times, 3);
    put_f(bin, OFF_ROT, rot, 12);
}

/* @BUFFER@ is replaced by the buffer object. */
static const char BASE_JSON[] =
    "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0,1]}],"
    "\"nodes\":[{\"name\":\"skinned\",\"mesh\":0,\"skin\":0},{\"name\":\"root\",\"children\":[2]},"
    "{\"name\":\"child\",\"translation\":[0,1,0]}],"
    "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":2,\"WEIGHTS_0\":3},\"indices\":1}]}],"
    "\"skins\":[{\"joints\":[1,2],\"inverseBindMatrices\":4}],"
    "\"animations\":[{\"name\":\"turn\",\"samplers\":[{\"input\":5,\"output\":6}],"
    "\"channels\":[{\"sampler\":0,\"target\":{\"node\":2,\"path\":\"rotation\"}}]}],"
    "\"accessors\":["
    "{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
    "{\"bufferView\":1,\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\"},"
    "{\"bufferView\":2,\"componentType\":5121,\"count\":3,\"type\":\"VEC4\"},"
    "{\"bufferView\":3,\"componentType\":5126,\"count\":3,\"type\":\"VEC4\"},"
    "{\"bufferView\":4,\"componentType\":5126,\"count\":2,\"type\":\"MAT4\"},"
    "{\"bufferView\":5,\"componentType\":5126,\"count\":3,\"type\":\"SCALAR\"},"
    "{\"bufferView\":6,\"componentType\":5126,\"count\":3,\"type\":\"VEC4\"}],"
    "\"bufferViews\":["
    "{\"buffer\":0,\"byteOffset\":0,\"byteLength\":36},"
    "{\"buffer\":0,\"byteOffset\":36,\"byteLength\":6},"
    "{\"buffer\":0,\"byteOffset\":44,\"byteLength\":12},"
    "{\"buffer\":0,\"byteOffset\":56,\"byteLength\":48},"
    "{\"buffer\":0,\"byteOffset\":104,\"byteLength\":128},"
    "{\"buffer\":0,\"byteOffset\":232,\"byteLength\":12},"
    "{\"buffer\":0,\"byteOffset\":244,\"byteLength\":48}],"
    "\"buffers\":[@BUFFER@]}";

/* Returns a malloc'd copy of s with the first occurrence of `from` replaced by `to`;
 * fails the test if `from` is absent (a case must really change the document). */
static char *replace(const char *s, const char *from, const char *to) {
    const char *at = strstr(s, from);
    if (!at) fail_msg("test document has no '%s'", from);
    size_t a = (size_t)(at - s), fl = strlen(from), tl = strlen(to), sl = strlen(s);
    char *out = malloc(sl - fl + tl + 1);
    assert_non_null(out);
    memcpy(out, s, a);
    memcpy(out + a, to, tl);
    memcpy(out + a + tl, at + fl, sl - a - fl + 1);
    return out;
}

/* Applies NULL-terminated (from, to) pairs to s (taking ownership of s). */
static char *apply(char *s, const char *const *edits) {
    for (size_t i = 0; edits && edits[i]; i += 2) {
        char *n = replace(s, edits[i], edits[i + 1]);
        free(s);
        s = n;
    }
    return s;
}

static void b64(const uint8_t *in, size_t n, char *out) {
    static const char A[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) | (i + 2 < n ? in[i + 2] : 0);
        out[o++] = A[v >> 18 & 63];
        out[o++] = A[v >> 12 & 63];
        out[o++] = i + 1 < n ? A[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? A[v & 63] : '=';
    }
    out[o] = 0;
}

/* .gltf text: the base JSON with a data: URI buffer, then the edits. */
static char *make_gltf_bin(const uint8_t *bin, const char *const *edits) {
    char buf[1024];
    char data[512];
    b64(bin, BIN_SIZE, data);
    snprintf(buf, sizeof buf, "{\"byteLength\":%d,\"uri\":\"data:application/octet-stream;base64,%s\"}", BIN_SIZE, data);
    return apply(replace(BASE_JSON, "@BUFFER@", buf), edits);
}

static char *make_gltf(const char *const *edits) {
    uint8_t bin[BIN_SIZE];
    base_bin(bin);
    return make_gltf_bin(bin, edits);
}

static void put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

/* .glb bytes: JSON chunk (space padded) + BIN chunk, then the edits on the JSON. */
static uint8_t *make_glb(const char *const *edits, size_t *size) {
    char b[64];
    snprintf(b, sizeof b, "{\"byteLength\":%d}", BIN_SIZE);
    char *json = apply(replace(BASE_JSON, "@BUFFER@", b), edits);
    size_t jl = strlen(json), jp = (jl + 3) & ~(size_t)3;
    size_t total = 12 + 8 + jp + 8 + BIN_SIZE;
    uint8_t *g = calloc(1, total);
    assert_non_null(g);
    memcpy(g, "glTF", 4);
    put32(g + 4, 2);
    put32(g + 8, (uint32_t)total);
    put32(g + 12, (uint32_t)jp);
    put32(g + 16, 0x4E4F534Au);
    memcpy(g + 20, json, jl);
    memset(g + 20 + jl, ' ', jp - jl);
    put32(g + 20 + jp, BIN_SIZE);
    put32(g + 24 + jp, 0x004E4942u);
    base_bin(g + 28 + jp);
    free(json);
    *size = total;
    return g;
}

/* ---------------------------------------------------------------- expectations */

static ossa_result load(const void *data, size_t size, const ossa_load_options *o, ossa_diagnostic *d) {
    ossa_asset *a = (ossa_asset *)(uintptr_t)1;
    ossa_result r = ossa_gltf_load_memory(data, size, o, &a, d);
    if (r == OSSA_OK) {
        assert_non_null(a);
        ossa_asset_destroy(a);
    } else {
        assert_null(a);
    }
    return r;
}

/* Loads text and checks the result code, the diagnostic's JSON pointer (exact, or NULL
 * to skip) and that the message contains `msg`. */
static void expect_text(const char *json, ossa_result code, const char *path, const char *msg) {
    ossa_diagnostic d;
    ossa_result r = load(json, strlen(json), NULL, &d);
    if (getenv("OSSA_HOSTILE_VERBOSE")) /* prints the diagnostics quoted in docs/hostile-input.md */
        printf("[ DIAG     ] %s '%s': %s\n", ossa_result_string(r), d.path, d.message);
    if (r != code || (path && strcmp(d.path, path) != 0) || (msg && !strstr(d.message, msg)))
        fail_msg("expected %s at '%s' with '%s'; got %s at '%s': %s", ossa_result_string(code), path ? path : "*",
                 msg ? msg : "", ossa_result_string(r), d.path, d.message);
}

static void expect_edits(const char *const *edits, ossa_result code, const char *path, const char *msg) {
    char *j = make_gltf(edits);
    expect_text(j, code, path, msg);
    free(j);
}

#define EDITS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* ---------------------------------------------------------------- cases */

/* OSSA_HOSTILE_DUMP=DIR writes the two generated base documents there (to reproduce a
 * case outside the test, e.g. with scripts or the ossa tool). */
static void dump(const char *name, const void *data, size_t size) {
    const char *dir = getenv("OSSA_HOSTILE_DUMP");
    if (!dir) return;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) return;
    fwrite(data, 1, size, f);
    fclose(f);
}

static void base_documents_load(void **state) {
    (void)state;
    char *j = make_gltf(NULL);
    dump("hostile-base.gltf", j, strlen(j));
    ossa_asset *a = NULL;
    ossa_diagnostic d;
    assert_int_equal(ossa_gltf_load_memory(j, strlen(j), NULL, &a, &d), OSSA_OK);
    assert_int_equal(a->node_count, 3);
    assert_int_equal(a->mesh_count, 1);
    assert_int_equal(a->clip_count, 1);
    assert_int_equal(a->warning_count, 0);
    ossa_asset_destroy(a);
    free(j);
    size_t n;
    uint8_t *g = make_glb(NULL, &n);
    dump("hostile-base.glb", g, n);
    assert_int_equal(ossa_gltf_load_memory(g, n, NULL, &a, &d), OSSA_OK);
    assert_int_equal(a->mesh_count, 1);
    ossa_asset_destroy(a);
    free(g);
}

/* Row: truncated files. Every proper prefix of the .gltf and the .glb is an error. */
static void truncated_every_prefix_gltf(void **state) {
    (void)state;
    char *j = make_gltf(NULL);
    size_t n = strlen(j);
    assert_int_equal(load(j, 0, NULL, NULL), OSSA_ERROR_INVALID_ARGUMENT);
    for (size_t len = 1; len < n; len++) {
        ossa_diagnostic d;
        ossa_result r = load(j, len, NULL, &d);
        if (r != OSSA_ERROR_PARSE) fail_msg("prefix %zu of %zu: %s (%s)", len, n, ossa_result_string(r), d.message);
    }
    assert_int_equal(load(j, n, NULL, NULL), OSSA_OK);
    free(j);
}

static void truncated_every_prefix_glb(void **state) {
    (void)state;
    size_t n;
    uint8_t *g = make_glb(NULL, &n);
    for (size_t len = 1; len < n; len++) {
        ossa_diagnostic d;
        ossa_result r = load(g, len, NULL, &d);
        if (r != OSSA_ERROR_PARSE) fail_msg("prefix %zu of %zu: %s (%s)", len, n, ossa_result_string(r), d.message);
        if (len >= 20 && !strstr(d.message, "GLB: header length"))
            fail_msg("prefix %zu: unexpected message %s", len, d.message);
    }
    free(g);
}

/* Row: wrong chunk lengths (header length, JSON chunk, BIN chunk), GLB version. */
static void glb_wrong_chunk_lengths(void **state) {
    (void)state;
    size_t n;
    uint8_t *g = make_glb(NULL, &n);
    uint8_t *c = malloc(n);
    ossa_diagnostic d;
    uint32_t jp = (uint32_t)g[12] | (uint32_t)g[13] << 8;

    memcpy(c, g, n);
    put32(c + 8, (uint32_t)n + 4); /* header says more than given */
    assert_int_equal(load(c, n, NULL, &d), OSSA_ERROR_PARSE);
    assert_non_null(strstr(d.message, "GLB: header length"));

    memcpy(c, g, n);
    put32(c + 12, (uint32_t)n); /* JSON chunk runs past the end */
    assert_int_equal(load(c, n, NULL, &d), OSSA_ERROR_PARSE);
    assert_non_null(strstr(d.message, "GLB: chunk 0 length"));
    assert_non_null(strstr(d.message, "overruns the file"));

    memcpy(c, g, n);
    put32(c + 12, 0xFFFFFFF0u); /* huge: no allocation, no wrap-around */
    assert_int_equal(load(c, n, NULL, &d), OSSA_ERROR_PARSE);
    assert_non_null(strstr(d.message, "overruns the file"));

    memcpy(c, g, n);
    put32(c + 20 + jp, BIN_SIZE + 8); /* BIN chunk longer than the file */
    assert_int_equal(load(c, n, NULL, &d), OSSA_ERROR_PARSE);
    assert_non_null(strstr(d.message, "GLB: chunk 1 length"));

    memcpy(c, g, n);
    put32(c + 20 + jp, BIN_SIZE - 8); /* BIN chunk shorter: 8 stray bytes become a truncated chunk header */
    assert_int_equal(load(c, n, NULL, &d), OSSA_ERROR_PARSE);

    memcpy(c, g, n);
    put32(c + 12, jp - 4); /* JSON chunk cut inside the JSON */
    assert_int_equal(load(c, n, NULL, &d), OSSA_ERROR_PARSE);

    memcpy(c, g, n);
    put32(c + 16, 0x004E4942u); /* first chunk is BIN */
    assert_int_equal(load(c, n, NULL, &d), OSSA_ERROR_PARSE);
    assert_non_null(strstr(d.message, "first chunk is not JSON"));

    memcpy(c, g, n);
    put32(c + 4, 1); /* container version 1 */
    assert_int_equal(load(c, n, NULL, &d), OSSA_ERROR_UNSUPPORTED);
    assert_non_null(strstr(d.message, "container version 1"));
    free(c);
    free(g);
}

/* Row: GLB with the JSON's buffer 0 but no BIN chunk (a missing buffer). */
static void glb_missing_bin_chunk(void **state) {
    (void)state;
    size_t n;
    uint8_t *g = make_glb(NULL, &n);
    uint32_t jp = (uint32_t)g[12] | (uint32_t)g[13] << 8;
    size_t cut = 20 + jp;
    put32(g + 8, (uint32_t)cut);
    ossa_diagnostic d;
    assert_int_equal(load(g, cut, NULL, &d), OSSA_ERROR_INVALID_DATA);
    assert_string_equal(d.path, "/buffers/0");
    assert_non_null(strstr(d.message, "GLB has no BIN chunk"));
    free(g);
}

/* Row: out-of-range indices, each naming its place. */
static void out_of_range_indices(void **state) {
    (void)state;
    expect_edits(EDITS("\"mesh\":0,", "\"mesh\":7,"), OSSA_ERROR_INVALID_DATA, "/nodes/0/mesh",
                 "meshes index 7 out of range (1 meshes)");
    expect_edits(EDITS("\"skin\":0}", "\"skin\":1}"), OSSA_ERROR_INVALID_DATA, "/nodes/0/skin", "out of range");
    expect_edits(EDITS("\"children\":[2]", "\"children\":[3]"), OSSA_ERROR_INVALID_DATA, "/nodes/1/children/0",
                 "node index 3 out of range (3 nodes)");
    expect_edits(EDITS("{\"bufferView\":6,", "{\"bufferView\":9,"), OSSA_ERROR_INVALID_DATA,
                 "/accessors/6/bufferView", "bufferViews index 9 out of range");
    expect_edits(EDITS("{\"buffer\":0,\"byteOffset\":0,", "{\"buffer\":1,\"byteOffset\":0,"), OSSA_ERROR_INVALID_DATA,
                 "/bufferViews/0/buffer", "buffers index 1 out of range");
    expect_edits(EDITS("\"joints\":[1,2]", "\"joints\":[1,5]"), OSSA_ERROR_INVALID_DATA, "/skins/0/joints/1",
                 "node index 5 out of range");
    expect_edits(EDITS("\"sampler\":0,", "\"sampler\":1,"), OSSA_ERROR_INVALID_DATA,
                 "/animations/0/channels/0/sampler", "samplers index 1 out of range");
    expect_edits(EDITS("\"node\":2,\"path\"", "\"node\":3,\"path\""), OSSA_ERROR_INVALID_DATA,
                 "/animations/0/channels/0/target/node", "nodes index 3 out of range");
    expect_edits(EDITS("\"scene\":0,", "\"scene\":1,"), OSSA_ERROR_INVALID_DATA, "/scene", "scenes index 1 out of range");
    /* index data past the vertex count, joint data past the skin */
    uint8_t bin[BIN_SIZE];
    base_bin(bin);
    bin[OFF_IDX + 2] = 3;
    char *j = make_gltf_bin(bin, NULL);
    expect_text(j, OSSA_ERROR_INVALID_DATA, "/accessors/1", "index 3 at element 1 >= vertex count 3");
    free(j);
    base_bin(bin);
    bin[OFF_JNT + 4] = 2;
    j = make_gltf_bin(bin, NULL);
    expect_text(j, OSSA_ERROR_INVALID_DATA, "/accessors/2", "JOINTS index 2 at vertex 1 >= skin 0 joint count 2");
    free(j);
    /* accessor reaching past its bufferView, bufferView past its buffer */
    expect_edits(EDITS("{\"bufferView\":0,\"componentType\":5126,\"count\":3,",
                       "{\"bufferView\":0,\"componentType\":5126,\"count\":4,"),
                 OSSA_ERROR_INVALID_DATA, "/accessors/0", "count 4 exceeds bufferView 0");
    expect_edits(EDITS("\"byteOffset\":244,\"byteLength\":48", "\"byteOffset\":248,\"byteLength\":48"),
                 OSSA_ERROR_INVALID_DATA, "/bufferViews/6", "exceeds buffer 0 (292 bytes)");
}

/* Row: bad base64 in data: URIs. */
static void bad_base64(void **state) {
    (void)state;
    expect_edits(EDITS(";base64,", ";base64,*"), OSSA_ERROR_INVALID_DATA, "/buffers/0", "invalid base64 in data: URI");
    expect_edits(EDITS("\"byteLength\":292,", "\"byteLength\":4000,"), OSSA_ERROR_INVALID_DATA, "/buffers/0",
                 "byteLength is 4000");
    expect_edits(EDITS("\"byteLength\":292,", "\"byteLength\":293,"), OSSA_ERROR_INVALID_DATA, "/buffers/0",
                 "only 292 bytes available, byteLength is 293");
    expect_edits(EDITS(";base64,", ","), OSSA_ERROR_UNSUPPORTED, "/buffers/0", "data: URI is not base64");
    expect_edits(EDITS("data:application/octet-stream;base64,", "data:application/octet-stream;base64"),
                 OSSA_ERROR_INVALID_DATA, "/buffers/0", "malformed data: URI (no comma)");
}

/* Row: huge declared counts and lengths are refused before any allocation. */
static void huge_counts(void **state) {
    (void)state;
    expect_edits(EDITS("{\"bufferView\":0,\"componentType\":5126,\"count\":3,",
                       "{\"bufferView\":0,\"componentType\":5126,\"count\":4294967295,"),
                 OSSA_ERROR_INVALID_DATA, "/accessors/0", "count 4294967295 exceeds bufferView 0");
    expect_edits(EDITS("\"byteOffset\":0,\"byteLength\":36", "\"byteOffset\":0,\"byteLength\":4611686018427387903"),
                 OSSA_ERROR_INVALID_DATA, "/bufferViews/0", "exceeds buffer 0");
    expect_edits(EDITS("\"byteOffset\":0,\"byteLength\":36", "\"byteOffset\":18446744073709551615,\"byteLength\":36"),
                 OSSA_ERROR_INVALID_DATA, "/bufferViews/0/byteOffset", "is not an integer in");
    expect_edits(EDITS("\"byteLength\":292,", "\"byteLength\":1e300,"), OSSA_ERROR_INVALID_DATA,
                 "/buffers/0/byteLength", "is not an integer in");
    expect_edits(EDITS("\"count\":3,\"type\":\"VEC3\"", "\"count\":1e10,\"type\":\"VEC3\""), OSSA_ERROR_INVALID_DATA,
                 "/accessors/0/count", "is not an integer in [0, 4294967295]");
    /* no bufferView: the accessor is zeros, so a huge count is only bounded by the budget */
    expect_edits(EDITS("{\"bufferView\":0,\"componentType\":5126,\"count\":3,",
                       "{\"componentType\":5126,\"count\":4294967295,"),
                 OSSA_ERROR_LIMIT, "/accessors/0", "exceeds max_allocation (1073741824 bytes): the load already holds");
}

/* Row: cycles in the node hierarchy; a node with two parents. */
static void cycles_and_two_parents(void **state) {
    (void)state;
    expect_edits(EDITS("\"name\":\"child\",", "\"name\":\"child\",\"children\":[1],"), OSSA_ERROR_INVALID_DATA,
                 "/nodes/1", "cycle in the node hierarchy");
    expect_edits(EDITS("\"children\":[2]", "\"children\":[1]"), OSSA_ERROR_INVALID_DATA, "/nodes/1/children/0",
                 "node is its own child (cycle)");
    expect_edits(EDITS("\"name\":\"skinned\",", "\"name\":\"skinned\",\"children\":[2],"), OSSA_ERROR_INVALID_DATA,
                 "/nodes/1/children/0", "node 2 has two parents (nodes 0 and 1)");
    expect_edits(EDITS("\"children\":[2]", "\"children\":[2,2]"), OSSA_ERROR_INVALID_DATA, "/nodes/1/children/1",
                 "node 2 has two parents (nodes 1 and 1)");
}

/* Row: NaN / Inf: in JSON numbers (no literal exists, so overflowing ones) and in buffers. */
static void nan_and_inf(void **state) {
    (void)state;
    expect_edits(EDITS("\"translation\":[0,1,0]", "\"translation\":[0,1e39,0]"), OSSA_ERROR_INVALID_DATA,
                 "/nodes/2/translation/1", "out of float range");
    expect_edits(EDITS("\"translation\":[0,1,0]", "\"translation\":[0,1e999,0]"), OSSA_ERROR_INVALID_DATA,
                 "/nodes/2/translation/1", "invalid number '1e999'");
    expect_edits(EDITS("\"translation\":[0,1,0]", "\"translation\":[0,NaN,0]"), OSSA_ERROR_PARSE, "", "JSON:");
    uint8_t bin[BIN_SIZE];
    const float nan = NAN, inf = INFINITY;
    base_bin(bin);
    put_f(bin, OFF_TIME + 4, &nan, 1);
    char *j = make_gltf_bin(bin, NULL);
    expect_text(j, OSSA_ERROR_INVALID_DATA, "/accessors/5", "element 1 component 0 is not finite");
    free(j);
    base_bin(bin);
    put_f(bin, OFF_POS + 4, &inf, 1);
    j = make_gltf_bin(bin, NULL);
    expect_text(j, OSSA_ERROR_INVALID_DATA, "/accessors/0", "element 0 component 1 is not finite");
    free(j);
    base_bin(bin);
    put_f(bin, OFF_ROT + 16, &nan, 1);
    j = make_gltf_bin(bin, NULL);
    expect_text(j, OSSA_ERROR_INVALID_DATA, "/accessors/6", "element 1 component 0 is not finite");
    free(j);
    base_bin(bin);
    put_f(bin, OFF_IBM + 64 + 52, &inf, 1);
    j = make_gltf_bin(bin, NULL);
    expect_text(j, OSSA_ERROR_INVALID_DATA, "/accessors/4", "element 1 component 13 is not finite");
    free(j);
}

/* Row: non-increasing key times (equal and decreasing). */
static void non_increasing_times(void **state) {
    (void)state;
    uint8_t bin[BIN_SIZE];
    const float eq[] = {0, 0.5f, 0.5f}, dec[] = {0, 1, 0.5f};
    base_bin(bin);
    put_f(bin, OFF_TIME, eq, 3);
    char *j = make_gltf_bin(bin, NULL);
    expect_text(j, OSSA_ERROR_INVALID_DATA, "/animations/0/samplers/0/input",
                "times not strictly increasing at key 2 (0.5 after 0.5)");
    free(j);
    base_bin(bin);
    put_f(bin, OFF_TIME, dec, 3);
    j = make_gltf_bin(bin, NULL);
    expect_text(j, OSSA_ERROR_INVALID_DATA, "/animations/0/samplers/0/input", "at key 2 (0.5 after 1)");
    free(j);
}

/* Row: missing buffers (external file, no uri). */
static void missing_buffers(void **state) {
    (void)state;
    expect_edits(EDITS("\"uri\":\"data:", "\"urx\":\"data:"), OSSA_ERROR_INVALID_DATA, "/buffers/0",
                 "buffer has no uri and is not the GLB-stored buffer");
    char *j = make_gltf(NULL);
    char *k = replace(j, "\"buffers\":[{", "\"buffers\":[{\"uri\":\"missing.bin\",\"byteLength\":4},{");
    k = apply(k, EDITS("{\"buffer\":0,", "{\"buffer\":1,"));
    expect_text(k, OSSA_ERROR_IO, "/buffers/0", "external buffer 'missing.bin' needs options->base_dir");
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.base_dir = ot_tmp("hostile-no-such-dir");
    ossa_diagnostic d;
    assert_int_equal(load(k, strlen(k), &o, &d), OSSA_ERROR_IO);
    assert_string_equal(d.path, "/buffers/0");
    assert_non_null(strstr(d.message, "cannot open"));
    /* a URI naming a directory (was: LIMIT from the directory's bogus size) */
    char *dir = replace(k, "missing.bin", "..");
    o.base_dir = ot_tmp("");
    assert_int_equal(load(dir, strlen(dir), &o, &d), OSSA_ERROR_IO);
    assert_string_equal(d.path, "/buffers/0");
    assert_non_null(strstr(d.message, "is not a regular file"));
    free(dir);
    free(k);
    free(j);
    expect_edits(EDITS("\"buffers\":[{", "\"buffers\":[],\"x\":[{"), OSSA_ERROR_INVALID_DATA, "/bufferViews/0/buffer",
                 "buffers index 0 out of range (0 buffers)");
}

/* Row: missing buffers, external: the .bin shorter than byteLength, absent, or a
 * directory; written with the tests' glTF writer (tests/support/gltf_writer.h). */
static void external_buffer_short_or_absent(void **state) {
    (void)state;
    const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    gw *w = gw_create();
    int acc = gw_data(w, GW_FLOAT, false, 3, "VEC3", pos);
    gw_add(w, "meshes", "{\"primitives\": [{\"attributes\": {\"POSITION\": %d}}]}", acc);
    gw_add(w, "nodes", "{\"mesh\": 0}");
    char gltf[4096], bin[4096];
    snprintf(gltf, sizeof gltf, "%s", ot_tmp("hostile-external.gltf"));
    snprintf(bin, sizeof bin, "%s", ot_tmp("hostile-external.bin"));
    size_t n;
    uint8_t *text = gw_finish(w, GW_EXTERNAL, "hostile-external.bin", bin, &n);
    assert_int_equal(gw_write_file(gltf, text, n), 0);
    ossa_asset *a = NULL;
    ossa_diagnostic d;
    assert_int_equal(ossa_gltf_load_file(gltf, NULL, &a, &d), OSSA_OK);
    ossa_asset_destroy(a);
    assert_int_equal(gw_write_file(bin, pos, 20), 0); /* 20 of 36 bytes */
    assert_int_equal(ossa_gltf_load_file(gltf, NULL, &a, &d), OSSA_ERROR_INVALID_DATA);
    assert_null(a);
    assert_string_equal(d.path, "/buffers/0");
    assert_non_null(strstr(d.message, "only 20 bytes available, byteLength is 36"));
    remove(bin);
    assert_int_equal(ossa_gltf_load_file(gltf, NULL, &a, &d), OSSA_ERROR_IO);
    assert_string_equal(d.path, "/buffers/0");
    assert_non_null(strstr(d.message, "cannot open"));
    free(text);
    text = gw_finish(w, GW_EXTERNAL, ".", bin, &n); /* the model's own directory as the buffer */
    assert_int_equal(gw_write_file(gltf, text, n), 0);
    assert_int_equal(ossa_gltf_load_file(gltf, NULL, &a, &d), OSSA_ERROR_IO);
    assert_non_null(strstr(d.message, "is not a regular file"));
    free(text);
    gw_destroy(w);
}

/* Row: bad URIs: absolute paths, schemes, path traversal, malformed escapes. */
static void bad_uris(void **state) {
    (void)state;
    static const struct { const char *uri; ossa_result code; const char *msg; } C[] = {
        {"/etc/passwd", OSSA_ERROR_UNSUPPORTED, "absolute URI '/etc/passwd' is not supported"},
        {"file:///etc/passwd", OSSA_ERROR_UNSUPPORTED, "URI scheme in 'file:///etc/passwd' is not supported"},
        {"http://example.com/a.bin", OSSA_ERROR_UNSUPPORTED, "URI scheme"},
        {"C:/x.bin", OSSA_ERROR_UNSUPPORTED, "URI scheme"},
        {"../../../../etc/passwd", OSSA_ERROR_IO, "needs options->base_dir when loading from memory"},
        {"%2e%2e/%2e%2e/etc/passwd", OSSA_ERROR_IO, "needs options->base_dir"},
        {"a%zzb.bin", OSSA_ERROR_INVALID_DATA, "malformed URI 'a%zzb.bin'"},
        {"a%00b.bin", OSSA_ERROR_INVALID_DATA, "malformed URI"},
        {"a%", OSSA_ERROR_INVALID_DATA, "malformed URI"},
    };
    for (size_t i = 0; i < sizeof C / sizeof C[0]; i++) {
        char edit[128];
        snprintf(edit, sizeof edit, "\"buffers\":[{\"byteLength\":4,\"uri\":\"%s\"},{", C[i].uri);
        char *j = make_gltf(EDITS("\"buffers\":[{", edit));
        expect_text(j, C[i].code, "/buffers/0", C[i].msg);
        free(j);
    }
}

/* Row: unsupported extensions: required → UNSUPPORTED; used only → warning. */
static void unsupported_extensions(void **state) {
    (void)state;
    expect_edits(EDITS("\"scene\":0,", "\"scene\":0,\"extensionsRequired\":[\"KHR_draco_mesh_compression\"],"),
                 OSSA_ERROR_UNSUPPORTED, "/extensionsRequired/0",
                 "required extension 'KHR_draco_mesh_compression' is not supported");
    expect_edits(EDITS("\"scene\":0,", "\"scene\":0,\"extensionsRequired\":[7],"), OSSA_ERROR_INVALID_DATA,
                 "/extensionsRequired/0", "expected a string");
    char *j = make_gltf(EDITS("\"scene\":0,", "\"scene\":0,\"extensionsUsed\":[\"EXT_unknown\"],"));
    ossa_asset *a = NULL;
    assert_int_equal(ossa_gltf_load_memory(j, strlen(j), NULL, &a, NULL), OSSA_OK);
    assert_int_equal(a->warning_count, 1);
    assert_string_equal(a->warnings[0], "extensionsUsed[0]: extension 'EXT_unknown' is not supported; ignored");
    ossa_asset_destroy(a);
    free(j);
    expect_edits(EDITS("\"version\":\"2.0\"", "\"version\":\"3.0\""), OSSA_ERROR_UNSUPPORTED, "/asset/version",
                 "glTF version '3.0' is not supported");
    /* a glTF 1.0 draft's number (collada2gltf wrote "version": 1 beside a string "scene") */
    expect_edits(EDITS("\"version\":\"2.0\"", "\"version\":1", "\"scene\":0,", "\"scene\":\"defaultScene\","),
                 OSSA_ERROR_UNSUPPORTED, "/asset/version", "glTF version 1 (a number) is not supported (2.x only)");
    char *two = make_gltf(EDITS("\"version\":\"2.0\"", "\"version\":2"));
    ossa_asset *b = NULL;
    assert_int_equal(ossa_gltf_load_memory(two, strlen(two), NULL, &b, NULL), OSSA_OK); /* 2 as a number: a warning */
    ossa_asset_destroy(b);
    free(two);
}

/* Row: wrong JSON types and syntax. */
static void wrong_types_and_syntax(void **state) {
    (void)state;
    expect_edits(EDITS("\"scene\":0,", "\"scene\":\"hello\","), OSSA_ERROR_INVALID_DATA, "/scene",
                 "expected a number, found a string");
    expect_edits(EDITS("\"primitives\":[", "\"primitives\":{\"a\":"), OSSA_ERROR_PARSE, "", "JSON:");
    expect_edits(EDITS("\"nodes\":[{\"name\"", "\"nodes\":{\"x\":[{\"name\""), OSSA_ERROR_PARSE, "", NULL);
    expect_edits(EDITS("\"children\":[2]", "\"children\":2"), OSSA_ERROR_INVALID_DATA, "/nodes/1/children",
                 "expected an array, found a literal");
    expect_edits(EDITS("\"children\":[2]", "\"children\":[-2]"), OSSA_ERROR_INVALID_DATA, "/nodes/1/children/0",
                 "-2 is not an integer");
    expect_edits(EDITS("\"children\":[2]", "\"children\":[1.5]"), OSSA_ERROR_INVALID_DATA, "/nodes/1/children/0",
                 "1.5 is not an integer");
    expect_edits(EDITS("\"name\":\"root\"", "\"name\":42"), OSSA_OK, NULL, NULL); /* a warning, name ignored */
    expect_text("[]", OSSA_ERROR_PARSE, "", "top level is not an object");
    expect_text("{} {}", OSSA_ERROR_PARSE, "", "JSON:");
    expect_text("{\"a\":\"\\ud800\"}", OSSA_OK, NULL, NULL); /* unread strings are not decoded */
    expect_edits(EDITS("\"name\":\"turn\"", "\"name\":\"\\ud800x\""), OSSA_ERROR_PARSE, "/animations/0/name",
                 "invalid escape sequence");
    expect_edits(EDITS("\"name\":\"turn\"", "\"name\":\"a\\u0000b\""), OSSA_ERROR_PARSE, "/animations/0/name",
                 "invalid escape sequence");
}

/* Regression (fuzz_load, crash-68e85d13): an object key without a value made the JSON
 * layer read its token array after freeing it (heap-use-after-free in ossa__json_parse). */
static void regression_json_key_without_value(void **state) {
    (void)state;
    expect_text("{\"asset\":{\".0\"}}", OSSA_ERROR_PARSE, "", "JSON: malformed structure near byte 9");
    expect_text("{\"a\":1,\"b\"}", OSSA_ERROR_PARSE, "", "JSON:");
}

/* Regression (test_hostile bad_base64): one stray character in front of padded base64
 * was accepted and shifted every decoded byte by 6 bits (silently wrong buffer data). */
static void regression_base64_stray_character(void **state) {
    (void)state;
    expect_edits(EDITS(";base64,", ";base64,A"), OSSA_ERROR_INVALID_DATA, "/buffers/0", "invalid base64");
    char *j = make_gltf(NULL);
    char *k = replace(j, "\"}]}", "==\"}]}"); /* too much padding */
    expect_text(k, OSSA_ERROR_INVALID_DATA, "/buffers/0", "invalid base64");
    free(k);
    free(j);
}

/* Data that loads but is nonsense: a zero-length rotation key (normalised to identity),
 * huge and tiny ones (normalised; regression: their squared length overflowed or
 * underflowed and they silently became identity), inverse bind matrices of zeros (do not invert: a warning),
 * a vertex whose weights are all zero (kept unskinned). The whole runtime pipeline runs
 * on it with defined results. */
static void nonsense_that_loads(void **state) {
    (void)state;
    uint8_t bin[BIN_SIZE];
    base_bin(bin);
    const float zero_q[4] = {0, 0, 0, 0}, huge_q[4] = {0, 0, 3e38f, 3e38f}, zeros[16] = {0};
    const float no_weights[4] = {0, 0, 0, 0};
    put_f(bin, OFF_ROT, zero_q, 4);
    put_f(bin, OFF_ROT + 16, huge_q, 4);
    const float tiny_q[4] = {0, 0, 1e-25f, 0};
    put_f(bin, OFF_ROT + 32, tiny_q, 4);
    put_f(bin, OFF_IBM, zeros, 16);
    put_f(bin, OFF_WGT + 32, no_weights, 4);
    char *j = make_gltf_bin(bin, NULL);
    ossa_asset *a = NULL;
    ossa_diagnostic d;
    assert_int_equal(ossa_gltf_load_memory(j, strlen(j), NULL, &a, &d), OSSA_OK);
    free(j);
    bool warned = false;
    for (uint32_t w = 0; w < a->warning_count; w++)
        if (strstr(a->warnings[w], "skins[0].inverseBindMatrices: matrix 0 is not affine")) warned = true;
    assert_true(warned);
    const ossa_skeleton *sk = a->skeleton;
    const ossa_clip *clip = a->clips[0];
    uint32_t child = a->nodes[2].joint;
    ossa_transform pose[3];
    ot_clip_sample(clip, 0.0f, false, OSSA_LOOKUP_DEFAULT, NULL, sk->rest, pose, 3);
    ossa_quat id = ossa_quat_identity();
    assert_memory_equal(&pose[child].rotation, &id, sizeof id); /* zero key → identity */
    ot_clip_sample(clip, 0.5f, false, OSSA_LOOKUP_DEFAULT, NULL, sk->rest, pose, 3);
    ot_assert_near(pose[child].rotation.z, 0.70710678f, 1e-6); /* huge key → unit */
    ot_assert_near(pose[child].rotation.w, 0.70710678f, 1e-6);
    ot_clip_sample(clip, 1.0f, false, OSSA_LOOKUP_DEFAULT, NULL, sk->rest, pose, 3);
    ot_assert_near(pose[child].rotation.z, 1.0f, 1e-6); /* tiny key → unit */
    ossa_mat4 model[3], palette[3];
    ot_local_to_model(pose, sk->parents, 3, model);
    ot_palette(sk, 0, model, palette);
    const ossa_mesh *m = a->meshes[0];
    float out[9];
    ossa_skin_job job;
    memset(&job, 0, sizeof job);
    job.end = m->vertex_count;
    job.vertex_count = m->vertex_count;
    job.influences = m->influences;
    job.joints = m->joints;
    job.weights = m->weights;
    job.palette = palette;
    job.palette_count = 3;
    job.positions = m->positions;
    job.out_positions = out;
    assert_int_equal(ossa_skin_job_run(&job), OSSA_OK);
    for (int k = 0; k < 9; k++) assert_true(isfinite(out[k]));
    ot_assert_near(out[6], 0.0f, 0); /* vertex 2 has no weights: its bind position */
    ot_assert_near(out[7], 1.0f, 0);
    ossa_dual_quat dq[3];
    ossa_dual_quat_job to_dq = {.palette = palette, .palette_count = 3, .output = dq, .output_count = 3};
    assert_int_equal(ossa_dual_quat_job_run(&to_dq), OSSA_OK);
    job.method = OSSA_SKIN_DQS, job.dual_quats = dq;
    assert_int_equal(ossa_skin_job_run(&job), OSSA_OK);
    for (int k = 0; k < 9; k++) assert_true(isfinite(out[k]));
    ossa_asset_destroy(a);
}

/* ---------------------------------------------------------------- limits */

static void max_allocation_cap(void **state) {
    (void)state;
    char *j = make_gltf(NULL);
    size_t n = strlen(j);
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    ossa_diagnostic d;
    /* Every cap either fails with LIMIT (and a message naming max_allocation) or loads;
     * the smallest cap that loads is a threshold: every larger one loads too. */
    size_t first_ok = 0;
    for (size_t cap = 64; cap <= 1 << 20; cap += cap / 8) {
        o.max_allocation = cap;
        ossa_result r = load(j, n, &o, &d);
        if (r == OSSA_OK) {
            if (!first_ok) first_ok = cap;
        } else {
            if (r != OSSA_ERROR_LIMIT) fail_msg("cap %zu: %s (%s)", cap, ossa_result_string(r), d.message);
            if (first_ok) fail_msg("cap %zu fails after cap %zu loaded", cap, first_ok);
            assert_non_null(strstr(d.message, "max_allocation"));
        }
    }
    assert_true(first_ok > 64);
    o.max_allocation = 100;
    assert_int_equal(load(j, n, &o, &d), OSSA_ERROR_LIMIT);
    o.max_allocation = 0; /* default: 1 GiB */
    assert_int_equal(load(j, n, &o, &d), OSSA_OK);
    free(j);
}

/* max_allocation bounds what the load really holds: with a counting allocator, the peak
 * of live bytes during any successful load stays within the cap. */
static void max_allocation_bounds_peak(void **state) {
    (void)state;
    /* with warnings: they count too (regression: a warning recorded near the cap pushed
     * the peak 2 KiB over it, the warning array lived outside the budget) */
    char *j = make_gltf(EDITS("\"scene\":0,", "\"scene\":0,\"extensionsUsed\":[\"EXT_a\",\"EXT_b\"],"));
    size_t n = strlen(j);
    ot_counting c;
    ossa_allocator al = ot_counting_allocator(&c);
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.allocator = &al;
    size_t loaded = 0;
    for (size_t cap = 1024; cap <= 1 << 20; cap += cap / 16) {
        memset(&c, 0, sizeof c);
        o.max_allocation = cap;
        ossa_asset *a = NULL;
        ossa_result r = ossa_gltf_load_memory(j, n, &o, &a, NULL);
        if (getenv("OSSA_HOSTILE_VERBOSE")) printf("[ PEAK     ] cap %zu: %s, peak %zu\n", cap, ossa_result_string(r), c.peak);
        if (r == OSSA_OK) {
            loaded++;
            ossa_asset_destroy(a);
        }
        if (c.peak > cap) fail_msg("cap %zu: peak of live bytes %zu exceeds it (%s)", cap, c.peak, ossa_result_string(r));
        assert_int_equal(c.live, 0);
    }
    assert_true(loaded > 0);
    free(j);
}

/* The budget also bounds what a small file can ask for: 4 GB of zeros from 60 bytes. */
static void max_allocation_small_file_big_ask(void **state) {
    (void)state;
    const char *j = "{\"asset\":{\"version\":\"2.0\"},\"accessors\":[{\"componentType\":5126,\"count\":268435456,"
                    "\"type\":\"MAT4\"}],\"nodes\":[{\"mesh\":0}],\"meshes\":[{\"primitives\":[{\"attributes\":"
                    "{\"POSITION\":0}}]}]}";
    expect_text(j, OSSA_ERROR_INVALID_DATA, "/meshes/0/primitives/0/attributes/POSITION", "accessor 0 is MAT4");
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.max_allocation = (size_t)16 << 20;
    char *k = replace(j, "\"MAT4\"", "\"VEC3\"");
    ossa_diagnostic d;
    assert_int_equal(load(k, strlen(k), &o, &d), OSSA_ERROR_LIMIT);
    assert_non_null(strstr(d.message, "exceeds max_allocation (16777216 bytes)"));
    free(k);
}

/* Allocation failure at every point of a load (.gltf and .glb): OUT_OF_MEMORY, *out
 * NULL, and every allocation made so far freed (nothing leaks on any error path). */
typedef struct failing_alloc {
    long budget; /* allocations that succeed before the first failure */
    long live, calls;
} failing_alloc;

static void *fa_alloc(size_t size, void *user) {
    failing_alloc *f = user;
    f->calls++;
    if (f->budget-- <= 0) return NULL;
    f->live++;
    return malloc(size);
}

static void fa_free(void *p, void *user) {
    failing_alloc *f = user;
    if (p) f->live--;
    free(p);
}

static void sweep_allocation_failures(const void *data, size_t size) {
    failing_alloc f;
    ossa_allocator al = {fa_alloc, fa_free, &f};
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.allocator = &al;
    for (long n = 0;; n++) {
        memset(&f, 0, sizeof f);
        f.budget = n;
        ossa_asset *a = NULL;
        ossa_diagnostic d;
        ossa_result r = ossa_gltf_load_memory(data, size, &o, &a, &d);
        if (r == OSSA_OK) {
            assert_non_null(a);
            ossa_asset_destroy(a);
            assert_int_equal(f.live, 0);
            assert_true(n > 0);
            return;
        }
        if (r != OSSA_ERROR_OUT_OF_MEMORY)
            fail_msg("failing allocation %ld: %s (%s)", n, ossa_result_string(r), d.message);
        assert_null(a);
        if (f.live != 0) fail_msg("failing allocation %ld: %ld allocations leaked", n, f.live);
        assert_true(n < 100000);
    }
}

static void allocation_failure_every_point(void **state) {
    (void)state;
    char *j = make_gltf(EDITS("\"scene\":0,", "\"scene\":0,\"extensionsUsed\":[\"EXT_a\",\"EXT_b\"],"));
    sweep_allocation_failures(j, strlen(j));
    free(j);
    size_t n;
    uint8_t *g = make_glb(NULL, &n);
    sweep_allocation_failures(g, n);
    free(g);
}

/* Deeply nested JSON (in extras, which ossa ignores): 100 levels load, deeper than 128
 * levels is refused in linear time (PARSE naming the byte), nothing recurses. */
static char *nested(size_t depth, char last) {
    const char *head = "{\"asset\":{\"version\":\"2.0\"},\"extras\":";
    size_t hl = strlen(head);
    char *j = malloc(hl + 2 * depth + 2);
    assert_non_null(j);
    memcpy(j, head, hl);
    for (size_t i = 0; i < depth; i++) j[hl + i] = '[';
    for (size_t i = 0; i < depth; i++) j[hl + depth + i] = ']';
    j[hl + 2 * depth] = last;
    j[hl + 2 * depth + 1] = 0;
    return j;
}

static void deep_json_nesting(void **state) {
    (void)state;
    char *j = nested(100, '}');
    expect_text(j, OSSA_OK, NULL, NULL);
    free(j);
    j = nested(200000, '}');
    expect_text(j, OSSA_ERROR_PARSE, "", "JSON: nesting deeper than 128 levels");
    free(j);
    j = nested(200000, ']'); /* unbalanced as well */
    expect_text(j, OSSA_ERROR_PARSE, "", "JSON:");
    free(j);
}

/* A chain of 100000 nodes (each the child of the previous) with an animated leaf:
 * skeleton, clip and model-space pass without recursion. */
static void deep_node_chain(void **state) {
    (void)state;
    const uint32_t N = 100000;
    size_t cap = (size_t)N * 24 + 1024;
    char *j = malloc(cap);
    size_t o = (size_t)snprintf(j, cap, "{\"asset\":{\"version\":\"2.0\"},\"scenes\":[{\"nodes\":[0]}],\"nodes\":[");
    for (uint32_t i = 0; i < N; i++)
        o += (size_t)snprintf(j + o, cap - o, i + 1 < N ? "{\"children\":[%u]}," : "{\"translation\":[0,1,0]}", i + 1);
    o += (size_t)snprintf(j + o, cap - o, "]}");
    ossa_asset *a = NULL;
    ossa_diagnostic d;
    assert_int_equal(ossa_gltf_load_memory(j, o, NULL, &a, &d), OSSA_OK);
    assert_int_equal(a->skeleton->joint_count, N);
    for (uint32_t i = 1; i < N; i++) assert_true(a->skeleton->parents[i] >= 0 && a->skeleton->parents[i] < (int32_t)i);
    ossa_mat4 *model = malloc(N * sizeof *model);
    ot_local_to_model(a->skeleton->rest, a->skeleton->parents, N, model);
    ot_assert_near(model[a->nodes[N - 1].joint].m[13], 1.0f, 0);
    free(model);
    ossa_asset_destroy(a);
    /* the same chain closed into a cycle */
    char *k = replace(j, "{\"translation\":[0,1,0]}", "{\"children\":[0]}");
    char *l = replace(k, "\"scenes\":[{\"nodes\":[0]}],", "");
    expect_text(l, OSSA_ERROR_INVALID_DATA, NULL, "cycle in the node hierarchy");
    free(l);
    free(k);
    free(j);
}

/* Regression (found by review while testing max_allocation): 65536 nodes instancing one
 * mesh of 65537 primitives made 2^32 + 65536 mesh instances; the 32-bit total wrapped to
 * 65536, the meshes array was allocated for that, and the 65537th mesh was written past
 * its end (heap overflow from a 2.7 MB file). Now LIMIT before any mesh is built. */
static void regression_mesh_instance_count_overflow(void **state) {
    (void)state;
    const uint32_t nodes = 65536, prims = 65537;
    size_t cap = (size_t)nodes * 12 + (size_t)prims * 32 + 1024;
    char *j = malloc(cap);
    assert_non_null(j);
    size_t o = (size_t)snprintf(j, cap, "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[");
    for (uint32_t i = 0; i < nodes; i++) o += (size_t)snprintf(j + o, cap - o, i ? ",{\"mesh\":0}" : "{\"mesh\":0}");
    o += (size_t)snprintf(j + o, cap - o, "],\"meshes\":[{\"primitives\":[");
    for (uint32_t i = 0; i < prims; i++)
        o += (size_t)snprintf(j + o, cap - o, i ? ",{\"attributes\":{\"POSITION\":0}}" : "{\"attributes\":{\"POSITION\":0}}");
    o += (size_t)snprintf(j + o, cap - o,
                          "]}],\"accessors\":[{\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}]}");
    assert_true(o < cap);
    ossa_diagnostic d;
    ossa_result r = load(j, o, NULL, &d);
    if (r != OSSA_ERROR_LIMIT || strcmp(d.path, "/nodes") || !strstr(d.message, "4295032832 mesh primitive instances"))
        fail_msg("got %s at '%s': %s", ossa_result_string(r), d.path, d.message);
    free(j);
}

/* ---------------------------------------------------------------- shared malformed files */

typedef struct malformed_case {
    const char *file;
    ossa_result code;
    const char *path;     /* exact diagnostic path on error; NULL = not checked */
    const char *message;  /* substring of the diagnostic (error) or of some warning (OK) */
} malformed_case;

static const malformed_case MALFORMED[] = {
    {"malformed/IndexOutOfRange/IndexOutOfRange.gltf", OSSA_ERROR_INVALID_DATA, "/accessors/0", "index 255 at element"},
    {"malformed/IndexOutOfRange/AllIndicesOutOfRange.gltf", OSSA_ERROR_INVALID_DATA, "/accessors/0",
     "index 65535 at element 0 >= vertex count 24"},
    {"malformed/IncorrectVertexArrays/Cube.gltf", OSSA_ERROR_INVALID_DATA, NULL, "exceeds buffer 0 (514 bytes)"},
    {"malformed/RecursiveNodes/RecursiveNodes.gltf", OSSA_ERROR_INVALID_DATA, NULL, "cycle"},
    {"malformed/TestNoRootNode/NoScene.gltf", OSSA_ERROR_INVALID_DATA, "/scene", "scenes index 0 out of range (0 scenes)"},
    {"malformed/TestNoRootNode/SceneWithoutNodes.gltf", OSSA_OK, NULL, NULL},
    {"malformed/MissingBin/BoxTextured.gltf", OSSA_ERROR_IO, "/buffers/0", "cannot open"},
    {"malformed/SchemaFailures/sceneWrongType.gltf", OSSA_ERROR_INVALID_DATA, "/scene", "expected a number, found a string"},
    {"malformed/wrongTypes/badArray.gltf", OSSA_ERROR_INVALID_DATA, "/meshes/0/primitives", "expected an array, found an object"},
    {"malformed/wrongTypes/badObject.gltf", OSSA_OK, NULL, "pbrMetallicRoughness is not an object"},
    {"malformed/wrongTypes/badNumber.gltf", OSSA_OK, NULL, "normalTexture.scale is not a number"},
    {"malformed/wrongTypes/badString.gltf", OSSA_OK, NULL, "expected a string, found a literal; ignored"},
    {"malformed/wrongTypes/badUint.gltf", OSSA_OK, NULL, "index is not a non-negative integer"},
    {"malformed/wrongTypes/badExtension.gltf", OSSA_OK, NULL, "extensions has a non-object value"},
    {"malformed/BoxBadNormals-glTF-Binary/BoxBadNormals.glb", OSSA_OK, NULL, "normals are not unit length"},
    {"malformed/BoxWithInfinites-glTF-Binary/BoxWithInfinites.glb", OSSA_ERROR_INVALID_DATA, NULL, "is not finite"},
    /* the glTF-Validator's negative unit files */
    {"glTF-Validator-tests/animation/sampler_output_count_invalid.gltf", OSSA_ERROR_INVALID_DATA,
     "/animations/0/samplers/0", "output count 2, expected 1 for LINEAR"},
    {"glTF-Validator-tests/animation/unresolved_channel_target.gltf", OSSA_ERROR_INVALID_DATA,
     "/animations/0/channels/0/target/node", "nodes index 0 out of range (0 nodes)"},
    {"glTF-Validator-tests/animation_data/invalid_input_values.gltf", OSSA_ERROR_INVALID_DATA,
     "/animations/0/samplers/0/input", "times not strictly increasing at key 3 (1 after 1)"},
    {"glTF-Validator-tests/skin/unresolved_joint.gltf", OSSA_ERROR_INVALID_DATA, "/skins/0/joints/0",
     "node index 0 out of range (0 nodes)"},
    {"glTF-Validator-tests/skin_data/invalid_ibm.gltf", OSSA_OK, NULL,
     "skins[0].inverseBindMatrices: matrix 1 is not affine (last row 1 2 3 4)"},
    {"glTF-Validator-tests/glb/length_mismatch.glb", OSSA_ERROR_PARSE, "", "GLB: header length 49 does not match the 48 bytes given"},
};

/* Every .gltf / .glb under malformed/ must have a row above (so a file added to the
 * shared assets cannot be skipped silently). */
static void collect_models(const char *dir, const char *rel, size_t *missing) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char full[4096], r[1024];
        snprintf(full, sizeof full, "%s/%s", dir, e->d_name);
        snprintf(r, sizeof r, "%s/%s", rel, e->d_name);
        size_t n = strlen(e->d_name);
        if ((n > 5 && !strcmp(e->d_name + n - 5, ".gltf")) || (n > 4 && !strcmp(e->d_name + n - 4, ".glb"))) {
            bool listed = false;
            for (size_t i = 0; i < sizeof MALFORMED / sizeof MALFORMED[0]; i++)
                if (!strcmp(MALFORMED[i].file, r)) listed = true;
            if (!listed) {
                printf("[ MISSING  ] %s has no expectation in test_hostile.c\n", r);
                (*missing)++;
            }
        } else {
            collect_models(full, r, missing); /* a directory (opendir fails on files) */
        }
    }
    closedir(d);
}

static void shared_malformed_all_listed(void **state) {
    (void)state;
    const char *root = ot_asset("malformed");
    if (!root) skip();
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", root);
    size_t missing = 0;
    collect_models(dir, "malformed", &missing);
    assert_int_equal(missing, 0);
}

static void shared_malformed_files(void **state) {
    (void)state;
    size_t ran = 0;
    for (size_t i = 0; i < sizeof MALFORMED / sizeof MALFORMED[0]; i++) {
        const malformed_case *c = &MALFORMED[i];
        const char *path = ot_asset(c->file);
        if (!path) continue; /* reason printed by ot_asset */
        ossa_asset *a = NULL;
        ossa_diagnostic d;
        ossa_result r = ossa_gltf_load_file(path, NULL, &a, &d);
        printf("[ MALFORMED] %s: %s %s\n", c->file, ossa_result_string(r), r ? d.message : "");
        if (r != c->code) fail_msg("%s: expected %s, got %s (%s)", c->file, ossa_result_string(c->code),
                                   ossa_result_string(r), d.message);
        if (r == OSSA_OK) {
            bool found = c->message == NULL;
            for (uint32_t w = 0; w < a->warning_count; w++) {
                printf("             warning: %s\n", a->warnings[w]);
                if (c->message && strstr(a->warnings[w], c->message)) found = true;
            }
            if (!found) fail_msg("%s: no warning containing '%s'", c->file, c->message);
            ossa_asset_destroy(a);
        } else {
            assert_null(a);
            if (c->path && strcmp(d.path, c->path)) fail_msg("%s: path '%s', expected '%s'", c->file, d.path, c->path);
            if (c->message && !strstr(d.message, c->message))
                fail_msg("%s: message '%s' lacks '%s'", c->file, d.message, c->message);
        }
        ran++;
    }
    if (!ran) skip();
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(base_documents_load),
        cmocka_unit_test(truncated_every_prefix_gltf),
        cmocka_unit_test(truncated_every_prefix_glb),
        cmocka_unit_test(glb_wrong_chunk_lengths),
        cmocka_unit_test(glb_missing_bin_chunk),
        cmocka_unit_test(out_of_range_indices),
        cmocka_unit_test(bad_base64),
        cmocka_unit_test(huge_counts),
        cmocka_unit_test(cycles_and_two_parents),
        cmocka_unit_test(nan_and_inf),
        cmocka_unit_test(non_increasing_times),
        cmocka_unit_test(missing_buffers),
        cmocka_unit_test(external_buffer_short_or_absent),
        cmocka_unit_test(bad_uris),
        cmocka_unit_test(unsupported_extensions),
        cmocka_unit_test(wrong_types_and_syntax),
        cmocka_unit_test(regression_json_key_without_value),
        cmocka_unit_test(regression_base64_stray_character),
        cmocka_unit_test(nonsense_that_loads),
        cmocka_unit_test(max_allocation_cap),
        cmocka_unit_test(max_allocation_bounds_peak),
        cmocka_unit_test(max_allocation_small_file_big_ask),
        cmocka_unit_test(allocation_failure_every_point),
        cmocka_unit_test(deep_json_nesting),
        cmocka_unit_test(deep_node_chain),
        cmocka_unit_test(regression_mesh_instance_count_overflow),
        cmocka_unit_test(shared_malformed_files),
        cmocka_unit_test(shared_malformed_all_listed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
