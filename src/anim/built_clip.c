/* Built clips: accessors, the relocatable block and its hostile-input loader (see
 * ossa/built_clip.h and built_clip_internal.h for the layout). */
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "anim/built_clip_internal.h"
#include "anim/sample_internal.h"
#include "core/alloc.h"
#include "core/hash.h"

_Static_assert(sizeof(ossa__bc_header) == 168, "header layout (docs/built-clips.md)");
_Static_assert(sizeof(ossa__bc_packed) == 32, "packed channel layout (docs/built-clips.md)");
_Static_assert(sizeof(ossa__bc_raw) == 20 && sizeof(ossa__bc_lane) == 8 && sizeof(ossa__bc_clock) == 8 && sizeof(ossa__bc_wtrack) == 16,
               "table layouts (docs/built-clips.md)");

static _Atomic uint64_t next_id = 1;

static size_t header_space(void) { return (sizeof(ossa_built_clip) + 15u) & ~(size_t)15u; }

ossa_result ossa__built_clip_bind(ossa_built_clip *clip, const unsigned char *block) {
    const ossa__bc_header *h = (const ossa__bc_header *)block;
    clip->id = atomic_fetch_add(&next_id, 1);
    clip->h = h;
    clip->base = block;
    clip->name = (const char *)(block + h->name_off);
    clip->base_codes = (const uint32_t *)(block + h->base_off);
    clip->base_values = (const float *)(const void *)(clip->base_codes + h->base_count);
    clip->clocks = (const ossa__bc_clock *)(block + h->clock_off);
    clip->raw = (const ossa__bc_raw *)(block + h->raw_off);
    clip->packed = (const ossa__bc_packed *)(block + h->packed_off);
    clip->mask_keys = NULL; /* counted into the plan (ossa__sample_plan_make) */
    clip->masks = block + h->mask_off;
    clip->mask_bytes = (h->grid_count + 7u) / 8u;
    clip->wtracks = (const ossa__bc_wtrack *)(block + h->wtrack_off);
    /* the plan keeps its own copy of the grid (a ticked one decoded), +Inf after it; until then the
     * block's float grid or none (ossa__sample_plan_make) */
    clip->grid = (h->flags & OSSA__BC_FLAG_GRID_TICKS) ? NULL : (const float *)(block + h->grid_off);
    return ossa__sample_plan_make(clip);
}

ossa_built_clip *ossa__built_clip_alloc(const ossa_allocator *allocator, const void *data, size_t size) {
    size_t total;
    if (!ossa__size_mul_add(1, size, header_space() + OSSA__BC_READ_SLACK, &total)) return NULL;
    unsigned char *mem = ossa__alloc(allocator, total);
    if (!mem) return NULL;
    ossa_built_clip *clip = (ossa_built_clip *)mem;
    memset(clip, 0, sizeof *clip);
    clip->allocator = ossa__allocator_resolve(allocator);
    if (data) memcpy(mem + header_space(), data, size);
    else memset(mem + header_space(), 0, size);
    memset(mem + header_space() + size, 0, OSSA__BC_READ_SLACK);
    return clip;
}

void ossa_built_clip_destroy(ossa_built_clip *clip) {
    if (!clip) return;
    ossa_allocator a = clip->allocator;
    ossa__free(&a, clip->plan);
    ossa__free(&a, clip);
}

/* ---- accessors ---- */
const char *ossa_built_clip_name(const ossa_built_clip *c) { return c ? c->name : ""; }
float ossa_built_clip_start(const ossa_built_clip *c) { return c ? c->h->start : 0.0f; }
float ossa_built_clip_end(const ossa_built_clip *c) { return c ? c->h->end : 0.0f; }
float ossa_built_clip_duration(const ossa_built_clip *c) { return c ? c->h->end - c->h->start : 0.0f; }
bool ossa_built_clip_looping(const ossa_built_clip *c) { return c && (c->h->flags & OSSA__BC_FLAG_LOOPING); }
uint32_t ossa_built_clip_joint_count(const ossa_built_clip *c) { return c ? c->h->joint_count : 0; }
uint32_t ossa_built_clip_track_count(const ossa_built_clip *c) { return c ? c->h->track_count : 0; }
uint32_t ossa_built_clip_weight_track_count(const ossa_built_clip *c) { return c ? c->h->weight_track_count : 0; }
uint32_t ossa_built_clip_weight_track_joint(const ossa_built_clip *c, uint32_t i) {
    return c && i < c->h->weight_track_count ? c->wtracks[i].joint : 0;
}
uint32_t ossa_built_clip_weight_track_components(const ossa_built_clip *c, uint32_t i) {
    return c && i < c->h->weight_track_count ? c->wtracks[i].components : 0;
}
uint32_t ossa_built_clip_weight_count(const ossa_built_clip *c) { return c ? c->h->weight_count : 0; }
bool ossa_built_clip_lossless(const ossa_built_clip *c) { return c && (c->h->flags & OSSA__BC_FLAG_LOSSLESS); }
size_t ossa_built_clip_byte_size(const ossa_built_clip *c) { return c ? c->h->size : 0; }

uint64_t ossa__reference_hash(const ossa_transform *reference, uint32_t joint_count) {
    static const unsigned char none = 0; /* no joints: the hash of no bytes */
    const void *p = joint_count ? (const void *)reference : (const void *)&none;
    return ossa__xxh64(p, (size_t)joint_count * sizeof(ossa_transform), 0x6F737361u /* "ossa" */);
}

bool ossa_built_clip_matches(const ossa_built_clip *c, const ossa_transform *reference, uint32_t reference_count) {
    if (!c || (!reference && c->h->joint_count) || reference_count < c->h->joint_count) return false;
    return ossa__reference_hash(reference, c->h->joint_count) == ossa__bc_ref_hash(c->h);
}

ossa_clip_build_options ossa_built_clip_options(const ossa_built_clip *c) {
    ossa_clip_build_options o = {0};
    if (!c) return o;
    o.lossless = ossa_built_clip_lossless(c);
    o.precision = c->h->precision;
    o.shell_distance = c->h->shell_distance;
    o.weight_precision = c->h->weight_precision;
    return o;
}

ossa_clip_build_stats ossa_built_clip_stats(const ossa_built_clip *c) {
    ossa_clip_build_stats s;
    memset(&s, 0, sizeof s); /* padding too: callers compare the bytes */
    if (!c) return s;
    s.raw_bytes = (size_t)(((uint64_t)c->h->raw_bytes_hi << 32) | c->h->raw_bytes_lo);
    s.bytes = c->h->size;
    s.max_error = c->h->max_error;
    s.worst_joint = c->h->worst_joint;
    s.worst_time = c->h->worst_time;
    s.max_weight_error = c->h->max_weight_error;
    return s;
}

const void *ossa_built_clip_data(const ossa_built_clip *c, size_t *size) {
    if (size) *size = c ? c->h->size : 0;
    return c ? c->base : NULL;
}

/* ---- loader: every offset, count, time and range checked ---- */

static ossa_result fail(ossa_diagnostic *diag, ossa_result r, const char *path, const char *fmt, ...) {
    if (diag) {
        snprintf(diag->path, sizeof diag->path, "%s", path);
        va_list ap;
        va_start(ap, fmt);
        char msg[320];
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        snprintf(diag->message, sizeof diag->message, "built clip %s: %s", path, msg);
    }
    return r;
}

/* [off, off + count * elem) inside the block minus its padding, off 4-aligned. */
static bool span_ok(const ossa__bc_header *h, uint32_t off, uint64_t count, uint64_t elem) {
    uint64_t end = (uint64_t)off + count * elem;
    if (count && elem && count > UINT64_MAX / 2 / elem) return false;
    return (off & 3u) == 0 && off >= sizeof(ossa__bc_header) && end <= (uint64_t)h->size - OSSA__BC_PAD;
}
/* The same for a span of bytes at any offset (the packed value streams). */
static bool bytes_ok(const ossa__bc_header *h, uint32_t off, uint64_t bytes) {
    return off >= sizeof(ossa__bc_header) && (uint64_t)off + bytes <= (uint64_t)h->size - OSSA__BC_PAD;
}

/* ossa__float_ord of -FLT_MAX and FLT_MAX: ords outside are NaN or infinite. */
#define ORD_LOWEST_FINITE 0x00800000u
#define ORD_HIGHEST_FINITE 0xFF7FFFFFu

/* Adds a span's bytes to the running total of the variable-size spans (clock times, raw
 * values, packed streams): the builder never shares them, so the total fits in the block;
 * many tables pointing at one large span (quadratic validation) do not. */
static bool charge(const ossa__bc_header *h, uint64_t *used, uint64_t bytes) {
    *used += bytes;
    return *used <= h->size;
}

/* Finite, strictly increasing, first to last within FLT_MAX (ossa__span_fits). */
static bool times_ok(const float *t, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        if (!isfinite(t[i])) return false;
        if (i && !(t[i] > t[i - 1])) return false;
    }
    return n == 0 || ossa__span_fits(t[0], t[n - 1]); /* the time rule (built_clip_internal.h) */
}

/* The header: byte order, magic, version, size, flags, the time range, the options, the
 * counts against each other, the name. */
static ossa_result validate_header(const unsigned char *b, size_t size, ossa_diagnostic *diag) {
    const uint32_t one = 1;
    unsigned char le;
    memcpy(&le, &one, 1);
    if (!le) return fail(diag, OSSA_ERROR_UNSUPPORTED, "header", "big-endian hosts are not supported");
    if (size < sizeof(ossa__bc_header) + OSSA__BC_PAD)
        return fail(diag, OSSA_ERROR_PARSE, "header", "%zu bytes is shorter than the header", size);
    const ossa__bc_header *h = (const ossa__bc_header *)b;
    if (h->magic != OSSA__BC_MAGIC) return fail(diag, OSSA_ERROR_PARSE, "header.magic", "not a built clip");
    if (h->version != OSSA__BC_VERSION)
        return fail(diag, OSSA_ERROR_UNSUPPORTED, "header.version", "format version %u (expected %u)", h->version,
                    OSSA__BC_VERSION);
    if (h->size != size) return fail(diag, OSSA_ERROR_PARSE, "header.size", "%u bytes declared, %zu given", h->size, size);
    if (h->flags & ~7u) return fail(diag, OSSA_ERROR_INVALID_DATA, "header.flags", "unknown flags 0x%x", h->flags);
    if (!isfinite(h->start) || !isfinite(h->end) || h->end < h->start)
        return fail(diag, OSSA_ERROR_INVALID_DATA, "header.start", "range [%g, %g] is not finite and ordered",
                    (double)h->start, (double)h->end);
    if (!ossa__span_fits(h->start, h->end))
        return fail(diag, OSSA_ERROR_INVALID_DATA, "header.end", "range [%g, %g] spans more than FLT_MAX seconds",
                    (double)h->start, (double)h->end);
    if (!(h->precision >= 0.0f) || !(h->shell_distance >= 0.0f) || !(h->weight_precision >= 0.0f))
        return fail(diag, OSSA_ERROR_INVALID_DATA, "header.precision", "negative or NaN option");
    uint32_t J = h->joint_count;
    if (J > (1u << 24) || h->track_count > J)
        return fail(diag, OSSA_ERROR_INVALID_DATA, "header.joint_count", "%u joints / %u tracks", J, h->track_count);
    if (h->weight_track_count > h->weight_count)
        return fail(diag, OSSA_ERROR_INVALID_DATA, "header.weight_count", "%u tracks for %u weights",
                    h->weight_track_count, h->weight_count);
    if (h->packed_count > 3ull * J || h->rot_count > h->packed_count || h->rot_count > J ||
        h->packed_count - h->rot_count > 2ull * J)
        return fail(diag, OSSA_ERROR_INVALID_DATA, "header.packed_count", "%u packed channels for %u joints",
                    h->packed_count, J);
    if (h->raw_count > 3ull * J + h->weight_track_count || h->clock_count > h->raw_count)
        return fail(diag, OSSA_ERROR_INVALID_DATA, "header.raw_count", "%u raw channels / %u clocks", h->raw_count,
                    h->clock_count);
    /* every channel is one joint's T, R or S or a weight track, packed or raw: what a sampling
     * context of J joints has room for (its slots and keys) */
    if ((uint64_t)h->raw_count + h->packed_count > 3ull * J + h->weight_track_count)
        return fail(diag, OSSA_ERROR_INVALID_DATA, "header.raw_count", "%u raw + %u packed channels for %u joints and %u weight tracks",
                    h->raw_count, h->packed_count, J, h->weight_track_count);
    if (!span_ok(h, h->name_off, (uint64_t)h->name_len + 1, 1) || b[h->name_off + h->name_len] != 0)
        return fail(diag, OSSA_ERROR_INVALID_DATA, "header.name", "name outside the block or not terminated");
    return OSSA_OK;
}

/* The sparse base pose: codes in range and increasing (rotations, then T/S), values finite and
 * within the magnitude rule, rotations unit quaternions. */
static ossa_result validate_base_pose(const unsigned char *b, const ossa__bc_header *h, ossa_diagnostic *diag) {
    uint32_t J = h->joint_count, nb = h->base_count, nbr = h->base_rot_count;
    if (nb > 3ull * J || nbr > nb || nbr > J || nb - nbr > 2ull * J)
        return fail(diag, OSSA_ERROR_INVALID_DATA, "header.base_count", "%u base entries (%u rotations) for %u joints",
                    nb, nbr, J);
    if (!span_ok(h, h->base_off, (uint64_t)nb + nbr * 4ull + (nb - nbr) * 3ull, sizeof(float)))
        return fail(diag, OSSA_ERROR_INVALID_DATA, "header.base_off", "base pose outside the block");
    const uint32_t *codes = (const uint32_t *)(b + h->base_off);
    const float *bv = (const float *)(codes + nb);
    for (uint32_t i = 0; i < nb; i++) {
        uint32_t code = codes[i], kind = code & 3u, j = code >> 2;
        bool rot = i < nbr;
        if (j >= J || (rot ? kind != OSSA__CH_R : (kind != OSSA__CH_T && kind != OSSA__CH_S)) ||
            (i && i != nbr && code <= codes[i - 1]))
            return fail(diag, OSSA_ERROR_INVALID_DATA, "base_pose",
                        "entry %u: joint %u / kind %u out of range or out of order", i, j, kind);
        uint32_t n = rot ? 4u : 3u;
        if (!ossa__values_bounded(bv, 1, n, false, 0.0))
            return fail(diag, OSSA_ERROR_INVALID_DATA, "base_pose", "entry %u (joint %u) is not finite or past 2^50", i, j);
        float q2 = rot ? bv[0] * bv[0] + bv[1] * bv[1] + bv[2] * bv[2] + bv[3] * bv[3] : 1.0f;
        if (!(q2 >= 0.9f && q2 <= 1.1f))
            return fail(diag, OSSA_ERROR_INVALID_DATA, "base_pose", "entry %u (joint %u) rotation is not a unit quaternion", i, j);
        bv += n;
    }
    return OSSA_OK;
}

/* Exp-Golomb reader over the bits [pos, end) of p (bit i: byte i / 8, bit i % 8). */
typedef struct grid_reader {
    const unsigned char *p;
    uint64_t pos, end;
} grid_reader;

static bool grid_read_bit(grid_reader *r, uint32_t *bit) {
    if (r->pos >= r->end) return false;
    *bit = ((unsigned)r->p[r->pos >> 3] >> (r->pos & 7u)) & 1u;
    r->pos++;
    return true;
}

/* One zigzag Exp-Golomb value of order k (q zeros, a one, q + k bits most significant first):
 * false past the end or for a value past 32 bits. */
static bool grid_read_correction(grid_reader *r, uint32_t k, uint32_t *correction) {
    uint32_t q = 0, bit = 0;
    for (;;) {
        if (!grid_read_bit(r, &bit)) return false;
        if (bit) break;
        if (++q + k > 32u) return false;
    }
    uint64_t v = 1;
    for (uint32_t i = 0; i < q + k; i++) {
        if (!grid_read_bit(r, &bit)) return false;
        v = v << 1 | bit;
    }
    uint64_t z = v - ((uint64_t)1 << k);
    if (z > UINT32_MAX) return false;
    *correction = (z & 1u) ? 0u - (uint32_t)((z + 1u) >> 1) : (uint32_t)(z >> 1); /* modulo 2^32 */
    return true;
}

bool ossa__grid_decode(const ossa__bc_header *h, const unsigned char *block, float *out) {
    const unsigned char *ticks = block + h->grid_off;
    uint64_t tick_bytes = ((uint64_t)h->grid_ticks + 8u) / 8u;
    grid_reader r = {ticks + tick_bytes, 0, h->grid_code & OSSA__GRID_CODE_BITS};
    uint32_t k = h->grid_code >> 28, n = 0;
    float first = 0.0f, prev = 0.0f;
    for (uint64_t u = 0; u <= h->grid_ticks; u++) {
        if (!(((unsigned)ticks[u >> 3] >> (u & 7u)) & 1u)) continue;
        uint32_t c;
        float lattice = ossa__grid_predict(h->start, (uint32_t)u, h->grid_step);
        if (n == h->grid_count || !isfinite(lattice) || !grid_read_correction(&r, k, &c)) return false;
        float t = ossa__ord_float(ossa__float_ord(lattice) + c);
        if (!isfinite(t) || (n == 0 ? (u != 0 || t != h->start) : !(t > prev))) return false;
        if (n == 0) first = t;
        if (out) out[n] = t;
        prev = t;
        n++;
    }
    return n == h->grid_count && r.pos == r.end && (n == 0 || ossa__span_fits(first, prev));
}

/* The key grid: grid_count floats, finite and increasing, or (GRID_TICKS) the ticks and
 * corrections inside the block, decoding to such times from the clip start. */
static ossa_result validate_grid(const unsigned char *b, const ossa__bc_header *h, ossa_diagnostic *diag) {
    if (!(h->flags & OSSA__BC_FLAG_GRID_TICKS)) {
        if (h->grid_step != 0.0f || h->grid_ticks || h->grid_code)
            return fail(diag, OSSA_ERROR_INVALID_DATA, "header.grid_step", "tick fields set on a float grid");
        if (!span_ok(h, h->grid_off, h->grid_count, sizeof(float)))
            return fail(diag, OSSA_ERROR_INVALID_DATA, "header.grid_off", "grid outside the block");
        if (!times_ok((const float *)(b + h->grid_off), h->grid_count))
            return fail(diag, OSSA_ERROR_INVALID_DATA, "grid",
                        "grid times not finite and increasing, or spanning more than FLT_MAX");
        return OSSA_OK;
    }
    if (!(h->grid_step >= 0.0f) || !isfinite(h->grid_step) || h->grid_ticks == UINT32_MAX || h->grid_count == 0 ||
        h->grid_count == UINT32_MAX ||
        !span_ok(h, h->grid_off, ossa__bc_grid_bytes(h), 1))
        return fail(diag, OSSA_ERROR_INVALID_DATA, "header.grid_ticks", "tick grid (%u ticks, step %g) outside the block",
                    h->grid_ticks, (double)h->grid_step);
    if (!ossa__grid_decode(h, b, NULL))
        return fail(diag, OSSA_ERROR_INVALID_DATA, "grid",
                    "tick grid does not decode to %u finite increasing times from the clip start", h->grid_count);
    return OSSA_OK;
}

/* The fixed-size tables inside the block, and the key grid's times. */
static ossa_result validate_tables(const unsigned char *b, const ossa__bc_header *h, ossa_diagnostic *diag) {
    if (!span_ok(h, h->clock_off, h->clock_count, sizeof(ossa__bc_clock)))
        return fail(diag, OSSA_ERROR_INVALID_DATA, "header.clock_off", "clock table outside the block");
    if (!span_ok(h, h->raw_off, h->raw_count, sizeof(ossa__bc_raw)))
        return fail(diag, OSSA_ERROR_INVALID_DATA, "header.raw_off", "raw channel table outside the block");
    if (!span_ok(h, h->packed_off, h->packed_count, sizeof(ossa__bc_packed)))
        return fail(diag, OSSA_ERROR_INVALID_DATA, "header.packed_off", "packed channel table outside the block");
    if (!span_ok(h, h->wtrack_off, h->weight_track_count, sizeof(ossa__bc_wtrack)))
        return fail(diag, OSSA_ERROR_INVALID_DATA, "header.wtrack_off", "weight track table outside the block");
    return validate_grid(b, h, diag);
}

/* Each clock's key times: inside the block, not shared, finite and increasing, spanning at most FLT_MAX. */
static ossa_result validate_clocks(const unsigned char *b, const ossa__bc_header *h, uint64_t *used,
                                   ossa_diagnostic *diag) {
    char path[64];
    const ossa__bc_clock *clocks = (const ossa__bc_clock *)(b + h->clock_off);
    for (uint32_t i = 0; i < h->clock_count; i++) {
        snprintf(path, sizeof path, "clocks[%u]", i);
        if (clocks[i].key_count == 0 || !span_ok(h, clocks[i].times_off, clocks[i].key_count, sizeof(float)))
            return fail(diag, OSSA_ERROR_INVALID_DATA, path, "%u keys outside the block", clocks[i].key_count);
        if (!charge(h, used, (uint64_t)clocks[i].key_count * sizeof(float)))
            return fail(diag, OSSA_ERROR_INVALID_DATA, path, "key times overlap other spans");
        if (!times_ok((const float *)(b + clocks[i].times_off), clocks[i].key_count))
            return fail(diag, OSSA_ERROR_INVALID_DATA, path,
                        "key times not finite and increasing, or spanning more than FLT_MAX");
    }
    return OSSA_OK;
}

/* The weight tracks: components in range, offsets back to back summing to weight_count. */
static ossa_result validate_weight_tracks(const unsigned char *b, const ossa__bc_header *h, ossa_diagnostic *diag) {
    char path[64];
    const ossa__bc_wtrack *wt = (const ossa__bc_wtrack *)(b + h->wtrack_off);
    uint64_t woff = 0;
    for (uint32_t i = 0; i < h->weight_track_count; i++) {
        snprintf(path, sizeof path, "weight_tracks[%u]", i);
        if (wt[i].components < 1 || wt[i].components > OSSA_MAX_COMPONENTS || wt[i].offset != woff ||
            (wt[i].raw != UINT32_MAX && wt[i].raw >= h->raw_count))
            return fail(diag, OSSA_ERROR_INVALID_DATA, path, "components %u / offset %u / channel %u out of range",
                        wt[i].components, wt[i].offset, wt[i].raw);
        woff += wt[i].components;
    }
    if (woff != h->weight_count)
        return fail(diag, OSSA_ERROR_INVALID_DATA, "header.weight_count", "%u weights, tracks sum to %llu",
                    h->weight_count, (unsigned long long)woff);
    return OSSA_OK;
}

/* A raw channel of plain floats: inside the block, not shared, within the magnitude rule
 * (span: its clock's duration). */
static ossa_result validate_raw_floats(const unsigned char *b, const ossa__bc_header *h, const ossa__bc_raw *r,
                                       uint64_t keys, uint32_t lanes, double span, uint64_t *used, const char *path,
                                       ossa_diagnostic *diag) {
    if (!span_ok(h, r->values_off, keys * lanes, sizeof(float)))
        return fail(diag, OSSA_ERROR_INVALID_DATA, path, "values outside the block");
    if (!charge(h, used, keys * lanes * sizeof(float)))
        return fail(diag, OSSA_ERROR_INVALID_DATA, path, "values overlap other spans");
    if (!ossa__values_bounded((const float *)(b + r->values_off), (uint32_t)keys, r->components,
                              r->interp == OSSA_INTERP_CUBIC, span))
        return fail(diag, OSSA_ERROR_INVALID_DATA, path,
                    "a value is not finite or past 2^50 (CUBIC: a tangent times the key span)");
    return OSSA_OK;
}

/* A raw channel packed per lane: the lane table and the stream inside the block, not shared,
 * and every key of every lane decoding to a finite float within the magnitude rule. */
static ossa_result validate_raw_lanes(const unsigned char *b, const ossa__bc_header *h, const ossa__bc_raw *r,
                                      uint64_t keys, uint32_t lanes, double span, uint64_t *used, const char *path,
                                      ossa_diagnostic *diag) {
    bool cubic = r->interp == OSSA_INTERP_CUBIC;
    if (r->kind == OSSA__CH_W || !span_ok(h, r->lanes_off, lanes, sizeof(ossa__bc_lane)))
        return fail(diag, OSSA_ERROR_INVALID_DATA, path, "lane table outside the block");
    const ossa__bc_lane *ln = (const ossa__bc_lane *)(b + r->lanes_off);
    uint64_t per = 0;
    for (uint32_t l = 0; l < lanes; l++) {
        if (ln[l].bits > 32) return fail(diag, OSSA_ERROR_INVALID_DATA, path, "lane %u has %u bits", l, ln[l].bits);
        per += ln[l].bits;
    }
    if (!span_ok(h, r->values_off, (keys * per + 7) / 8, 1))
        return fail(diag, OSSA_ERROR_INVALID_DATA, path, "packed values outside the block");
    if (!charge(h, used, lanes * sizeof(ossa__bc_lane) + (keys * per + 7) / 8))
        return fail(diag, OSSA_ERROR_INVALID_DATA, path, "packed values overlap other spans");
    /* every key of every lane must decode to a finite float: base + field may not pass
     * the largest finite float's order (nor wrap to the NaN / -Inf patterns); a 0-bit
     * lane is its base at every key, so the work is bounded by the stream's bits */
    /* and within the magnitude rule (lane l is component l % components of the key's
     * in-tangent, value, out-tangent for CUBIC: ossa__values_bounded's layout) */
    uint32_t varying[12], at[12], nv = 0, off = 0;
    for (uint32_t l = 0; l < lanes; l++) {
        if (ln[l].bits) {
            varying[nv] = l;
            at[nv++] = off;
        } else if (ln[l].base < ORD_LOWEST_FINITE || ln[l].base > ORD_HIGHEST_FINITE) {
            return fail(diag, OSSA_ERROR_INVALID_DATA, path, "lane %u is NaN or infinite", l);
        } else {
            if (!ossa__value_bounded(ossa__ord_float(ln[l].base), cubic && l / r->components != 1u, span))
                return fail(diag, OSSA_ERROR_INVALID_DATA, path, "lane %u is past 2^50", l);
        }
        off += ln[l].bits;
    }
    for (uint64_t k = 0; nv && k < keys; k++)
        for (uint32_t v = 0; v < nv; v++) {
            const ossa__bc_lane *lane = &ln[varying[v]];
            uint64_t o = (uint64_t)lane->base + ossa__bits_read(b + r->values_off, k * per + at[v], lane->bits);
            if (o < ORD_LOWEST_FINITE || o > ORD_HIGHEST_FINITE)
                return fail(diag, OSSA_ERROR_INVALID_DATA, path, "key %llu lane %u decodes to NaN or infinity",
                            (unsigned long long)k, varying[v]);
            if (!ossa__value_bounded(ossa__ord_float((uint32_t)o), cubic && varying[v] / r->components != 1u, span))
                return fail(diag, OSSA_ERROR_INVALID_DATA, path, "key %llu lane %u is past 2^50",
                            (unsigned long long)k, varying[v]);
        }
    return OSSA_OK;
}

/* The raw channels: kind, interpolation, clock and target in range, then their values (plain
 * floats or packed per lane). */
static ossa_result validate_raw_channels(const unsigned char *b, const ossa__bc_header *h, uint64_t *used,
                                         ossa_diagnostic *diag) {
    char path[64];
    const ossa__bc_clock *clocks = (const ossa__bc_clock *)(b + h->clock_off);
    const ossa__bc_wtrack *wt = (const ossa__bc_wtrack *)(b + h->wtrack_off);
    const ossa__bc_raw *raw = (const ossa__bc_raw *)(b + h->raw_off);
    for (uint32_t i = 0; i < h->raw_count; i++) {
        const ossa__bc_raw *r = &raw[i];
        snprintf(path, sizeof path, "raw[%u]", i);
        if (r->kind > OSSA__CH_W || r->interp < OSSA_INTERP_STEP || r->interp > OSSA_INTERP_CUBIC ||
            r->clock >= h->clock_count)
            return fail(diag, OSSA_ERROR_INVALID_DATA, path, "kind %u / interp %u / clock %u out of range", r->kind,
                        r->interp, r->clock);
        bool ok;
        if (r->kind == OSSA__CH_W)
            ok = r->target < h->weight_track_count && wt[r->target].raw == i && r->components == wt[r->target].components;
        else
            ok = r->target < h->joint_count && r->components == (r->kind == OSSA__CH_R ? 4 : 3);
        if (!ok) return fail(diag, OSSA_ERROR_INVALID_DATA, path, "target %u / components %u do not match", r->target,
                             r->components);
        uint32_t lanes = r->components * (r->interp == OSSA_INTERP_CUBIC ? 3u : 1u);
        uint64_t keys = clocks[r->clock].key_count;
        const float *ct = (const float *)(b + clocks[r->clock].times_off);
        double span = (double)ct[keys - 1] - (double)ct[0]; /* >= every key interval */
        ossa_result res = r->lanes_off == 0 ? validate_raw_floats(b, h, r, keys, lanes, span, used, path, diag)
                                            : validate_raw_lanes(b, h, r, keys, lanes, span, used, path, diag);
        if (res != OSSA_OK) return res;
    }
    return OSSA_OK;
}

/* The key masks' count and span: at most one a packed channel (whose 32-byte record the
 * table check put inside the block), at least one when there are packed channels, inside the
 * block. */
static ossa_result validate_mask_span(const ossa__bc_header *h, ossa_diagnostic *diag) {
    uint64_t mask_bytes = ((uint64_t)h->grid_count + 7u) / 8u;
    if (h->mask_count > h->packed_count || (h->packed_count && !h->mask_count) || (h->mask_count && !mask_bytes) ||
        !span_ok(h, h->mask_off, h->mask_count, mask_bytes))
        return fail(diag, OSSA_ERROR_INVALID_DATA, "header.mask_off", "%u key masks for %u packed channels / outside the block",
                    h->mask_count, h->packed_count);
    return OSSA_OK;
}

/* The key masks (their span checked): each starting at the grid (bit 0); mask_keys gets their
 * key counts (mask_count entries: the caller's scratch). */
static ossa_result validate_masks(const unsigned char *b, const ossa__bc_header *h, uint64_t *used, uint32_t *mask_keys,
                                  ossa_diagnostic *diag) {
    uint64_t mask_bytes = ((uint64_t)h->grid_count + 7u) / 8u;
    if (!charge(h, used, (uint64_t)h->mask_count * mask_bytes))
        return fail(diag, OSSA_ERROR_INVALID_DATA, "header.mask_off", "key masks overlap other spans");
    const unsigned char *masks = b + h->mask_off;
    for (uint32_t m = 0; m < h->mask_count; m++) {
        const unsigned char *mask = masks + m * mask_bytes;
        if (!(mask[0] & 1u)) {
            char path[64];
            snprintf(path, sizeof path, "masks[%u]", m);
            return fail(diag, OSSA_ERROR_INVALID_DATA, path, "key mask does not start at the grid");
        }
        mask_keys[m] = ossa__mask_rank(mask, h->grid_count);
    }
    return OSSA_OK;
}

/* Packed channel record p (the i-th; rotations first): joint, kind, interpolation, dropped
 * component, key mask, reserved bits, widths and the value range of each component. */
static ossa_result validate_packed_record(const ossa__bc_header *h, const ossa__bc_packed *p, uint32_t i,
                                          const char *path, ossa_diagnostic *diag) {
    bool rot = i < h->rot_count;
    uint32_t bits[3];
    for (int c = 0; c < 3; c++) bits[c] = ossa__pk_bits(p, c);
    if (p->joint >= h->joint_count || (rot ? p->kind != OSSA__CH_R : (p->kind != OSSA__CH_T && p->kind != OSSA__CH_S)) ||
        (p->interp != OSSA_INTERP_STEP && p->interp != OSSA_INTERP_LINEAR) || ossa__pk_drop(p) > (rot ? 3u : 0u))
        return fail(diag, OSSA_ERROR_INVALID_DATA, path, "joint %u / kind %u / interp %u / drop %u invalid", p->joint,
                    p->kind, p->interp, ossa__pk_drop(p));
    if (p->mask >= h->mask_count)
        return fail(diag, OSSA_ERROR_INVALID_DATA, path, "key mask %u of %u", p->mask, h->mask_count);
    if (ossa__pk_reserved(p)) /* resid bits 30..31: reserved, 0 (ossa__bc_packed) */
        return fail(diag, OSSA_ERROR_INVALID_DATA, path, "reserved bits not zero");
    for (int c = 0; c < 3; c++) {
        if (bits[c] > OSSA__BC_MAX_BITS || ossa__pk_w1(p, c) > bits[c] || ossa__pk_w2(p, c) > bits[c])
            return fail(diag, OSSA_ERROR_INVALID_DATA, path, "component %d: %u bits, residuals %u and %u bits", c,
                        bits[c], ossa__pk_w1(p, c), ossa__pk_w2(p, c));
        if (ossa__pk_d1(p, c) > ossa__pk_w1(p, c) || ossa__pk_d2(p, c) > ossa__pk_w2(p, c))
            return fail(diag, OSSA_ERROR_INVALID_DATA, path,
                        "component %d: narrow reductions %u and %u past the residual widths %u and %u", c, ossa__pk_d1(p, c),
                        ossa__pk_d2(p, c), ossa__pk_w1(p, c), ossa__pk_w2(p, c));
        /* min + q * step is monotonic in q: both ends finite = every value finite;
         * rotation components stay near [-1, 1] (the sampler normalises their lerp) */
        float step = ossa__step_float(p->step[c]);
        float hi = p->min[c] + (float)((1u << bits[c]) - 1u) * step;
        if (!isfinite(step) || !(fabs((double)p->min[c]) <= OSSA__BC_VALUE_MAX) ||
            !(fabs((double)hi) <= OSSA__BC_VALUE_MAX) ||
            (rot && !(fabsf(p->min[c]) <= 2.0f && fabsf(hi) <= 2.0f)))
            return fail(diag, OSSA_ERROR_INVALID_DATA, path, "component %d: range [%g, %g] (step %g) not finite%s", c,
                        (double)p->min[c], (double)hi, (double)step, rot ? " or past +-2" : "");
    }
    return OSSA_OK;
}

/* The packed channels: each record, and its value stream (back to back from stream_off; a
 * flagged one's size counts its wide blocks) inside the block and not shared; every key decodes to fields within 0 .. 2^bits - 1
 * (ossa__lift_block: modulo 2^bits). */
static ossa_result validate_packed_channels(const unsigned char *b, const ossa__bc_header *h, uint64_t *used,
                                            const uint32_t *mask_keys, ossa_diagnostic *diag) {
    char path[64];
    const ossa__bc_packed *pk = (const ossa__bc_packed *)(b + h->packed_off);
    uint64_t stream = h->stream_off; /* the value streams, back to back */
    if (h->packed_count && !bytes_ok(h, h->stream_off, 0))
        return fail(diag, OSSA_ERROR_INVALID_DATA, "header.stream_off", "value streams outside the block");
    for (uint32_t i = 0; i < h->packed_count; i++) {
        const ossa__bc_packed *p = &pk[i];
        snprintf(path, sizeof path, "packed[%u]", i);
        ossa_result r = validate_packed_record(h, p, i, path, diag);
        if (r != OSSA_OK) return r;
        uint32_t n = mask_keys[p->mask], flag_bytes = ossa__pk_flagged(p) ? (ossa__lift_blocks(n) + 7u) / 8u : 0u;
        if (!bytes_ok(h, (uint32_t)stream, flag_bytes)) /* the flags are read to size the stream (8-byte loads: the padding) */
            return fail(diag, OSSA_ERROR_INVALID_DATA, path, "value stream's block flags outside the block");
        uint64_t nbytes = (ossa__lift_stream_bits(p, n, b + stream) + 7) / 8;
        if (!bytes_ok(h, (uint32_t)stream, nbytes) || stream + nbytes > UINT32_MAX)
            return fail(diag, OSSA_ERROR_INVALID_DATA, path, "value stream outside the block");
        if (!charge(h, used, nbytes))
            return fail(diag, OSSA_ERROR_INVALID_DATA, path, "value stream overlaps other spans");
        stream += nbytes;
    }
    return OSSA_OK;
}

/* The key grid starts at the clip start (when packed channels use it); the padding is zero. */
static ossa_result validate_grid_start_and_padding(const unsigned char *b, size_t size, const ossa__bc_header *h,
                                                   ossa_diagnostic *diag) {
    const float *grid = (const float *)(b + h->grid_off); /* a ticked grid starts there (ossa__grid_decode) */
    if (h->packed_count && (h->grid_count == 0 || (!(h->flags & OSSA__BC_FLAG_GRID_TICKS) && grid[0] != h->start)))
        return fail(diag, OSSA_ERROR_INVALID_DATA, "grid", "the key grid does not start at the clip start");
    for (uint32_t i = 0; i < OSSA__BC_PAD; i++)
        if (b[size - OSSA__BC_PAD + i] != 0) return fail(diag, OSSA_ERROR_INVALID_DATA, "padding", "not zero");
    return OSSA_OK;
}

/* The key masks and the packed channels, with the masks' key counts in scratch (one u32 a
 * mask, at most one mask a 32-byte packed record: at most an eighth of the block). */
static ossa_result validate_masks_and_packed(const unsigned char *b, const ossa__bc_header *h, uint64_t *used,
                                             const ossa_allocator *allocator, ossa_diagnostic *diag) {
    ossa_result r = validate_mask_span(h, diag); /* before the scratch is sized by mask_count */
    if (r != OSSA_OK) return r;
    uint32_t *mask_keys = ossa__alloc_array(allocator, (size_t)h->mask_count + 1u, sizeof(uint32_t));
    if (!mask_keys) return OSSA_ERROR_OUT_OF_MEMORY;
    r = validate_masks(b, h, used, mask_keys, diag);
    if (r == OSSA_OK) r = validate_packed_channels(b, h, used, mask_keys, diag);
    ossa__free(allocator, mask_keys);
    return r;
}

/* Every offset, count, time and range of an untrusted block, section by section in the
 * block's order; the first fault is reported (diag: its place and why). */
static ossa_result validate(const unsigned char *b, size_t size, const ossa_allocator *allocator, ossa_diagnostic *diag) {
    ossa_result r = validate_header(b, size, diag);
    if (r != OSSA_OK) return r;
    const ossa__bc_header *h = (const ossa__bc_header *)b;
    uint64_t used = 0; /* bytes of the variable-size spans so far (charge) */
    if ((r = validate_base_pose(b, h, diag)) != OSSA_OK) return r;
    if ((r = validate_tables(b, h, diag)) != OSSA_OK) return r;
    if ((r = validate_clocks(b, h, &used, diag)) != OSSA_OK) return r;
    if ((r = validate_weight_tracks(b, h, diag)) != OSSA_OK) return r;
    if ((r = validate_raw_channels(b, h, &used, diag)) != OSSA_OK) return r;
    if ((r = validate_masks_and_packed(b, h, &used, allocator, diag)) != OSSA_OK) return r;
    return validate_grid_start_and_padding(b, size, h, diag);
}

ossa_result ossa_built_clip_load(const void *data, size_t size, const ossa_allocator *allocator,
                                 ossa_built_clip **out, ossa_diagnostic *diag) {
    if (diag) memset(diag, 0, sizeof *diag);
    if (!out) return OSSA_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (!data) return fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "header", "no data");
    if (size > UINT32_MAX) return fail(diag, OSSA_ERROR_PARSE, "header.size", "%zu bytes is too large", size);
    /* Validate an aligned copy: the caller's bytes may sit at any address. */
    ossa_built_clip *clip = ossa__built_clip_alloc(allocator, data, size);
    if (!clip) return OSSA_ERROR_OUT_OF_MEMORY;
    const unsigned char *block = (const unsigned char *)clip + header_space();
    ossa_result r = validate(block, size, &clip->allocator, diag);
    if (r != OSSA_OK) {
        ossa_built_clip_destroy(clip);
        return r;
    }
    if ((r = ossa__built_clip_bind(clip, block)) != OSSA_OK) {
        ossa_built_clip_destroy(clip);
        if (r == OSSA_ERROR_OUT_OF_MEMORY) return r;
        if (r == OSSA_ERROR_LIMIT)
            return fail(diag, r, "packed", "a flagged channel's stream of 2^31 bits or more (the sampling plan's block tables)");
        return fail(diag, r, "packed", "the sampling plan's block tables do not fit the block");
    }
    *out = clip;
    return OSSA_OK;
}

/* Block of a clip made by ossa__built_clip_alloc (the builder fills it in place). */
unsigned char *ossa__built_clip_block(ossa_built_clip *clip) { return (unsigned char *)clip + header_space(); }
