/* The sampling job (see ossa/sample.h): the per-instance context, the base pose copy, the
 * packed channels through per-mask segment caches (the shared key clocks) and the SoA decode +
 * lerp / nlerp kernels; the raw channels are sample_raw.c's, the scalar kernels and the choice
 * of the SIMD ones sample_kernels.c's. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h> /* x86-64 baseline: the stale-channel compare, 4 at a time */
#endif

#include "anim/sample_internal.h"
#include "core/alloc.h"
#include "core/cpu.h"
#include "core/job.h"

/* ossa__mask_rank with the POPCNT instruction, 64 bits at a time (same count). */
#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("popcnt")))
#endif
uint32_t ossa__mask_rank_popcnt(const unsigned char *mask, uint32_t end) {
    uint32_t r = 0, pos = 0;
    uint64_t w;
    for (; pos + 64 <= end; pos += 64) {
        memcpy(&w, mask + pos / 8, 8);
        r += (uint32_t)__builtin_popcountll(w);
    }
    if (pos < end) {
        memcpy(&w, mask + pos / 8, 8);
        r += (uint32_t)__builtin_popcountll(w & ((1ull << (end - pos)) - 1u));
    }
    return r;
}

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

ossa_result ossa_sampling_context_create(uint32_t max_joints, uint32_t max_weights, const ossa_allocator *allocator,
                                         ossa_sampling_context **out) {
    if (!out) return OSSA_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (max_joints > (1u << 24) || max_weights > (1u << 24)) return OSSA_ERROR_INVALID_ARGUMENT;
    size_t N = (size_t)max_joints * 3u + OSSA__LERP_SLACK, C = (size_t)max_joints * 3u + max_weights;
    /* raw caches: one rotation and two vectors per joint, their lanes, spare entries after
     * them for the kernels' wide loads */
    size_t SR = (size_t)max_joints + OSSA__LERP_SLACK, SV = (size_t)max_joints * 2u;
    size_t LN = (size_t)max_joints * 10u + OSSA__LERP_SLACK;
    ossa__layout L = {0, false};
    size_t o_ctx = ossa__layout_add(&L, 1, sizeof(ossa_sampling_context));
    size_t o_clock = ossa__layout_add(&L, C, sizeof(uint32_t));
    size_t o_u = ossa__layout_add(&L, N * 11, sizeof(uint32_t));
    /* the floats are zeroed once so the kernels' spare lanes compute on finite values */
    size_t o_f = ossa__layout_add(&L, N * 14, sizeof(float));
    size_t o_k = ossa__layout_add(&L, N * 16 + 16, sizeof(float)); /* + 16: 64-byte alignment */
    size_t o_lo = ossa__layout_add(&L, N * 32, sizeof(uint32_t));
    size_t o_rc = ossa__layout_add(&L, C * 7, sizeof(uint32_t)), o_rb = ossa__layout_add(&L, C * 2, 1);
    size_t o_lu = ossa__layout_add(&L, LN * 3, sizeof(uint32_t)), o_lf = ossa__layout_add(&L, LN * 2, sizeof(float));
    size_t o_su = ossa__layout_add(&L, SR + SV, sizeof(uint32_t)), o_sf = ossa__layout_add(&L, SR, sizeof(float));
    size_t o_sb = ossa__layout_add(&L, SR * 2 + SV, 1);
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
    c->slots = (uint32_t)N;
    c->clock_key = (uint32_t *)(mem + o_clock);
    uint32_t *u = (uint32_t *)(mem + o_u);
    c->cursor = u;
    c->rank = u + N;
    c->next = u + 2 * N;
    c->pdst = u + 3 * N;
    c->mfirst = u + 4 * N; /* mask_count + 1 <= P + 1 <= N entries */
    c->mch = u + 5 * N;
    c->poff = u + 6 * N;
    c->mblk = u + 7 * N;
    c->lbk = u + 8 * N;
    c->pka = u + 9 * N; /* 0 (zeroed): the kernels' spare lanes read kq[0 .. 4) */
    c->pkb = u + 10 * N;
    c->lfo = (uint32_t *)(mem + o_lo);
    c->lfm = c->lfo + N * 16;
    c->max_rot = (uint32_t)(SR - OSSA__LERP_SLACK);
    c->max_vec = (uint32_t)SV;
    c->max_lanes = (uint32_t)(LN - OSSA__LERP_SLACK);
    c->max_raw = (uint32_t)C;
    uint32_t *rc = (uint32_t *)(mem + o_rc);
    c->cr0 = rc;
    c->cv0 = rc + C;
    c->cnr = rc + 2 * C;
    c->cnv = rc + 3 * C;
    c->ctab = rc + 4 * C;
    c->ckey = rc + 5 * C;
    c->cs = (float *)(rc + 6 * C);
    c->rcached = mem + o_rb;
    c->cm = mem + o_rb + C;
    uint32_t *lu = (uint32_t *)(mem + o_lu);
    c->l_off = lu;
    c->l_pos = lu + LN;
    c->l_base = lu + 2 * LN;
    c->ka = (float *)(mem + o_lf);
    c->kb = c->ka + LN;
    c->rdst = (uint32_t *)(mem + o_su);
    c->vdst = c->rdst + SR;
    c->ss = (float *)(mem + o_sf);
    c->rstep = mem + o_sb;
    c->sflag = mem + o_sb + SR;
    c->vstep = mem + o_sb + 2 * SR;
    float *f = (float *)(mem + o_f);
    c->t0 = f;
    c->hi = f + N;
    c->dt = f + 2 * N;
    for (size_t i = 0; i < 3; i++) {
        c->mn[i] = f + (3 + i) * N;
        c->st[i] = f + (6 + i) * N;
        c->o[i] = f + (9 + i) * N;
    }
    c->pdrop = f + 12 * N;
    c->mt0 = f + 13 * N;
    c->kq = (float *)(((uintptr_t)(mem + o_k) + 63u) & ~(uintptr_t)63u);
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
    if (h->joint_count > job->context->max_joints || h->weight_count > job->context->max_weights)
        return ossa__job_fail(diag, small, "context", "capacity %u joints, %u weights < the clip's %u, %u",
                              job->context->max_joints, job->context->max_weights, h->joint_count, h->weight_count);
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

/* Key mask m's channels' keys of lifted block b into kq, unless there. */
static inline void load_block(ossa_sampling_context *c, const ossa_built_clip *clip, uint32_t m, uint32_t b) {
    if (c->mblk[m] == b) return;
    c->mblk[m] = b;
    ossa__lift_soa soa = {clip->base, c->poff, c->lbk, c->lfo, c->lfm, c->kq};
    c->lift(&soa, c->mch + c->mfirst[m], c->mfirst[m + 1] - c->mfirst[m], b);
}

/* Channel i's segment for the lerp kernels: start t0, length dt (+Inf for a STEP channel), where
 * its keys' fields a and b are in kq (its decoded block: the kernels read them there). */
static inline __attribute__((always_inline)) void set_channel(ossa_sampling_context *c, const ossa_built_clip *clip, uint32_t i,
                                                              float t0, float dt, uint32_t a, uint32_t b) {
    c->t0[i] = t0;
    c->dt[i] = clip->packed[i].interp == OSSA_INTERP_STEP ? INFINITY : dt;
    c->pka[i] = a;
    c->pkb[i] = b;
}

/* Key mask m one key forward, to key n (value index rank; n2 the key after it, grid_count =
 * none): its segment, then per channel t0 and dt and where its two keys are in the decoded
 * block (a new block every 4 keys: load_block; the last key: key b held). Out of line:
 * inlined, its registers cost the whole job more than the call. */
static __attribute__((noinline)) void step_mask(ossa_sampling_context *c, const ossa_built_clip *clip, uint32_t m, uint32_t n,
                                                uint32_t n2, uint32_t rank) {
    const float *grid = clip->grid;
    uint32_t G = clip->h->grid_count;
    float t0 = grid[n];
    c->cursor[m] = n;
    c->rank[m] = rank;
    c->next[m] = n2;
    c->mt0[m] = t0;
    const uint32_t *ch = c->mch + c->mfirst[m], nc = c->mfirst[m + 1] - c->mfirst[m];
    if (n2 < G) {
        float dt = grid[n2] - t0;
        c->hi[m] = grid[n2];
        load_block(c, clip, m, rank >> 2); /* key rank + 1 exists: rank < 4 * blocks */
        uint32_t k = (rank & 3u) * 3u;
        for (uint32_t j = 0; j < nc; j++) set_channel(c, clip, ch[j], t0, dt, ch[j] * 16u + k, ch[j] * 16u + k + 3u);
    } else { /* the last key: hold it */
        c->hi[m] = INFINITY;
        for (uint32_t j = 0; j < nc; j++) set_channel(c, clip, ch[j], t0, INFINITY, c->pkb[ch[j]], c->pkb[ch[j]]);
    }
}

/* Key mask m's segment from key a (grid index, value index rank) to the next key n
 * (grid_count = none: a is held): the mask's cursor and times, then for each of its channels
 * where its keys are in the block and the kernel's t0 and dt. */
static inline void set_segment(ossa_sampling_context *c, const ossa_built_clip *clip, uint32_t m, uint32_t a, uint32_t rank,
                               uint32_t n) {
    const float *grid = clip->grid;
    uint32_t G = clip->h->grid_count;
    bool held = n >= G; /* the last key: hold it */
    float t0 = grid[a], dt = held ? INFINITY : grid[n] - t0;
    c->cursor[m] = a;
    c->rank[m] = rank;
    c->next[m] = n;
    c->mt0[m] = t0;
    c->hi[m] = held ? INFINITY : grid[n];
    uint32_t M = ossa__lift_blocks(clip->mask_keys[m]), b = rank >> 2 < M ? rank >> 2 : M - 1u;
    load_block(c, clip, m, b);
    uint32_t ka = (rank - 4u * b) * 3u, kb = held ? ka : ka + 3u; /* rank - 4 b = 4 only for the held last key */
    for (uint32_t j = c->mfirst[m], e = c->mfirst[m + 1]; j < e; j++) {
        uint32_t i = c->mch[j];
        set_channel(c, clip, i, t0, dt, i * 16u + ka, i * 16u + kb);
    }
}

/* The key mask m of the clip. */
static inline const unsigned char *mask_at(const ossa_built_clip *clip, uint32_t m) {
    return clip->masks + (size_t)m * clip->mask_bytes;
}

/* Seeks key mask m's segment for time t and loads its channels' fields, when it is not one key
 * forward (the caller's inline path): within 32 grid steps ahead, the keys up to the grid
 * position (one binary search per frame, shared by every mask, *u < 0 = not yet found)
 * counted in one mask window; else the key mask around the grid position, its rank a popcount.
 * The kernels decode the fields every frame. */
static __attribute__((noinline)) void locate(ossa_sampling_context *c, const ossa_built_clip *clip, uint32_t m, float t,
                                             int64_t *u, bool popcnt) {
    const unsigned char *mask = mask_at(clip, m);
    uint32_t G = clip->h->grid_count, a = c->cursor[m], rank = c->rank[m], n = c->next[m];
    if (*u < 0) *u = grid_find(clip, t);
    uint32_t U = (uint32_t)*u;
    if (a != UINT32_MAX && n < G && U >= n && U - n < 32u) { /* ahead: bit 0 of the window (= key n) is set */
        uint32_t w = ossa__bits_read(mask, n, U - n + 1);
        rank += ossa__popcount32(w);
        a = n + 31u - (uint32_t)__builtin_clz(w);
    } else {
        a = ossa__mask_prev(mask, U);
        rank = popcnt ? ossa__mask_rank_popcnt(mask, a) : ossa__mask_rank(mask, a);
    }
    n = ossa__mask_next(mask, a + 1, G);
    set_segment(c, clip, m, a, rank, n);
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
        rank = hw ? ossa__mask_rank_popcnt(mask, a) : ossa__mask_rank(mask, a);
        n = ossa__mask_next(mask, a + 1, G);
    }
    set_segment(c, clip, m, a, rank, n);
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

ossa_result ossa_sample_job_run(ossa_sample_job *job) {
    ossa_result res = ossa_sample_job_validate(job, NULL);
    if (res != OSSA_OK) return res;
    const ossa_built_clip *clip = job->clip;
    const ossa__bc_header *h = clip->h;
    ossa_sampling_context *c = job->context;
    if (c->ref_clip != clip->id || c->ref_ptr != job->reference) { /* hashed once per clip and reference */
        if (!ossa_built_clip_matches(clip, job->reference, job->reference_count)) {
            c->ref_clip = 0;
            return OSSA_ERROR_INVALID_ARGUMENT;
        }
        c->ref_clip = clip->id;
        c->ref_ptr = job->reference;
    }
    if (c->clip_id != clip->id) {
        memset(c->clock_key, 0, h->clock_count * sizeof(uint32_t));
        uint32_t P0 = h->packed_count, M0 = h->mask_count; /* validate: M0 <= P0 <= 3 * max_joints */
        for (uint32_t m = 0; m <= M0; m++) c->mfirst[m] = 0;
        for (uint32_t m = 0; m < M0; m++) {
            c->cursor[m] = UINT32_MAX;
            c->mt0[m] = INFINITY;
            c->mblk[m] = UINT32_MAX;
            c->hi[m] = -INFINITY;
        }
        for (uint32_t i = 0; i < P0; i++) c->mfirst[clip->packed[i].mask + 1u]++; /* mask < M0 (validated) */
        for (uint32_t m = 0; m < M0; m++) c->mfirst[m + 1] += c->mfirst[m];
        uint64_t off = h->stream_off; /* the streams are back to back (validated) */
        for (uint32_t i = 0; i < P0; i++) { /* counting sort by mask: mfirst[m] is mask m's fill point ... */
            const ossa__bc_packed *p = &clip->packed[i];
            c->mch[c->mfirst[p->mask]++] = i;
            c->poff[i] = (uint32_t)off;
            c->lbk[i] = ossa__lift_table(p, c->lfo + (size_t)i * 16u, c->lfm + (size_t)i * 16u);
            off += (ossa__lift_stream_bits(p, clip->mask_keys[p->mask]) + 7u) / 8u;
            c->pdst[i] = p->joint * 10u + ossa__field_offset(p->kind);
            c->pdrop[i] = (float)ossa__pk_drop(p);
            for (int k = 0; k < 3; k++) {
                c->mn[k][i] = p->min[k];
                c->st[k][i] = ossa__step_float(p->step[k]);
            }
        }
        for (uint32_t m = M0; m > 0; m--) c->mfirst[m] = c->mfirst[m - 1]; /* ... ending at its end: shifted back one */
        c->mfirst[0] = 0;
        ossa__raw_setup(c, clip);
        c->lift = ossa__sample_lift();
        c->last_t = -INFINITY;
        c->loops = 0.0;
        /* in double: end - start may be up to FLT_MAX (the time rule), 4 x it is not a float */
        double jump = 4.0 * ((double)h->end - (double)h->start) / (double)(h->grid_count ? h->grid_count : 1u);
        c->jump_dt = jump < (double)FLT_MAX ? (float)jump : FLT_MAX;
        c->clip_id = clip->id;
    }
    float t = ossa__sample_time(h->start, h->end, job->time, job->loop, &c->loops);
    ossa_transform *out = job->output;
    memcpy(out, job->reference, (size_t)h->joint_count * sizeof(ossa_transform));
    { /* the sparse base pose: the folded constants that differ from the reference */
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

    /* packed channels: refresh the stale segments (the raw channels run before their decode
     * kernel, so its wide loads find the refill's narrow stores retired) */
    uint32_t P = h->packed_count, R = h->rot_count;
    if (P) {
        int64_t u = -1;
        const float *grid = clip->grid;
        uint32_t G = h->grid_count, M = h->mask_count;
        bool popcnt = use_popcnt();
        bool jump = !(t >= c->last_t && t - c->last_t <= c->jump_dt); /* back, or far ahead */
        for (uint32_t w = 0; w < M; w += 64) { /* the stale masks as a bit mask: no branch per mask */
            uint32_t e = M - w < 64 ? M - w : 64;
            uint64_t stale = 0;
#if defined(__SSE2__) /* whole vectors: mt0 and hi have OSSA__LERP_SLACK spare entries, masked off below */
            __m128 vt = _mm_set1_ps(t);
            for (uint32_t j = 0; j < e; j += 4) {
                __m128 m = _mm_or_ps(_mm_cmplt_ps(vt, _mm_loadu_ps(c->mt0 + w + j)), _mm_cmpge_ps(vt, _mm_loadu_ps(c->hi + w + j)));
                stale |= (uint64_t)_mm_movemask_ps(m) << j;
            }
            if (e < 64) stale &= (1ull << e) - 1u;
#else
            for (uint32_t j = 0; j < e; j++)
                stale |= (uint64_t)((t < c->mt0[w + j]) | (t >= c->hi[w + j])) << j;
#endif
            if (jump && stale) { /* every stale mask seeks: the grid position once */
                if (u < 0) u = grid_find(clip, t);
                (popcnt ? seek_all_popcnt : seek_all)(c, clip, w, stale, (uint32_t)u);
                stale = 0;
            }
            for (; stale; stale &= stale - 1) {
                uint32_t m = w + (uint32_t)__builtin_ctzll(stale), a = c->cursor[m], n = c->next[m];
                if (a != UINT32_MAX && n < G && t >= grid[n]) { /* the common case inline: one key forward */
                    uint32_t n2 = ossa__mask_next(mask_at(clip, m), n + 1, G), rank = c->rank[m] + 1;
                    if (n2 >= G || t < grid[n2]) {
                        step_mask(c, clip, m, n, n2, rank);
                        continue;
                    }
                }
                locate(c, clip, m, t, &u, popcnt);
            }
        }
    }

    ossa__raw_sample(c, clip, t, out, job->weights);

    if (P) {
        float *pose = (float *)(void *)out; /* ossa_transform is 10 floats: T xyz, R xyzw, S xyz */
        ossa__lerp_soa soa = {c->t0, c->dt, c->kq, c->pka, c->pkb, {c->mn[0], c->mn[1], c->mn[2]}, {c->st[0], c->st[1], c->st[2]},
                              {c->o[0], c->o[1], c->o[2], NULL}, pose, c->pdst, c->pdrop};
        if (R) ossa__sample_decode(&soa, t, 0, R, true); /* the rotations straight into the pose */
        if (P > R) ossa__sample_decode(&soa, t, R, P, false);
        const float *o0 = c->o[0], *o1 = c->o[1], *o2 = c->o[2];
        for (uint32_t i = R; i < P; i++) {
            float *v = pose + c->pdst[i], x = o0[i], y = o1[i], z = o2[i];
            v[0] = x;
            v[1] = y;
            v[2] = z;
        }
    }
    c->last_t = t;
    job->sampled_time = t;
    return OSSA_OK;
}
