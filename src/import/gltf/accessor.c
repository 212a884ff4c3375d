/* bufferViews and accessors: every component type, `normalized`, byteStride,
 * matrix column padding, sparse substitution and accessors without a bufferView
 * (zeros). Every read is checked against the bufferView and buffer first. */
#include "import/gltf/gltf_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static uint32_t component_size(uint32_t ct) {
    switch (ct) {
    case 5120: case 5121: return 1;
    case 5122: case 5123: return 2;
    case 5125: case 5126: return 4;
    default: return 0;
    }
}

ossa_result ossa__views_parse(ossa__ctx *ctx) {
    uint32_t count;
    int32_t *items;
    ossa_result r = ossa__json_object_array(ctx, 0, "", "bufferViews", &count, &items);
    if (r || !count) return r;
    ctx->gltf->views = ossa__ctx_alloc(ctx, count, sizeof *ctx->gltf->views);
    if (!ctx->gltf->views) {
        ossa__ctx_free(ctx, items);
        return ctx->failed;
    }
    ctx->gltf->view_count = count;
    for (uint32_t i = 0; i < count && !r; i++) {
        char path[64];
        ossa__path_join(path, sizeof path, "", "/bufferViews/", i);
        ossa__view *v = &ctx->gltf->views[i];
        int32_t buffer;
        uint64_t off = 0, len = 0, stride = 0;
        bool has_stride = false;
        if ((r = ossa__json_get_index(ctx, items[i], path, "buffer", true, ctx->gltf->buffer_count, "buffers", &buffer))) break;
        if ((r = ossa__json_get_uint(ctx, items[i], path, "byteOffset", false, SIZE_MAX / 4, &off, NULL))) break;
        if ((r = ossa__json_get_uint(ctx, items[i], path, "byteLength", true, SIZE_MAX / 4, &len, NULL))) break;
        if ((r = ossa__json_get_uint(ctx, items[i], path, "byteStride", false, 252, &stride, &has_stride))) break;
        if (len == 0) {
            r = ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path, "byteLength must be at least 1");
            break;
        }
        if (has_stride && (stride < 4 || stride % 4)) {
            r = ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path, "byteStride %llu must be a multiple of 4 in [4, 252]",
                           (unsigned long long)stride);
            break;
        }
        /* a buffer that was not loaded is checked against its byteLength (its data is an error only when read) */
        size_t bsize = ctx->gltf->buffers[buffer].deferred ? ctx->gltf->buffers[buffer].declared : ctx->gltf->buffers[buffer].size;
        if (off > bsize || len > bsize - off) {
            if (ossa__buffer_usable(ctx, (uint32_t)buffer)) { /* a broken buffer: its own error first, as before */
                r = ctx->failed;
                break;
            }
            r = ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path,
                           "byteOffset %llu + byteLength %llu exceeds buffer %d (%zu bytes)", (unsigned long long)off,
                           (unsigned long long)len, buffer, bsize);
            break;
        }
        v->buffer = (uint32_t)buffer;
        v->offset = (size_t)off;
        v->length = (size_t)len;
        v->stride = (uint32_t)stride;
    }
    ossa__ctx_free(ctx, items);
    return r;
}

static bool parse_type(const ossa__ctx *ctx, int32_t tok, ossa__accessor *a) {
    static const struct { const char *name; uint32_t comps, cols; } T[] = {
        {"SCALAR", 1, 1}, {"VEC2", 2, 1}, {"VEC3", 3, 1}, {"VEC4", 4, 1},
        {"MAT2", 4, 2},   {"MAT3", 9, 3}, {"MAT4", 16, 4},
    };
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++)
        if (ossa__json_eq(ctx, tok, T[i].name)) {
            a->components = T[i].comps;
            a->columns = T[i].cols;
            a->type_name = T[i].name;
            return true;
        }
    return false;
}

/* Bytes of one element (matrix columns padded to 4 bytes). */
static size_t element_size(const ossa__accessor *a, size_t *column_bytes) {
    uint32_t cs = component_size(a->component_type);
    uint32_t rows = a->components / a->columns;
    size_t col = (size_t)rows * cs;
    if (a->columns > 1) col = (col + 3u) & ~(size_t)3u;
    if (column_bytes) *column_bytes = col;
    return col * a->columns;
}

/* The accessor's elements fit in its bufferView: a byteStride no smaller than an element, and
 * offset + stride * (count - 1) + element size (less the padding the last column of the last
 * matrix does not need: MAT2/MAT3 of BYTE/SHORT) within the view, in 64 bits. */
static ossa_result check_view_fits(ossa__ctx *ctx, const char *path, const ossa__accessor *a) {
    const ossa__view *v = &ctx->gltf->views[a->view];
    size_t col;
    size_t esize = element_size(a, &col);
    size_t stride = v->stride ? v->stride : esize;
    if (v->stride && v->stride < esize)
        return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path, "bufferView %d byteStride %u is smaller than an element (%zu bytes)",
                          a->view, v->stride, esize);
    size_t pad = a->columns > 1 ? col - (size_t)(a->components / a->columns) * component_size(a->component_type) : 0;
    uint64_t need = (uint64_t)a->offset + (uint64_t)stride * (uint64_t)(a->count - 1) + esize - pad;
    if (need > (uint64_t)v->length)
        return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path, "count %u exceeds bufferView %d (needs %llu bytes, has %zu)",
                          a->count, a->view, (unsigned long long)need, v->length);
    return OSSA_OK;
}

/* Accessor i (JSON object o): its fields checked (componentType, normalized, count >= 1, a
 * type; an unknown type only warns: the accessor cannot be read), and its elements within its
 * bufferView. */
static ossa_result parse_accessor(ossa__ctx *ctx, int32_t o, uint32_t i, ossa__accessor *a) {
    char path[64];
    ossa__path_join(path, sizeof path, "", "/accessors/", i);
    uint64_t off = 0, ct = 0, n = 0;
    ossa_result r;
    if ((r = ossa__json_get_index(ctx, o, path, "bufferView", false, ctx->gltf->view_count, "bufferViews", &a->view)))
        return r;
    if ((r = ossa__json_get_uint(ctx, o, path, "byteOffset", false, SIZE_MAX / 4, &off, NULL))) return r;
    if ((r = ossa__json_get_uint(ctx, o, path, "componentType", true, UINT32_MAX, &ct, NULL))) return r;
    if ((r = ossa__json_get_uint(ctx, o, path, "count", true, UINT32_MAX, &n, NULL))) return r;
    if ((r = ossa__json_get_bool(ctx, o, path, "normalized", &a->normalized))) return r;
    a->offset = (size_t)off;
    a->component_type = (uint32_t)ct;
    a->count = (uint32_t)n;
    a->sparse_tok = -1;
    if (!component_size(a->component_type))
        return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path, "componentType %u is not a glTF component type",
                          a->component_type);
    if (a->normalized && (ct == 5125 || ct == 5126))
        return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path, "normalized is not allowed for componentType %u",
                          a->component_type);
    if (n == 0) return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path, "count must be at least 1");
    int32_t tt = ossa__json_find(ctx, o, "type");
    if (tt < 0 || ctx->gltf->tok[tt].type != OSSA__J_STRING)
        return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path, "missing or unknown accessor type");
    if (!parse_type(ctx, tt, a)) {
        /* the validator accepts an unknown type on an unused accessor: an error only when read */
        a->type_name = "unknown";
        a->components = a->columns = 0;
        a->sparse_tok = -1;
        ossa__warn(ctx, path, "unknown accessor type '%.*s'; the accessor cannot be read",
                   (int)(ctx->gltf->tok[tt].end - ctx->gltf->tok[tt].start), ctx->gltf->json + ctx->gltf->tok[tt].start);
        return OSSA_OK;
    }
    if ((r = ossa__json_get_object(ctx, o, path, "sparse", &a->sparse_tok))) return r;
    uint32_t cs = component_size(a->component_type);
    if (a->offset % cs) ossa__warn(ctx, path, "byteOffset %zu is not a multiple of the component size %u", a->offset, cs);
    return a->view >= 0 ? check_view_fits(ctx, path, a) : OSSA_OK;
}

ossa_result ossa__accessors_parse(ossa__ctx *ctx) {
    uint32_t count;
    int32_t *items;
    ossa_result r = ossa__json_object_array(ctx, 0, "", "accessors", &count, &items);
    if (r || !count) return r;
    ctx->gltf->accessors = ossa__ctx_alloc(ctx, count, sizeof *ctx->gltf->accessors);
    if (!ctx->gltf->accessors) {
        ossa__ctx_free(ctx, items);
        return ctx->failed;
    }
    ctx->gltf->accessor_count = count;
    for (uint32_t i = 0; i < count && !r; i++) r = parse_accessor(ctx, items[i], i, &ctx->gltf->accessors[i]);
    ossa__ctx_free(ctx, items);
    return r;
}

static double read_component(const uint8_t *p, uint32_t ct, bool normalized) {
    switch (ct) {
    case 5120: { int8_t v; memcpy(&v, p, 1); return normalized ? fmax(v / 127.0, -1.0) : v; }
    case 5121: { uint8_t v = p[0]; return normalized ? v / 255.0 : v; }
    case 5122: { int16_t v; memcpy(&v, p, 2); return normalized ? fmax(v / 32767.0, -1.0) : v; }
    case 5123: { uint16_t v; memcpy(&v, p, 2); return normalized ? v / 65535.0 : v; }
    case 5125: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { float v; memcpy(&v, p, 4); return v; }
    }
}

static uint32_t read_index(const uint8_t *p, uint32_t ct) {
    if (ct == 5121) return p[0];
    if (ct == 5123) { uint16_t v; memcpy(&v, p, 2); return v; }
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* Decodes one element at p into f (floats) or u (uints). */
static void decode_element(const ossa__accessor *a, const uint8_t *p, size_t column_bytes, float *f, uint32_t *u) {
    uint32_t cs = component_size(a->component_type);
    uint32_t rows = a->components / a->columns;
    for (uint32_t c = 0; c < a->columns; c++)
        for (uint32_t r = 0; r < rows; r++) {
            const uint8_t *q = p + c * column_bytes + r * cs;
            if (f) f[c * rows + r] = (float)read_component(q, a->component_type, a->normalized);
            else u[c * rows + r] = read_index(q, a->component_type);
        }
}

static ossa_result apply_sparse(ossa__ctx *ctx, uint32_t index, const ossa__accessor *a, float *f, uint32_t *u) {
    char path[80], ip[96], vp[96];
    snprintf(path, sizeof path, "/accessors/%u/sparse", index);
    snprintf(ip, sizeof ip, "%s/indices", path);
    snprintf(vp, sizeof vp, "%s/values", path);
    uint64_t n = 0, ioff = 0, voff = 0, ict = 0;
    int32_t it, vt, iview, vview;
    ossa_result r;
    if ((r = ossa__json_get_uint(ctx, a->sparse_tok, path, "count", true, UINT32_MAX, &n, NULL))) return r;
    if (n == 0 || n > a->count)
        return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path, "count %llu must be in [1, %u]", (unsigned long long)n, a->count);
    if ((r = ossa__json_get_object(ctx, a->sparse_tok, path, "indices", &it))) return r;
    if ((r = ossa__json_get_object(ctx, a->sparse_tok, path, "values", &vt))) return r;
    if (it < 0 || vt < 0) return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path, "missing indices or values");
    if ((r = ossa__json_get_index(ctx, it, ip, "bufferView", true, ctx->gltf->view_count, "bufferViews", &iview))) return r;
    if ((r = ossa__json_get_uint(ctx, it, ip, "byteOffset", false, SIZE_MAX / 4, &ioff, NULL))) return r;
    if ((r = ossa__json_get_uint(ctx, it, ip, "componentType", true, UINT32_MAX, &ict, NULL))) return r;
    if (ict != 5121 && ict != 5123 && ict != 5125)
        return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, ip, "componentType %llu is not an unsigned integer type",
                          (unsigned long long)ict);
    if ((r = ossa__json_get_index(ctx, vt, vp, "bufferView", true, ctx->gltf->view_count, "bufferViews", &vview))) return r;
    if ((r = ossa__json_get_uint(ctx, vt, vp, "byteOffset", false, SIZE_MAX / 4, &voff, NULL))) return r;
    const ossa__view *iv = &ctx->gltf->views[iview], *vv = &ctx->gltf->views[vview];
    if (ossa__buffer_usable(ctx, iv->buffer) || ossa__buffer_usable(ctx, vv->buffer)) return ctx->failed;
    size_t isz = component_size((uint32_t)ict);
    size_t col;
    size_t esz = element_size(a, &col);
    if (ioff > iv->length || n * isz > iv->length - ioff)
        return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, ip, "%llu indices exceed bufferView %d", (unsigned long long)n, iview);
    if (voff > vv->length || n * esz > vv->length - voff)
        return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, vp, "%llu values exceed bufferView %d", (unsigned long long)n, vview);
    r = OSSA_OK;
    void *iscratch = NULL, *vscratch = NULL;
    const uint8_t *ib = ossa__buffer_bytes(ctx, iv->buffer, iv->offset + ioff, n * isz, &iscratch);
    const uint8_t *vb = ib ? ossa__buffer_bytes(ctx, vv->buffer, vv->offset + voff, n * esz, &vscratch) : NULL;
    uint32_t prev = 0;
    for (uint64_t k = 0; vb && k < n; k++) {
        uint32_t e = read_index(ib + k * isz, (uint32_t)ict);
        if (e >= a->count) {
            r = ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, ip, "index %u at %llu >= accessor count %u", e,
                           (unsigned long long)k, a->count);
            break;
        }
        if (k > 0 && e <= prev) {
            r = ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, ip, "indices are not strictly increasing at %llu",
                           (unsigned long long)k);
            break;
        }
        prev = e;
        decode_element(a, vb + k * esz, col, f ? f + (size_t)e * a->components : NULL,
                       u ? u + (size_t)e * a->components : NULL);
    }
    if (!vb) r = ctx->failed;
    ossa__ctx_free(ctx, iscratch);
    ossa__ctx_free(ctx, vscratch);
    return r;
}

static ossa_result decode_at(ossa__ctx *ctx, uint32_t index, float **fout, uint32_t **uout, bool modify);

/* Decodes with the accessor as the load's stage (LIMIT diagnostics name it), then restores the stage. */
static ossa_result decode(ossa__ctx *ctx, uint32_t index, float **fout, uint32_t **uout, bool modify) {
    const char *stage = ctx->stage;
    uint32_t stage_index = ctx->stage_index;
    OSSA__STAGE(ctx, "/accessors/%u", index);
    ossa_result r = decode_at(ctx, index, fout, uout, modify);
    OSSA__STAGE(ctx, stage, stage_index);
    return r;
}

/* A tightly packed FLOAT accessor's values in place (no copy; ossa__ctx_free ignores pointers
 * into buffers), or NULL. Values the caller modifies are borrowed only from this load's own
 * scratch buffers (a decoded data: URI), never from a mapped file or the caller's memory. */
static float *borrow_floats(const ossa__ctx *ctx, const ossa__accessor *a, bool modify) {
    if (a->view < 0 || a->component_type != 5126 || a->sparse_tok >= 0) return NULL;
    const ossa__view *v = &ctx->gltf->views[a->view];
    const ossa__buffer *buf = &ctx->gltf->buffers[v->buffer];
    size_t esz = element_size(a, NULL);
    const uint8_t *base = buf->data ? buf->data + v->offset + a->offset : NULL;
    if (base && (!v->stride || v->stride == esz) && esz == (size_t)a->components * 4 && (!modify || buf->writable) &&
        ((uintptr_t)base & 3u) == 0)
        return (float *)(void *)(uintptr_t)base;
    return NULL;
}

/* UNSIGNED_BYTE / UNSIGNED_SHORT scalars or vectors (not matrices) into u: nc per element. */
static void widen_indices(const ossa__accessor *a, const uint8_t *base, size_t stride, uint32_t *u) {
    uint32_t cs = a->component_type == 5121 ? 1 : 2, nc = a->components;
    for (uint32_t i = 0; i < a->count; i++) {
        const uint8_t *p = base + (size_t)i * stride;
        uint32_t *o = u + (size_t)i * nc;
        if (cs == 1)
            for (uint32_t k = 0; k < nc; k++) o[k] = p[k];
        else
            for (uint32_t k = 0; k < nc; k++) {
                uint16_t x;
                memcpy(&x, p + 2 * k, 2);
                o[k] = x;
            }
    }
}

/* The accessor's elements from its bufferView into f (floats) or u (unsigned): FLOAT without
 * column padding copied (or decoded from base64) straight, small unsigned integers widened,
 * anything else through decode_element. False when the buffer bytes cannot be read (ctx has
 * failed). */
static bool read_view_elements(ossa__ctx *ctx, const ossa__accessor *a, float *f, uint32_t *u) {
    const ossa__view *v = &ctx->gltf->views[a->view];
    size_t col;
    size_t esz = element_size(a, &col), total = (size_t)a->count * a->components;
    size_t stride = v->stride ? v->stride : esz;
    /* the bytes the elements occupy: the last column of the last matrix may lack its padding */
    size_t pad = a->columns > 1 ? col - (size_t)(a->components / a->columns) * component_size(a->component_type) : 0;
    size_t at = v->offset + a->offset, span = a->count ? (size_t)(a->count - 1) * stride + esz - pad : 0;
    bool packed_floats = f && a->component_type == 5126 && col * a->columns == esz && esz == (size_t)a->components * 4;
    if (packed_floats && stride == esz) { /* the bytes are the floats (same values as decode_element) */
        ossa__buffer_copy(ctx, v->buffer, at, total * sizeof *f, (uint8_t *)f);
        return true;
    }
    void *scratch = NULL;
    const uint8_t *base = ossa__buffer_bytes(ctx, v->buffer, at, span, &scratch);
    if (!base) return false;
    if (packed_floats) {
        for (uint32_t i = 0; i < a->count; i++) memcpy(f + (size_t)i * a->components, base + (size_t)i * stride, esz);
    } else if (u && a->columns == 1 && (a->component_type == 5121 || a->component_type == 5123)) {
        widen_indices(a, base, stride, u);
    } else {
        for (uint32_t i = 0; i < a->count; i++)
            decode_element(a, base + (size_t)i * stride, col, f ? f + (size_t)i * a->components : NULL,
                           u ? u + (size_t)i * a->components : NULL);
    }
    ossa__ctx_free(ctx, scratch);
    return true;
}

/* Accessor `index` decoded to floats (*fout) or unsigned integers (*uout): borrowed in place
 * when it can be (see borrow_floats), else allocated (zeroed only when there is no bufferView:
 * zeros + optional sparse), its sparse substitution applied, every FLOAT finite. */
static ossa_result decode_at(ossa__ctx *ctx, uint32_t index, float **fout, uint32_t **uout, bool modify) {
    char path[64];
    path[0] = 0; /* formatted only on an error */
#define ACC_PATH() (snprintf(path, sizeof path, "/accessors/%u", index), path)
    if (index >= ctx->gltf->accessor_count)
        return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, ACC_PATH(), "accessor does not exist (%u accessors)",
                          ctx->gltf->accessor_count);
    const ossa__accessor *a = &ctx->gltf->accessors[index];
    if (!a->columns)
        return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, ACC_PATH(), "missing or unknown accessor type");
    if (a->view >= 0 && ossa__buffer_usable(ctx, ctx->gltf->views[a->view].buffer)) return ctx->failed;
    size_t total = (size_t)a->count * a->components;
    float *f = fout ? borrow_floats(ctx, a, modify) : NULL;
    uint32_t *u = NULL;
    bool borrowed = f != NULL;
    if (borrowed) {
    } else if (fout) {
        f = a->view >= 0 ? ossa__ctx_alloc_raw(ctx, total, sizeof *f) : ossa__ctx_alloc(ctx, total, sizeof *f);
    } else {
        u = a->view >= 0 ? ossa__ctx_alloc_raw(ctx, total, sizeof *u) : ossa__ctx_alloc(ctx, total, sizeof *u);
    }
    if (!f && !u) return ctx->failed;
    ossa_result r = OSSA_OK;
    if (a->view >= 0 && !borrowed && !read_view_elements(ctx, a, f, u)) r = ctx->failed;
    if (!r && a->sparse_tok >= 0) r = apply_sparse(ctx, index, a, f, u);
    if (!r && f && a->component_type == 5126) {
        for (size_t i = 0; i < total; i++)
            if (!isfinite(f[i])) {
                r = ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, ACC_PATH(), "element %zu component %zu is not finite",
                               i / a->components, i % a->components);
                break;
            }
    }
    if (r) {
        ossa__ctx_free(ctx, f);
        ossa__ctx_free(ctx, u);
        return r;
    }
    if (fout) *fout = f;
    else *uout = u;
    return OSSA_OK;
#undef ACC_PATH
}

ossa_result ossa__accessor_read_floats(ossa__ctx *ctx, uint32_t index, float **out) {
    *out = NULL;
    return decode(ctx, index, out, NULL, false);
}

ossa_result ossa__accessor_read_floats_mutable(ossa__ctx *ctx, uint32_t index, float **out) {
    *out = NULL;
    return decode(ctx, index, out, NULL, true);
}

ossa_result ossa__accessor_read_uints(ossa__ctx *ctx, uint32_t index, uint32_t **out) {
    *out = NULL;
    char path[64];
    snprintf(path, sizeof path, "/accessors/%u", index);
    if (index >= ctx->gltf->accessor_count)
        return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path, "accessor does not exist (%u accessors)", ctx->gltf->accessor_count);
    const ossa__accessor *a = &ctx->gltf->accessors[index];
    uint32_t ct = a->component_type;
    if ((ct != 5121 && ct != 5123 && ct != 5125) || a->normalized)
        return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path, "componentType %u%s is not an unsigned integer type", ct,
                          a->normalized ? " (normalized)" : "");
    return decode(ctx, index, NULL, out, true);
}
