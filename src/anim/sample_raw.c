/* The sampling job's raw channels (lossless keys, see ossa/sample.h): the LINEAR and STEP
 * T/R/S channels with packed lanes cached per shared clock (keys k and k + 1 decoded when the
 * clock changes key: an unpack kernel; the rotations through one slerp kernel pass), the others
 * (CUBIC, weights) on the editable path over a view of their two keys. */
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h> /* x86-64 baseline: one vector a cached vector channel */
#endif

#include "anim/sample_internal.h"
#include "anim/track_internal.h"
#include "math/fast.h"

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

/* At a clip switch: no clock's key decoded (a cursor past every clock's keys: the first lookup
 * searches). */
void ossa__raw_setup(ossa_sampling_context *c, const ossa_built_clip *clip) {
    uint32_t *cursor = ossa__clock_key(c, clip->h->mask_count);
    for (uint32_t k = 0; k < clip->h->clock_count; k++) cursor[k] = UINT32_MAX;
}

/* Unpacks keys `key` into a and key + 1 into b (either NULL: not wanted) of clock k's lanes:
 * one kernel pass per key when it is the only clock, else its rotations' 4 component runs and
 * its vectors' run, each a kernel pass when it is at least a vector long, else inline, both
 * keys in one walk (a clock of one or two channels: no calls). Same bits either way. */
static inline void raw_unpack(const ossa_built_clip *clip, uint32_t k, uint32_t key,
                              float *a, float *b, ossa__unpack_kernel unpack) {
    const ossa__sample_plan *pl = clip->plan;
    uint32_t t = pl->ctab[k], nr = pl->cnr[k], nv3 = 3u * pl->cnv[k], S = pl->nrot;
    ossa__unpack_table tab = {pl->l_off + t, pl->l_pos + t, pl->l_base + t};
    float *out[2] = {a, b};
    if (nr == S && nv3 == 3u * pl->nvec) { /* the only clock: table order = cache order */
        for (uint32_t n = 0; n < 2u; n++)
            if (out[n]) unpack(&tab, clip->base, key + n, 0, 4u * nr + nv3, out[n]);
        return;
    }
    size_t ro = pl->cr0[k], vo = 4u * (size_t)S + 3u * pl->cv0[k];
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

/* True when clock k holds every cached lane (the clip's only cached clock). */
static inline bool only_clock(const ossa__sample_plan *pl, uint32_t k) {
    return pl->cnr[k] == pl->nrot && pl->cnv[k] == pl->nvec;
}

/* Clock k's cached keys (ka, kb: the raw lanes' keys a and b) for this frame's key `key` (of
 * its key_count; the last frame's: was, UINT32_MAX = none): keys key and key + 1 unpacked when
 * the clock changed key (key + 1 only when it moved one forward: key b's lanes become key
 * a's, copied, or, for the only clock, already where raw_halves puts key a). */
static inline void raw_refill(const ossa_built_clip *clip, uint32_t k, uint32_t was, uint32_t key, uint32_t key_count,
                              ossa__unpack_kernel unpack, float *ka, float *kb) {
    if (was == key) return;
    const ossa__sample_plan *pl = clip->plan;
    if (was != UINT32_MAX && was + 1u == key) {
        if (!only_clock(pl, k)) {
            uint32_t nr = pl->cnr[k], r0 = pl->cr0[k], S = pl->nrot;
            for (uint32_t q = 0; q < 4u && nr; q++) memcpy(ka + q * S + r0, kb + q * S + r0, nr * sizeof(float));
            size_t at = 4u * (size_t)S + 3u * (size_t)pl->cv0[k];
            memcpy(ka + at, kb + at, 3u * pl->cnv[k] * sizeof(float));
        }
        if (key_count >= 2) raw_unpack(clip, k, key, NULL, kb, unpack);
    } else {
        raw_unpack(clip, k, key, ka, key_count >= 2 ? kb : NULL, unpack);
    }
}

/* The two halves of the raw key pool (keys, 2 x lanes floats) as keys a and b of this frame's
 * key `key`: for the only clock, key n in half n % 2, so a step forward moves no float (key b
 * stays where it is and becomes key a); else key a first. */
static inline void raw_halves(const ossa__sample_plan *pl, uint32_t k, uint32_t key, float *keys, float **ka, float **kb) {
    uint32_t odd = only_clock(pl, k) ? key & 1u : 0u;
    *ka = keys + (size_t)odd * pl->lanes;
    *kb = keys + (size_t)(odd ^ 1u) * pl->lanes;
}

/* A clock's case this frame, kept in its parameter slot (cs): the parameter s in [0, 1] between
 * keys k and k + 1 (RM_LERP), CASE_A for key k alone (RM_A), CASE_B for key k + 1 (RM_B). */
#define CASE_A (-1.0f)
#define CASE_B 2.0f
static inline uint32_t clock_case(float s) { return s < 0.0f ? RM_A : s > 1.0f ? RM_B : RM_LERP; }

/* The slerp kernel over every cached rotation slot, OSSA__SLERP_RUN slots a pass with its
 * parameters and fallback flags on the stack (each slot its clock's s; a slot of a clock that
 * does not lerp gets 0 and raw_write overwrites it), the flagged slots (outside the series'
 * range) mended at once with the scalar slerp. The slots are laid out clock by clock, so one
 * walk over the clocks gives each pass's slots their parameters. */
#define OSSA__SLERP_RUN 64u
_Static_assert(OSSA__LERP_SLACK >= 8u, "a pass's flags are read 8 a word past its slots");
static void raw_slerp(const float *ka, const float *kb, const float *cs, const ossa__sample_plan *pl, uint32_t clocks, float *pose) {
    float s[OSSA__SLERP_RUN + OSSA__LERP_SLACK];
    uint8_t flag[OSSA__SLERP_RUN + OSSA__LERP_SLACK]; /* >= n + 8: the flags are read 8 a word */
    const uint32_t S = pl->nrot;
    /* a few channels: the scalar kernel (same bits) beats one long vector pass */
    ossa__slerp_kernel kernel = S < 4 ? ossa__slerp_scalar : ossa__sample_slerp();
    uint32_t k = 0; /* the first clock whose slots reach this pass */
    for (uint32_t r0 = 0; r0 < S; r0 += OSSA__SLERP_RUN) {
        uint32_t n = S - r0 < OSSA__SLERP_RUN ? S - r0 : OSSA__SLERP_RUN, r1 = r0 + n;
        for (; k < clocks; k++) { /* each clock's slots in [r0, r1) get its parameter (a clock without slots: none) */
            uint32_t a = pl->cr0[k], e = a + pl->cnr[k];
            if (!pl->cnr[k] || e <= r0) continue;
            if (a >= r1) break;
            float ks = clock_case(cs[k]) == RM_LERP ? cs[k] : 0.0f;
            uint32_t lo = a > r0 ? a - r0 : 0u, hi = (e < r1 ? e : r1) - r0;
            for (uint32_t j = lo; j < hi; j++) s[j] = ks; /* 0-based and in bounds: vectorised */
            if (e > r1) break; /* it goes on in the next pass */
        }
        memset(s + n, 0, OSSA__LERP_SLACK * sizeof(float)); /* the kernels' spare lanes */
        ossa__slerp_soa soa = {{ka + r0, ka + S + r0, ka + 2 * S + r0, ka + 3 * S + r0},
                               {kb + r0, kb + S + r0, kb + 2 * S + r0, kb + 3 * S + r0},
                               s, {NULL, NULL, NULL, NULL}, flag, pose, pl->rdst + r0};
        kernel(&soa, 0, n);
        memset(flag + n, 0, 8u); /* the last word's bytes past n (the kernels flag their spare lanes) */
        for (uint32_t j0 = 0; j0 < n; j0 += 8u) { /* the flags (each 0 or 1) 8 a word: most words are 0 */
            uint64_t w;
            memcpy(&w, flag + j0, 8);
            for (; w; w &= w - 1u) {
                uint32_t j = j0 + (uint32_t)__builtin_ctzll(w) / 8u, r = r0 + j;
                float qa[4] = {ka[r], ka[S + r], ka[2 * S + r], ka[3 * S + r]};
                float qb[4] = {kb[r], kb[S + r], kb[2 * S + r], kb[3 * S + r]};
                ossa__slerp4(qa, qb, s[j], pose + pl->rdst[r]);
            }
        }
    }
}

/* Writes every cached channel into the pose for its clock's case this frame: key a, key b, or
 * between them (rotations: raw_slerp wrote them; the vectors: one SSE lerp each); STEP channels
 * take key a. Clock by clock (the case hoisted out of its channels' loops), the slots walked in
 * order (they are laid out clock by clock). */
static void raw_write(const float *ka, const float *kb, const float *cs, const ossa__sample_plan *pl, uint32_t clocks,
                      float *pose) {
    uint32_t S = pl->nrot, r = 0, v = 0;
    const float *a = ka + 4u * S, *b = kb + 4u * S;
    const uint32_t *rdst = pl->rdst, *vdst = pl->vdst;
    const uint8_t *rstep = pl->rstep, *vstep = pl->vstep;
    for (uint32_t k = 0; k < clocks; k++) {
        if (pl->ctab[k] == UINT32_MAX) continue;
        uint32_t re = r + pl->cnr[k], ve = v + pl->cnv[k], m = clock_case(cs[k]);
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
        float s = cs[k];
        for (; r < re; r++) { /* raw_slerp wrote the others */
            if (!rstep[r]) continue;
            float *d = pose + rdst[r];
            d[0] = ka[r];
            d[1] = ka[S + r];
            d[2] = ka[2 * S + r];
            d[3] = ka[3 * S + r];
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

void ossa__raw_sample(ossa_sampling_context *c, const ossa_built_clip *clip, float t, ossa_transform *out, float *weights) {
    const ossa__bc_header *h = clip->h;
    const ossa__sample_plan *pl = clip->plan;
    /* raw channels: one key lookup per shared clock, what the two-key view at that key gives
     * (ossa__interpolate's cases: key k, key k + 1, or the parameter s between them); the
     * cached channels' keys refilled per clock, one slerp kernel pass over every cached rotation
     * when a clock lerps, then each clock's case written (raw_write) */
    float *pose = (float *)(void *)out; /* ossa_transform is 10 floats: T xyz, R xyzw, S xyz */
    ossa__unpack_kernel unpack = ossa__sample_unpack(pl->unpack_wide);
    bool slerps = false;
    uint32_t *cursor = ossa__clock_key(c, h->mask_count);
    float *cs = ossa__clock_param(c, h->mask_count), *keys = ossa__raw_keys(c, pl), *ka = keys, *kb = keys + pl->lanes;
    for (uint32_t i = 0; i < h->clock_count; i++) {
        const ossa__bc_clock *ck = &clip->clocks[i];
        const float *times = (const float *)(clip->base + ck->times_off);
        uint32_t k = 0, was = cursor[i]; /* the key decoded (a cached clock) */
        if (ck->key_count < 2) cursor[i] = 0;
        else {
            ossa_track v;
            memset(&v, 0, sizeof v);
            v.key_count = ck->key_count;
            v.times = times;
            k = ossa__find_key_cursor(&v, t, &cursor[i]);
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
        if (pl->ctab[i] == UINT32_MAX) continue;
        raw_halves(pl, i, k, keys, &ka, &kb);
        raw_refill(clip, i, was, k, ck->key_count, unpack, ka, kb);
        cs[i] = m == RM_LERP ? s : m == RM_A ? CASE_A : CASE_B;
        slerps |= m == RM_LERP && pl->cnr[i];
    }
    if (slerps) raw_slerp(ka, kb, cs, pl, h->clock_count, pose);
    raw_write(ka, kb, cs, pl, h->clock_count, pose);
    if (weights) memset(weights, 0, (size_t)h->weight_count * sizeof(float));
    for (uint32_t i = 0; pl->uncached && i < h->raw_count; i++) { /* the others: the editable path on a view */
        if (pl->rcached[i]) continue;
        const ossa__bc_raw *r = &clip->raw[i];
        ossa_track v = raw_view(clip, r);
        uint32_t n = v.key_count < 2 ? 1 : 2, k = n < 2 ? 0 : cursor[r->clock];
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
            if (weights) ossa__interpolate(&v, k, t, weights + clip->wtracks[r->target].offset, r->components);
            break;
        }
    }
}
