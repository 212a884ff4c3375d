/* The clip builder's fit of one channel (see clip_build_internal.h): its exact values on the
 * measurement grid, folded when constant within its tolerance, else the fewest keys on the key
 * grid and then the fewest bits per component that keep every grid time within it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ossa/pose.h>

#include "build/clip_build_internal.h"
#include "core/alloc.h"
#include "math/fast.h"

bool ossa__build_track_constant(const ossa_track *t) {
    if (t->key_count <= 1) return true;
    uint32_t c = t->components;
    bool cubic = t->interp == OSSA_INTERP_CUBIC;
    const float *v0 = t->values + (cubic ? c : 0);
    for (uint32_t k = 0; k < t->key_count; k++) {
        const float *v = t->values + (size_t)k * c * (cubic ? 3u : 1u);
        if (memcmp(v + (cubic ? c : 0), v0, c * sizeof(float))) return false;
        if (cubic)
            for (uint32_t i = 0; i < c; i++)
                if (v[i] != 0.0f || v[2 * c + i] != 0.0f) return false;
    }
    return true;
}

void ossa__build_rest_value(const builder *B, const build_channel *ch, float v[4]) {
    ossa_transform rest = B->skeleton->rest[ch->target];
    v[3] = 0.0f;
    memcpy(v, field(&rest, ch->kind), (ch->kind == OSSA__CH_R ? 4 : 3) * sizeof(float));
}

bool ossa__build_fold_is_rest(const builder *B, const build_channel *ch) {
    float r[4];
    ossa__build_rest_value(B, ch, r);
    return !memcmp(r, ch->fold_value, (ch->kind == OSSA__CH_R ? 4 : 3) * sizeof(float));
}

void ossa__build_channel_values(const builder *B, const build_channel *ch, float *X) {
    for (uint32_t g = 0; g < B->grid_count; g++) {
        float *x = X + (size_t)g * 4;
        ossa_transform *exact = &B->exact_pose[(size_t)g * B->joint_count + ch->target];
        if (g + 16 < B->grid_count) BUILD_PREFETCH(exact + (size_t)16 * B->joint_count);
        memcpy(x, field(exact, ch->kind), (ch->kind == OSSA__CH_R ? 4 : 3) * sizeof(float));
        if (ch->kind == OSSA__CH_R) {
            ossa__quat_normalize4(x);
            if (x[3] < 0.0f)
                for (int i = 0; i < 4; i++) x[i] = -x[i];
        } else {
            x[3] = 0.0f;
        }
    }
}

/* A segment between decoded keys a and b as the sampling kernels set it up: b on the shorter
 * arc, the nlerp correction's coefficients of its dot product (rotations). */
typedef struct segment {
    int kind;
    float a[4], b[4], q[3];
} segment;

static void segment_set(segment *sg, int kind, const float *a, const float *b) {
    sg->kind = kind;
    memcpy(sg->a, a, sizeof sg->a);
    memcpy(sg->b, b, sizeof sg->b);
    if (kind != OSSA__CH_R) return;
    if (a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0.0f)
        for (int i = 0; i < 4; i++) sg->b[i] = -sg->b[i];
    const float *bb = sg->b;
    ossa__slerp_fit(a[0] * bb[0] + a[1] * bb[1] + a[2] * bb[2] + a[3] * bb[3], sg->q);
}

/* The segment at s exactly as the sampling kernels interpolate it. */
static void segment_at(const segment *sg, float s, float *out) {
    const float *a = sg->a, *bb = sg->b;
    if (sg->kind == OSSA__CH_R) {
        s = ossa__slerp_time(s, sg->q);
        for (int i = 0; i < 4; i++) out[i] = a[i] + (bb[i] - a[i]) * s;
        float n = 1.0f / sqrtf(((out[0] * out[0] + out[1] * out[1]) + out[2] * out[2]) + out[3] * out[3]);
        for (int i = 0; i < 4; i++) out[i] *= n;
        return;
    }
    for (int i = 0; i < 3; i++) out[i] = a[i] + (bb[i] - a[i]) * s;
    out[3] = 0.0f;
}

/* Whether lerp / nlerp of keys a (at grid index gi) and b (at gj) stays within tol of the
 * exact values at every measurement time between them. */
static bool segment_ok(const builder *B, int kind, const float *a, const float *b, uint32_t gi, uint32_t gj,
                       float tol) {
    float ti = B->grid_times[gi], inv = 1.0f / (B->grid_times[gj] - ti);
    segment sg;
    segment_set(&sg, kind, a, b);
    float tol2 = tol * tol;
    for (uint32_t m = gi + 1; m < gj; m++) {
        float s = (B->grid_times[m] - ti) * inv, v[4];
        s = s > 0.0f ? (s < 1.0f ? s : 1.0f) : 0.0f;
        segment_at(&sg, s, v);
        if (!(chan_err2(kind, v, B->channel_values + (size_t)m * 4) <= tol2)) return false;
    }
    return true;
}

void ossa__build_quantise_key(const quant_range *pq, const float *x, const int *comp, uint32_t *q, float *v) {
    float f[3];
    for (int c = 0; c < 3; c++) {
        float maxq = (float)((1u << pq->bits[c]) - 1u);
        f[c] = pq->step[c] > 0.0f ? (x[comp[c]] - pq->range_min[c]) / pq->step[c] : 0.0f;
        f[c] = f[c] < 0.0f ? 0.0f : (f[c] > maxq ? maxq : f[c]);
        q[c] = (uint32_t)lrintf(f[c]);
    }
    ossa__packed_value(pq->kind, pq->dropped, pq->range_min, pq->step, q, v);
}

/* Quantises ch's keys with p's ranges and bits into ch->quantised (decoded into B->decoded_keys) and checks
 * every measurement time against the exact values: within tol? */
static bool quantised_ok(builder *B, build_channel *ch, const quant_range *p, const int *comp, float tol) {
    const uint32_t *cand = B->key_grid;
    float *D = B->decoded_keys;
    const float *X = B->channel_values;
    quant_range pq = *p;
    for (int c = 0; c < 3; c++) pq.step[c] = qstep(pq.step[c], pq.bits[c]);
    for (uint32_t k = 0; k < ch->key_count; k++) {
        const float *x = X + (size_t)cand[ch->keys[k]] * 4;
        ossa__build_quantise_key(&pq, x, comp, ch->quantised + (size_t)k * 3, D + (size_t)k * 4);
        if (!(chan_err(ch->kind, D + (size_t)k * 4, x) <= tol)) return false;
    }
    for (uint32_t k = 0; k < ch->key_count; k++) {
        uint32_t g0 = cand[ch->keys[k]], g1 = k + 1 < ch->key_count ? cand[ch->keys[k + 1]] : B->grid_count;
        if (ch->interp == OSSA_INTERP_STEP || k + 1 == ch->key_count) {
            for (uint32_t m = g0 + 1; m < g1; m++)
                if (!(chan_err(ch->kind, D + (size_t)k * 4, X + (size_t)m * 4) <= tol)) return false;
        } else if (!segment_ok(B, ch->kind, D + (size_t)k * 4, D + (size_t)(k + 1) * 4, g0, g1, tol)) {
            return false;
        }
    }
    return true;
}

/* Folds channel ch if its exact values (B->channel_values) stay within tol of the reference
 * (folded to it exactly: not stored) or of its first value. Whether it folded. */
static bool fold_if_constant(builder *B, build_channel *ch, float tol) {
    const float *X = B->channel_values;
    float dev = 0.0f, rdev = 0.0f, rest[4];
    ossa__build_rest_value(B, ch, rest);
    for (uint32_t g = 0; g < B->grid_count; g++) {
        float e = chan_err(ch->kind, X, X + (size_t)g * 4), r = chan_err(ch->kind, rest, X + (size_t)g * 4);
        if (!(e <= dev)) dev = e;
        if (!(r <= rdev)) rdev = r;
    }
    if (rdev <= tol) { /* constant within tol of the reference: folds to it exactly (not stored) */
        ch->mode = MODE_FOLD;
        memcpy(ch->fold_value, rest, sizeof ch->fold_value);
        return true;
    }
    if (dev <= tol) {
        ch->mode = MODE_FOLD;
        memcpy(ch->fold_value, X, sizeof ch->fold_value);
        return true;
    }
    return false;
}

/* Rotations: drops the component that stays farthest from 0 over the key grid, and flips the
 * exact values (B->channel_values) so that it stays >= 0; comp gets the three stored ones. */
static void choose_dropped_component(builder *B, quant_range *p, int comp[3]) {
    float *X = B->channel_values;
    const uint32_t *cand = B->key_grid;
    float best = -1.0f;
    for (uint32_t d = 0; d < 4; d++) {
        float m = INFINITY;
        for (uint32_t k = 0; k < B->key_grid_count; k++) m = fminf(m, fabsf(X[(size_t)cand[k] * 4 + d]));
        if (m > best) {
            best = m;
            p->dropped = (uint8_t)d;
        }
    }
    for (uint32_t g = 0; g < B->grid_count; g++) {
        float *x = X + (size_t)g * 4;
        if (x[p->dropped] < 0.0f)
            for (int c = 0; c < 4; c++) x[c] = -x[c];
    }
    for (int c = 0, k = 0; c < 4; c++)
        if (c != p->dropped) comp[k++] = c;
}

/* fminf / fmaxf with the sign of a zero fixed: of +0 and -0, the first argument. C leaves it
 * open and GCC's inline expansion of fminf picks either one depending on the code around it;
 * the range minimum is stored, so the built bytes would follow the compiler's choice. */
static inline float min_first(float a, float b) { return b < a || a != a ? b : a; }
static inline float max_first(float a, float b) { return b > a || a != a ? b : a; }

/* Each stored component's range over the key grid: p->range_min, p->step (the extent until
 * the bits are known) and ch->extent. The largest extent. */
static float component_ranges(const builder *B, build_channel *ch, quant_range *p, const int comp[3]) {
    const float *X = B->channel_values;
    const uint32_t *cand = B->key_grid;
    float maxext = 0.0f;
    for (int c = 0; c < 3; c++) {
        float lo = X[(size_t)cand[0] * 4 + (size_t)comp[c]], hi = lo; /* comp[c] in 0 .. 3 */
        for (uint32_t k = 1; k < B->key_grid_count; k++) {
            float v = X[(size_t)cand[k] * 4 + (size_t)comp[c]];
            lo = min_first(lo, v);
            hi = max_first(hi, v);
        }
        p->range_min[c] = lo;
        p->step[c] = hi - lo; /* the extent until the bits are known */
        ch->extent[c] = hi - lo;
        if (p->step[c] > maxext) maxext = p->step[c];
    }
    return maxext;
}

/* STEP keys: a new key at the first key-grid time whose interval leaves tk of the last key. */
static void reduce_keys_step(const builder *B, build_channel *ch, float tk) {
    uint32_t G = B->grid_count, C = B->key_grid_count, n = 1, last = 0;
    const uint32_t *cand = B->key_grid;
    const float *X = B->channel_values;
    for (uint32_t k = 1; k < C; k++) {
        uint32_t end = k + 1 < C ? cand[k + 1] : G;
        for (uint32_t m = cand[k]; m < end; m++)
            if (!(chan_err(ch->kind, X + (size_t)cand[last] * 4, X + (size_t)m * 4) <= tk)) {
                ch->keys[n++] = last = k;
                break;
            }
    }
    ch->key_count = n;
}

/* Whether the segment of exact values between key-grid times i and j stays within tol. */
static bool exact_segment_ok(const builder *B, const build_channel *ch, uint32_t i, uint32_t j, float tol) {
    const uint32_t *cand = B->key_grid;
    const float *X = B->channel_values;
    return segment_ok(B, ch->kind, X + (size_t)cand[i] * 4, X + (size_t)cand[j] * 4, cand[i], cand[j], tol);
}

/* The farthest key-grid end within MAX_SEGMENT of i whose segment from i stays within tk:
 * doubling steps, then bisection between the last that passed and the first that failed. */
static uint32_t farthest_segment_end(const builder *B, const build_channel *ch, uint32_t i, float tk) {
    uint32_t C = B->key_grid_count, best = i + 1;
    uint32_t lim = C - 1 < i + MAX_SEGMENT ? C - 1 : i + MAX_SEGMENT, fail = lim + 1;
    for (uint32_t stp = 1; best + stp <= lim; stp *= 2) {
        uint32_t j = best + stp;
        if (!exact_segment_ok(B, ch, i, j, tk)) {
            fail = j;
            break;
        }
        best = j;
    }
    while (best + 1 < fail) {
        uint32_t j = best + (fail - best) / 2;
        if (exact_segment_ok(B, ch, i, j, tk)) best = j;
        else fail = j;
    }
    return best;
}

/* A key time rather than a substep just before it (the key grid keeps only the times some
 * channel uses, and the channels that keep most keys use the key times): the latest time
 * after i and before best of the highest rank above best's, else best. */
static uint32_t prefer_key_time(const builder *B, uint32_t i, uint32_t best) {
    if (best + 1 >= B->key_grid_count) return best;
    for (uint8_t want = 2; want > B->key_grid_rank[best]; want--) {
        uint32_t k = best - 1;
        while (k > i && B->key_grid_rank[k] < want) k--;
        if (k > i) return k;
    }
    return best;
}

/* LINEAR keys: from each key, the farthest next one whose segment stays within tk. False (the
 * channel goes raw) when two neighbouring keys cannot follow the curve within 0.9 tol. */
static bool reduce_keys_linear(const builder *B, build_channel *ch, float tol, float tk) {
    uint32_t C = B->key_grid_count, n = 1, i = 0;
    while (i + 1 < C) {
        uint32_t best = farthest_segment_end(B, ch, i, tk);
        /* Two neighbouring keys that cannot follow the curve (a fast CUBICSPLINE, a huge
         * slerp) cannot be helped by bits: keep the channel exact. */
        if (best == i + 1 && !exact_segment_ok(B, ch, i, best, tol * 0.9f)) return false;
        best = prefer_key_time(B, i, best);
        ch->keys[n++] = best;
        i = best;
    }
    ch->key_count = n;
    return true;
}

/* The fewest bits per component that keep every measurement time within tol: from a
 * one-component estimate up until quantised_ok, then each component down while it stays so.
 * False (the channel goes raw) when even OSSA__BC_MAX_BITS do not. */
static bool choose_bits(builder *B, build_channel *ch, quant_range *p, const int comp[3], float tol) {
    for (int c = 0; c < 3; c++) {
        float tq = tol / (ch->kind == OSSA__CH_R ? 2.0f : 1.0f);
        uint32_t bits = 0;
        while (bits < OSSA__BC_MAX_BITS && p->step[c] * 0.5f / (float)((1u << bits) - 1u + (bits == 0)) > tq) bits++;
        p->bits[c] = (uint8_t)bits;
    }
    bool ok = false;
    for (;;) {
        if ((ok = quantised_ok(B, ch, p, comp, tol))) break;
        bool grew = false;
        for (int c = 0; c < 3; c++)
            if (p->step[c] > 0.0f && p->bits[c] < OSSA__BC_MAX_BITS) {
                p->bits[c]++;
                grew = true;
            }
        if (!grew) break;
    }
    if (!ok) return false;
    for (int c = 0; c < 3; c++)
        while (p->bits[c] > 0) {
            p->bits[c]--;
            if (!quantised_ok(B, ch, p, comp, tol)) {
                p->bits[c]++;
                break;
            }
        }
    quantised_ok(B, ch, p, comp, tol); /* leaves the final values in ch->quantised */
    return true;
}

/* Stores the chosen quantisation in ch: PACKED, unless the rounded-up step carries the range's
 * top past the loader's magnitude rule (then RAW). */
static void store_quantisation(build_channel *ch, const quant_range *p) {
    ch->mode = MODE_PACKED;
    memcpy(ch->bits, p->bits, sizeof p->bits);
    ch->dropped = p->dropped;
    memcpy(ch->range_min, p->range_min, sizeof p->range_min);
    for (int c = 0; c < 3; c++) {
        ch->step[c] = qstep(p->step[c], p->bits[c]);
        /* the rounded-up step may carry the range's top past the loader's magnitude rule */
        if (!(fabs((double)p->range_min[c] + (double)((1u << p->bits[c]) - 1u) * ch->step[c]) <=
              OSSA__BC_VALUE_MAX * 0.5))
            ch->mode = MODE_RAW;
    }
}

void ossa__build_fit(builder *B, build_channel *ch, float tol) {
    ossa__build_channel_values(B, ch, B->channel_values);
    if (fold_if_constant(B, ch, tol)) return;
    quant_range p;
    memset(&p, 0, sizeof p);
    p.kind = ch->kind;
    int comp[3] = {0, 1, 2};
    if (ch->kind == OSSA__CH_R) choose_dropped_component(B, &p, comp);
    float maxext = component_ranges(B, ch, &p, comp);
    if (!isfinite(maxext) || !(tol > 0.0f)) {
        ch->mode = MODE_RAW;
        return;
    }
    /* 1. keys: the fewest, from the exact values, within the key share of tol */
    ch->interp = ch->source->interp == OSSA_INTERP_STEP ? OSSA_INTERP_STEP : OSSA_INTERP_LINEAR;
    float tk = tol * KEY_SHARE;
    ch->keys[0] = 0;
    if (ch->interp == OSSA_INTERP_STEP) {
        reduce_keys_step(B, ch, tk);
    } else if (!reduce_keys_linear(B, ch, tol, tk)) {
        ch->mode = MODE_RAW;
        return;
    }
    /* 2. bits: the fewest per component within tol */
    if (!choose_bits(B, ch, &p, comp, tol)) {
        ch->mode = MODE_RAW;
        return;
    }
    store_quantisation(ch, &p);
}
