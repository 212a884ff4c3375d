/* glTF materials, textures, samplers and images → ossa_material / ossa_image
 * (material.h), plus COLOR_0 and a primitive's material index for the mesh builder.
 *
 * Materials are appearance, not animation: every fault here is a located WARNING
 * and a fallback (the factor instead of a texture, the default material instead
 * of a bad index), never a failed load. Images keep their encoded bytes (from a
 * bufferView, a data: URI or a file next to the model); decoding is the tools'. */
#include "import/gltf/gltf_internal.h"
#include "import/gltf/material_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/alloc.h"

/* Non-negative integer member `key` of obj: true with *out when present and valid;
 * a present but invalid value is warned about (place path.key) and gives false. */
static bool soft_uint_as(ossa__ctx *ctx, int32_t obj, const char *path, const char *key, const char *label,
                         uint32_t max, uint32_t *out) {
    int32_t t = obj >= 0 ? ossa__json_find(ctx, obj, key) : -1;
    if (t < 0) return false;
    const ossa__jtok *k = &ctx->gltf->tok[t];
    char buf[32];
    size_t n = k->end - k->start;
    bool ok = k->type == OSSA__J_PRIMITIVE && n > 0 && n < sizeof buf;
    double v = -1;
    if (ok) {
        memcpy(buf, ctx->gltf->json + k->start, n);
        buf[n] = 0;
        char *end = NULL;
        v = strtod(buf, &end);
        ok = end && *end == 0 && v >= 0 && v <= (double)max && v == floor(v);
    }
    if (!ok) {
        ossa__warn(ctx, path, "%s is not a non-negative integer (at most %u); ignored", label, max);
        return false;
    }
    *out = (uint32_t)v;
    return true;
}

static bool soft_uint(ossa__ctx *ctx, int32_t obj, const char *path, const char *key, uint32_t max, uint32_t *out) {
    return soft_uint_as(ctx, obj, path, key, key, max, out);
}

/* Number token → *out; false when it is not a finite number. */
static bool tok_float(const ossa__ctx *ctx, int32_t t, float *out) {
    const ossa__jtok *k = &ctx->gltf->tok[t];
    char buf[64];
    size_t n = k->end - k->start;
    if (k->type != OSSA__J_PRIMITIVE || n == 0 || n >= sizeof buf) return false;
    memcpy(buf, ctx->gltf->json + k->start, n);
    buf[n] = 0;
    char *end = NULL;
    double v = strtod(buf, &end);
    if (!end || *end || !isfinite(v) || fabs(v) >= 1e30) return false;
    *out = (float)v;
    return true;
}

/* Number member: true with *out when present and finite, else a warning when present. */
static bool soft_float_as(ossa__ctx *ctx, int32_t obj, const char *path, const char *key, const char *label,
                          float *out) {
    int32_t t = obj >= 0 ? ossa__json_find(ctx, obj, key) : -1;
    if (t < 0) return false;
    if (tok_float(ctx, t, out)) return true;
    ossa__warn(ctx, path, "%s is not a number; ignored", label);
    return false;
}

static bool soft_float(ossa__ctx *ctx, int32_t obj, const char *path, const char *key, float *out) {
    return soft_float_as(ctx, obj, path, key, key, out);
}

/* A texture info's `extensions` must be an object of objects (values unused). */
static void check_extensions(ossa__ctx *ctx, int32_t info, const char *path, const char *label) {
    int32_t ext = ossa__json_find(ctx, info, "extensions");
    if (ext < 0) return;
    bool bad = ctx->gltf->tok[ext].type != OSSA__J_OBJECT;
    for (int32_t e = bad ? -1 : ossa__json_first(ctx, ext), c = 0; e >= 0 && (uint32_t)c < ctx->gltf->tok[ext].size;
         e = ossa__json_next(ctx, e), c++)
        if (ctx->gltf->tok[e + 1].type != OSSA__J_OBJECT) bad = true;
    if (bad) ossa__warn(ctx, path, "%s.extensions has a non-object value; ignored", label);
}

/* Object member or -1; a non-object value is warned about. */
static int32_t soft_object(ossa__ctx *ctx, int32_t obj, const char *path, const char *key) {
    int32_t t = obj >= 0 ? ossa__json_find(ctx, obj, key) : -1;
    if (t < 0) return -1;
    if (ctx->gltf->tok[t].type != OSSA__J_OBJECT) {
        ossa__warn(ctx, path, "%s is not an object; ignored", key);
        return -1;
    }
    return t;
}

/* Raw (still JSON-escaped) string member, or NULL; escapes are rare in these fields. */
static char *soft_string(ossa__ctx *ctx, int32_t obj, const char *path, const char *key) {
    int32_t t = obj >= 0 ? ossa__json_find(ctx, obj, key) : -1;
    if (t < 0) return NULL;
    char *s = NULL;
    if (ctx->gltf->tok[t].type != OSSA__J_STRING) {
        ossa__warn(ctx, path, "%s is not a string; ignored", key);
        return NULL;
    }
    char p[160];
    snprintf(p, sizeof p, "%s/%s", path, key);
    if (ossa__json_string_dup(ctx, t, p, &s)) return NULL;
    return s;
}

/* Elements of top-level array `key`: count and first element token (-1 when absent). */
static uint32_t top_array(ossa__ctx *ctx, const char *key, int32_t *first) {
    *first = -1;
    int32_t a = ossa__json_find(ctx, 0, key);
    if (a < 0) return 0;
    if (ctx->gltf->tok[a].type != OSSA__J_ARRAY) {
        char p[48];
        snprintf(p, sizeof p, "/%s", key);
        ossa__warn(ctx, p, "expected an array; ignored");
        return 0;
    }
    *first = ossa__json_first(ctx, a);
    return ctx->gltf->tok[a].size;
}

/* i-th element token of a top-level array (O(i); arrays here are short). */
static int32_t top_item(ossa__ctx *ctx, const char *key, uint32_t i) {
    int32_t e;
    uint32_t n = top_array(ctx, key, &e);
    if (i >= n) return -1;
    for (uint32_t k = 0; k < i; k++) e = ossa__json_next(ctx, e);
    return ctx->gltf->tok[e].type == OSSA__J_OBJECT ? e : -1;
}

/* One image's bytes while loading: points into a buffer, or owned (ctx budget). */
typedef struct image_src {
    char *name, *uri, *mime;
    const uint8_t *data;
    size_t size;
    uint8_t *owned;
} image_src;

static const char *sniff_mime(const uint8_t *d, size_t n) {
    if (n >= 8 && !memcmp(d, "\x89PNG\r\n\x1a\n", 8)) return "image/png";
    if (n >= 3 && d[0] == 0xFF && d[1] == 0xD8 && d[2] == 0xFF) return "image/jpeg";
    return NULL;
}

/* Reads a file without failing the load: NULL (and a warning) when it cannot. */
static uint8_t *read_soft(ossa__ctx *ctx, const char *file, const char *path, size_t *size) {
    FILE *f = fopen(file, "rb");
    struct stat st;
    if (!f || fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0 ||
        (uint64_t)st.st_size > ctx->limit - ctx->used) {
        if (f) fclose(f);
        ossa__warn(ctx, path, "cannot read image file '%s'; the material falls back to its factor", file);
        return NULL;
    }
    size_t n = (size_t)st.st_size;
    uint8_t *buf = ossa__ctx_alloc_raw(ctx, n + 1, 1);
    size_t got = buf && n ? fread(buf, 1, n, f) : 0;
    fclose(f);
    if (!buf) return NULL;
    if (got != n) {
        ossa__ctx_free(ctx, buf);
        ossa__warn(ctx, path, "short read on image file '%s'", file);
        return NULL;
    }
    *size = n;
    return buf;
}

static void load_image(ossa__ctx *ctx, int32_t obj, uint32_t i, image_src *im) {
    char path[48];
    snprintf(path, sizeof path, "/images/%u", i);
    im->name = soft_string(ctx, obj, path, "name");
    im->mime = soft_string(ctx, obj, path, "mimeType");
    uint32_t view;
    char *uri = soft_string(ctx, obj, path, "uri");
    if (soft_uint(ctx, obj, path, "bufferView", UINT32_MAX, &view)) {
        if (view >= ctx->gltf->view_count) {
            ossa__warn(ctx, path, "bufferView %u out of range (%u bufferViews)", view, ctx->gltf->view_count);
        } else {
            const ossa__view *v = &ctx->gltf->views[view];
            if (v->buffer < ctx->gltf->buffer_count && v->offset <= ctx->gltf->buffers[v->buffer].size &&
                v->length <= ctx->gltf->buffers[v->buffer].size - v->offset) {
                if (ctx->gltf->buffers[v->buffer].base64) { /* a data: URI decoded on demand: the image's own copy */
                    im->owned = ossa__ctx_alloc_raw(ctx, v->length ? v->length : 1, 1);
                    if (im->owned) ossa__buffer_copy(ctx, v->buffer, v->offset, v->length, im->owned);
                    im->data = im->owned;
                } else {
                    im->data = ctx->gltf->buffers[v->buffer].data + v->offset;
                }
                im->size = im->data ? v->length : 0;
            }
        }
    } else if (uri && !strncmp(uri, "data:", 5)) {
        const char *comma = strchr(uri, ',');
        if (!comma || (size_t)(comma - uri) < 7 || memcmp(comma - 7, ";base64", 7)) {
            ossa__warn(ctx, path, "data: URI is not base64; image ignored");
        } else {
            size_t n = strlen(comma + 1);
            uint8_t *d = ossa__ctx_alloc_raw(ctx, ossa__base64_decoded_bound(n), 1);
            size_t got = 0;
            if (d && ossa__base64_decode(comma + 1, n, d, &got)) {
                im->owned = d, im->data = d, im->size = got;
                if (!im->mime && comma - uri > 12) { /* data:<mime>;base64, */
                    size_t ml = (size_t)(comma - uri) - 12;
                    im->mime = ossa__ctx_alloc(ctx, ml + 1, 1);
                    if (im->mime) memcpy(im->mime, uri + 5, ml);
                }
            } else {
                ossa__ctx_free(ctx, d);
                if (!ctx->failed) ossa__warn(ctx, path, "invalid base64 in data: URI; image ignored");
            }
        }
    } else if (uri) {
        char rel[1024], full[2048];
        const char *colon = strchr(uri, ':'), *slash = strchr(uri, '/');
        if ((colon && (!slash || colon < slash)) || uri[0] == '/' || !ossa__uri_decode(uri, rel, sizeof rel)) {
            ossa__warn(ctx, path, "unsupported image uri '%s'; image ignored", uri);
        } else if (!ctx->gltf->base_dir) {
            ossa__warn(ctx, path, "external image '%s' needs options->base_dir when loading from memory", rel);
        } else {
            int w = snprintf(full, sizeof full, "%s%s%s", ctx->gltf->base_dir,
                             (ctx->gltf->base_dir[0] && ctx->gltf->base_dir[strlen(ctx->gltf->base_dir) - 1] != '/') ? "/" : "", rel);
            if (w > 0 && (size_t)w < sizeof full) {
                im->owned = read_soft(ctx, full, path, &im->size);
                im->data = im->owned;
            }
        }
        im->uri = uri;
        uri = NULL;
    } else {
        ossa__warn(ctx, path, "image has neither uri nor bufferView");
    }
    ossa__ctx_free(ctx, uri);
    /* the bytes decide when they are a known format (files often lie about mimeType) */
    const char *sniffed = im->data ? sniff_mime(im->data, im->size) : NULL;
    if (sniffed && (!im->mime || strcmp(im->mime, sniffed))) {
        ossa__ctx_free(ctx, im->mime);
        size_t l = strlen(sniffed) + 1;
        im->mime = ossa__ctx_alloc(ctx, l, 1);
        if (im->mime) memcpy(im->mime, sniffed, l);
    } else if (im->data && !sniffed) {
        ossa__warn(ctx, path, "image is neither PNG nor JPEG (%s); the material falls back to its factor",
                   im->mime ? im->mime : "no mimeType");
    }
}

/* texture info object (baseColorTexture) → ref; warns and leaves image -1 on faults. */
static void texture_ref(ossa__ctx *ctx, int32_t info, const char *path, uint32_t image_count, ossa_texture_ref *ref) {
    memset(ref, 0, sizeof *ref);
    ref->image = -1;
    if (info < 0) return;
    uint32_t tex = 0, tc = 0;
    check_extensions(ctx, info, path, "baseColorTexture");
    if (!soft_uint_as(ctx, info, path, "index", "baseColorTexture.index", UINT32_MAX, &tex)) {
        ossa__warn(ctx, path, "texture has no valid index; the factor is used");
        return;
    }
    if (soft_uint(ctx, info, path, "texCoord", UINT32_MAX, &tc)) {
        if (tc > 1) {
            ossa__warn(ctx, path, "texCoord %u is not supported (TEXCOORD_0/1 only); the factor is used", tc);
            return;
        }
        ref->texcoord = tc;
    }
    int32_t t = top_item(ctx, "textures", tex);
    char tp[48];
    snprintf(tp, sizeof tp, "/textures/%u", tex);
    if (t < 0) {
        ossa__warn(ctx, path, "texture %u does not exist; the factor is used", tex);
        return;
    }
    uint32_t src = 0, smp = 0;
    if (!soft_uint(ctx, t, tp, "source", UINT32_MAX, &src) || src >= image_count) {
        ossa__warn(ctx, tp, "no usable source image; the factor is used");
        return;
    }
    ref->image = (int32_t)src;
    if (soft_uint(ctx, t, tp, "sampler", UINT32_MAX, &smp)) {
        int32_t s = top_item(ctx, "samplers", smp);
        char sp[48];
        snprintf(sp, sizeof sp, "/samplers/%u", smp);
        if (s < 0) {
            ossa__warn(ctx, tp, "sampler %u does not exist; defaults used", smp);
            return;
        }
        uint32_t v;
        if (soft_uint(ctx, s, sp, "wrapS", 65535, &v)) ref->wrap_s = v;
        if (soft_uint(ctx, s, sp, "wrapT", 65535, &v)) ref->wrap_t = v;
        if (soft_uint(ctx, s, sp, "magFilter", 65535, &v)) ref->mag_filter = v;
        if (soft_uint(ctx, s, sp, "minFilter", 65535, &v)) ref->min_filter = v;
    }
}

static void load_material(ossa__ctx *ctx, int32_t obj, uint32_t i, uint32_t image_count, ossa_material *m, char **name) {
    char path[48], pp[96], tp[128];
    snprintf(path, sizeof path, "/materials/%u", i);
    m->base_color[0] = m->base_color[1] = m->base_color[2] = m->base_color[3] = 1.0f;
    m->alpha_cutoff = 0.5f;
    m->base_color_texture.image = -1;
    if (obj < 0) {
        ossa__warn(ctx, path, "expected an object; the default material is used");
        return;
    }
    *name = soft_string(ctx, obj, path, "name");
    snprintf(pp, sizeof pp, "%s/pbrMetallicRoughness", path);
    int32_t pbr = soft_object(ctx, obj, path, "pbrMetallicRoughness");
    if (pbr >= 0) {
        int32_t bc = ossa__json_find(ctx, pbr, "baseColorFactor");
        float f[4];
        bool ok = bc >= 0 && ctx->gltf->tok[bc].type == OSSA__J_ARRAY && ctx->gltf->tok[bc].size == 4;
        for (int32_t k = 0, t = ok ? ossa__json_first(ctx, bc) : -1; ok && k < 4; k++, t = ossa__json_next(ctx, t))
            ok = tok_float(ctx, t, &f[k]);
        if (ok)
            memcpy(m->base_color, f, sizeof f);
        else if (bc >= 0)
            ossa__warn(ctx, pp, "baseColorFactor is not 4 numbers; white used");
        snprintf(tp, sizeof tp, "%s/baseColorTexture", pp);
        texture_ref(ctx, soft_object(ctx, pbr, pp, "baseColorTexture"), tp, image_count, &m->base_color_texture);
        /* the other textures are checked for type only (ossa draws base colour) */
        int32_t mr = soft_object(ctx, pbr, pp, "metallicRoughnessTexture");
        if (mr >= 0) check_extensions(ctx, mr, pp, "metallicRoughnessTexture");
    }
    static const char *const others[] = {"normalTexture", "occlusionTexture", "emissiveTexture"};
    for (size_t k = 0; k < sizeof others / sizeof others[0]; k++) {
        int32_t t = soft_object(ctx, obj, path, others[k]);
        uint32_t u;
        float f;
        if (t < 0) continue;
        char label[64];
        static const char *const fields[] = {"index", "texCoord", "scale", "strength"};
        for (int q = 0; q < 4; q++) {
            snprintf(label, sizeof label, "%s.%s", others[k], fields[q]);
            if (q < 2) soft_uint_as(ctx, t, path, fields[q], label, UINT32_MAX, &u);
            else soft_float_as(ctx, t, path, fields[q], label, &f);
        }
        check_extensions(ctx, t, path, others[k]);
    }
    char *mode = soft_string(ctx, obj, path, "alphaMode");
    if (mode) {
        if (!strcmp(mode, "MASK")) m->alpha_mode = OSSA_ALPHA_MODE_MASK;
        else if (!strcmp(mode, "BLEND")) m->alpha_mode = OSSA_ALPHA_MODE_BLEND;
        else if (strcmp(mode, "OPAQUE")) ossa__warn(ctx, path, "alphaMode '%s' is unknown; OPAQUE used", mode);
        ossa__ctx_free(ctx, mode);
    }
    float cut;
    if (soft_float(ctx, obj, path, "alphaCutoff", &cut)) m->alpha_cutoff = cut < 0 ? 0 : cut;
    int32_t ds = ossa__json_find(ctx, obj, "doubleSided");
    if (ds >= 0) {
        const char *s = ctx->gltf->json + ctx->gltf->tok[ds].start;
        if (ctx->gltf->tok[ds].type == OSSA__J_PRIMITIVE && s[0] == 't') m->double_sided = true;
        else if (!(ctx->gltf->tok[ds].type == OSSA__J_PRIMITIVE && s[0] == 'f'))
            ossa__warn(ctx, path, "doubleSided is not a boolean; false used");
    }
}

static size_t slen(const char *s) { return (s ? strlen(s) : 0) + 1; }
static char *put(char **cursor, const char *s) {
    char *d = *cursor;
    size_t l = slen(s);
    if (s) memcpy(d, s, l);
    else d[0] = 0;
    *cursor += l;
    return d;
}

ossa_result ossa__materials_load(ossa__ctx *ctx, const ossa_allocator *al, ossa_asset *asset) {
    int32_t e;
    uint32_t image_count = top_array(ctx, "images", &e);
    image_src *src = image_count ? ossa__ctx_alloc(ctx, image_count, sizeof *src) : NULL;
    if (image_count && !src) return ctx->failed;
    for (uint32_t i = 0; i < image_count && !ctx->failed; i++, e = ossa__json_next(ctx, e)) {
        if (ctx->gltf->tok[e].type == OSSA__J_OBJECT) {
            load_image(ctx, e, i, &src[i]);
        } else {
            char p[48];
            snprintf(p, sizeof p, "/images/%u", i);
            ossa__warn(ctx, p, "expected an object; ignored");
        }
    }
    uint32_t mat_count = top_array(ctx, "materials", &e);
    ossa_material *mats = mat_count ? ossa__ctx_alloc(ctx, mat_count, sizeof *mats) : NULL;
    char **names = mat_count ? ossa__ctx_alloc(ctx, mat_count, sizeof *names) : NULL;
    for (uint32_t i = 0; i < mat_count && mats && names && !ctx->failed; i++, e = ossa__json_next(ctx, e))
        load_material(ctx, ctx->gltf->tok[e].type == OSSA__J_OBJECT ? e : -1, i, image_count, &mats[i], &names[i]);

    /* one block per array: structs, then strings (and image bytes) */
    if (!ctx->failed && mat_count) {
        ossa__layout L = {0, false};
        size_t o = ossa__layout_add(&L, mat_count, sizeof *mats), o_s = L.size;
        for (uint32_t i = 0; i < mat_count; i++) L.size += slen(names[i]);
        uint8_t *blk = !L.overflow && ossa__ctx_reserve(ctx, L.size) ? ossa__alloc(al, L.size) : NULL;
        if (blk) {
            asset->materials = (ossa_material *)(void *)(blk + o);
            asset->material_count = mat_count;
            char *cur = (char *)blk + o_s;
            for (uint32_t i = 0; i < mat_count; i++) {
                asset->materials[i] = mats[i];
                asset->materials[i].name = put(&cur, names[i]);
            }
        } else if (!ctx->failed) {
            ossa__fail(ctx, OSSA_ERROR_OUT_OF_MEMORY, "/materials", "out of memory");
        }
    }
    if (!ctx->failed && image_count) {
        ossa__layout L = {0, false};
        size_t o = ossa__layout_add(&L, image_count, sizeof(ossa_image));
        size_t *o_data = ossa__ctx_alloc(ctx, image_count, sizeof *o_data);
        for (uint32_t i = 0; o_data && i < image_count; i++) o_data[i] = ossa__layout_add(&L, src[i].size, 1);
        size_t o_s = L.size;
        for (uint32_t i = 0; i < image_count; i++) L.size += slen(src[i].name) + slen(src[i].uri) + slen(src[i].mime);
        uint8_t *blk = o_data && !L.overflow && ossa__ctx_reserve(ctx, L.size) ? ossa__alloc(al, L.size) : NULL;
        if (blk) {
            asset->images = (ossa_image *)(void *)(blk + o);
            asset->image_count = image_count;
            char *cur = (char *)blk + o_s;
            for (uint32_t i = 0; i < image_count; i++) {
                ossa_image *im = &asset->images[i];
                im->name = put(&cur, src[i].name);
                im->uri = put(&cur, src[i].uri);
                im->mime_type = put(&cur, src[i].mime);
                im->size = src[i].data ? src[i].size : 0;
                im->data = src[i].data ? blk + o_data[i] : NULL;
                if (im->size) memcpy(blk + o_data[i], src[i].data, im->size);
            }
        } else if (!ctx->failed) {
            ossa__fail(ctx, OSSA_ERROR_OUT_OF_MEMORY, "/images", "out of memory");
        }
        ossa__ctx_free(ctx, o_data);
    }
    for (uint32_t i = 0; src && i < image_count; i++) {
        ossa__ctx_free(ctx, src[i].name);
        ossa__ctx_free(ctx, src[i].uri);
        ossa__ctx_free(ctx, src[i].mime);
        ossa__ctx_free(ctx, src[i].owned);
    }
    for (uint32_t i = 0; names && i < mat_count; i++) ossa__ctx_free(ctx, names[i]);
    ossa__ctx_free(ctx, names);
    ossa__ctx_free(ctx, mats);
    ossa__ctx_free(ctx, src);
    return ctx->failed;
}

int32_t ossa__primitive_material(ossa__ctx *ctx, int32_t prim, const char *path, uint32_t material_count) {
    uint32_t m;
    if (!soft_uint(ctx, prim, path, "material", UINT32_MAX, &m)) return -1;
    if (m >= material_count) {
        ossa__warn(ctx, path, "material %u out of range (%u materials); the default material is used", m,
                   material_count);
        return -1;
    }
    return (int32_t)m;
}

ossa_result ossa__read_colors(ossa__ctx *ctx, int32_t attrs, const char *apath, uint32_t vertex_count, float **out) {
    *out = NULL;
    uint32_t idx;
    char p[160];
    snprintf(p, sizeof p, "%s/COLOR_0", apath);
    if (!soft_uint(ctx, attrs, apath, "COLOR_0", UINT32_MAX, &idx)) return OSSA_OK;
    if (idx >= ctx->gltf->accessor_count) {
        ossa__warn(ctx, p, "accessor %u out of range; vertex colours ignored", idx);
        return OSSA_OK;
    }
    const ossa__accessor *a = &ctx->gltf->accessors[idx];
    bool type_ok = a->columns == 1 && (a->components == 3 || a->components == 4) &&
                   (a->component_type == 5126 || ((a->component_type == 5121 || a->component_type == 5123) && a->normalized));
    if (!type_ok || a->count != vertex_count) {
        ossa__warn(ctx, p, "accessor %u must be VEC3/VEC4 of FLOAT or normalized UNSIGNED_BYTE/SHORT with %u elements; "
                   "vertex colours ignored", idx, vertex_count);
        return OSSA_OK;
    }
    float *raw = NULL;
    ossa_result r = ossa__accessor_read_floats(ctx, idx, &raw);
    if (r) return r;
    float *rgba = ossa__ctx_alloc_raw(ctx, (size_t)vertex_count * 4, sizeof *rgba);
    if (!rgba) {
        ossa__ctx_free(ctx, raw);
        return ctx->failed;
    }
    for (uint32_t v = 0; v < vertex_count; v++)
        for (uint32_t c = 0; c < 4; c++)
            rgba[(size_t)v * 4 + c] = c < a->components ? raw[(size_t)v * a->components + c] : 1.0f;
    ossa__ctx_free(ctx, raw);
    *out = rgba;
    return OSSA_OK;
}
