/* Materials, textures, normals and skinning modes, end to end: glTF materials and
 * images import (src/import/material.c), PNG/JPEG decoding (support/image_decode.c),
 * and the tool's pictures measured back from the PNGs it writes: a textured model
 * shows its texture's hue and saturation, an untextured one its factor, vertex
 * colours show, a mesh without normals is shaded (flat normals, also after morph
 * targets, CPU = GPU), LBS and DQS differ at a twisting joint and agree elsewhere,
 * and `ossa crowd` draws N separate characters in different poses. */
#include "test_support.h"
#include "gltf_writer.h"
#include "image_decode.h"
#include "image_read.h"

#include <stdio.h> /* before jpeglib.h */
#include <string.h>

#include <jpeglib.h>
#include <math.h>
#include <png.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ measures --- */

typedef struct hs {
    double hue;        /* degrees, saturation-weighted circular mean */
    double sat;        /* mean HSV saturation */
    double lum_sd;     /* standard deviation of luminance (0..255) */
    size_t pixels;
} hs;

static void rgb_hsv(double r, double g, double b, double *h, double *s) {
    double mx = fmax(r, fmax(g, b)), mn = fmin(r, fmin(g, b)), d = mx - mn;
    *s = mx > 0 ? d / mx : 0;
    if (d <= 0) {
        *h = 0;
        return;
    }
    if (mx == r) *h = 60 * fmod((g - b) / d + 6, 6);
    else if (mx == g) *h = 60 * ((b - r) / d + 2);
    else *h = 60 * ((r - g) / d + 4);
}

/* Hue/saturation of the pixels that differ from `bg` by more than 24 (bg NULL = all
 * pixels with alpha > 128), skipping near-black ones whose hue means nothing. */
static hs measure(const uint8_t *rgba, size_t n, const uint8_t *bg) {
    double hx = 0, hy = 0, sat = 0, lum = 0, lum2 = 0;
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *p = rgba + i * 4;
        if (bg) {
            int d = 0;
            for (int c = 0; c < 3; c++) d = abs(p[c] - bg[c]) > d ? abs(p[c] - bg[c]) : d;
            if (d <= 24) continue;
        } else if (p[3] <= 128) {
            continue;
        }
        double h, s;
        rgb_hsv(p[0] / 255.0, p[1] / 255.0, p[2] / 255.0, &h, &s);
        double l = 0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2];
        lum += l, lum2 += l * l;
        count++;
        sat += s;
        hx += s * cos(h * M_PI / 180), hy += s * sin(h * M_PI / 180);
    }
    hs r = {0, 0, 0, count};
    if (!count) return r;
    r.hue = fmod(atan2(hy, hx) * 180 / M_PI + 360, 360);
    r.sat = sat / (double)count;
    double m = lum / (double)count;
    r.lum_sd = sqrt(fmax(0, lum2 / (double)count - m * m));
    return r;
}

static double hue_diff(double a, double b) {
    double d = fabs(a - b);
    return d > 180 ? 360 - d : d;
}

static const char *gl_tool_or_skip(void) {
    static int state = -1;
    static char why[512]; /* the probe's output when it failed */
    const char *t = ot_tool();
    if (!t) return NULL; /* the reason given by ot_tool */
    if (state < 0) {
        char cmd[8192], *out = NULL;
        snprintf(cmd, sizeof cmd, "\"%s\" render --rest --size 8x8 --out '%s' 2>&1", t, ot_tmp("mat_probe.png"));
        state = ot_run(cmd, &out) == 0;
        snprintf(why, sizeof why, "%s", out ? out : "");
        free(out);
    }
    if (!state) ot_skip_reason("no offscreen OpenGL: %s", why);
    return state ? t : NULL;
}

/* Runs `ossa ARGS` (output to out_png) and reads the PNG. */
static void render(const char *args, const char *out_png, ot_image *im) {
    char cmd[16384], *out = NULL;
    remove(out_png);
    snprintf(cmd, sizeof cmd, "\"%s\" %s --out '%s' 2>&1", ot_tool(), args, out_png);
    int rc = ot_run(cmd, &out);
    if (rc != 0) fail_msg("ossa %s failed (%d):\n%s", args, rc, out ? out : "");
    free(out);
    ot_read_png(out_png, im);
}

/* ------------------------------------------------------ generated files --- */

/* PNG bytes of a w x h RGBA image (libpng simplified writer). */
static uint8_t *png_bytes(const uint8_t *rgba, uint32_t w, uint32_t h, size_t *size) {
    png_image im;
    memset(&im, 0, sizeof im);
    im.version = PNG_IMAGE_VERSION;
    im.width = w, im.height = h, im.format = PNG_FORMAT_RGBA;
    png_alloc_size_t n = 0;
    assert_true(png_image_write_to_memory(&im, NULL, &n, 0, rgba, 0, NULL));
    uint8_t *buf = malloc(n);
    assert_non_null(buf);
    assert_true(png_image_write_to_memory(&im, buf, &n, 0, rgba, 0, NULL));
    *size = n;
    return buf;
}

/* Baseline JPEG of a solid colour (libjpeg). */
static uint8_t *jpeg_bytes(uint32_t w, uint32_t h, const uint8_t rgb[3], size_t *size) {
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr e;
    c.err = jpeg_std_error(&e);
    jpeg_create_compress(&c);
    unsigned char *buf = NULL;
    unsigned long n = 0;
    jpeg_mem_dest(&c, &buf, &n);
    c.image_width = w, c.image_height = h, c.input_components = 3, c.in_color_space = JCS_RGB;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, 95, TRUE);
    jpeg_start_compress(&c, TRUE);
    uint8_t *row = malloc(w * 3);
    for (uint32_t x = 0; x < w; x++) memcpy(row + x * 3, rgb, 3);
    while (c.next_scanline < h) {
        JSAMPROW r[1] = {row};
        jpeg_write_scanlines(&c, r, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    free(row);
    *size = n;
    return buf;
}

static char *base64(const uint8_t *d, size_t n) {
    static const char A[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *o = malloc((n + 2) / 3 * 4 + 1), *p = o;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)d[i] << 16 | (i + 1 < n ? (uint32_t)d[i + 1] << 8 : 0) | (i + 2 < n ? d[i + 2] : 0);
        *p++ = A[v >> 18 & 63], *p++ = A[v >> 12 & 63];
        *p++ = i + 1 < n ? A[v >> 6 & 63] : '=';
        *p++ = i + 2 < n ? A[v & 63] : '=';
    }
    *p = 0;
    return o;
}

/* A closed box [-0.5, 0.5]^3 as 24 vertices (4 per face) and 36 indices, outward
 * winding; normals optional. */
static void box_geometry(float pos[72], float nrm[72], uint16_t idx[36]) {
    static const float N[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    for (int f = 0; f < 6; f++) {
        const float *n = N[f];
        float u[3] = {n[1], n[2], n[0]}, v[3]; /* a tangent, and v = n x u */
        v[0] = n[1] * u[2] - n[2] * u[1], v[1] = n[2] * u[0] - n[0] * u[2], v[2] = n[0] * u[1] - n[1] * u[0];
        static const float S[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
        for (int k = 0; k < 4; k++)
            for (int c = 0; c < 3; c++) {
                pos[(f * 4 + k) * 3 + c] = 0.5f * (n[c] + S[k][0] * u[c] + S[k][1] * v[c]);
                nrm[(f * 4 + k) * 3 + c] = n[c];
            }
        static const int T[6] = {0, 1, 2, 0, 2, 3};
        for (int k = 0; k < 6; k++) idx[f * 6 + k] = (uint16_t)(f * 4 + T[k]);
    }
}

/* Writes a box .gltf (embedded buffer): `material` JSON (or NULL), COLOR_0 rgb (or
 * NULL), normals or not, and a morph target lifting the top by 0.6 at weight `morph`
 * (< 0: no target). */
static char *write_box(const char *name, const char *material, const float rgb[3], bool normals, float morph) {
    float pos[72], nrm[72];
    uint16_t idx[36];
    box_geometry(pos, nrm, idx);
    gw *w = gw_create();
    int p = gw_accessor(w, gw_view(w, pos, sizeof pos, 0), 0, GW_FLOAT, false, 24, "VEC3",
                        "\"min\": [-0.5, -0.5, -0.5], \"max\": [0.5, 0.5, 0.5]");
    int n = normals ? gw_data(w, GW_FLOAT, false, 24, "VEC3", nrm) : -1;
    int i = gw_data(w, GW_USHORT, false, 36, "SCALAR", idx);
    int col = -1;
    if (rgb) {
        float c[72];
        for (int v = 0; v < 24; v++) memcpy(c + v * 3, rgb, 12);
        col = gw_data(w, GW_FLOAT, false, 24, "VEC3", c);
    }
    char attrs[256], extra[256] = "";
    int o = snprintf(attrs, sizeof attrs, "\"POSITION\": %d", p);
    if (n >= 0) o += snprintf(attrs + o, sizeof attrs - (size_t)o, ", \"NORMAL\": %d", n);
    if (col >= 0) snprintf(attrs + o, sizeof attrs - (size_t)o, ", \"COLOR_0\": %d", col);
    if (morph >= 0) {
        float d[72] = {0};
        for (int v = 0; v < 24; v++)
            if (pos[v * 3 + 1] > 0) d[v * 3 + 1] = 0.6f;
        int t = gw_data(w, GW_FLOAT, false, 24, "VEC3", d);
        snprintf(extra, sizeof extra, ", \"targets\": [{\"POSITION\": %d}]", t);
    }
    char weights[64] = "";
    if (morph >= 0) snprintf(weights, sizeof weights, ", \"weights\": [%g]", (double)morph);
    gw_add(w, "meshes", "{\"primitives\": [{\"attributes\": {%s}, \"indices\": %d%s%s}]%s}", attrs, i,
           material ? ", \"material\": 0" : "", extra, weights);
    if (material) gw_add(w, "materials", "%s", material);
    gw_add(w, "nodes", "{\"mesh\": 0, \"rotation\": [0.0, 0.0, 0.0, 1.0]}");
    size_t size;
    uint8_t *bytes = gw_finish(w, GW_EMBEDDED, NULL, NULL, &size);
    char *path = strdup(ot_tmp(name)); /* ot_tmp's storage is reused by the next call */
    assert_int_equal(gw_write_file(path, bytes, size), 0);
    free(bytes);
    gw_destroy(w);
    return path;
}

/* --------------------------------------------------------------- import --- */

static bool has_warning(const ossa_asset *a, const char *needle) {
    for (uint32_t i = 0; i < a->warning_count; i++)
        if (strstr(a->warnings[i], needle)) return true;
    return false;
}

static void materials_and_images_import(void **state) {
    (void)state;
    uint8_t px[16] = {255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 128};
    size_t png_n;
    uint8_t *png = png_bytes(px, 2, 2, &png_n);
    char *b64 = base64(png, png_n);
    gw *w = gw_create();
    const float tri[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const uint8_t col[9] = {255, 128, 0, 0, 0, 255, 10, 20, 30};
    const float uv[6] = {0, 0, 1, 0, 0, 1};
    int p = gw_accessor(w, gw_view(w, tri, sizeof tri, 0), 0, GW_FLOAT, false, 3, "VEC3",
                        "\"min\": [0, 0, 0], \"max\": [1, 1, 0]");
    int c = gw_data(w, GW_UBYTE, true, 3, "VEC3", col);
    int t0 = gw_data(w, GW_FLOAT, false, 3, "VEC2", uv);
    int view = gw_view(w, png, png_n, 0);
    gw_add(w, "images", "{\"bufferView\": %d, \"mimeType\": \"image/png\", \"name\": \"inside\"}", view);
    gw_add(w, "images", "{\"uri\": \"data:image/png;base64,%s\"}", b64);
    gw_add(w, "images", "{\"uri\": \"missing%%20file.png\"}");
    gw_add(w, "samplers", "{\"wrapS\": 33071, \"wrapT\": 33648, \"magFilter\": 9728, \"minFilter\": 9987}");
    gw_add(w, "textures", "{\"source\": 0, \"sampler\": 0}");
    gw_add(w, "textures", "{\"source\": 1}");
    gw_add(w, "textures", "{\"source\": 2}");
    gw_add(w, "textures", "{\"source\": 7}");
    gw_add(w, "materials", "{\"name\": \"m0\", \"pbrMetallicRoughness\": {\"baseColorFactor\": [0.2, 0.4, 0.6, 0.8]},"
                           " \"alphaMode\": \"MASK\", \"alphaCutoff\": 0.3, \"doubleSided\": true}");
    gw_add(w, "materials", "{\"pbrMetallicRoughness\": {\"baseColorTexture\": {\"index\": 0, \"texCoord\": 1}},"
                           " \"alphaMode\": \"BLEND\"}");
    gw_add(w, "materials", "{\"pbrMetallicRoughness\": {\"baseColorTexture\": {\"index\": 1}}}");
    gw_add(w, "materials", "{\"pbrMetallicRoughness\": {\"baseColorTexture\": {\"index\": 2}}}");
    gw_add(w, "materials", "{\"pbrMetallicRoughness\": {\"baseColorTexture\": {\"index\": 3}}}");
    gw_add(w, "materials", "{\"pbrMetallicRoughness\": {\"baseColorTexture\": {\"index\": 9}, "
                           "\"baseColorFactor\": [1, \"x\", 1, 1]}, \"alphaMode\": \"SOMETIMES\"}");
    char prims[2048];
    int o = 0;
    for (int m = 0; m < 8; m++) {
        char mat[32] = "";
        if (m < 6) snprintf(mat, sizeof mat, ", \"material\": %d", m);
        if (m == 6) snprintf(mat, sizeof mat, ", \"material\": 99");
        o += snprintf(prims + o, sizeof prims - (size_t)o,
                      "%s{\"attributes\": {\"POSITION\": %d, \"COLOR_0\": %d, \"TEXCOORD_0\": %d, \"TEXCOORD_1\": %d}%s}",
                      m ? ", " : "", p, c, t0, t0, mat);
    }
    gw_add(w, "meshes", "{\"primitives\": [%s]}", prims);
    gw_add(w, "nodes", "{\"mesh\": 0}");
    size_t size;
    uint8_t *bytes = gw_finish(w, GW_EMBEDDED, NULL, NULL, &size);
    const char *path = ot_tmp("materials.gltf");
    assert_int_equal(gw_write_file(path, bytes, size), 0);
    free(bytes);
    gw_destroy(w);

    ossa_asset *a = NULL;
    ossa_diagnostic d;
    ossa_result r = ossa_gltf_load_file(path, NULL, &a, &d);
    if (r) fail_msg("load: %s", d.message);
    assert_int_equal(a->material_count, 6);
    assert_int_equal(a->image_count, 3);
    const ossa_material *m = a->materials;
    assert_string_equal(m[0].name, "m0");
    const float f0[4] = {0.2f, 0.4f, 0.6f, 0.8f};
    ot_assert_floats_near(m[0].base_color, f0, 4, 0);
    assert_int_equal(m[0].alpha_mode, OSSA_ALPHA_MODE_MASK);
    ot_assert_near(m[0].alpha_cutoff, 0.3, 1e-7);
    assert_true(m[0].double_sided);
    assert_int_equal(m[0].base_color_texture.image, -1);
    assert_int_equal(m[1].alpha_mode, OSSA_ALPHA_MODE_BLEND);
    assert_false(m[1].double_sided);
    ot_assert_near(m[1].alpha_cutoff, 0.5, 0);
    const float white[4] = {1, 1, 1, 1};
    ot_assert_floats_near(m[1].base_color, white, 4, 0);
    assert_int_equal(m[1].base_color_texture.image, 0);
    assert_int_equal(m[1].base_color_texture.texcoord, 1);
    assert_int_equal(m[1].base_color_texture.wrap_s, OSSA_WRAP_CLAMP_TO_EDGE);
    assert_int_equal(m[1].base_color_texture.wrap_t, OSSA_WRAP_MIRRORED_REPEAT);
    assert_int_equal(m[1].base_color_texture.mag_filter, OSSA_FILTER_NEAREST);
    assert_int_equal(m[1].base_color_texture.min_filter, 9987);
    assert_int_equal(m[2].base_color_texture.image, 1);
    assert_int_equal(m[2].base_color_texture.wrap_s, 0);
    assert_int_equal(m[3].base_color_texture.image, 2);
    assert_int_equal(m[4].base_color_texture.image, -1); /* texture 3's source 7 does not exist */
    assert_int_equal(m[5].base_color_texture.image, -1); /* texture 9 does not exist */
    ot_assert_floats_near(m[5].base_color, white, 4, 0); /* a bad factor falls back to white */
    assert_int_equal(m[5].alpha_mode, OSSA_ALPHA_MODE_OPAQUE);
    /* images: bytes as stored, MIME from the bytes, the missing file warned and left empty */
    for (int i = 0; i < 2; i++) {
        assert_int_equal(a->images[i].size, png_n);
        assert_memory_equal(a->images[i].data, png, png_n);
        assert_string_equal(a->images[i].mime_type, "image/png");
    }
    assert_string_equal(a->images[0].name, "inside");
    assert_null(a->images[2].data);
    assert_int_equal(a->images[2].size, 0);
    assert_string_equal(a->images[2].uri, "missing%20file.png");
    assert_true(has_warning(a, "images[2]: cannot read image file"));
    assert_true(has_warning(a, "missing file.png"));
    assert_true(has_warning(a, "textures[3]: no usable source image"));
    assert_true(has_warning(a, "texture 9 does not exist"));
    assert_true(has_warning(a, "baseColorFactor is not 4 numbers"));
    assert_true(has_warning(a, "alphaMode 'SOMETIMES' is unknown"));
    assert_true(has_warning(a, "material 99 out of range (6 materials)"));
    /* meshes: material indices (bad → -1, absent → -1) and COLOR_0 as RGBA */
    assert_int_equal(a->mesh_count, 8);
    for (int i = 0; i < 8; i++) {
        assert_int_equal(a->meshes[i]->material, i < 6 ? i : -1);
        const float *cc = a->meshes[i]->colors;
        assert_non_null(cc);
        for (int v = 0; v < 3; v++) {
            for (int k = 0; k < 3; k++) ot_assert_near(cc[v * 4 + k], col[v * 3 + k] / 255.0, 1e-6);
            ot_assert_near(cc[v * 4 + 3], 1.0, 0);
        }
    }
    /* decoding the stored bytes gives the pixels back */
    uint8_t *dec = NULL;
    uint32_t dw, dh;
    char err[256];
    assert_true(image_decode(a->images[1].data, a->images[1].size, &dec, &dw, &dh, err, sizeof err));
    assert_int_equal(dw, 2);
    assert_int_equal(dh, 2);
    assert_memory_equal(dec, px, 16);
    free(dec);
    ossa_asset_destroy(a);
    free(b64);
    free(png);
}

static void image_decode_png_jpeg_and_bad_bytes(void **state) {
    (void)state;
    const uint8_t rgb[3] = {200, 40, 60};
    size_t jn;
    uint8_t *jpg = jpeg_bytes(16, 8, rgb, &jn);
    uint8_t *px = NULL;
    uint32_t w, h;
    char err[256];
    assert_string_equal(image_format(jpg, jn), "JPEG");
    assert_true(image_decode(jpg, jn, &px, &w, &h, err, sizeof err));
    assert_int_equal(w, 16);
    assert_int_equal(h, 8);
    for (size_t i = 0; i < 16 * 8; i++) {
        for (size_t c = 0; c < 3; c++) assert_true(abs(px[i * 4 + c] - rgb[c]) <= 6);
        assert_int_equal(px[i * 4 + 3], 255);
    }
    free(px);
    /* every prefix of a JPEG and a PNG: an error or a picture of the right size, never a crash */
    uint8_t img[64 * 4];
    for (int i = 0; i < 64 * 4; i++) img[i] = (uint8_t)(i * 7);
    size_t pn;
    uint8_t *png = png_bytes(img, 8, 8, &pn);
    int refused = 0;
    for (int kind = 0; kind < 2; kind++) {
        const uint8_t *b = kind ? png : jpg;
        size_t n = kind ? pn : jn;
        for (size_t k = 0; k < n; k++) {
            px = NULL;
            if (image_decode(b, k, &px, &w, &h, err, sizeof err)) {
                assert_int_equal(w, kind ? 8 : 16);
                free(px);
            } else {
                assert_null(px);
                assert_true(err[0] != 0);
                refused++;
            }
        }
    }
    assert_true(refused > (int)pn / 2);
    const uint8_t junk[] = "GIF89a not a texture";
    assert_false(image_decode(junk, sizeof junk, &px, &w, &h, err, sizeof err));
    assert_non_null(strstr(err, "neither PNG nor JPEG"));
    free(png);
    free(jpg);
}

/* ---------------------------------------------------------------- render --- */

static void textured_model_shows_its_texture(void **state) {
    (void)state;
    if (!gl_tool_or_skip()) skip();
    ossa_asset *a = ot_load_asset("BoxTextured-glb/BoxTextured.glb");
    assert_int_equal(a->image_count, 1);
    assert_int_equal(a->material_count, 1);
    assert_int_equal(a->materials[0].base_color_texture.image, 0);
    uint8_t *tex = NULL;
    uint32_t w, h;
    char err[256];
    assert_true(image_decode(a->images[0].data, a->images[0].size, &tex, &w, &h, err, sizeof err));
    hs t = measure(tex, (size_t)w * h, NULL);
    free(tex);
    ot_image im;
    char args[8192];
    snprintf(args, sizeof args, "render '%s' --size 96x96", ot_asset("BoxTextured-glb/BoxTextured.glb"));
    render(args, ot_tmp("textured.png"), &im);
    hs r = measure(im.rgba, (size_t)im.width * im.height, im.rgba);
    printf("[   INFO   ] texture hue %.1f sat %.3f; rendered box hue %.1f sat %.3f over %zu pixels\n", t.hue, t.sat,
           r.hue, r.sat, r.pixels);
    assert_true(r.pixels > 96 * 96 / 10);
    assert_true(hue_diff(r.hue, t.hue) < 25);
    assert_true(fabs(r.sat - t.sat) < 0.15);
    ot_image_free(&im);
    ossa_asset_destroy(a);
}

/* Display hue/saturation of a linear colour as the shader writes it (gamma 1/2.2). */
static hs display(const float lin[3]) {
    uint8_t p[4] = {0, 0, 0, 255};
    for (int c = 0; c < 3; c++) p[c] = (uint8_t)lround(255 * pow(lin[c], 1 / 2.2));
    return measure(p, 1, NULL);
}

static void untextured_model_shows_its_factor_and_vertex_colours(void **state) {
    (void)state;
    if (!gl_tool_or_skip()) skip();
    const float factor[3] = {0.1f, 0.45f, 0.9f}, vertex[3] = {0.9f, 0.15f, 0.05f};
    char mat[256];
    snprintf(mat, sizeof mat, "{\"pbrMetallicRoughness\": {\"baseColorFactor\": [%g, %g, %g, 1.0]}}", (double)factor[0],
             (double)factor[1], (double)factor[2]);
    char *cases[2] = {write_box("factor_box.gltf", mat, NULL, true, -1),
                            write_box("colour_box.gltf", NULL, vertex, true, -1)};
    for (int k = 0; k < 2; k++) {
        ot_image im;
        char args[8192];
        snprintf(args, sizeof args, "render '%s' --size 64x64", cases[k]);
        render(args, ot_tmp(k ? "colour_box.png" : "factor_box.png"), &im);
        hs r = measure(im.rgba, (size_t)im.width * im.height, im.rgba), e = display(k ? vertex : factor);
        printf("[   INFO   ] %s: expected hue %.1f sat %.2f, rendered hue %.1f sat %.2f\n", k ? "COLOR_0" : "factor",
               e.hue, e.sat, r.hue, r.sat);
        assert_true(r.pixels > 64 * 64 / 10);
        assert_true(hue_diff(r.hue, e.hue) < 15);
        assert_true(fabs(r.sat - e.sat) < 0.2);
        ot_image_free(&im);
    }
    free(cases[0]);
    free(cases[1]);
}

/* MASK below the cutoff draws nothing; BLEND mixes the factor with the background by its
 * alpha; OPAQUE ignores alpha. */
static void alpha_modes(void **state) {
    (void)state;
    if (!gl_tool_or_skip()) skip();
    const char *mats[3] = {
        "{\"pbrMetallicRoughness\": {\"baseColorFactor\": [0.9, 0.1, 0.1, 0.3]}, \"alphaMode\": \"MASK\"}",
        "{\"pbrMetallicRoughness\": {\"baseColorFactor\": [0.9, 0.1, 0.1, 0.3]}, \"alphaMode\": \"BLEND\"}",
        "{\"pbrMetallicRoughness\": {\"baseColorFactor\": [0.9, 0.1, 0.1, 0.3]}}"};
    double sat[3];
    size_t px[3];
    for (int k = 0; k < 3; k++) {
        char name[32], png[32], args[8192];
        snprintf(name, sizeof name, "alpha%d.gltf", k);
        snprintf(png, sizeof png, "alpha%d.png", k);
        char *path = write_box(name, mats[k], NULL, true, -1);
        snprintf(args, sizeof args, "render '%s' --size 48x48", path);
        ot_image im;
        render(args, ot_tmp(png), &im);
        hs r = measure(im.rgba, 48 * 48, im.rgba);
        sat[k] = r.sat, px[k] = r.pixels;
        ot_image_free(&im);
        free(path);
    }
    printf("[   INFO   ] alpha 0.3: MASK %zu pixels; BLEND sat %.2f over %zu; OPAQUE sat %.2f over %zu\n", px[0], sat[1],
           px[1], sat[2], px[2]);
    assert_int_equal(px[0], 0);
    assert_true(px[2] > 48 * 48 / 10 && px[1] > px[2] / 2);
    assert_true(sat[1] < sat[2] - 0.2); /* a see-through red over blue-grey is less saturated */
}

/* Mean absolute difference per channel (0..255). */
static double mean_abs_diff(const uint8_t *a, const uint8_t *b, size_t n) {
    double s = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < 3; c++) s += fabs((double)a[i * 4 + c] - (double)b[i * 4 + c]);
    return s / (double)(n * 3);
}

static void mesh_without_normals_is_shaded(void **state) {
    (void)state;
    if (!gl_tool_or_skip()) skip();
    char *plain = write_box("no_normals.gltf", NULL, NULL, false, -1);
    char *morph = write_box("no_normals_morph.gltf", NULL, NULL, false, 1.0f);
    char *with = write_box("with_normals.gltf", NULL, NULL, true, -1);
    ot_image im[2];
    char args[8192];
    const char *modes[2] = {"--gpu", "--cpu"};
    for (int m = 0; m < 2; m++) {
        snprintf(args, sizeof args, "render '%s' --size 64x64 %s", plain, modes[m]);
        render(args, ot_tmp(m ? "no_normals_cpu.png" : "no_normals_gpu.png"), &im[m]);
        hs r = measure(im[m].rgba, 64 * 64, im[m].rgba);
        printf("[   INFO   ] no NORMAL, %s: luminance sd %.1f over %zu pixels\n", modes[m], r.lum_sd, r.pixels);
        assert_true(r.pixels > 64 * 64 / 10);
        assert_true(r.lum_sd > 6); /* three faces lit differently (the old (0,0,0) normals gave one flat tone) */
    }
    assert_true(mean_abs_diff(im[0].rgba, im[1].rgba, 64 * 64) < 1.5);
    /* flat normals equal the box's own face normals */
    ot_image ref;
    snprintf(args, sizeof args, "render '%s' --size 64x64", with);
    render(args, ot_tmp("with_normals.png"), &ref);
    double d = mean_abs_diff(im[0].rgba, ref.rgba, 64 * 64);
    printf("[   INFO   ] flat normals vs the file's face normals: mean abs diff %.2f\n", d);
    assert_true(d < 2.0);
    ot_image_free(&ref);
    /* after a morph target (weight 1 lifts the top): CPU = GPU, still shaded, and taller */
    ot_image mm[2];
    for (int m = 0; m < 2; m++) {
        snprintf(args, sizeof args, "render '%s' --size 64x64 %s", morph, modes[m]);
        render(args, ot_tmp(m ? "morph_cpu.png" : "morph_gpu.png"), &mm[m]);
        hs r = measure(mm[m].rgba, 64 * 64, mm[m].rgba);
        assert_true(r.lum_sd > 6);
    }
    assert_true(mean_abs_diff(mm[0].rgba, mm[1].rgba, 64 * 64) < 1.5);
    for (int m = 0; m < 2; m++) ot_image_free(&im[m]), ot_image_free(&mm[m]);
    free(plain);
    free(morph);
    free(with);
}

/* A cylinder along +X (x in [0, 2], radius 0.25) skinned to two joints at x = 0 and
 * x = 1 with weights blending over [0.6, 1.4]; joint 1 twists 160 degrees about X. */
static char *write_twist(void) {
    enum { RINGS = 41, SEG = 24 };
    static float pos[RINGS * SEG * 3], nrm[RINGS * SEG * 3], wts[RINGS * SEG * 4];
    static uint8_t jnt[RINGS * SEG * 4];
    static uint16_t idx[(RINGS - 1) * SEG * 6];
    for (int r = 0; r < RINGS; r++) {
        float x = 2.0f * (float)r / (RINGS - 1), w1 = fminf(1, fmaxf(0, (x - 0.6f) / 0.8f));
        for (int s = 0; s < SEG; s++) {
            int v = r * SEG + s;
            float a = 2 * (float)M_PI * (float)s / SEG;
            pos[v * 3] = x, pos[v * 3 + 1] = 0.25f * cosf(a), pos[v * 3 + 2] = 0.25f * sinf(a);
            nrm[v * 3] = 0, nrm[v * 3 + 1] = cosf(a), nrm[v * 3 + 2] = sinf(a);
            jnt[v * 4] = 0, jnt[v * 4 + 1] = 1, jnt[v * 4 + 2] = 0, jnt[v * 4 + 3] = 0;
            wts[v * 4] = 1 - w1, wts[v * 4 + 1] = w1, wts[v * 4 + 2] = 0, wts[v * 4 + 3] = 0;
        }
    }
    int k = 0;
    for (int r = 0; r + 1 < RINGS; r++)
        for (int s = 0; s < SEG; s++) {
            uint16_t a = (uint16_t)(r * SEG + s), b = (uint16_t)(r * SEG + (s + 1) % SEG);
            uint16_t c = (uint16_t)(a + SEG), d = (uint16_t)(b + SEG);
            idx[k++] = a, idx[k++] = c, idx[k++] = b, idx[k++] = b, idx[k++] = c, idx[k++] = d;
        }
    gw *w = gw_create();
    int p = gw_accessor(w, gw_view(w, pos, sizeof pos, 0), 0, GW_FLOAT, false, RINGS * SEG, "VEC3",
                        "\"min\": [0, -0.25, -0.25], \"max\": [2, 0.25, 0.25]");
    int n = gw_data(w, GW_FLOAT, false, RINGS * SEG, "VEC3", nrm);
    int j = gw_data(w, GW_UBYTE, false, RINGS * SEG, "VEC4", jnt);
    int wt = gw_data(w, GW_FLOAT, false, RINGS * SEG, "VEC4", wts);
    int i = gw_data(w, GW_USHORT, false, (RINGS - 1) * SEG * 6, "SCALAR", idx);
    const float ibm[32] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -1, 0, 0, 1};
    int ib = gw_data(w, GW_FLOAT, false, 2, "MAT4", ibm);
    const float times[2] = {0, 1};
    float half = 80.0f * (float)M_PI / 180;
    const float rot[8] = {sinf(half), 0, 0, cosf(half), sinf(half), 0, 0, cosf(half)};
    int in = gw_accessor(w, gw_view(w, times, sizeof times, 0), 0, GW_FLOAT, false, 2, "SCALAR",
                         "\"min\": [0], \"max\": [1]");
    int out = gw_data(w, GW_FLOAT, false, 2, "VEC4", rot);
    gw_add(w, "meshes", "{\"primitives\": [{\"attributes\": {\"POSITION\": %d, \"NORMAL\": %d, \"JOINTS_0\": %d, "
                        "\"WEIGHTS_0\": %d}, \"indices\": %d}]}", p, n, j, wt, i);
    gw_add(w, "nodes", "{\"name\": \"root\", \"children\": [1]}");
    gw_add(w, "nodes", "{\"name\": \"twist\", \"translation\": [1, 0, 0]}");
    gw_add(w, "nodes", "{\"mesh\": 0, \"skin\": 0}");
    gw_add(w, "skins", "{\"joints\": [0, 1], \"inverseBindMatrices\": %d}", ib);
    gw_add(w, "animations", "{\"name\": \"twist\", \"channels\": [{\"sampler\": 0, \"target\": {\"node\": 1, "
                            "\"path\": \"rotation\"}}], \"samplers\": [{\"input\": %d, \"output\": %d}]}", in, out);
    size_t size;
    uint8_t *bytes = gw_finish(w, GW_EMBEDDED, NULL, NULL, &size);
    char *path = strdup(ot_tmp("twist.gltf"));
    assert_int_equal(gw_write_file(path, bytes, size), 0);
    free(bytes);
    gw_destroy(w);
    return path;
}

/* Character pixels per column of the half [x0, x0 + w). */
static void column_coverage(const ot_image *im, uint32_t x0, uint32_t w, int *cols) {
    const uint8_t *bg = im->rgba;
    for (uint32_t x = 0; x < w; x++) {
        cols[x] = 0;
        for (uint32_t y = 0; y < im->height; y++) {
            const uint8_t *p = im->rgba + ((size_t)y * im->width + x0 + x) * 4;
            int d = 0;
            for (int c = 0; c < 3; c++) d = abs(p[c] - bg[c]) > d ? abs(p[c] - bg[c]) : d;
            cols[x] += d > 24;
        }
    }
}

static void lbs_and_dqs_differ_at_the_twist_only(void **state) {
    (void)state;
    if (!gl_tool_or_skip()) skip();
    char *path = write_twist();
    ot_image im;
    char args[8192];
    snprintf(args, sizeof args, "render '%s' --from 0.5 --to 0.5 --compare --size 240x80", path);
    render(args, ot_tmp("twist_compare.png"), &im);
    uint32_t half = im.width / 2;
    int lbs[120], dqs[120];
    column_coverage(&im, 0, half, lbs);
    column_coverage(&im, half, half, dqs);
    /* the cylinder's column span (same camera on both halves) */
    uint32_t c0 = half, c1 = 0;
    for (uint32_t x = 0; x < half; x++)
        if (dqs[x] > 0) c0 = x < c0 ? x : c0, c1 = x;
    assert_true(c1 > c0 + 30);
    /* the joint (x = 1) projects into the middle third, the ends into the outer fifths */
    uint32_t len = c1 - c0 + 1;
    long mid[2] = {0, 0}, ends[2] = {0, 0};
    for (uint32_t x = c0; x <= c1; x++) {
        uint32_t r = x - c0;
        bool in_mid = r > len / 3 && r < 2 * len / 3, in_end = r < len / 5 || r > 4 * len / 5;
        if (in_mid) mid[0] += lbs[x], mid[1] += dqs[x];
        if (in_end) ends[0] += lbs[x], ends[1] += dqs[x];
    }
    printf("[   INFO   ] twist 160 deg: middle third LBS %ld px vs DQS %ld px; ends LBS %ld vs DQS %ld\n", mid[0],
           mid[1], ends[0], ends[1]);
    assert_true((double)mid[0] < 0.8 * (double)mid[1]);                          /* LBS collapses at the joint */
    assert_true(fabs((double)ends[0] - (double)ends[1]) < 0.05 * (double)ends[1]); /* same elsewhere */
    ot_image_free(&im);
    /* --skinning dqs alone draws the right half of the comparison */
    ot_image one;
    snprintf(args, sizeof args, "render '%s' --from 0.5 --to 0.5 --skinning dqs --size 120x80", path);
    render(args, ot_tmp("twist_dqs.png"), &one);
    int solo[120];
    column_coverage(&one, 0, 120, solo);
    long a = 0, b = 0;
    for (uint32_t x = 0; x < 120; x++) a += solo[x], b += dqs[x];
    assert_true(labs(a - b) < b / 20 + 5);
    ot_image_free(&one);
    free(path);
}

/* 4-connected components of character pixels: their pixel counts and bounding boxes'
 * aspect ratios (up to max of them); returns how many there are. */
static int components(const ot_image *im, int *area, double *aspect, int max) {
    uint32_t W = im->width, H = im->height;
    int *label = calloc((size_t)W * H, sizeof *label), *stack = malloc(sizeof(int) * W * H);
    const uint8_t *bg = im->rgba;
    int found = 0, next = 0;
    for (uint32_t s = 0; s < W * H; s++) {
        const uint8_t *p = im->rgba + (size_t)s * 4;
        int d = 0;
        for (int c = 0; c < 3; c++) d = abs(p[c] - bg[c]) > d ? abs(p[c] - bg[c]) : d;
        if (d <= 24) label[s] = -1;
    }
    for (uint32_t s = 0; s < W * H; s++) {
        if (label[s]) continue;
        int top = 0, n = 0;
        uint32_t x0 = W, x1 = 0, y0 = H, y1 = 0;
        label[s] = ++next;
        stack[top++] = (int)s;
        while (top) {
            uint32_t q = (uint32_t)stack[--top], x = q % W, y = q / W;
            n++;
            x0 = x < x0 ? x : x0, x1 = x > x1 ? x : x1, y0 = y < y0 ? y : y0, y1 = y > y1 ? y : y1;
            const int64_t nb[4] = {x > 0 ? (int64_t)q - 1 : -1, x + 1 < W ? (int64_t)q + 1 : -1,
                                   y > 0 ? (int64_t)q - W : -1, y + 1 < H ? (int64_t)q + W : -1};
            for (int k = 0; k < 4; k++)
                if (nb[k] >= 0 && !label[nb[k]]) label[nb[k]] = next, stack[top++] = (int)nb[k];
        }
        if (found < max) area[found] = n, aspect[found++] = (double)(x1 - x0 + 1) / (double)(y1 - y0 + 1);
    }
    free(label);
    free(stack);
    return found;
}

static void crowd_draws_separate_characters_in_different_poses(void **state) {
    (void)state;
    if (!gl_tool_or_skip()) skip();
    ot_image im;
    char *out = NULL, cmd[8192];
    const char *png = ot_tmp("crowd6.png");
    snprintf(cmd, sizeof cmd, "\"%s\" crowd demo --count 6 --spacing 4 --size 320x200 --time 0.45 --out '%s'",
             ot_tool(), png);
    assert_int_equal(ot_run(cmd, &out), 0);
    assert_non_null(strstr(out, "6 instances"));
    free(out);
    ot_read_png(png, &im);
    double aspect[256];
    int area[256], biggest = 0, n = 0;
    int all = components(&im, area, aspect, 256);
    for (int i = 0; i < all; i++) biggest = area[i] > biggest ? area[i] : biggest;
    /* a character is a component of at least a quarter of the largest one's pixels (a thin
     * forearm may come apart from its body at this size; it is not a character) */
    double lo = 1e9, hi = 0;
    for (int i = 0; i < all; i++)
        if (4 * area[i] >= biggest) {
            n++;
            lo = fmin(lo, aspect[i]), hi = fmax(hi, aspect[i]);
        }
    printf("[   INFO   ] crowd of 6: %d components, bounding-box aspect %.2f..%.2f\n", n, lo, hi);
    assert_int_equal(n, 6);
    assert_true(hi > 1.15 * lo); /* poses differ (walk and wave, own phases) */
    ot_image_free(&im);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(materials_and_images_import),
        cmocka_unit_test(image_decode_png_jpeg_and_bad_bytes),
        cmocka_unit_test(textured_model_shows_its_texture),
        cmocka_unit_test(untextured_model_shows_its_factor_and_vertex_colours),
        cmocka_unit_test(alpha_modes),
        cmocka_unit_test(mesh_without_normals_is_shaded),
        cmocka_unit_test(lbs_and_dqs_differ_at_the_twist_only),
        cmocka_unit_test(crowd_draws_separate_characters_in_different_poses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
