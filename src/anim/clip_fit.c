/* The clip builder's fit of one channel (see clip_build_internal.h): its exact values on the
 * measurement grid, folded when constant within its tolerance, else the fewest keys on the key
 * grid and then the fewest bits per component that keep every grid time within it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ossa/pose.h>

#include "anim/clip_build_internal.h"
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

void ossa__build_rest_value(const builder *B, const bchan *ch, float v[4]) {
    ossa_transform rest = B->sk->rest[ch->target];
    v[3] = 0.0f;
    memcpy(v, field(&rest, ch->kind), (ch->kind == OSSA__CH_R ? 4 : 3) * sizeof(float));
}

bool ossa__build_fold_is_rest(const builder *B, const bchan *ch) {
    float r[4];
    ossa__build_rest_value(B, ch, r);
    return !memcmp(r, ch->fold, (ch->kind == OSSA__CH_R ? 4 : 3) * sizeof(float));
}

void ossa__build_channel_values(const builder *B, const bchan *ch, float *X) {
    for (uint32_t g = 0; g < B->G; g++) {
        float *x = X + (size_t)g * 4;
        memcpy(x, field(&B->exact[(size_t)g * B->J + ch->target], ch->kind), (ch->kind == OSSA__CH_R ? 4 : 3) * sizeof(float));
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
 * arc, the slerp-fit coefficients of its dot product (rotations). */
typedef struct segment {
    int kind;
    float a[4], b[4], A, Bc;
} segment;

static void segment_set(segment *sg, int kind, const float *a, const float *b) {
    sg->kind = kind;
    memcpy(sg->a, a, sizeof sg->a);
    memcpy(sg->b, b, sizeof sg->b);
    if (kind != OSSA__CH_R) return;
    if (a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0.0f)
        for (int i = 0; i < 4; i++) sg->b[i] = -sg->b[i];
    const float *bb = sg->b;
    ossa__slerp_fit(a[0] * bb[0] + a[1] * bb[1] + a[2] * bb[2] + a[3] * bb[3], &sg->A, &sg->Bc);
}

/* The segment at s exactly as the sampling kernels interpolate it. */
static void segment_at(const segment *sg, float s, float *out) {
    const float *a = sg->a, *bb = sg->b;
    if (sg->kind == OSSA__CH_R) {
        s = ossa__slerp_time(s, sg->A, sg->Bc);
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
static bool segment_ok(const builder *B, int kind, const float *a, const float *b, uint32_t gi, uint32_t gj, float tol) {
    float ti = B->grid[gi], inv = 1.0f / (B->grid[gj] - ti);
    segment sg;
    segment_set(&sg, kind, a, b);
    float tol2 = tol * tol;
    for (uint32_t m = gi + 1; m < gj; m++) {
        float s = (B->grid[m] - ti) * inv, v[4];
        s = s > 0.0f ? (s < 1.0f ? s : 1.0f) : 0.0f;
        segment_at(&sg, s, v);
        if (!(chan_err2(kind, v, B->X + (size_t)m * 4) <= tol2)) return false;
    }
    return true;
}

void ossa__build_quantise_key(const qrange *pq, const float *x, const int *comp, uint32_t *q, float *v) {
    float f[3];
    for (int c = 0; c < 3; c++) {
        float maxq = (float)((1u << pq->bits[c]) - 1u);
        f[c] = pq->step[c] > 0.0f ? (x[comp[c]] - pq->min[c]) / pq->step[c] : 0.0f;
        f[c] = f[c] < 0.0f ? 0.0f : (f[c] > maxq ? maxq : f[c]);
        q[c] = (uint32_t)lrintf(f[c]);
    }
    ossa__packed_value(pq->kind, pq->drop, pq->min, pq->step, q, v);
}

/* Quantises ch's keys with p's ranges and bits into ch->q (decoded into B->D) and checks
 * every measurement time against the exact values: within tol? */
static bool quantised_ok(builder *B, bchan *ch, const qrange *p, const int *comp, float tol) {
    const uint32_t *cand = B->cand;
    float *D = B->D;
    const float *X = B->X;
    qrange pq = *p;
    for (int c = 0; c < 3; c++) pq.step[c] = qstep(pq.step[c], pq.bits[c]);
    for (uint32_t k = 0; k < ch->key_count; k++) {
        const float *x = X + (size_t)cand[ch->keys[k]] * 4;
        ossa__build_quantise_key(&pq, x, comp, ch->q + (size_t)k * 3, D + (size_t)k * 4);
        if (!(chan_err(ch->kind, D + (size_t)k * 4, x) <= tol)) return false;
    }
    for (uint32_t k = 0; k < ch->key_count; k++) {
        uint32_t g0 = cand[ch->keys[k]], g1 = k + 1 < ch->key_count ? cand[ch->keys[k + 1]] : B->G;
        if (ch->interp == OSSA_INTERP_STEP || k + 1 == ch->key_count) {
            for (uint32_t m = g0 + 1; m < g1; m++)
                if (!(chan_err(ch->kind, D + (size_t)k * 4, X + (size_t)m * 4) <= tol)) return false;
        } else if (!segment_ok(B, ch->kind, D + (size_t)k * 4, D + (size_t)(k + 1) * 4, g0, g1, tol)) {
            return false;
        }
    }
    return true;
}

void ossa__build_fit(builder *B, bchan *ch, float tol) {
    uint32_t G = B->G, C = B->C;
    const uint32_t *cand = B->cand;
    float *X = B->X;
    ossa__build_channel_values(B, ch, X);
    float dev = 0.0f, rdev = 0.0f, rest[4];
    ossa__build_rest_value(B, ch, rest);
    for (uint32_t g = 0; g < G; g++) {
        float e = chan_err(ch->kind, X, X + (size_t)g * 4), r = chan_err(ch->kind, rest, X + (size_t)g * 4);
        if (!(e <= dev)) dev = e;
        if (!(r <= rdev)) rdev = r;
    }
    if (rdev <= tol) { /* constant within tol of the reference: folds to it exactly (not stored) */
        ch->mode = MODE_FOLD;
        memcpy(ch->fold, rest, sizeof ch->fold);
        return;
    }
    if (dev <= tol) {
        ch->mode = MODE_FOLD;
        memcpy(ch->fold, X, sizeof ch->fold);
        return;
    }
    qrange p;
    memset(&p, 0, sizeof p);
    p.kind = ch->kind;
    int comp[3] = {0, 1, 2};
    if (ch->kind == OSSA__CH_R) { /* drop the component that stays farthest from 0, keep it >= 0 */
        float best = -1.0f;
        for (uint32_t d = 0; d < 4; d++) {
            float m = INFINITY;
            for (uint32_t k = 0; k < C; k++) m = fminf(m, fabsf(X[(size_t)cand[k] * 4 + d]));
            if (m > best) {
                best = m;
                p.drop = (uint8_t)d;
            }
        }
        for (uint32_t g = 0; g < G; g++) {
            float *x = X + (size_t)g * 4;
            if (x[p.drop] < 0.0f)
                for (int c = 0; c < 4; c++) x[c] = -x[c];
        }
        for (int c = 0, k = 0; c < 4; c++)
            if (c != p.drop) comp[k++] = c;
    }
    float maxext = 0.0f;
    for (int c = 0; c < 3; c++) {
        float lo = X[(size_t)cand[0] * 4 + (size_t)comp[c]], hi = lo;
        for (uint32_t k = 1; k < C; k++) {
            float v = X[(size_t)cand[k] * 4 + (size_t)comp[c]];
            lo = fminf(lo, v);
            hi = fmaxf(hi, v);
        }
        p.min[c] = lo;
        p.step[c] = hi - lo; /* the extent until the bits are known */
        ch->ext[c] = hi - lo;
        if (p.step[c] > maxext) maxext = p.step[c];
    }
    if (!isfinite(maxext) || !(tol > 0.0f)) {
        ch->mode = MODE_RAW;
        return;
    }
    /* 1. keys: the fewest, from the exact values, within the key share of tol */
    ch->interp = ch->src->interp == OSSA_INTERP_STEP ? OSSA_INTERP_STEP : OSSA_INTERP_LINEAR;
    float tk = tol * KEY_SHARE;
    uint32_t n = 0;
    ch->keys[n++] = 0;
    if (ch->interp == OSSA_INTERP_STEP) {
        uint32_t last = 0;
        for (uint32_t k = 1; k < C; k++) {
            uint32_t end = k + 1 < C ? cand[k + 1] : G;
            for (uint32_t m = cand[k]; m < end; m++)
                if (!(chan_err(ch->kind, X + (size_t)cand[last] * 4, X + (size_t)m * 4) <= tk)) {
                    ch->keys[n++] = last = k;
                    break;
                }
        }
    } else {
        uint32_t i = 0;
        while (i + 1 < C) {
            uint32_t best = i + 1;
            /* the farthest end within MAX_SEGMENT whose segment passes: doubling steps, then
             * bisection between the last that passed and the first that failed */
            uint32_t lim = C - 1 < i + MAX_SEGMENT ? C - 1 : i + MAX_SEGMENT, fail = lim + 1;
            for (uint32_t stp = 1; best + stp <= lim; stp *= 2) {
                uint32_t j = best + stp;
                if (!segment_ok(B, ch->kind, X + (size_t)cand[i] * 4, X + (size_t)cand[j] * 4, cand[i], cand[j], tk)) {
                    fail = j;
                    break;
                }
                best = j;
            }
            while (best + 1 < fail) {
                uint32_t j = best + (fail - best) / 2;
                if (segment_ok(B, ch->kind, X + (size_t)cand[i] * 4, X + (size_t)cand[j] * 4, cand[i], cand[j], tk)) best = j;
                else fail = j;
            }
            /* Two neighbouring keys that cannot follow the curve (a fast CUBICSPLINE, a huge
             * slerp) cannot be helped by bits: keep the channel exact. */
            if (best == i + 1 &&
                !segment_ok(B, ch->kind, X + (size_t)cand[i] * 4, X + (size_t)cand[best] * 4, cand[i], cand[best], tol * 0.9f)) {
                ch->mode = MODE_RAW;
                return;
            }
            /* a key time rather than a substep just before it: the key grid keeps only the
             * times some channel uses, and the channels that keep most keys use the key times */
            if (best + 1 < C)
                for (uint8_t want = 2; want > B->rank[best]; want--) {
                    uint32_t k = best - 1;
                    while (k > i && B->rank[k] < want) k--;
                    if (k > i) {
                        best = k;
                        break;
                    }
                }
            ch->keys[n++] = best;
            i = best;
        }
    }
    ch->key_count = n;
    /* 2. bits: from a one-component estimate up until every measurement time is within tol,
     * then each component down while it stays so */
    for (int c = 0; c < 3; c++) {
        float tq = tol / (ch->kind == OSSA__CH_R ? 2.0f : 1.0f);
        uint32_t bits = 0;
        while (bits < OSSA__BC_MAX_BITS && p.step[c] * 0.5f / (float)((1u << bits) - 1u + (bits == 0)) > tq) bits++;
        p.bits[c] = (uint8_t)bits;
    }
    bool ok = false;
    for (;;) {
        if ((ok = quantised_ok(B, ch, &p, comp, tol))) break;
        bool grew = false;
        for (int c = 0; c < 3; c++)
            if (p.step[c] > 0.0f && p.bits[c] < OSSA__BC_MAX_BITS) {
                p.bits[c]++;
                grew = true;
            }
        if (!grew) break;
    }
    if (!ok) {
        ch->mode = MODE_RAW;
        return;
    }
    for (int c = 0; c < 3; c++)
        while (p.bits[c] > 0) {
            p.bits[c]--;
            if (!quantised_ok(B, ch, &p, comp, tol)) {
                p.bits[c]++;
                break;
            }
        }
    quantised_ok(B, ch, &p, comp, tol); /* leaves the final values in ch->q */
    ch->mode = MODE_PACKED;
    memcpy(ch->bits, p.bits, sizeof p.bits);
    ch->drop = p.drop;
    memcpy(ch->min, p.min, sizeof p.min);
    for (int c = 0; c < 3; c++) {
        ch->step[c] = qstep(p.step[c], p.bits[c]);
        /* the rounded-up step may carry the range's top past the loader's magnitude rule */
        if (!(fabs((double)p.min[c] + (double)((1u << p.bits[c]) - 1u) * ch->step[c]) <= OSSA__BC_VALUE_MAX * 0.5))
            ch->mode = MODE_RAW;
    }
}

