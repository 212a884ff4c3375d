/* The sampling job (see ossa/sample.h): the per-instance context, the base pose copy, the
 * packed channels through per-mask segment caches (the shared key clocks) and the SoA decode +
 * lerp / nlerp kernels; the raw channels are sample_raw.c's, the scalar kernels and the choice
 * of the SIMD ones sample_kernels.c's. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h> /* x86-64 baseline: the stale-mask compare, 4 at a time */
#endif

#include "anim/sample_internal.h"
#include "core/alloc.h"
#include "core/cpu.h"
#include "core/job.h"

static inline uint32_t popcount64_swar(uint64_t v) {
    return ossa__popcount32((uint32_t)v) + ossa__popcount32((uint32_t)(v >> 32));
}
/* ossa__mask_seek's body; hw: the POPCNT instruction (only inside target("popcnt") callers).
 * The words before at's are counted whole (a trip count every channel of a jump shares, so the
 * loop's exit is predicted), at's word splits at it; the next key is in it, or found by the
 * window steps after it (rare). */
static inline __attribute__((always_inline)) void mask_seek(const unsigned char *mask, uint32_t n, uint32_t at,
                                                            uint32_t out[3], bool hw) {
    uint32_t kat = at / 64u, r = 0, la = 0, b = 64u * kat, cut = at + 1u - b; /* cut in [1, 64] */
    uint64_t lw = 1, w;
    for (uint32_t k = 0; k < kat; k++) { /* whole words (never the last, partial one) */
        memcpy(&w, mask + 8u * k, 8);
        r += hw ? (uint32_t)__builtin_popcountll(w) : popcount64_swar(w);
        la = w ? 64u * k : la;
        lw = w ? w : lw;
    }
    memcpy(&w, mask + 8u * kat, 8);
    if (n - b < 64u) w &= (1ull << (n - b)) - 1u; /* the last word: the key fields follow the mask */
    uint64_t below = cut >= 64u ? ~0ull : (1ull << cut) - 1u, lo = w & below, hi = w & ~below;
    r += hw ? (uint32_t)__builtin_popcountll(lo) : popcount64_swar(lo);
    la = lo ? b : la;
    lw = lo ? lo : lw;
    out[0] = la + 63u - (uint32_t)__builtin_clzll(lw);
    out[1] = r - 1u;
    out[2] = hi ? b + (uint32_t)__builtin_ctzll(hi) : ossa__mask_next(mask, b + 64u, n);
}

void ossa__mask_seek(const unsigned char *mask, uint32_t n, uint32_t at, uint32_t out[3]) { mask_seek(mask, n, at, out, false); }
#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("popcnt")))
void ossa__mask_seek_popcnt(const unsigned char *mask, uint32_t n, uint32_t at, uint32_t out[3]) {
    mask_seek(mask, n, at, out, true);
}
#else
void ossa__mask_seek_popcnt(const unsigned char *mask, uint32_t n, uint32_t at, uint32_t out[3]) {
    mask_seek(mask, n, at, out, false);
}
#endif

/* POPCNT is part of the SSE4 level (core/cpu.h). */
static bool use_popcnt(void) {
    return ossa__simd() >= OSSA__SIMD_SSE4;
}

/* ---------------------------------------------------------------- context */

/* One allocation: the context, then its slot arrays (mt0, next: 2 x slots) and its key pool
 * (key_floats, zeroed: finite values in the spare lanes). */
static ossa_result context_make(uint32_t slots, uint32_t key_floats, const ossa_allocator *allocator,
                                ossa_sampling_context **out) {
    ossa__layout L = {0, false};
    size_t o_ctx = ossa__layout_add(&L, 1, sizeof(ossa_sampling_context));
    size_t o_s = ossa__layout_add(&L, (size_t)slots * 2u, sizeof(uint32_t));
    size_t o_k = ossa__layout_add(&L, key_floats, sizeof(float));
    (void)o_ctx;
    if (L.overflow) return OSSA_ERROR_OUT_OF_MEMORY;
    unsigned char *mem = ossa__alloc(allocator, L.size);
    if (!mem) return OSSA_ERROR_OUT_OF_MEMORY;
    memset(mem, 0, L.size);
    ossa_sampling_context *c = (ossa_sampling_context *)mem;
    c->allocator = ossa__allocator_resolve(allocator);
    c->size = L.size;
    c->slots = slots;
    c->key_floats = key_floats;
    uint32_t *u = (uint32_t *)(mem + o_s);
    c->mt0 = (float *)(void *)u;
    c->next = u + slots;
    c->kq = (float *)(mem + o_k);
    *out = c;
    return OSSA_OK;
}

ossa_result ossa_sampling_context_create(uint32_t max_joints, uint32_t max_weights, const ossa_allocator *allocator,
                                         ossa_sampling_context **out) {
    if (!out) return OSSA_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (max_joints > (1u << 24) || max_weights > (1u << 24)) return OSSA_ERROR_INVALID_ARGUMENT;
    /* what any clip of max_joints joints and max_weights weights needs (its plan's slots and
     * key_floats, sample_plan.c): a slot per key mask and clock (at most a channel each: 3 a
     * joint, a weight track per weight); keys at most 20 floats a
     * joint (packed: 6 a channel; raw: 2 keys of 4 + 3 + 3 lanes), 6 more for the packed keys'
     * rounding and wide load, OSSA__LERP_SLACK after the raw keys */
    uint64_t slots = (uint64_t)max_joints * 3u + max_weights, keys = (uint64_t)max_joints * 20u + 6u + OSSA__LERP_SLACK;
    return context_make((uint32_t)slots, (uint32_t)keys, allocator, out);
}

ossa_result ossa_sampling_context_create_for_clips(const ossa_built_clip *const *clips, uint32_t count,
                                                   const ossa_allocator *allocator, ossa_sampling_context **out) {
    if (!out) return OSSA_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (!clips && count) return OSSA_ERROR_INVALID_ARGUMENT;
    uint32_t slots = 0, keys = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (!clips[i]) return OSSA_ERROR_INVALID_ARGUMENT;
        const ossa__sample_plan *pl = clips[i]->plan;
        slots = pl->slots > slots ? pl->slots : slots;
        keys = pl->key_floats > keys ? pl->key_floats : keys;
    }
    return context_make(slots, keys, allocator, out);
}

void ossa_sampling_context_destroy(ossa_sampling_context *context) {
    if (!context) return;
    ossa_allocator a = context->allocator;
    ossa__free(&a, context);
}

size_t ossa_sampling_context_size(const ossa_sampling_context *context) { return context ? context->size : 0; }

void ossa_sampling_context_reset(ossa_sampling_context *context) {
    if (context) context->clip_id = context->ref_clip = 0;
}

/* ---------------------------------------------------------------- job */

ossa_result ossa_sample_job_validate(const ossa_sample_job *job, ossa_diagnostic *diag) {
    const ossa_result bad = OSSA_ERROR_INVALID_ARGUMENT, small = OSSA_ERROR_BUFFER_TOO_SMALL;
    if (!job) return ossa__job_fail(diag, bad, "job", "NULL");
    if (!job->clip) return ossa__job_fail(diag, bad, "clip", "NULL");
    if (!job->context) return ossa__job_fail(diag, bad, "context", "NULL");
    if (!job->output) return ossa__job_fail(diag, bad, "output", "NULL");
    if (!job->reference) return ossa__job_fail(diag, bad, "reference", "NULL");
    if (isnan(job->time)) return ossa__job_fail(diag, bad, "time", "NaN");
    const ossa__bc_header *h = job->clip->h;
    if (job->output_count < h->joint_count)
        return ossa__job_fail(diag, small, "output_count", "%u < %u joints", job->output_count, h->joint_count);
    if (job->reference_count < h->joint_count)
        return ossa__job_fail(diag, small, "reference_count", "%u < %u joints", job->reference_count, h->joint_count);
    const ossa_sampling_context *c = job->context;
    const ossa__sample_plan *pl = job->clip->plan;
    if (pl->slots > c->slots)
        return ossa__job_fail(diag, small, "context", "capacity of %u slots < the clip's %u (a context for %u joints, %u weights, "
                              "or made for this clip)", c->slots, pl->slots, h->joint_count, h->weight_count);
    if (pl->key_floats > c->key_floats)
        return ossa__job_fail(diag, small, "context", "capacity of %u key floats < the clip's %u (a context for %u joints, "
                              "or made for this clip)", c->key_floats, pl->key_floats, h->joint_count);
    if (!job->weights && job->weights_count != 0)
        return ossa__job_fail(diag, bad, "weights", "NULL with weights_count %u", job->weights_count);
    if (job->weights && job->weights_count < h->weight_count)
        return ossa__job_fail(diag, small, "weights_count", "%u < %u weights", job->weights_count, h->weight_count);
    return OSSA_OK;
}

/* Largest grid index with grid[u] <= t (0 when t is before the grid): a branch-free binary
 * search (conditional moves; a random time would mispredict every step of a branchy one). */
static uint32_t grid_find(const ossa_built_clip *clip, float t) {
    const float *g = clip->grid;
    uint32_t base = 0, n = clip->h->grid_count;
    while (n > 1) {
        uint32_t half = n / 2;
        base = g[base + half] <= t ? base + half : base;
        n -= half;
    }
    return base;
}

/* The key mask m of the clip. */
static inline const unsigned char *mask_at(const ossa_built_clip *clip, uint32_t m) {
    return clip->masks + (size_t)m * clip->mask_bytes;
}

/* The rank of grid index a (< grid_count) in key mask m, the keys before it: the plan's rank
 * directory entry of a's 64-bit word plus the keys below a in that word (one unaligned load;
 * the masks are followed by readable bytes). hw: the POPCNT instruction (only inside
 * target("popcnt") callers). */
static inline __attribute__((always_inline)) uint32_t key_rank(const ossa_built_clip *clip, uint32_t m, uint32_t a, bool hw) {
    const ossa__sample_plan *pl = clip->plan;
    uint64_t w;
    memcpy(&w, mask_at(clip, m) + 8u * (a >> 6), 8);
    w &= (1ull << (a & 63u)) - 1u;
    return pl->rdir[(size_t)m * pl->rdir_words + (a >> 6)] + (hw ? (uint32_t)__builtin_popcountll(w) : popcount64_swar(w));
}

/* Key mask m one key forward, to key n (n2 the key after it, grid_count = none): its segment;
 * per channel key b becomes key a (it was the key before n) and the key after n (rank of n +
 * 1) is decoded alone (the single-key kernel), or key b is held as a (the last key). Out of
 * line: inlined, its registers cost the whole job more than the call. */
static inline __attribute__((always_inline)) void step_mask_body(ossa_sampling_context *c, const ossa_built_clip *clip, uint32_t m,
                                                                 uint32_t n, uint32_t n2, ossa__key_kernel key, bool hw) {
    const ossa__sample_plan *pl = clip->plan;
    c->mt0[m] = clip->grid[n];
    c->next[m] = n2;
    if (n2 >= clip->h->grid_count) { /* held */
        for (uint32_t g = pl->mfirst[m], e = pl->mfirst[m + 1]; g < e; g++) {
            float *d = c->kq + 6u * pl->mch[g], b0 = d[3], b1 = d[4], b2 = d[5];
            d[0] = b0;
            d[1] = b1;
            d[2] = b2;
        }
        return;
    }
    uint32_t M = ossa__lift_blocks(clip->mask_keys[m]), k = key_rank(clip, m, n, hw) + 1u;
    uint32_t blk = k >> 2 < M ? k >> 2 : M - 1u, j = k - 4u * blk;
    ossa__lift_soa soa = {clip->base, pl->poff, pl->lbk, pl->lto, pl->lbt, pl->lfo, pl->lfm, c->kq};
    key(&soa, pl->mch, pl->mfirst[m], pl->mfirst[m + 1], blk, OSSA__KEY_STEP, j);
}
static __attribute__((noinline)) void step_mask(ossa_sampling_context *c, const ossa_built_clip *clip, uint32_t m, uint32_t n,
                                                uint32_t n2, ossa__key_kernel key) {
    step_mask_body(c, clip, m, n, n2, key, false);
}
#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("popcnt"), noinline)) static void step_mask_popcnt(ossa_sampling_context *c, const ossa_built_clip *clip,
                                                                        uint32_t m, uint32_t n, uint32_t n2, ossa__key_kernel key) {
    step_mask_body(c, clip, m, n, n2, key, true);
}
#else
#define step_mask_popcnt step_mask
#endif

/* Key mask m's segment from key a (grid index, value index rank) to the next key n
 * (grid_count = none: a is held): the mask's start and next key, then its channels' keys. */
static inline void set_segment(ossa_sampling_context *c, const ossa_built_clip *clip, uint32_t m, uint32_t a, uint32_t rank,
                               uint32_t n) {
    bool held = n >= clip->h->grid_count; /* the last key: hold it */
    c->mt0[m] = clip->grid[a];
    c->next[m] = n;
    uint32_t M = ossa__lift_blocks(clip->mask_keys[m]), b = rank >> 2 < M ? rank >> 2 : M - 1u;
    uint32_t ja = rank - 4u * b; /* 4 only for the held last key */
    const ossa__sample_plan *pl = clip->plan; /* keys a and b from one decode of the block's fields */
    ossa__lift_soa soa = {clip->base, pl->poff, pl->lbk, pl->lto, pl->lbt, pl->lfo, pl->lfm, c->kq};
    ossa__sample_key()(&soa, pl->mch, pl->mfirst[m], pl->mfirst[m + 1], b, ja, held ? ja : ja + 1u);
}

/* Seeks key mask m's segment for time t and loads its channels' fields, when it is not one key
 * forward (the caller's inline path): within 32 grid steps ahead, the last key up to the grid
 * position (one binary search per frame, shared by every mask, *u < 0 = not yet found) found
 * in one mask window; else the key mask around the grid position; its rank from the rank
 * directory. The kernels decode the fields every frame. */
static __attribute__((noinline)) void locate(ossa_sampling_context *c, const ossa_built_clip *clip, uint32_t m, float t,
                                             int64_t *u) {
    const unsigned char *mask = mask_at(clip, m);
    uint32_t G = clip->h->grid_count, a, n = c->next[m];
    if (*u < 0) *u = grid_find(clip, t);
    uint32_t U = (uint32_t)*u;
    if (n < G && U >= n && U - n < 32u) { /* ahead (a key cached): bit 0 of the window (= key n) is set */
        uint32_t w = ossa__bits_read(mask, n, U - n + 1);
        a = n + 31u - (uint32_t)__builtin_clz(w);
    } else {
        a = ossa__mask_prev(mask, U);
    }
    set_segment(c, clip, m, a, key_rank(clip, m, a, false), ossa__mask_next(mask, a + 1, G));
}

/* Key mask m's segment after a jump (the caller found the grid position U once): no forward
 * attempt, no branch on where the mask was, so random times mispredict little. */
static inline __attribute__((always_inline)) void seek(ossa_sampling_context *c, const ossa_built_clip *clip, uint32_t m,
                                                       uint32_t U, bool hw) {
    const unsigned char *mask = mask_at(clip, m);
    uint32_t G = clip->h->grid_count, a, rank, n;
    if (G <= 57u) { /* the whole mask in one window: key, rank and next from one load */
        uint64_t w, upto = (2ull << U) - 1u; /* U < G <= 57 */
        memcpy(&w, mask, 8);
        w &= (1ull << G) - 1u;
        uint64_t lo = w & upto, hi = w & ~upto;
        a = 63u - (uint32_t)__builtin_clzll(lo); /* bit 0 is set */
        rank = (hw ? (uint32_t)__builtin_popcountll(lo) : popcount64_swar(lo)) - 1u;
        n = hi ? (uint32_t)__builtin_ctzll(hi) : G;
    } else if (G <= 64u * OSSA__MASK_SEEK_WORDS) {
        uint32_t k[3];
        mask_seek(mask, G, U, k, hw);
        a = k[0];
        rank = k[1];
        n = k[2];
    } else {
        a = ossa__mask_prev(mask, U);
        rank = key_rank(clip, m, a, hw);
        n = ossa__mask_next(mask, a + 1, G);
    }
    set_segment(c, clip, m, a, rank, n);
}

/* The key masks' segment times this frame (t0 = mt0, dt = grid[next] - t0, +Inf for a held
 * key), once per mask, for clips of up to OSSA__MASK_TIMES masks (the others' channels
 * look their masks' times up themselves). */
typedef struct mask_times {
    float t0[OSSA__MASK_TIMES], dt[OSSA__MASK_TIMES];
} mask_times;

/* Key masks [w, w + e) (e <= 64) whose segment [mt0, grid[next]) does not hold t, as a
 * bit mask (bit j = mask w + j; no branch per mask), their segment times into mt (NULL: not
 * kept); whole vectors of 4 masks (SSE2, the x86-64 baseline) then one at a time. */
static inline uint64_t stale_masks(const ossa_sampling_context *c, const float *grid, float t, uint32_t w, uint32_t e,
                                   mask_times *mt) {
    uint64_t stale = 0;
    uint32_t j = 0;
#if defined(__SSE2__)
    __m128 vt = _mm_set1_ps(t);
    for (; mt && j + 4u <= e; j += 4u) {
        const uint32_t *n = c->next + w + j;
        __m128 lo = _mm_loadu_ps(c->mt0 + w + j);
        __m128 hi = _mm_setr_ps(grid[n[0]], grid[n[1]], grid[n[2]], grid[n[3]]);
        _mm_storeu_ps(mt->t0 + w + j, lo);
        _mm_storeu_ps(mt->dt + w + j, _mm_sub_ps(hi, lo));
        stale |= (uint64_t)_mm_movemask_ps(_mm_or_ps(_mm_cmplt_ps(vt, lo), _mm_cmpge_ps(vt, hi))) << j;
    }
#endif
    for (; j < e; j++) {
        float lo = c->mt0[w + j], hi = grid[c->next[w + j]];
        if (mt) {
            mt->t0[w + j] = lo;
            mt->dt[w + j] = hi - lo;
        }
        stale |= (uint64_t)((t < lo) | (t >= hi)) << j;
    }
    return stale;
}

/* Key mask m's segment times into mt (NULL: not kept), after it moved. */
static inline void mask_time(const ossa_sampling_context *c, const float *grid, mask_times *mt, uint32_t m) {
    if (!mt) return;
    float lo = c->mt0[m];
    mt->t0[m] = lo;
    mt->dt[m] = grid[c->next[m]] - lo;
}

/* Every key mask of `stale` (bit j = mask w + j) seeks grid position U: a portable loop and
 * one compiled for POPCNT (the mask seeks inlined in both). */
static __attribute__((noinline)) void seek_all(ossa_sampling_context *c, const ossa_built_clip *clip, uint32_t w,
                                               uint64_t stale, uint32_t U) {
    for (; stale; stale &= stale - 1) seek(c, clip, w + (uint32_t)__builtin_ctzll(stale), U, false);
}
#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("popcnt"), noinline)) static void seek_all_popcnt(ossa_sampling_context *c, const ossa_built_clip *clip,
                                                                       uint32_t w, uint64_t stale, uint32_t U) {
    for (; stale; stale &= stale - 1) seek(c, clip, w + (uint32_t)__builtin_ctzll(stale), U, true);
}
#else
#define seek_all_popcnt seek_all
#endif

/* The packed channels [begin, end) into the pose (ossa_transform is 10 floats: T xyz, R xyzw,
 * S xyz) through the decode kernel, OSSA__SAMPLE_RUN channels a pass: the segment times of
 * each its mask's (mt, or NULL: from the grid; dt +Inf for STEP),
 * the rotations straight into the pose, the translations and scales through a stack buffer.
 * The kernel's wide loads read up to OSSA__LERP_SLACK - 1 entries past a pass: the stack
 * arrays have them (zeroed), the plan's and the keys' arrays too. */
#define OSSA__SAMPLE_RUN 64u
static void decode_run(const ossa_sampling_context *c, const ossa_built_clip *clip, const mask_times *mt, float t, float *pose,
                       uint32_t begin, uint32_t end, bool rotation) {
    enum { W = OSSA__SAMPLE_RUN + OSSA__LERP_SLACK };
    float t0[W], dt[W], o[3][W];
    const ossa__sample_plan *pl = clip->plan;
    const float *grid = pl->grid;
    uint32_t n = end - begin;
    for (uint32_t j = 0; mt && j < n; j++) {
        uint32_t i = begin + j, m = pl->pmask[i];
        t0[j] = mt->t0[m];
        dt[j] = pl->pstep[i] ? INFINITY : mt->dt[m];
    }
    for (uint32_t j = 0; !mt && j < n; j++) {
        uint32_t i = begin + j, m = pl->pmask[i];
        float a = c->mt0[m], d = grid[c->next[m]] - a;
        t0[j] = a;
        dt[j] = pl->pstep[i] ? INFINITY : d;
    }
    memset(t0 + n, 0, OSSA__LERP_SLACK * sizeof(float)); /* the spare lanes only: a whole-array clear costs a pass a rep stos */
    memset(dt + n, 0, OSSA__LERP_SLACK * sizeof(float));
    ossa__lerp_soa soa = {t0, dt, c->kq, pl->pka + begin, pl->pkb + begin,
                          {pl->mn[0] + begin, pl->mn[1] + begin, pl->mn[2] + begin},
                          {pl->st[0] + begin, pl->st[1] + begin, pl->st[2] + begin},
                          {o[0], o[1], o[2], NULL}, rotation ? pose : NULL, pl->pdst + begin, pl->pdrop + begin};
    ossa__sample_decode(&soa, t, 0, n, rotation); /* the rotations straight into the pose */
    for (uint32_t j = 0; !rotation && j < n; j++) {
        float *v = pose + pl->pdst[begin + j], x = o[0][j], y = o[1][j], z = o[2][j];
        v[0] = x;
        v[1] = y;
        v[2] = z;
    }
}

static void decode_packed(const ossa_sampling_context *c, const ossa_built_clip *clip, const mask_times *mt, float t,
                          float *pose) {
    uint32_t P = clip->h->packed_count, R = clip->h->rot_count;
    for (uint32_t i = 0; i < R; i += OSSA__SAMPLE_RUN)
        decode_run(c, clip, mt, t, pose, i, R - i < OSSA__SAMPLE_RUN ? R : i + OSSA__SAMPLE_RUN, true);
    for (uint32_t i = R; i < P; i += OSSA__SAMPLE_RUN)
        decode_run(c, clip, mt, t, pose, i, P - i < OSSA__SAMPLE_RUN ? P : i + OSSA__SAMPLE_RUN, false);
}

/* Binds the context to the job's clip and reference: the reference is hashed against the
 * clip's once per clip and reference pointer (INVALID_ARGUMENT on a mismatch), and a new clip
 * forgets every segment (each mask stale: start +Inf, no step) and the raw channels' keys. */
static ossa_result bind_context(ossa_sampling_context *c, const ossa_sample_job *job) {
    const ossa_built_clip *clip = job->clip;
    const ossa__bc_header *h = clip->h;
    if (c->ref_clip != clip->id || c->ref_ptr != job->reference) {
        if (!ossa_built_clip_matches(clip, job->reference, job->reference_count)) {
            c->ref_clip = 0;
            return OSSA_ERROR_INVALID_ARGUMENT;
        }
        c->ref_clip = clip->id;
        c->ref_ptr = job->reference;
    }
    if (c->clip_id == clip->id) return OSSA_OK;
    for (uint32_t m = 0; m < h->mask_count; m++) /* validate: mask_count <= the plan's slots <= the context's */
        c->mt0[m] = INFINITY, c->next[m] = h->grid_count;
    ossa__raw_setup(c, clip);
    c->last_t = -INFINITY;
    c->loops = 0.0;
    /* in double: end - start may be up to FLT_MAX (the time rule), 4 x it is not a float */
    double jump = 4.0 * ((double)h->end - (double)h->start) / (double)(h->grid_count ? h->grid_count : 1u);
    c->jump_dt = jump < (double)FLT_MAX ? (float)jump : FLT_MAX;
    c->clip_id = clip->id;
    return OSSA_OK;
}

/* The reference pose, then the clip's sparse base pose over it: the folded constants that
 * differ from the reference. */
static void write_base_pose(const ossa_built_clip *clip, const ossa_transform *reference, ossa_transform *out) {
    const ossa__bc_header *h = clip->h;
    memcpy(out, reference, (size_t)h->joint_count * sizeof(ossa_transform));
    float *pose = (float *)(void *)out;
    const uint32_t *code = clip->base_codes;
    const float *v = clip->base_values;
    uint32_t nb = h->base_count, nr = h->base_rot_count, i = 0;
    for (; i < nr; i++, v += 4) {
        float *d = pose + (code[i] >> 2) * 10u + 3u, x = v[0], y = v[1], z = v[2], w = v[3];
        d[0] = x;
        d[1] = y;
        d[2] = z;
        d[3] = w;
    }
    for (; i < nb; i++, v += 3) {
        float *d = pose + (code[i] >> 2) * 10u + ossa__field_offset(code[i] & 3u), x = v[0], y = v[1], z = v[2];
        d[0] = x;
        d[1] = y;
        d[2] = z;
    }
}

/* Every key mask whose segment does not hold t moves: after a jump (back, or far ahead) they
 * all seek the grid position of t (found once); else each steps one key forward (the common
 * case, inline) or locates t. Their segment times go to mt (NULL: not kept). */
static void refresh_segments(ossa_sampling_context *c, const ossa_built_clip *clip, float t, mask_times *mt) {
    int64_t u = -1;
    const float *grid = clip->grid;
    uint32_t G = clip->h->grid_count, M = clip->h->mask_count;
    bool popcnt = use_popcnt();
    ossa__key_kernel key = ossa__sample_key();
    bool jump = !(t >= c->last_t && t - c->last_t <= c->jump_dt);
    for (uint32_t w = 0; w < M; w += 64) { /* the stale masks as a bit mask: no branch per mask */
        uint32_t e = M - w < 64 ? M - w : 64;
        uint64_t stale = stale_masks(c, grid, t, w, e, mt);
        if (jump && stale) { /* every stale mask seeks: the grid position once */
            if (u < 0) u = grid_find(clip, t);
            (popcnt ? seek_all_popcnt : seek_all)(c, clip, w, stale, (uint32_t)u);
            for (; stale; stale &= stale - 1) mask_time(c, grid, mt, w + (uint32_t)__builtin_ctzll(stale));
        }
        for (; stale; stale &= stale - 1) {
            uint32_t m = w + (uint32_t)__builtin_ctzll(stale), n = c->next[m];
            if (n < G && t >= grid[n]) { /* one key forward (n < G: a key is cached) */
                uint32_t n2 = ossa__mask_next(mask_at(clip, m), n + 1, G);
                if (n2 >= G || t < grid[n2]) {
                    (popcnt ? step_mask_popcnt : step_mask)(c, clip, m, n, n2, key);
                    mask_time(c, grid, mt, m);
                    continue;
                }
            }
            locate(c, clip, m, t, &u);
            mask_time(c, grid, mt, m);
        }
    }
}

ossa_result ossa_sample_job_run(ossa_sample_job *job) {
    ossa_result res = ossa_sample_job_validate(job, NULL);
    if (res != OSSA_OK) return res;
    const ossa_built_clip *clip = job->clip;
    const ossa__bc_header *h = clip->h;
    ossa_sampling_context *c = job->context;
    if ((res = bind_context(c, job)) != OSSA_OK) return res;
    float t = ossa__sample_time(h->start, h->end, job->time, job->loop, &c->loops);
    write_base_pose(clip, job->reference, job->output);
    /* packed channels: refresh the stale segments (the raw channels run before their decode
     * kernel, so its wide loads find the refill's narrow stores retired) */
    mask_times times, *mt = h->mask_count <= OSSA__MASK_TIMES ? &times : NULL; /* the segments' times this frame */
    if (h->packed_count) refresh_segments(c, clip, t, mt);
    ossa__raw_sample(c, clip, t, job->output, job->weights);
    if (h->packed_count) decode_packed(c, clip, mt, t, (float *)(void *)job->output);
    c->last_t = t;
    job->sampled_time = t;
    return OSSA_OK;
}
