/* The sampling job (see ossa/sample.h): base pose copy, raw channels on shared clocks with
 * the editable rules, packed channels through per-instance segment caches and an SoA
 * lerp/nlerp kernel chosen at run time (OSSA_SAMPLE_KERNEL=scalar|sse|avx2|avx512 caps it). */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "anim/built_clip_internal.h"
#include "anim/track_internal.h"
#include "core/alloc.h"

#define RAW_CACHE 8u /* floats per raw channel's decoded-key cache: keys k, k + 1 of T/R/S LINEAR or STEP */

struct ossa_sampling_context {
    ossa_allocator allocator;
    size_t size;
    uint32_t max_joints, max_weights;
    uint64_t clip_id; /* clip the caches belong to; 0 = none */
    uint32_t *clock_key;  /* per clock: key cursor */
    uint32_t *cursor;     /* per packed channel: grid index of the cached key a, UINT32_MAX = none */
    uint32_t *rank;       /* its value index */
    uint32_t *next;       /* grid index of the key after it (grid_count = none) */
    float *lo, *hi;       /* the cached segment is valid for lo <= t < hi */
    float *t0, *inv, *ka, *kb;
    float *a[4], *b[4], *o[4];
    uint8_t *flip;        /* per packed channel: 1 = b holds key b negated (the shorter arc) */
    uint32_t raw_cap;     /* raw channels with a decoded-key cache: 3 * max_joints */
    uint32_t *rk;         /* per raw channel: the key k whose keys k, k + 1 are in rv (UINT32_MAX = none) */
    float *rv;            /* per raw channel: RAW_CACHE floats (two keys of up to 4 lanes; CUBIC: none) */
};

/* ---------------------------------------------------------------- kernels */

void ossa__lerp_scalar(const ossa__lerp_soa *soa, float t, uint32_t begin, uint32_t end, bool rotation) {
    const float *t0 = soa->t0, *inv = soa->inv;
    if (rotation) {
        for (uint32_t i = begin; i < end; i++) {
            float s = (t - t0[i]) * inv[i];
            s = s > 0.0f ? s : 0.0f;
            s = s < 1.0f ? s : 1.0f;
            s = ossa__slerp_time(s, soa->ka[i], soa->kb[i]);
            float x = soa->a[0][i] + (soa->b[0][i] - soa->a[0][i]) * s;
            float y = soa->a[1][i] + (soa->b[1][i] - soa->a[1][i]) * s;
            float z = soa->a[2][i] + (soa->b[2][i] - soa->a[2][i]) * s;
            float w = soa->a[3][i] + (soa->b[3][i] - soa->a[3][i]) * s;
            float n = 1.0f / sqrtf(((x * x + y * y) + z * z) + w * w);
            soa->o[0][i] = x * n;
            soa->o[1][i] = y * n;
            soa->o[2][i] = z * n;
            soa->o[3][i] = w * n;
        }
        return;
    }
    for (uint32_t i = begin; i < end; i++) {
        float s = (t - t0[i]) * inv[i];
        s = s > 0.0f ? s : 0.0f;
        s = s < 1.0f ? s : 1.0f;
        for (int c = 0; c < 3; c++) soa->o[c][i] = soa->a[c][i] + (soa->b[c][i] - soa->a[c][i]) * s;
    }
}

enum { K_SCALAR, K_SSE, K_AVX2, K_AVX512 };

static bool cpu_has(int k) {
#if defined(__x86_64__) || defined(__i386__)
    switch (k) {
    case K_SSE: return __builtin_cpu_supports("sse4.1");
    case K_AVX2: return __builtin_cpu_supports("avx2");
    case K_AVX512: return __builtin_cpu_supports("avx512f");
    default: return true;
    }
#else
    return k == K_SCALAR;
#endif
}

static _Atomic(ossa__lerp_kernel) chosen; /* NULL (static storage); clang refuses "= NULL" for an atomic function pointer */

static ossa__lerp_kernel choose_kernel(void) {
    ossa__lerp_kernel k = atomic_load(&chosen);
    if (k) return k;
    int cap = K_AVX512;
    const char *e = getenv("OSSA_SAMPLE_KERNEL");
    if (e && !strcmp(e, "scalar")) cap = K_SCALAR;
    else if (e && !strcmp(e, "sse")) cap = K_SSE;
    else if (e && !strcmp(e, "avx2")) cap = K_AVX2;
    static const ossa__lerp_kernel table[] = {ossa__lerp_scalar, ossa__lerp_sse, ossa__lerp_avx2, ossa__lerp_avx512};
    int best = K_SCALAR;
    for (int i = K_SSE; i <= cap; i++)
        if (cpu_has(i)) best = i;
    k = table[best];
    atomic_store(&chosen, k);
    return k;
}

const char *ossa__sample_kernel_name(void) {
    ossa__lerp_kernel k = choose_kernel();
    return k == ossa__lerp_avx512 ? "avx512" : k == ossa__lerp_avx2 ? "avx2" : k == ossa__lerp_sse ? "sse4.1" : "scalar";
}

/* ---------------------------------------------------------------- context */

ossa_result ossa_sampling_context_create(uint32_t max_joints, uint32_t max_weights, const ossa_allocator *allocator,
                                         ossa_sampling_context **out) {
    if (!out) return OSSA_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (max_joints > (1u << 24) || max_weights > (1u << 24)) return OSSA_ERROR_INVALID_ARGUMENT;
    size_t P = (size_t)max_joints * 3u + OSSA__LERP_SLACK, C = (size_t)max_joints * 3u + max_weights;
    ossa__layout L = {0, false};
    size_t o_ctx = ossa__layout_add(&L, 1, sizeof(ossa_sampling_context));
    size_t o_clock = ossa__layout_add(&L, C, sizeof(uint32_t));
    size_t o_cursor = ossa__layout_add(&L, P * 3, sizeof(uint32_t));
    /* the floats are zeroed once so the kernels' spare lanes compute on finite values */
    size_t o_f[18];
    for (int i = 0; i < 18; i++) o_f[i] = ossa__layout_add(&L, P, sizeof(float));
    size_t raw_cap = (size_t)max_joints * 3u;
    size_t o_rk = ossa__layout_add(&L, raw_cap, sizeof(uint32_t));
    size_t o_rv = ossa__layout_add(&L, raw_cap * RAW_CACHE, sizeof(float));
    size_t o_flip = ossa__layout_add(&L, P, 1);
    (void)o_ctx;
    if (L.overflow) return OSSA_ERROR_OUT_OF_MEMORY;
    unsigned char *mem = ossa__alloc(allocator, L.size);
    if (!mem) return OSSA_ERROR_OUT_OF_MEMORY;
    memset(mem, 0, L.size);
    ossa_sampling_context *c = (ossa_sampling_context *)mem;
    c->allocator = ossa__allocator_resolve(allocator);
    c->size = L.size;
    c->max_joints = max_joints;
    c->max_weights = max_weights;
    c->clock_key = (uint32_t *)(mem + o_clock);
    c->cursor = (uint32_t *)(mem + o_cursor);
    c->rank = c->cursor + P;
    c->next = c->rank + P;
    float *f[18];
    for (int i = 0; i < 18; i++) f[i] = (float *)(mem + o_f[i]);
    c->lo = f[0];
    c->hi = f[1];
    c->t0 = f[2];
    c->inv = f[3];
    c->ka = f[16];
    c->kb = f[17];
    c->flip = mem + o_flip;
    c->raw_cap = (uint32_t)raw_cap;
    c->rk = (uint32_t *)(mem + o_rk);
    c->rv = (float *)(mem + o_rv);
    for (int i = 0; i < 4; i++) {
        c->a[i] = f[4 + i];
        c->b[i] = f[8 + i];
        c->o[i] = f[12 + i];
    }
    *out = c;
    return OSSA_OK;
}

void ossa_sampling_context_destroy(ossa_sampling_context *context) {
    if (!context) return;
    ossa_allocator a = context->allocator;
    ossa__free(&a, context);
}

size_t ossa_sampling_context_size(const ossa_sampling_context *context) { return context ? context->size : 0; }

void ossa_sampling_context_reset(ossa_sampling_context *context) {
    if (context) context->clip_id = 0;
}

/* ---------------------------------------------------------------- job */

ossa_result ossa_sample_job_validate(const ossa_sample_job *job) {
    if (!job || !job->clip || !job->context || !job->output || isnan(job->time)) return OSSA_ERROR_INVALID_ARGUMENT;
    const ossa__bc_header *h = job->clip->h;
    if (job->output_count < h->joint_count) return OSSA_ERROR_BUFFER_TOO_SMALL;
    if (h->joint_count > job->context->max_joints || h->weight_count > job->context->max_weights)
        return OSSA_ERROR_BUFFER_TOO_SMALL;
    if (job->weights ? job->weights_count < h->weight_count : job->weights_count != 0)
        return job->weights ? OSSA_ERROR_BUFFER_TOO_SMALL : OSSA_ERROR_INVALID_ARGUMENT;
    return OSSA_OK;
}

/* Largest grid index with grid[u] <= t (0 when t is before the grid). */
static uint32_t grid_find(const ossa_built_clip *clip, float t) {
    uint32_t lo = 1, hi = clip->h->grid_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (clip->grid[mid] <= t) lo = mid + 1;
        else hi = mid;
    }
    return lo - 1;
}

/* Stale packed channels are refilled in batches of SEEK_BATCH: first each one's keys are
 * located (locate: integer work on the key mask), then every key of the batch is decoded and
 * its segment written (refill): loops over independent channels the CPU overlaps, instead of
 * one long chain (find, decode a, decode b, dot, fit) per channel. */
#define SEEK_BATCH 64u
typedef struct seek_batch {
    uint32_t n;
    uint32_t ch[SEEK_BATCH];
    uint32_t rank[SEEK_BATCH]; /* value index of key a */
    uint8_t reuse[SEEK_BATCH]; /* key a = the cached key b */
    uint8_t hold[SEEK_BATCH];  /* a is the last key */
} seek_batch;

/* Finds packed channel i's segment for time t: O(1) for one key forward (the decoded key b
 * becomes key a); further ahead within 32 grid steps, the grid position (one binary search per
 * frame, shared by every channel, *u < 0 = not yet found) and the keys up to it counted in one
 * mask window; else the key mask around the grid position. Queues the channel for refill. */
static void locate(ossa_sampling_context *c, const ossa_built_clip *clip, uint32_t i, float t, int64_t *u, seek_batch *sb) {
    const ossa__bc_packed *p = &clip->packed[i];
    const unsigned char *mask = clip->base + p->data_off;
    const float *grid = clip->grid;
    uint32_t G = clip->h->grid_count, a = c->cursor[i], rank = c->rank[i], n = c->next[i];
    bool found = false, reuse = false;
    if (a != UINT32_MAX && n < G && t >= grid[n]) {
        /* one step forward: the new key a is the old key b, already decoded */
        a = n;
        rank++;
        n = ossa__mask_next(mask, a + 1, G);
        found = reuse = n >= G || t < grid[n];
        if (!found) { /* further ahead: the grid position, and the keys up to it counted in one window */
            if (*u < 0) *u = grid_find(clip, t);
            uint32_t U = (uint32_t)*u;
            if (U >= n && U - n < 32u) {
                uint32_t w = ossa__bits_read(mask, n, U - n + 1); /* bit 0 (= key n) is set */
                uint32_t last = 31u - (uint32_t)__builtin_clz(w);
                rank += ossa__popcount32(w);
                a = n + last;
                n = ossa__mask_next(mask, a + 1, G);
                found = true;
            }
        }
    }
    if (!found) {
        if (*u < 0) *u = grid_find(clip, t);
        a = ossa__mask_prev(mask, (uint32_t)*u);
        rank = ossa__mask_rank(mask, a);
        n = ossa__mask_next(mask, a + 1, G);
    }
    c->cursor[i] = a;
    c->rank[i] = rank;
    c->next[i] = n;
    c->lo[i] = a == 0 ? -INFINITY : grid[a];
    c->t0[i] = grid[a];
    bool hold = n >= G;
    c->hi[i] = hold ? INFINITY : grid[n];
    uint32_t k = sb->n++;
    sb->ch[k] = i;
    sb->rank[k] = rank;
    sb->reuse[k] = (uint8_t)(found && reuse);
    sb->hold[k] = (uint8_t)hold;
}

/* Decodes the batch's keys and writes each channel's segment (values as ossa__packed_value
 * gives them, operation for operation). */
static void refill(ossa_sampling_context *c, const ossa_built_clip *clip, seek_batch *sb) {
    uint32_t G = clip->h->grid_count, n = sb->n;
    uint32_t qa[SEEK_BATCH][3], qb[SEEK_BATCH][3];
    for (uint32_t k = 0; k < n; k++) { /* integer pass: the bit fields */
        const ossa__bc_packed *p = &clip->packed[sb->ch[k]];
        if (!sb->reuse[k]) ossa__packed_fields(clip->base, p, G, sb->rank[k], qa[k]);
        if (!sb->hold[k]) ossa__packed_fields(clip->base, p, G, sb->rank[k] + 1, qb[k]);
    }
    for (uint32_t k = 0; k < n; k++) { /* float pass */
        uint32_t i = sb->ch[k];
        const ossa__bc_packed *p = &clip->packed[i];
        float va[4], vb[4];
        if (sb->reuse[k]) { /* key b as decoded: undo the flip (exact) */
            float sign = c->flip[i] ? -1.0f : 1.0f;
            for (int j = 0; j < 4; j++) va[j] = c->b[j][i] * sign;
        } else {
            ossa__packed_value(p, qa[k], va);
        }
        c->flip[i] = 0;
        if (sb->hold[k]) { /* the last key: hold it */
            memcpy(vb, va, sizeof va);
            c->inv[i] = 0.0f;
        } else {
            ossa__packed_value(p, qb[k], vb);
            c->inv[i] = p->interp == OSSA_INTERP_STEP ? 0.0f : 1.0f / (c->hi[i] - c->t0[i]);
        }
        if (p->kind == OSSA__CH_R) {
            float dot = va[0] * vb[0] + va[1] * vb[1] + va[2] * vb[2] + va[3] * vb[3];
            if (dot < 0.0f) { /* the shorter arc */
                for (int j = 0; j < 4; j++) vb[j] = -vb[j];
                c->flip[i] = 1;
                dot = va[0] * vb[0] + va[1] * vb[1] + va[2] * vb[2] + va[3] * vb[3];
            }
            ossa__slerp_fit(dot, &c->ka[i], &c->kb[i]);
        }
        for (int j = 0; j < 4; j++) {
            c->a[j][i] = va[j];
            c->b[j][i] = vb[j];
        }
    }
    sb->n = 0;
}

/* Decodes one key's lanes of a packed raw channel starting at bit pos: one 64-bit window
 * serves several lanes (the stream is followed by >= 8 readable bytes). */
static inline void decode_lanes(const unsigned char *p, uint64_t pos, const ossa__bc_lane *ln, uint32_t lanes, float *out) {
    uint64_t w = 0;
    uint32_t avail = 0;
    for (uint32_t l = 0; l < lanes; l++) {
        uint32_t b = ln[l].bits;
        if (b > avail) {
            memcpy(&w, p + (pos >> 3), 8);
            w >>= (pos & 7u);
            avail = 64u - (uint32_t)(pos & 7u);
        }
        out[l] = ossa__ord_float(ln[l].base + (uint32_t)(w & ((1ull << b) - 1u)));
        w = b < 64 ? w >> b : 0;
        avail -= b;
        pos += b;
    }
}

/* A track view over a raw channel (no table: clock lookups use the cursor or binary search). */
static inline ossa_track raw_view(const ossa_built_clip *clip, const ossa__bc_raw *r) {
    ossa_track v;
    memset(&v, 0, sizeof v);
    v.kind = r->kind == OSSA__CH_R ? OSSA_TRACK_ROTATION : OSSA_TRACK_VECTOR;
    v.interp = (ossa_interp)r->interp;
    v.components = r->components;
    v.key_count = clip->clocks[r->clock].key_count;
    v.times = (const float *)(clip->base + clip->clocks[r->clock].times_off);
    v.values = (const float *)(clip->base + r->values_off);
    return v;
}

ossa_result ossa_sample_job_run(ossa_sample_job *job) {
    ossa_result res = ossa_sample_job_validate(job);
    if (res != OSSA_OK) return res;
    const ossa_built_clip *clip = job->clip;
    const ossa__bc_header *h = clip->h;
    ossa_sampling_context *c = job->context;
    if (c->clip_id != clip->id) {
        memset(c->clock_key, 0, h->clock_count * sizeof(uint32_t));
        for (uint32_t i = 0; i < h->packed_count; i++) {
            c->cursor[i] = UINT32_MAX;
            c->lo[i] = INFINITY;
            c->hi[i] = -INFINITY;
        }
        for (uint32_t i = 0; i < h->raw_count && i < c->raw_cap; i++) c->rk[i] = UINT32_MAX;
        c->clip_id = clip->id;
    }
    float t = ossa__adjust_time(h->start, h->end, job->time, job->loop);
    ossa_transform *out = job->output;
    memcpy(out, clip->pose, (size_t)h->joint_count * sizeof(ossa_transform));

    /* raw channels: one key lookup per shared clock, then the editable interpolation */
    for (uint32_t i = 0; i < h->clock_count; i++) {
        const ossa__bc_clock *ck = &clip->clocks[i];
        if (ck->key_count < 2) continue;
        ossa_track v;
        memset(&v, 0, sizeof v);
        v.key_count = ck->key_count;
        v.times = (const float *)(clip->base + ck->times_off);
        ossa__find_key_cursor(&v, t, &c->clock_key[i]);
    }
    if (job->weights) memset(job->weights, 0, (size_t)h->weight_count * sizeof(float));
    for (uint32_t i = 0; i < h->raw_count; i++) {
        const ossa__bc_raw *r = &clip->raw[i];
        ossa_track v = raw_view(clip, r);
        uint32_t k = v.key_count < 2 ? 0 : c->clock_key[r->clock];
        float kv[24]; /* keys k and k + 1 of a packed T/R/S channel: the editable floats, bit for bit */
        if (r->lanes_off) {
            uint32_t lanes = r->components * (r->interp == OSSA_INTERP_CUBIC ? 3u : 1u), n = v.key_count < 2 ? 1 : 2;
            bool cached = i < c->raw_cap && lanes <= RAW_CACHE / 2;
            float *keys = cached ? c->rv + (size_t)i * RAW_CACHE : kv;
            if (!cached || c->rk[i] != k) {
                uint32_t first = 0;
                if (cached && n == 2 && c->rk[i] != UINT32_MAX && c->rk[i] + 1 == k) { /* one key forward: shift, decode one */
                    memcpy(keys, keys + lanes, lanes * sizeof(float));
                    first = 1;
                }
                const ossa__bc_lane *ln = (const ossa__bc_lane *)(clip->base + r->lanes_off);
                uint32_t per = 0;
                for (uint32_t l = 0; l < lanes; l++) per += ln[l].bits;
                for (uint32_t j = first; j < n; j++)
                    decode_lanes(clip->base + r->values_off, (uint64_t)(k + j) * per, ln, lanes, keys + j * lanes);
                if (cached) c->rk[i] = k;
            }
            /* a view of keys k and k + 1 interpolates exactly as the whole track does */
            v.times += k;
            v.key_count = n;
            v.values = keys;
            k = 0;
        }
        switch (r->kind) {
        case OSSA__CH_T: ossa__interpolate(&v, k, t, &out[r->target].translation.x, 3); break;
        case OSSA__CH_R: ossa__interpolate(&v, k, t, &out[r->target].rotation.x, 4); break;
        case OSSA__CH_S: ossa__interpolate(&v, k, t, &out[r->target].scale.x, 3); break;
        default:
            if (job->weights) ossa__interpolate(&v, k, t, job->weights + clip->wtracks[r->target].offset, r->components);
            break;
        }
    }

    /* packed channels: refresh stale segments, then lerp / nlerp all at once */
    uint32_t P = h->packed_count, R = h->rot_count;
    if (P) {
        int64_t u = -1;
        seek_batch sb;
        sb.n = 0;
        for (uint32_t i = 0; i < P; i++) {
            if (t >= c->lo[i] && t < c->hi[i]) continue;
            locate(c, clip, i, t, &u, &sb);
            if (sb.n == SEEK_BATCH) refill(c, clip, &sb);
        }
        if (sb.n) refill(c, clip, &sb);
        ossa__lerp_soa soa = {c->t0, c->inv, c->ka, c->kb, {c->a[0], c->a[1], c->a[2], c->a[3]},
                              {c->b[0], c->b[1], c->b[2], c->b[3]}, {c->o[0], c->o[1], c->o[2], c->o[3]}};
        ossa__lerp_kernel kern = choose_kernel();
        if (R) kern(&soa, t, 0, R, true);
        if (P > R) kern(&soa, t, R, P, false);
        for (uint32_t i = 0; i < R; i++) {
            ossa_quat *q = &out[clip->packed[i].joint].rotation;
            q->x = c->o[0][i];
            q->y = c->o[1][i];
            q->z = c->o[2][i];
            q->w = c->o[3][i];
        }
        for (uint32_t i = R; i < P; i++) {
            const ossa__bc_packed *p = &clip->packed[i];
            ossa_vec3 *v = p->kind == OSSA__CH_T ? &out[p->joint].translation : &out[p->joint].scale;
            v->x = c->o[0][i];
            v->y = c->o[1][i];
            v->z = c->o[2][i];
        }
    }
    job->sampled_time = t;
    return OSSA_OK;
}
