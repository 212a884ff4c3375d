/* The sampling job (see ossa/sample.h): base pose copy, raw channels on shared clocks with
 * the editable rules (decoded keys cached per clock: an unpack kernel, the slerp kernel),
 * packed channels through per-instance segment caches and an SoA lerp/nlerp kernel, the
 * kernels chosen at run time (OSSA_SAMPLE_KERNEL=scalar|sse|avx2|avx512 caps them). */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h> /* x86-64 baseline: the stale-channel compare, 4 at a time */
#endif

#include "anim/built_clip_internal.h"
#include "anim/track_internal.h"
#include "core/alloc.h"

/* What a clock's two-key view gives this frame (ossa__interpolate's cases). */
enum { RM_NONE, RM_A, RM_B, RM_LERP };
_Static_assert(sizeof(ossa_transform) == 10 * sizeof(float), "the cached raw channels address the pose as floats");

/* The packed channels' caches: one pool of slots, 3 * max_joints + OSSA__LERP_SLACK per array
 * (a clip's packed channels use slots [0, P), then OSSA__LERP_SLACK spare slots for the
 * kernels; its key masks, mask_count <= P, the slots [0, mask_count) of the per-mask arrays).
 * Channels with one key mask have the same keys at the same grid times, so the segment (cursor,
 * rank, next key, times) is kept, checked and stepped once per mask (the shared key clock);
 * per channel only where its two keys are in its decoded block and the kernel's copies of t0
 * and dt. The raw channels'
 * caches are their own arrays, laid out per clock at a clip switch (see `rlane`). */
struct ossa_sampling_context {
    ossa_allocator allocator;
    size_t size;
    uint32_t max_joints, max_weights;
    uint32_t slots;       /* entries per pool array */
    uint64_t clip_id; /* clip the caches belong to; 0 = none */
    uint64_t ref_clip;    /* clip whose rest-pose hash ref_ptr was checked against; 0 = none */
    const ossa_transform *ref_ptr; /* the reference that matched it */
    uint32_t *clock_key;  /* per clock: key cursor */
    /* packed channels: per key mask m (the shared segment) */
    uint32_t *cursor;     /* grid index of the cached key a, UINT32_MAX = none */
    uint32_t *rank;       /* its value index */
    uint32_t *next;       /* grid index of the key after it (grid_count = none) */
    float *mt0, *hi;      /* the segment starts at mt0 and is valid for mt0 <= t < hi (t >= the clip start) */
    uint32_t *mfirst;     /* mask m's channels are mch[mfirst[m], mfirst[m + 1]) (set at a switch) */
    uint32_t *mch;        /* the channels grouped by mask, in clip order within one */
    uint32_t *mblk;       /* the lifted block (ossa__lift_block) whose keys kq holds for its channels, UINT32_MAX = none */
    /* packed channels: per channel */
    uint32_t *pdst;       /* its float offset in the output pose (copied from the clip at a switch) */
    uint32_t *poff;       /* its value stream's byte offset in the block (summed at a switch) */
    float *pdrop;         /* rotations: the rebuilt component (ossa__pk_drop, 0 .. 3), where the kernel puts it */
    float *t0, *dt;       /* its mask's segment start, and length (+Inf: STEP or the last key, s = 0) */
    uint32_t *pka, *pkb;  /* where the quantised fields of its keys a and b are in kq (the kernels read them there) */
    float *kq;            /* 16 per channel (one cache line): the 5 keys of its mask's block mblk, 3 fields each, as floats */
    uint32_t *lfo, *lfm;  /* 16 each per channel: its lifted block's field table (ossa__lift_table, set at a switch) ... */
    uint32_t *lbk;        /* ... and block bits */
    float *mn[3], *st[3]; /* the channel's range (copied from the clip at a switch) */
    float *o[3];          /* the kernel's output for translations and scales (rotations go to the pose) */
    /* raw channels: the LINEAR / STEP T/R/S ones with packed lanes are cached, laid out at a
     * clip switch clock by clock: clock c's rotations are the rotation slots [cr0[c], + cnr[c]),
     * its translations and scales the vector slots [cv0[c], + cnv[c]), its lanes' unpack table
     * entries [ctab[c], + 4 cnr + 3 cnv) (rotation component 0 of each rotation, then 1, 2, 3,
     * then each vector's three components). The decoded keys ka, kb: component q of rotation
     * slot r at lane q * nrot + r (SoA over every clock's rotations: one slerp kernel pass for
     * all), vector slot v's components at lanes 4 * nrot + 3 v (one SSE lerp each); spare lanes
     * after them keep the kernels' wide loads in bounds. A clock that changes key unpacks its
     * 5 runs of lanes (ossa__unpack_*), or one when it is the only clock (the table's order is
     * then the caches'). */
    uint32_t max_rot, max_vec, max_lanes, max_raw; /* capacities */
    uint32_t nrot, nvec;  /* the clip's cached rotations (the slerp kernel's range) and vectors */
    uint32_t uncached;    /* raw channels of the clip without a cache (CUBIC, weights, no lanes, no room) */
    bool unpack_wide;     /* the clip's bit positions fit in 32 bits: the SIMD unpack kernels may run */
    uint8_t *rcached;     /* per raw channel (< max_raw): 1 = cached */
    uint32_t *cr0, *cv0, *cnr, *cnv; /* per clock: its slots (above) */
    uint32_t *ctab;       /* per clock: its first unpack table entry (UINT32_MAX: nothing cached) */
    uint32_t *ckey;       /* per clock: the key k whose keys k, k + 1 are decoded (UINT32_MAX = none) */
    float *cs;            /* per clock: this frame's parameter */
    uint8_t *cm;          /* per clock: this frame's case (RM_A, RM_B, RM_LERP) */
    uint32_t *l_off, *l_pos, *l_base; /* per lane: the unpack table */
    float *ka, *kb;       /* per lane: keys k and k + 1, decoded */
    uint32_t *rdst, *vdst; /* per rotation / vector slot: float offset in the output pose */
    uint8_t *rstep, *vstep; /* per rotation / vector slot: STEP interpolation */
    uint8_t *sflag;       /* per rotation slot: the slerp kernel's fallback flags */
    float *ss;            /* per rotation slot: the slerp kernel's parameter (it writes into the pose) */
    float last_t;         /* the previous frame's clip time (-Inf after a clip switch) */
    double loops;         /* the looping clock's last quotient (ossa__sample_time; 0 after a clip switch) */
    float jump_dt;        /* a step past it further than this (4 mean grid steps), or back: a jump */
};

/* ---------------------------------------------------------------- kernels */

/* The dropped component of a rotation key, as ossa__packed_value rebuilds it. */
static inline float rebuild(float x, float y, float z) {
    float r2 = 1.0f - ((x * x + y * y) + z * z);
    r2 = r2 > 0.0f ? r2 : 0.0f;
    return sqrtf(r2);
}

/* Named scalars, no small arrays: GCC would pack array lanes into SSE registers through the
 * stack and stall on every store it reloads wider. */
void ossa__lerp_scalar(const ossa__lerp_soa *soa, float t, uint32_t begin, uint32_t end, bool rotation) {
    for (uint32_t i = begin; i < end; i++) {
        float s = (t - soa->t0[i]) / soa->dt[i];
        s = s > 0.0f ? s : 0.0f;
        s = s < 1.0f ? s : 1.0f;
        float m0 = soa->mn[0][i], m1 = soa->mn[1][i], m2 = soa->mn[2][i];
        float s0 = soa->st[0][i], s1 = soa->st[1][i], s2 = soa->st[2][i];
        const float *qa = soa->keys + soa->ka[i], *qb = soa->keys + soa->kb[i];
        float ax = m0 + qa[0] * s0, ay = m1 + qa[1] * s1, az = m2 + qa[2] * s2;
        float bx = m0 + qb[0] * s0, by = m1 + qb[1] * s1, bz = m2 + qb[2] * s2;
        if (!rotation) {
            soa->o[0][i] = ax + (bx - ax) * s;
            soa->o[1][i] = ay + (by - ay) * s;
            soa->o[2][i] = az + (bz - az) * s;
            continue;
        }
        float aw = rebuild(ax, ay, az), bw = rebuild(bx, by, bz);
        float d = ((ax * bx + ay * by) + az * bz) + aw * bw;
        if (d < 0.0f) { /* the shorter arc */
            bx = -bx;
            by = -by;
            bz = -bz;
            bw = -bw;
            d = -d;
        }
        float A, B;
        ossa__slerp_fit(d, &A, &B);
        s = ossa__slerp_time(s, A, B);
        float x = ax + (bx - ax) * s, y = ay + (by - ay) * s, z = az + (bz - az) * s, w = aw + (bw - aw) * s;
        float n = 1.0f / sqrtf(((x * x + y * y) + z * z) + w * w);
        x *= n, y *= n, z *= n, w *= n;
        if (soa->pose) { /* w to the rebuilt component, x, y, z to the others in order (selects, no branch) */
            float d = soa->drop[i], *q = soa->pose + soa->dst[i];
            q[0] = d >= 1.0f ? x : w;
            q[1] = d >= 1.0f ? (d >= 2.0f ? y : w) : x;
            q[2] = d >= 2.0f ? (d >= 3.0f ? z : w) : y;
            q[3] = d >= 3.0f ? w : z;
            continue;
        }
        soa->o[0][i] = x;
        soa->o[1][i] = y;
        soa->o[2][i] = z;
        soa->o[3][i] = w;
    }
}

void ossa__slerp_scalar(const ossa__slerp_soa *soa, uint32_t begin, uint32_t end) {
    for (uint32_t i = begin; i < end; i++) {
        float a[4], b[4], o[4];
        for (int c = 0; c < 4; c++) {
            a[c] = soa->a[c][i];
            b[c] = soa->b[c][i];
        }
        ossa__slerp4(a, b, soa->s[i], o);
        for (int c = 0; c < 4; c++) *(soa->pose ? soa->pose + soa->dst[i] + c : soa->o[c] + i) = o[c];
        soa->fallback[i] = 0;
    }
}

/* Lane j of key k of an unpack table, kbits = k times its key's bits (the sampler inlines it
 * for short runs, the product once per channel). */
static inline float unpack1(const ossa__unpack_table *tab, const unsigned char *block, uint64_t kbits, uint32_t j) {
    uint32_t pos = tab->pos[j];
    uint64_t bit = kbits + (pos & 0xFFu), w;
    memcpy(&w, block + tab->off[j] + (bit >> 3), 8);
    uint32_t field = (uint32_t)((w >> (bit & 7u)) & ((1ull << (pos >> 16)) - 1u)); /* <= 32 bits */
    return ossa__ord_float(tab->base[j] + field);
}

/* The reference unpack: 64-bit bit positions, one 8-byte window per lane (the stream is
 * followed by >= 8 readable bytes; 7 + 32 bits fit). */
void ossa__unpack_scalar(const ossa__unpack_table *tab, const unsigned char *block, uint32_t k, uint32_t begin, uint32_t end,
                         float *out) {
    for (uint32_t j = begin; j < end; j++) out[j] = unpack1(tab, block, (uint64_t)k * ((tab->pos[j] >> 8) & 0xFFu), j);
}

enum { K_SCALAR, K_SSE, K_AVX2, K_AVX512 };

static bool cpu_has(int k) {
#if defined(__x86_64__) || defined(__i386__)
    switch (k) {
    case K_SSE: return __builtin_cpu_supports("sse4.1");
    case K_AVX2: return __builtin_cpu_supports("avx2");
    case K_AVX512: return ossa__cpu_avx512();
    default: return true;
    }
#else
    return k == K_SCALAR;
#endif
}

static atomic_int chosen; /* the kernel level + 1; 0 = not chosen yet */

static int choose_level(void) {
    int k = atomic_load(&chosen);
    if (k) return k - 1;
    int cap = K_AVX512;
    const char *e = getenv("OSSA_SAMPLE_KERNEL");
    if (e && !strcmp(e, "scalar")) cap = K_SCALAR;
    else if (e && !strcmp(e, "sse")) cap = K_SSE;
    else if (e && !strcmp(e, "avx2")) cap = K_AVX2;
    int best = K_SCALAR;
    for (int i = K_SSE; i <= cap; i++)
        if (cpu_has(i)) best = i;
    atomic_store(&chosen, best + 1);
    return best;
}

/* Decodes channels [begin, end): whole vectors of the chosen kernel, then the remainder with the
 * narrowest kernel (allowed by the cap) whose vector covers it, so 4 channels left after two
 * 16-lane passes cost one 4-lane pass, not a third 16-lane one. Every kernel gives the same bits. */
static void decode(const ossa__lerp_soa *soa, float t, uint32_t begin, uint32_t end, bool rotation) {
    static const ossa__lerp_kernel table[] = {ossa__lerp_scalar, ossa__lerp_sse, ossa__lerp_avx2, ossa__lerp_avx512};
    static const uint32_t width[] = {1, 4, 8, 16};
    int level = choose_level();
    uint32_t n = end - begin, whole = n & ~(width[level] - 1u); /* widths are powers of two: no division */
    if (whole) table[level](soa, t, begin, begin + whole, rotation);
    if (whole == n) return;
    int k = K_SSE;
    while (k < level && width[k] < n - whole) k++;
    table[k](soa, t, begin + whole, end, rotation);
}

static ossa__slerp_kernel choose_slerp(void) {
    static const ossa__slerp_kernel table[] = {ossa__slerp_scalar, ossa__slerp_sse, ossa__slerp_avx2, ossa__slerp_avx512};
    return table[choose_level()];
}

/* The reference lifted-block kernel: each field read alone (ossa__bits_read: the stream is
 * followed by >= 8 readable bytes), then ossa__lift_component per component. */
void ossa__lift_scalar(const ossa__lift_soa *soa, const uint32_t *chan, uint32_t count, uint32_t m) {
    for (uint32_t j = 0; j < count; j++) {
        uint32_t i = chan[j], f[15];
        const unsigned char *s = soa->block + soa->poff[i];
        const uint32_t *fo = soa->fo + (size_t)i * 16u, *fm = soa->fm + (size_t)i * 16u;
        float *kq = soa->kq + (size_t)i * 16u;
        uint64_t pos = (uint64_t)m * soa->bk[i];
        for (int l = 0; l < 15; l++) f[l] = ossa__bits_read(s, pos + fo[l], 32) & fm[l];
        for (int c = 0; c < 3; c++) {
            uint32_t q1, q2, q3;
            ossa__lift_component(f[c], f[3 + c], f[6 + c], f[9 + c], f[12 + c], (fm[3 + c] + 1u) >> 1, (fm[6 + c] + 1u) >> 1,
                                 fm[c], &q1, &q2, &q3);
            kq[c] = (float)f[c];
            kq[3 + c] = (float)q1;
            kq[6 + c] = (float)q2;
            kq[9 + c] = (float)q3;
            kq[12 + c] = (float)f[12 + c];
        }
    }
}

/* The lifted-block kernel of the chosen level (SSE: the scalar one). */
static ossa__lift_kernel choose_lift(void) {
    static const ossa__lift_kernel table[] = {ossa__lift_scalar, ossa__lift_scalar, ossa__lift_avx2, ossa__lift_avx512};
    return table[choose_level()];
}

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

static bool use_popcnt(void) {
#if defined(__x86_64__) || defined(__i386__)
    static atomic_int known; /* 0 = not yet, 1 = no, 2 = yes */
    int k = atomic_load(&known);
    if (!k) {
        k = choose_level() > K_SCALAR && __builtin_cpu_supports("popcnt") ? 2 : 1;
        atomic_store(&known, k);
    }
    return k == 2;
#else
    return false;
#endif
}

const char *ossa__sample_kernel_name(void) {
    static const char *names[] = {"scalar", "sse4.1", "avx2", "avx512"};
    return names[choose_level()];
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

ossa_result ossa_sample_job_validate(const ossa_sample_job *job) {
    if (!job || !job->clip || !job->context || !job->output || !job->reference || isnan(job->time))
        return OSSA_ERROR_INVALID_ARGUMENT;
    const ossa__bc_header *h = job->clip->h;
    if (job->output_count < h->joint_count || job->reference_count < h->joint_count) return OSSA_ERROR_BUFFER_TOO_SMALL;
    if (h->joint_count > job->context->max_joints || h->weight_count > job->context->max_weights)
        return OSSA_ERROR_BUFFER_TOO_SMALL;
    if (job->weights ? job->weights_count < h->weight_count : job->weights_count != 0)
        return job->weights ? OSSA_ERROR_BUFFER_TOO_SMALL : OSSA_ERROR_INVALID_ARGUMENT;
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
static inline void load_block(ossa_sampling_context *c, const ossa_built_clip *clip, uint32_t m, uint32_t b,
                              ossa__lift_kernel lift) {
    if (c->mblk[m] == b) return;
    c->mblk[m] = b;
    ossa__lift_soa soa = {clip->base, c->poff, c->lbk, c->lfo, c->lfm, c->kq};
    lift(&soa, c->mch + c->mfirst[m], c->mfirst[m + 1] - c->mfirst[m], b);
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
        load_block(c, clip, m, rank >> 2, choose_lift()); /* key rank + 1 exists: rank < 4 * blocks */
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
    load_block(c, clip, m, b, choose_lift());
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

/* Decodes one key's lanes of a packed raw channel starting at bit pos: one 64-bit window per
 * lane (the stream is followed by >= 8 readable bytes). */
static inline void decode_lanes(const unsigned char *p, uint64_t pos, const ossa__bc_lane *ln, uint32_t lanes, float *out) {
    for (uint32_t l = 0; l < lanes; l++) { /* one window per lane: 7 + 32 bits fit, no branch */
        uint64_t w;
        uint32_t b = ln[l].bits;
        memcpy(&w, p + (pos >> 3), 8);
        out[l] = ossa__ord_float(ln[l].base + (uint32_t)((w >> (pos & 7u)) & ((1ull << b) - 1u)));
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

/* Three floats from src to d. */
static inline void store3(float *d, const float *src) {
    float x = src[0], y = src[1], z = src[2];
    d[0] = x;
    d[1] = y;
    d[2] = z;
}

static ossa__unpack_kernel choose_unpack(bool wide) {
    int level = wide ? choose_level() : K_SCALAR;
    return level == K_AVX512 ? ossa__unpack_avx512 : level == K_AVX2 ? ossa__unpack_avx2 : ossa__unpack_scalar;
}

/* The raw channels' caches of a clip (at a clip switch): the cacheable channels counted per
 * clock, each clock given its slots and table entries while they fit (else its channels stay on
 * the editable path), then each channel placed and its lanes' unpack table entries written.
 * clock_key (all 0 at a switch) counts each clock's vectors placed, ckey its rotations. */
static void raw_setup(ossa_sampling_context *c, const ossa_built_clip *clip) {
    const ossa__bc_header *h = clip->h;
    uint32_t C = h->clock_count, n = h->raw_count; /* <= max_raw: the loader bounds raw_count by 3 J + weight tracks */
    c->uncached = h->raw_count;
    c->unpack_wide = h->size < (1u << 29); /* bit positions < 8 * size fit in 32 bits */
    for (uint32_t k = 0; k < C; k++) c->cnr[k] = c->cnv[k] = c->ckey[k] = 0;
    for (uint32_t i = 0; i < n; i++) {
        const ossa__bc_raw *r = &clip->raw[i];
        c->rcached[i] = r->lanes_off && (r->interp == OSSA_INTERP_LINEAR || r->interp == OSSA_INTERP_STEP) &&
                        r->kind <= OSSA__CH_S; /* components: 4 (R) or 3 (T, S), checked by the loader */
        if (c->rcached[i]) (r->kind == OSSA__CH_R ? c->cnr : c->cnv)[r->clock]++;
    }
    uint32_t nr = 0, nv = 0, lanes = 0;
    for (uint32_t k = 0; k < C; k++) {
        uint32_t a = c->cnr[k], b = c->cnv[k];
        c->ctab[k] = UINT32_MAX;
        if (!a && !b) continue;
        /* room: the slots and the lanes (a valid clip has at most one rotation and two vectors a joint) */
        if (a > c->max_rot - nr || b > c->max_vec - nv || 4u * (nr + a) + 3u * (nv + b) > c->max_lanes) {
            c->cnr[k] = c->cnv[k] = 0;
            continue;
        }
        c->cr0[k] = nr;
        c->cv0[k] = nv;
        c->ctab[k] = lanes;
        nr += a;
        nv += b;
        lanes += 4u * a + 3u * b;
    }
    c->nrot = nr;
    c->nvec = nv;
    for (uint32_t i = 0; i < n; i++) {
        const ossa__bc_raw *r = &clip->raw[i];
        uint32_t k = r->clock;
        if (!c->rcached[i] || c->ctab[k] == UINT32_MAX) {
            c->rcached[i] = 0;
            continue;
        }
        bool rot = r->kind == OSSA__CH_R;
        uint32_t idx = rot ? c->ckey[k]++ : c->clock_key[k]++, a = c->cnr[k];
        uint32_t first = c->ctab[k] + (rot ? idx : 4u * a + 3u * idx), stride = rot ? a : 1u; /* its lane 0, between lanes */
        const ossa__bc_lane *ln = (const ossa__bc_lane *)(clip->base + r->lanes_off);
        uint32_t per = 0, bit = 0;
        for (uint32_t q = 0; q < r->components; q++) per += ln[q].bits;
        for (uint32_t q = 0; q < r->components; q++) {
            uint32_t l = first + q * stride, b = ln[q].bits;
            c->l_off[l] = r->values_off;
            c->l_pos[l] = OSSA__UNPACK_POS(bit, per, b);
            c->l_base[l] = ln[q].base;
            bit += b;
        }
        uint32_t dst = r->target * 10u + ossa__field_offset(r->kind);
        bool step = r->interp == OSSA_INTERP_STEP;
        if (rot) {
            c->rdst[c->cr0[k] + idx] = dst;
            c->rstep[c->cr0[k] + idx] = step;
        } else {
            c->vdst[c->cv0[k] + idx] = dst;
            c->vstep[c->cv0[k] + idx] = step;
        }
        c->uncached--;
    }
    for (uint32_t k = 0; k < C; k++) {
        c->ckey[k] = UINT32_MAX;
        c->clock_key[k] = 0;
    }
}

/* Unpacks keys `key` into a and key + 1 into b (either NULL: not wanted) of clock k's lanes:
 * one kernel pass per key when it is the only clock, else its rotations' 4 component runs and
 * its vectors' run, each a kernel pass when it is at least a vector long, else inline, both
 * keys in one walk (a clock of one or two channels: no calls). Same bits either way. */
static inline void raw_unpack(const ossa_sampling_context *c, const ossa_built_clip *clip, uint32_t k, uint32_t key,
                              float *a, float *b, ossa__unpack_kernel unpack) {
    uint32_t t = c->ctab[k], nr = c->cnr[k], nv3 = 3u * c->cnv[k], S = c->nrot;
    ossa__unpack_table tab = {c->l_off + t, c->l_pos + t, c->l_base + t};
    float *out[2] = {a, b};
    if (nr == S && nv3 == 3u * c->nvec) { /* the only clock: table order = cache order */
        for (uint32_t n = 0; n < 2u; n++)
            if (out[n]) unpack(&tab, clip->base, key + n, 0, 4u * nr + nv3, out[n]);
        return;
    }
    size_t ro = c->cr0[k], vo = 4u * (size_t)S + 3u * c->cv0[k];
    if (nr >= 8u) {
        for (uint32_t n = 0; n < 2u; n++)
            for (uint32_t q = 0; q < 4u && out[n]; q++)
                unpack(&tab, clip->base, key + n, q * nr, (q + 1u) * nr, out[n] + ro + q * S - q * nr);
    } else {
        for (uint32_t r = 0; r < nr; r++) { /* lane q of rotation r: entry q * nr + r */
            uint64_t per = (tab.pos[r] >> 8) & 0xFFu, kbits = key * per;
            for (uint32_t q = 0; q < 4u; q++) {
                if (a) a[ro + q * S + r] = unpack1(&tab, clip->base, kbits, q * nr + r);
                if (b) b[ro + q * S + r] = unpack1(&tab, clip->base, kbits + per, q * nr + r);
            }
        }
    }
    if (nv3 >= 8u) {
        for (uint32_t n = 0; n < 2u; n++)
            if (out[n]) unpack(&tab, clip->base, key + n, 4u * nr, 4u * nr + nv3, out[n] + vo - 4u * nr);
    } else {
        for (uint32_t j = 4u * nr; j < 4u * nr + nv3; j += 3u) { /* a vector's three entries */
            uint64_t per = (tab.pos[j] >> 8) & 0xFFu, kbits = key * per;
            for (uint32_t q = 0; q < 3u; q++) {
                if (a) a[vo + j - 4u * nr + q] = unpack1(&tab, clip->base, kbits, j + q);
                if (b) b[vo + j - 4u * nr + q] = unpack1(&tab, clip->base, kbits + per, j + q);
            }
        }
    }
}

/* Clock k's cached keys for this frame's key `key` (of its key_count): keys key and key + 1
 * unpacked when the clock changed key (key + 1 only, key b's lanes becoming key a's, when it
 * moved one forward). */
static inline void raw_refill(ossa_sampling_context *c, const ossa_built_clip *clip, uint32_t k, uint32_t key, uint32_t key_count,
                       ossa__unpack_kernel unpack) {
    uint32_t was = c->ckey[k];
    if (was == key) return;
    c->ckey[k] = key;
    if (was != UINT32_MAX && was + 1u == key) {
        uint32_t nr = c->cnr[k], r0 = c->cr0[k], S = c->nrot;
        if (nr == S && c->cnv[k] == c->nvec) { /* the only clock */
            memcpy(c->ka, c->kb, (4u * S + 3u * c->nvec) * sizeof(float));
        } else {
            for (uint32_t q = 0; q < 4u && nr; q++) memcpy(c->ka + q * S + r0, c->kb + q * S + r0, nr * sizeof(float));
            size_t at = 4u * (size_t)S + 3u * (size_t)c->cv0[k];
            memcpy(c->ka + at, c->kb + at, 3u * c->cnv[k] * sizeof(float));
        }
        if (key_count >= 2) raw_unpack(c, clip, k, key, NULL, c->kb, unpack);
    } else {
        raw_unpack(c, clip, k, key, c->ka, key_count >= 2 ? c->kb : NULL, unpack);
    }
}

/* Writes every cached channel into the pose for its clock's case this frame: key a, key b, or
 * between them (rotations: the slerp kernel wrote them, ossa__slerp4 where it flagged; the
 * vectors: one SSE lerp each); STEP channels take key a. Clock by clock (the case hoisted out
 * of its channels' loops), the slots walked in order (they are laid out clock by clock). */
static void raw_write(const ossa_sampling_context *c, uint32_t clocks, float *pose) {
    uint32_t S = c->nrot, r = 0, v = 0;
    const float *ka = c->ka, *kb = c->kb, *a = ka + 4u * S, *b = kb + 4u * S;
    const uint32_t *rdst = c->rdst, *vdst = c->vdst;
    const uint8_t *rstep = c->rstep, *flag = c->sflag, *vstep = c->vstep;
    for (uint32_t k = 0; k < clocks; k++) {
        if (c->ctab[k] == UINT32_MAX) continue;
        uint32_t re = r + c->cnr[k], ve = v + c->cnv[k], m = c->cm[k];
        if (m != RM_LERP) {
            const float *src = m == RM_A ? ka : kb;
            for (; r < re; r++) {
                float *d = pose + rdst[r], x = src[r], y = src[S + r], z = src[2 * S + r], w = src[3 * S + r];
                d[0] = x;
                d[1] = y;
                d[2] = z;
                d[3] = w;
            }
            src = m == RM_A ? a : b;
            for (; v < ve; v++) store3(pose + vdst[v], src + 3u * v);
            continue;
        }
        float s = c->cs[k];
        for (; r < re; r++) { /* the slerp kernel wrote the others */
            float *d = pose + rdst[r];
            if (rstep[r]) {
                d[0] = ka[r];
                d[1] = ka[S + r];
                d[2] = ka[2 * S + r];
                d[3] = ka[3 * S + r];
            } else if (flag[r]) { /* outside the series' range: the scalar slerp */
                float qa[4] = {ka[r], ka[S + r], ka[2 * S + r], ka[3 * S + r]};
                float qb[4] = {kb[r], kb[S + r], kb[2 * S + r], kb[3 * S + r]};
                ossa__slerp4(qa, qb, s, d);
            }
        }
#if defined(__SSE2__) /* one vector a channel (its 4th lane: the next channel's x, or spare lanes; unused) */
        __m128 vs = _mm_set1_ps(s);
        for (; v < ve; v++) {
            float *d = pose + vdst[v];
            __m128 x = _mm_loadu_ps(a + 3u * v);
            if (!vstep[v]) x = _mm_add_ps(x, _mm_mul_ps(_mm_sub_ps(_mm_loadu_ps(b + 3u * v), x), vs));
            _mm_storel_pi((__m64 *)(void *)d, x);
            _mm_store_ss(d + 2, _mm_movehl_ps(x, x));
        }
#else
        for (; v < ve; v++) {
            const float *av = a + 3u * v, *bv = b + 3u * v;
            float *d = pose + vdst[v], x = av[0], y = av[1], z = av[2];
            if (!vstep[v]) {
                x = x + (bv[0] - x) * s;
                y = y + (bv[1] - y) * s;
                z = z + (bv[2] - z) * s;
            }
            d[0] = x;
            d[1] = y;
            d[2] = z;
        }
#endif
    }
}

ossa_result ossa_sample_job_run(ossa_sample_job *job) {
    ossa_result res = ossa_sample_job_validate(job);
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
        raw_setup(c, clip);
        c->last_t = -INFINITY;
        c->loops = 0.0;
        c->jump_dt = 4.0f * (h->end - h->start) / (float)(h->grid_count ? h->grid_count : 1u);
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

    /* raw channels: one key lookup per shared clock, what the two-key view at that key gives
     * (ossa__interpolate's cases: key k, key k + 1, or the parameter s between them); the
     * cached channels' keys refilled per clock, one slerp kernel pass over every cached rotation
     * when a clock lerps, then each clock's case written (raw_write) */
    float *pose = (float *)(void *)out; /* ossa_transform is 10 floats: T xyz, R xyzw, S xyz */
    ossa__unpack_kernel unpack = choose_unpack(c->unpack_wide);
    bool slerps = false;
    for (uint32_t i = 0; i < h->clock_count; i++) {
        const ossa__bc_clock *ck = &clip->clocks[i];
        const float *times = (const float *)(clip->base + ck->times_off);
        uint32_t k = 0;
        if (ck->key_count >= 2) {
            ossa_track v;
            memset(&v, 0, sizeof v);
            v.key_count = ck->key_count;
            v.times = times;
            k = ossa__find_key_cursor(&v, t, &c->clock_key[i]);
        }
        float s = 0.0f;
        uint32_t m = RM_A;
        if (ck->key_count >= 2 && t > times[k]) {
            if (t >= times[k + 1]) {
                m = RM_B;
            } else {
                float t0 = times[k], td = times[k + 1] - t0;
                s = (t - t0) / td;
                if (s > 1.0f) s = 1.0f;
                m = RM_LERP;
            }
        }
        if (c->ctab[i] == UINT32_MAX) continue;
        raw_refill(c, clip, i, k, ck->key_count, unpack);
        c->cm[i] = (uint8_t)m;
        c->cs[i] = s;
        if (m == RM_LERP && c->cnr[i]) {
            for (uint32_t r = c->cr0[i], e = r + c->cnr[i]; r < e; r++) c->ss[r] = s;
            slerps = true;
        }
    }
    if (slerps) {
        uint32_t S = c->nrot;
        /* every cached rotation into the pose: raw_write mends what is not a slerp */
        ossa__slerp_soa soa = {{c->ka, c->ka + S, c->ka + 2 * S, c->ka + 3 * S}, {c->kb, c->kb + S, c->kb + 2 * S, c->kb + 3 * S},
                               c->ss, {NULL, NULL, NULL, NULL}, c->sflag, pose, c->rdst};
        /* a few channels: the scalar kernel (same bits) beats one long vector pass */
        (c->nrot < 4 ? ossa__slerp_scalar : choose_slerp())(&soa, 0, c->nrot);
    }
    raw_write(c, h->clock_count, pose);
    if (job->weights) memset(job->weights, 0, (size_t)h->weight_count * sizeof(float));
    for (uint32_t i = 0; c->uncached && i < h->raw_count; i++) { /* the others: the editable path on a view */
        if (i < c->max_raw && c->rcached[i]) continue;
        const ossa__bc_raw *r = &clip->raw[i];
        ossa_track v = raw_view(clip, r);
        uint32_t n = v.key_count < 2 ? 1 : 2, k = n < 2 ? 0 : c->clock_key[r->clock];
        float kv[24]; /* keys k and k + 1 of a packed T/R/S channel: the editable floats, bit for bit */
        if (r->lanes_off) {
            const ossa__bc_lane *ln = (const ossa__bc_lane *)(clip->base + r->lanes_off);
            uint32_t lanes = r->components * (r->interp == OSSA_INTERP_CUBIC ? 3u : 1u), per = 0;
            for (uint32_t l = 0; l < lanes; l++) per += ln[l].bits;
            for (uint32_t j = 0; j < n; j++)
                decode_lanes(clip->base + r->values_off, (uint64_t)(k + j) * per, ln, lanes, kv + j * lanes);
            /* a view of keys k and k + 1 interpolates exactly as the whole track does */
            v.times += k;
            v.key_count = n;
            v.values = kv;
            k = 0;
        }
        switch (r->kind) {
        case OSSA__CH_T: ossa__interpolate(&v, k, t, &out[r->target].translation.x, 3); break;
        case OSSA__CH_R: ossa__interpolate(&v, k, t, (float *)(void *)&out[r->target].rotation, 4); break; /* the whole quaternion: GCC sizes &rotation.x as one float */
        case OSSA__CH_S: ossa__interpolate(&v, k, t, &out[r->target].scale.x, 3); break;
        default:
            if (job->weights) ossa__interpolate(&v, k, t, job->weights + clip->wtracks[r->target].offset, r->components);
            break;
        }
    }

    if (P) {
        float *pose = (float *)(void *)out; /* ossa_transform is 10 floats: T xyz, R xyzw, S xyz */
        ossa__lerp_soa soa = {c->t0, c->dt, c->kq, c->pka, c->pkb, {c->mn[0], c->mn[1], c->mn[2]}, {c->st[0], c->st[1], c->st[2]},
                              {c->o[0], c->o[1], c->o[2], NULL}, pose, c->pdst, c->pdrop};
        if (R) decode(&soa, t, 0, R, true); /* the rotations straight into the pose */
        if (P > R) decode(&soa, t, R, P, false);
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
