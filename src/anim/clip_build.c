/* The clip builder (see ossa/built_clip.h, docs/built-clips.md).
 *
 * Lossless: constant channels fold into the base pose, every other channel keeps its keys
 * bit for bit on a shared clock (identical key-time arrays are stored once), T/R/S values
 * packed per float lane.
 * Compressed: every T/R/S channel gets a local tolerance derived from the model-space
 * precision (how far the joint's subtree reaches, the parent scale) and is fitted against
 * the exact values at every measurement-grid time (all key times of the clip plus sub-steps):
 * folded when constant within it; else the fewest keys on the key grid (greedy segments whose
 * lerp / corrected nlerp stays within KEY_SHARE of it), then the fewest bits per component
 * (range-reduced; rotations drop their steadiest component) that keep every grid time within
 * it. Then the clip is measured in model space at every grid time; the channels that cause a
 * joint's miss (attribution: each alone in the exact pose) get half the tolerance, until all
 * points are within TARGET_MARGIN x precision; a channel that cannot meet it goes raw (exact).
 * Then a loosening pass gives back what the halving over-spent: per channel, in rounds, a
 * fold, a coarser tolerance or one bit less, each kept only if the model-space error of the
 * channel's subtree stays within the target at every grid time (bounded where it cannot pass
 * the target, evaluated elsewhere); the real measurement has the last word. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ossa/pose.h>

#include "anim/built_clip_internal.h"
#include "core/alloc.h"
#include "math/fast.h"

enum { MODE_FOLD, MODE_RAW, MODE_PACKED };
#define MAX_LEVEL 12
#define MIN_LEVEL -2 /* the loosening pass may double a base tolerance this often */
#define START_LEVEL 1 /* errors add up along chains: the fit starts at half the budget */
#define MAX_ITERATIONS 40
#define MAX_STALLED 3 /* iterations without a lower max error before the exact fallback */
#define MAX_SEGMENT 32 /* key-grid steps a segment may span */
#define KEY_DIV 4 /* key-grid steps per key interval (LINEAR/STEP clips) */
#define TARGET_MARGIN 0.92f
#define LEVEL0_SHARE 1.0f
#define KEY_SHARE 0.85f /* of a channel's tolerance for key reduction on exact values */
#define FOLD_TRY_BITS 1024 /* the loosening tries to fold packed channels of at most this many value bits */

typedef struct bchan {
    uint32_t target; /* joint (T/R/S) or weight track index (W) */
    uint8_t kind;
    const ossa_track *src;
    int mode, level;
    float base_tol;
    float fold[4];
    /* packed */
    uint8_t interp, bits[3], drop;
    uint32_t key_count;
    uint32_t *keys; /* key grid (candidate) indices, C capacity */
    uint32_t *q;    /* 3 values per key */
    float min[3], step[3], ext[3]; /* ext: max - min of each stored component over the key grid */
    uint32_t probe; /* grid time where the channel's last loosening failed: checked first */
    uint8_t half;   /* the loosening's half levels: the tolerance x sqrt 2 */
    uint8_t done;   /* loosening: bit 0 no coarser tolerance, bit 1 + c no fewer bits of component c,
                     * bit 4 fold tried, bit 5 fold to the reference tried */
} bchan;

typedef struct builder {
    const ossa_clip *clip;
    const ossa_skeleton *sk;
    const ossa_allocator *alloc;
    ossa_clip_build_options opt;
    uint32_t J;
    bchan *ch;
    uint32_t nch;
    float *grid;           /* measurement grid */
    uint32_t G;
    uint8_t *candidate;    /* per grid time: may a packed key sit there */
    uint32_t *cand;        /* the key grid: grid indices where packed keys may sit */
    uint8_t *rank;         /* per key-grid time: 2 = a key time, 1 = a midpoint between two, 0 = other */
    uint32_t C;
    ossa_transform *exact; /* G * J */
    float *points;         /* G * J * 12 */
    float *X, *D;          /* G * 4 each */
    /* the loosening pass (compressed only): the built clip's local pose and each joint's error
     * at every grid time, the subtree bounds, a candidate channel's values, saved keys */
    ossa_transform *got;   /* G * J */
    float *err, *terr;     /* G * J: each joint's error (or a bound above it), a candidate's */
    ossa_mat4 *mod;        /* J */
    float *reach;          /* J: how far each joint's subtree reaches (exact poses) */
    float *bound_r, *bound_t; /* J: the loosening's bounds (loosen_bounds), INFINITY = none */
    float *kap;            /* 2 * J: loosen_bounds' scratch */
    float *round2;         /* J: twice the float rounding of a computed vertex of each subtree */
    float *V;              /* G * 4 */
    uint32_t *save;        /* C * 4 (a channel's keys and values), J (ancestors), channels (order) */
} builder;

/* ---------------------------------------------------------------- helpers */

static size_t track_floats(const ossa_track *t) {
    return (size_t)t->key_count * t->components * (t->interp == OSSA_INTERP_CUBIC ? 3u : 1u);
}

static bool track_constant(const ossa_track *t) {
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

static float *field(ossa_transform *t, int kind) {
    return kind == OSSA__CH_T ? &t->translation.x : kind == OSSA__CH_R ? &t->rotation.x : &t->scale.x;
}

/* The squared error of a channel value a against b: rotations 4 x |a -+ b|^2 (the nearer of q
 * and -q; 2 |a - b| is about the angle between them in radians), vectors |a - b|^2. */
static float chan_err2(int kind, const float *a, const float *b) {
    if (kind == OSSA__CH_R) {
        float d = 0.0f, e = 0.0f;
        for (int i = 0; i < 4; i++) {
            d += (a[i] - b[i]) * (a[i] - b[i]);
            e += (a[i] + b[i]) * (a[i] + b[i]);
        }
        return 4.0f * (d < e ? d : e);
    }
    float d = 0.0f;
    for (int i = 0; i < 3; i++) d += (a[i] - b[i]) * (a[i] - b[i]);
    return d;
}

/* The error itself (sqrt(4 x) = 2 sqrt(x) exactly in floats). */
static float chan_err(int kind, const float *a, const float *b) { return sqrtf(chan_err2(kind, a, b)); }

/* The reference (rest pose) value of channel ch, bit for bit (vectors: v[3] = 0). */
static void rest_value(const builder *B, const bchan *ch, float v[4]) {
    ossa_transform rest = B->sk->rest[ch->target];
    v[3] = 0.0f;
    memcpy(v, field(&rest, ch->kind), (ch->kind == OSSA__CH_R ? 4 : 3) * sizeof(float));
}

/* Whether a folded channel's value is the reference's, bit for bit (then it is not stored). */
static bool fold_is_rest(const builder *B, const bchan *ch) {
    float r[4];
    rest_value(B, ch, r);
    return !memcmp(r, ch->fold, (ch->kind == OSSA__CH_R ? 4 : 3) * sizeof(float));
}

/* Exact values of channel ch at every grid time (rotations normalised, w >= 0). */
static void channel_values(const builder *B, const bchan *ch, float *X) {
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

/* A packed channel's quantisation while it is fitted: ranges, bits, steps (the extents until
 * the bits are known), the dropped rotation component. */
typedef struct qrange {
    uint8_t kind, drop, bits[3];
    float min[3], step[3];
} qrange;

/* The step of `bits` bits over extent ext as the block stores it (bfloat16, rounded up). */
static float qstep(float ext, uint32_t bits) {
    return bits ? ossa__step_float(ossa__step_bits(ext / (float)((1u << bits) - 1u))) : 0.0f;
}

/* Quantises exact value x (4 floats, comp: the stored components) with pq's ranges, bits and
 * steps into q[3] (each component to its nearest level) and the decoded key v[4]. (Choosing,
 * for rotations, the combination of the levels below and above closest to x after the dropped
 * component is rebuilt made Woman 0.2 % larger: not done.) */
static void quantise_key(const qrange *pq, const float *x, const int *comp, uint32_t *q, float *v) {
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
        quantise_key(&pq, x, comp, ch->q + (size_t)k * 3, D + (size_t)k * 4);
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

/* Fits packed channel ch at tolerance tol (channel units): FOLD, PACKED or RAW. Keys sit on
 * the key grid (B->cand); every measurement time is checked. */
static void fit(builder *B, bchan *ch, float tol) {
    uint32_t G = B->G, C = B->C;
    const uint32_t *cand = B->cand;
    float *X = B->X;
    channel_values(B, ch, X);
    float dev = 0.0f, rdev = 0.0f, rest[4];
    rest_value(B, ch, rest);
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
        for (int d = 0; d < 4; d++) {
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
        float lo = X[(size_t)cand[0] * 4 + comp[c]], hi = lo;
        for (uint32_t k = 1; k < C; k++) {
            float v = X[(size_t)cand[k] * 4 + comp[c]];
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

/* ---------------------------------------------------------------- writer */

static size_t up4(size_t x) { return (x + 3u) & ~(size_t)3u; }

/* Lanes of a T/R/S raw channel (bit-exact packing): base and bits per float lane, and the
 * bytes of lane table + stream; weight channels stay plain floats (returns 0). */
static size_t raw_lanes(const bchan *c, ossa__bc_lane *lanes, uint32_t *per_key) {
    const ossa_track *t = c->src;
    if (c->kind == OSSA__CH_W) return 0;
    uint32_t n = t->components * (t->interp == OSSA_INTERP_CUBIC ? 3u : 1u), per = 0;
    for (uint32_t l = 0; l < n; l++) {
        uint32_t lo = UINT32_MAX, hi = 0;
        for (uint32_t k = 0; k < t->key_count; k++) {
            uint32_t o = ossa__float_ord(t->values[(size_t)k * n + l]);
            lo = o < lo ? o : lo;
            hi = o > hi ? o : hi;
        }
        uint32_t b = 0;
        while (b < 32 && ((hi - lo) >> b)) b++;
        memset(&lanes[l], 0, sizeof lanes[l]);
        lanes[l].base = lo;
        lanes[l].bits = (uint8_t)b;
        per += b;
    }
    *per_key = per;
    return n * sizeof(ossa__bc_lane) + up4(((uint64_t)t->key_count * per + 7) / 8);
}

static void put_bits(unsigned char *p, uint64_t pos, uint32_t v, uint32_t n) {
    for (uint32_t b = 0; b < n; b++)
        if ((v >> b) & 1u) p[(pos + b) >> 3] |= (unsigned char)(1u << ((pos + b) & 7u));
}

/* Slot values of block m (slots 4m .. 4m + 4) of packed channel c's lifted stream, component
 * x (ossa__lift_block): its keys, and past the last key the virtual slots: the final anchor
 * extrapolated from the last two keys (clamped to the field), the others their own prediction
 * (residual 0, so they never widen the channel's residuals). */
static void lift_slots(const bchan *c, int x, uint32_t m, uint32_t v[5]) {
    uint32_t n = c->key_count, top = (1u << c->bits[x]) - 1u, s0 = 4u * m;
    for (uint32_t j = 0; j < 5; j++)
        if (s0 + j < n) v[j] = c->q[(size_t)(s0 + j) * 3 + x];
    if (s0 + 4 < n) return; /* only the last block reaches past the keys */
    int64_t last = c->q[(size_t)(n - 1) * 3 + x], e = last;
    if (n >= 2) e += (int64_t)(s0 + 4 - (n - 1)) * (last - (int64_t)c->q[(size_t)(n - 2) * 3 + x]);
    v[4] = e < 0 ? 0u : e > (int64_t)top ? top : (uint32_t)e;
    if (s0 + 2 >= n) v[2] = ossa__lift_p2(v[0], v[4]) & top;
    if (s0 + 1 >= n) v[1] = ossa__lift_p1(v[0], v[2], v[4]) & top;
    if (s0 + 3 >= n) v[3] = ossa__lift_p1(v[4], v[2], v[0]) & top;
}

/* The residuals of block slots v (component of wa bits), signed: r[0] slot 1, r[1] slot 2, r[2] slot 3. */
static void lift_residuals(const uint32_t v[5], uint32_t wa, int32_t r[3]) {
    uint32_t top = (1u << wa) - 1u, half = (1u << wa) >> 1;
    uint32_t u[3] = {(v[1] - ossa__lift_p1(v[0], v[2], v[4])) & top, (v[2] - ossa__lift_p2(v[0], v[4])) & top,
                     (v[3] - ossa__lift_p1(v[4], v[2], v[0])) & top};
    for (int i = 0; i < 3; i++) r[i] = u[i] >= half && wa ? (int32_t)u[i] - (int32_t)(top + 1u) : (int32_t)u[i];
}

/* The fewest bits w <= wa whose range [-bias(w), bias(w) - 1] holds every residual in [lo, hi]. */
static uint8_t lift_width(int32_t lo, int32_t hi, uint32_t wa) {
    uint32_t w = 0;
    while (w < wa && !(lo >= -(int32_t)ossa__lift_bias(w) && hi <= (int32_t)ossa__lift_bias(w) - 1 + (w == 0))) w++;
    return (uint8_t)w;
}

/* Packed channel c's residual widths (ossa__bc_packed.resid): w1 (slots 1, 3), w2 (slot 2). */
static void lift_widths(const bchan *c, uint8_t w1[3], uint8_t w2[3]) {
    uint32_t M = ossa__lift_blocks(c->key_count);
    for (int x = 0; x < 3; x++) {
        int32_t lo1 = 0, hi1 = 0, lo2 = 0, hi2 = 0, r[3];
        for (uint32_t m = 0; m < M && c->bits[x]; m++) {
            uint32_t v[5];
            lift_slots(c, x, m, v);
            lift_residuals(v, c->bits[x], r);
            for (int i = 0; i < 3; i += 2) {
                lo1 = r[i] < lo1 ? r[i] : lo1;
                hi1 = r[i] > hi1 ? r[i] : hi1;
            }
            lo2 = r[1] < lo2 ? r[1] : lo2;
            hi2 = r[1] > hi2 ? r[1] : hi2;
        }
        w1[x] = lift_width(lo1, hi1, c->bits[x]);
        w2[x] = lift_width(lo2, hi2, c->bits[x]);
    }
}

/* Bits of packed channel c's value stream (ossa__lift_stream_bits). */
static uint64_t stream_bits(const bchan *c) {
    uint8_t w1[3], w2[3];
    lift_widths(c, w1, w2);
    ossa__bc_packed p = {0};
    p.widths = ossa__pk_widths(c->bits, 0);
    p.resid = ossa__pk_resid(w1, w2);
    return ossa__lift_stream_bits(&p, c->key_count);
}

/* Writes packed channel c's lifted value stream at s (zeroed), with the widths of lift_widths. */
static void put_stream(unsigned char *s, const bchan *c, const uint8_t w1[3], const uint8_t w2[3]) {
    uint32_t M = ossa__lift_blocks(c->key_count), v[3][5];
    uint64_t pos = 0;
    for (uint32_t m = 0; m <= M; m++) {
        for (int x = 0; x < 3; x++) lift_slots(c, x, m < M ? m : M - 1u, v[x]);
        if (m == M) { /* the final anchor */
            for (int x = 0; x < 3; x++) {
                put_bits(s, pos, v[x][4], c->bits[x]);
                pos += c->bits[x];
            }
            break;
        }
        int32_t r[3][3];
        for (int x = 0; x < 3; x++) lift_residuals(v[x], c->bits[x], r[x]);
        for (int x = 0; x < 3; x++) {
            put_bits(s, pos, v[x][0], c->bits[x]);
            pos += c->bits[x];
        }
        for (int slot = 0; slot < 3; slot++)
            for (int x = 0; x < 3; x++) {
                uint32_t w = slot == 1 ? w2[x] : w1[x];
                put_bits(s, pos, (uint32_t)(r[x][slot] + (int32_t)ossa__lift_bias(w)) & ((1u << c->bits[x]) - 1u), w);
                pos += w;
            }
    }
}

static int cmp_packed_order(const bchan *a, const bchan *b) {
    int ra = a->kind == OSSA__CH_R ? 0 : 1, rb = b->kind == OSSA__CH_R ? 0 : 1;
    if (ra != rb) return ra - rb;
    if (a->target != b->target) return a->target < b->target ? -1 : 1;
    return (int)a->kind - (int)b->kind;
}

/* Serialises the channels into a new built clip. */
static ossa_result write_clip(builder *B, ossa_built_clip **out) {
    const ossa_clip *clip = B->clip;
    uint32_t J = B->J, nraw = 0, npk = 0, nrot = 0, nclock = 0;
    uint32_t *order = ossa__alloc_array(B->alloc, (size_t)B->nch * 4 + 1, sizeof(uint32_t));
    if (!order) return OSSA_ERROR_OUT_OF_MEMORY;
    uint32_t *raw_idx = order + B->nch, *clock_of = raw_idx + B->nch; /* clock_of: per raw channel */
    uint32_t *mask_of = clock_of + B->nch, nmask = 0; /* per packed channel: its mask's index */
    /* packed channels: rotations first, then T/S, each by joint (insertion sort: few channels) */
    for (uint32_t i = 0; i < B->nch; i++) {
        if (B->ch[i].mode != MODE_PACKED) continue;
        uint32_t k = npk++;
        while (k > 0 && cmp_packed_order(&B->ch[i], &B->ch[order[k - 1]]) < 0) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = i;
        if (B->ch[i].kind == OSSA__CH_R) nrot++;
        if (B->ch[i].target > 0xFFFFu) { /* ossa__bc_packed.joint is 16 bits */
            ossa__free(B->alloc, order);
            return OSSA_ERROR_LIMIT;
        }
    }
    /* the key masks, equal ones stored once */
    uint32_t G = npk ? B->C : 0, mb = (G + 7) / 8;
    unsigned char *masks = ossa__alloc_array(B->alloc, (size_t)npk * mb + 8, 1); /* + 8: the rank reads 8-byte windows */
    if (!masks) {
        ossa__free(B->alloc, order);
        return OSSA_ERROR_OUT_OF_MEMORY;
    }
    memset(masks, 0, (size_t)npk * mb + 8);
    for (uint32_t k = 0; k < npk; k++) {
        const bchan *c = &B->ch[order[k]];
        unsigned char *m = masks + (size_t)nmask * mb;
        for (uint32_t i = 0; i < c->key_count; i++) put_bits(m, c->keys[i], 1u, 1);
        uint32_t e = 0;
        while (e < nmask && memcmp(masks + (size_t)e * mb, m, mb)) e++;
        if (e == nmask) nmask++;
        else memset(m, 0, mb);
        mask_of[k] = e;
    }
    if (nmask > 0xFFFFu) { /* ossa__bc_packed.mask is 16 bits */
        ossa__free(B->alloc, masks);
        ossa__free(B->alloc, order);
        return OSSA_ERROR_LIMIT;
    }
    /* raw channels and their clocks (identical key-time arrays are stored once) */
    const ossa_track **clock_src = ossa__alloc_array(B->alloc, (size_t)B->nch + 1, sizeof(*clock_src));
    if (!clock_src) {
        ossa__free(B->alloc, masks);
        ossa__free(B->alloc, order);
        return OSSA_ERROR_OUT_OF_MEMORY;
    }
    /* rotations first: the sampler's slerp kernel runs over the leading rotation channels */
    for (uint32_t j = 0; j < 2 * B->nch; j++) {
        uint32_t i = j % B->nch;
        const ossa_track *t = B->ch[i].src;
        if (B->ch[i].mode != MODE_RAW || (B->ch[i].kind == OSSA__CH_R) != (j < B->nch)) continue;
        uint32_t k = 0;
        while (k < nclock && !(clock_src[k]->key_count == t->key_count &&
                               !memcmp(clock_src[k]->times, t->times, t->key_count * sizeof(float))))
            k++;
        if (k == nclock) clock_src[nclock++] = t;
        clock_of[nraw] = k;
        raw_idx[nraw++] = i;
    }

    const char *name = clip->name ? clip->name : "";
    size_t name_len = strlen(name);
    size_t off = sizeof(ossa__bc_header);
    size_t o_name = off;
    off = up4(off + name_len + 1);
    /* the sparse base pose: folded channels that differ from the rest pose bit for bit
     * (channels come by joint, T R S: each group's codes increase) */
    uint32_t nbase = 0, nbrot = 0;
    for (uint32_t i = 0; i < B->nch; i++) {
        const bchan *c = &B->ch[i];
        if (c->mode != MODE_FOLD || c->kind == OSSA__CH_W) continue;
        ossa_transform rest = B->sk->rest[c->target];
        if (!memcmp(field(&rest, c->kind), c->fold, (c->kind == OSSA__CH_R ? 4 : 3) * sizeof(float))) continue;
        nbase++;
        nbrot += c->kind == OSSA__CH_R;
    }
    size_t o_base = off;
    off += ((size_t)nbase + 4u * nbrot + 3u * (nbase - nbrot)) * sizeof(float);
    size_t o_clock = off;
    off += (size_t)nclock * sizeof(ossa__bc_clock);
    size_t o_raw = off;
    off += (size_t)nraw * sizeof(ossa__bc_raw);
    size_t o_pk = off;
    off += (size_t)npk * sizeof(ossa__bc_packed);
    size_t o_wt = off;
    off += (size_t)clip->weight_track_count * sizeof(ossa__bc_wtrack);
    size_t o_grid = off;
    off += (size_t)G * sizeof(float);
    size_t o_times = off;
    for (uint32_t k = 0; k < nclock; k++) off += (size_t)clock_src[k]->key_count * sizeof(float);
    size_t o_values = off;
    for (uint32_t k = 0; k < nraw; k++) {
        ossa__bc_lane lanes[12];
        uint32_t per;
        size_t packed = raw_lanes(&B->ch[raw_idx[k]], lanes, &per);
        off += packed ? packed : track_floats(B->ch[raw_idx[k]].src) * sizeof(float);
    }
    size_t o_mask = off;
    off = up4(off + (size_t)nmask * (sizeof(uint32_t) + mb));
    size_t o_bits = off;
    for (uint32_t k = 0; k < npk; k++) off += (stream_bits(&B->ch[order[k]]) + 7) / 8; /* byte-aligned */
    off = up4(off) + OSSA__BC_PAD;
    ossa_built_clip *bc = off > UINT32_MAX ? NULL : ossa__built_clip_alloc(B->alloc, NULL, off);
    if (!bc) {
        ossa__free(B->alloc, masks);
        ossa__free(B->alloc, clock_src);
        ossa__free(B->alloc, order);
        return off > UINT32_MAX ? OSSA_ERROR_LIMIT : OSSA_ERROR_OUT_OF_MEMORY;
    }
    unsigned char *b = ossa__built_clip_block(bc);
    ossa__bc_header *h = (ossa__bc_header *)b;
    h->magic = OSSA__BC_MAGIC;
    h->version = OSSA__BC_VERSION;
    h->size = (uint32_t)off;
    h->flags = (B->opt.lossless ? OSSA__BC_FLAG_LOSSLESS : 0u) | (clip->looping ? OSSA__BC_FLAG_LOOPING : 0u);
    h->start = clip->start;
    h->end = clip->end;
    h->joint_count = J;
    for (uint32_t i = 0; i < clip->track_count; i++)
        if (clip->tracks[i].joint < J) h->track_count++;
    h->weight_track_count = clip->weight_track_count;
    h->clock_count = nclock;
    h->raw_count = nraw;
    h->packed_count = npk;
    h->rot_count = nrot;
    h->grid_count = G;
    h->name_off = (uint32_t)o_name;
    h->name_len = (uint32_t)name_len;
    h->base_off = (uint32_t)o_base;
    h->clock_off = (uint32_t)o_clock;
    h->raw_off = (uint32_t)o_raw;
    h->packed_off = (uint32_t)o_pk;
    h->wtrack_off = (uint32_t)o_wt;
    h->grid_off = (uint32_t)o_grid;
    h->mask_count = nmask;
    h->mask_off = (uint32_t)o_mask;
    h->stream_off = (uint32_t)o_bits;
    h->precision = B->opt.precision;
    h->shell_distance = B->opt.shell_distance;
    h->weight_precision = B->opt.weight_precision;
    uint64_t ref_hash = ossa__reference_hash(B->sk->rest, J);
    h->ref_hash_lo = (uint32_t)ref_hash;
    h->ref_hash_hi = (uint32_t)(ref_hash >> 32);
    memcpy(b + o_name, name, name_len);
    h->base_count = nbase;
    h->base_rot_count = nbrot;
    uint32_t *codes = (uint32_t *)(b + o_base);
    float *bval = (float *)(codes + nbase);
    for (int pass = 0, k = 0; pass < 2; pass++) /* rotations, then translations and scales */
        for (uint32_t i = 0; i < B->nch; i++) {
            const bchan *c = &B->ch[i];
            if (c->mode != MODE_FOLD || c->kind == OSSA__CH_W || (c->kind == OSSA__CH_R) != (pass == 0)) continue;
            ossa_transform rest = B->sk->rest[c->target];
            uint32_t n = c->kind == OSSA__CH_R ? 4 : 3;
            if (!memcmp(field(&rest, c->kind), c->fold, n * sizeof(float))) continue;
            codes[k++] = c->target << 2 | c->kind;
            memcpy(bval, c->fold, n * sizeof(float));
            bval += n;
        }
    ossa__bc_clock *clocks = (ossa__bc_clock *)(b + o_clock);
    size_t cur = o_times;
    for (uint32_t k = 0; k < nclock; k++) {
        const ossa_track *t = clock_src[k];
        clocks[k].key_count = t->key_count;
        clocks[k].times_off = (uint32_t)cur;
        memcpy(b + cur, t->times, t->key_count * sizeof(float));
        cur += t->key_count * sizeof(float);
    }
    ossa__bc_wtrack *wt = (ossa__bc_wtrack *)(b + o_wt);
    uint32_t woff = 0;
    for (uint32_t i = 0; i < clip->weight_track_count; i++) {
        wt[i].joint = clip->weight_tracks[i].joint;
        wt[i].components = clip->weight_tracks[i].weights.components;
        wt[i].offset = woff;
        wt[i].raw = UINT32_MAX;
        woff += wt[i].components;
    }
    h->weight_count = woff;
    ossa__bc_raw *raw = (ossa__bc_raw *)(b + o_raw);
    cur = o_values;
    for (uint32_t k = 0; k < nraw; k++) {
        const bchan *c = &B->ch[raw_idx[k]];
        raw[k].target = c->target;
        raw[k].kind = c->kind;
        raw[k].interp = (uint8_t)c->src->interp;
        raw[k].components = (uint16_t)c->src->components;
        raw[k].clock = clock_of[k];
        ossa__bc_lane lanes[12];
        uint32_t per = 0, n = c->src->components * (c->src->interp == OSSA_INTERP_CUBIC ? 3u : 1u);
        size_t packed = raw_lanes(c, lanes, &per);
        if (packed) {
            raw[k].lanes_off = (uint32_t)cur;
            memcpy(b + cur, lanes, n * sizeof(ossa__bc_lane));
            cur += n * sizeof(ossa__bc_lane);
            raw[k].values_off = (uint32_t)cur;
            uint64_t pos = 0;
            for (uint32_t i = 0; i < c->src->key_count; i++)
                for (uint32_t l = 0; l < n; l++) {
                    put_bits(b + cur, pos, ossa__float_ord(c->src->values[(size_t)i * n + l]) - lanes[l].base, lanes[l].bits);
                    pos += lanes[l].bits;
                }
            cur += packed - n * sizeof(ossa__bc_lane);
        } else {
            raw[k].values_off = (uint32_t)cur;
            memcpy(b + cur, c->src->values, track_floats(c->src) * sizeof(float));
            cur += track_floats(c->src) * sizeof(float);
        }
        if (c->kind == OSSA__CH_W) wt[c->target].raw = k;
    }
    ossa__bc_packed *pk = (ossa__bc_packed *)(b + o_pk);
    cur = o_bits;
    for (uint32_t k = 0; k < npk; k++) {
        const bchan *c = &B->ch[order[k]];
        ossa__bc_packed *p = &pk[k];
        p->joint = (uint16_t)c->target;
        p->kind = c->kind;
        p->interp = c->interp;
        uint8_t w1[3], w2[3];
        lift_widths(c, w1, w2);
        p->widths = ossa__pk_widths(c->bits, c->drop);
        p->resid = ossa__pk_resid(w1, w2);
        p->mask = (uint16_t)mask_of[k];
        memcpy(p->min, c->min, sizeof p->min);
        for (int x = 0; x < 3; x++) p->step[x] = ossa__step_bits(c->step[x]); /* exact: qstep's value */
        put_stream(b + cur, c, w1, w2);
        cur += (ossa__lift_stream_bits(p, c->key_count) + 7) / 8;
    }
    uint32_t *mkeys = (uint32_t *)(b + o_mask);
    memcpy(b + o_mask + (size_t)nmask * sizeof(uint32_t), masks, (size_t)nmask * mb);
    for (uint32_t m = 0; m < nmask; m++) mkeys[m] = ossa__mask_rank(masks + (size_t)m * mb, G);
    for (uint32_t k = 0; k < G; k++) ((float *)(b + o_grid))[k] = B->grid[B->cand[k]];
    ossa__free(B->alloc, masks);
    ossa__free(B->alloc, clock_src);
    ossa__free(B->alloc, order);
    ossa__built_clip_bind(bc, b);
    *out = bc;
    return OSSA_OK;
}

/* ---------------------------------------------------------------- measure */

/* Model-space error of bc at every grid time against the cached exact points; per-joint
 * maxima into jerr (J floats, reset here). */
static ossa_result measure(builder *B, const ossa_built_clip *bc, ossa_sampling_context *ctx, float *jerr,
                           uint32_t *jworst, ossa_clip_error *e) {
    uint32_t J = B->J, W = bc->h->weight_count;
    size_t bytes = (size_t)J * (sizeof(ossa_transform) + sizeof(ossa_mat4) + 13 * sizeof(float)) + (size_t)W * 2 * sizeof(float) + 16;
    unsigned char *s = ossa__alloc_array(B->alloc, 1, bytes);
    if (!s) return OSSA_ERROR_OUT_OF_MEMORY;
    ossa_transform *got = (ossa_transform *)s;
    ossa_mat4 *model = (ossa_mat4 *)(got + J);
    float *pts = (float *)(model + J), *wb = pts + (size_t)J * 12, *we = wb + W, *now = we + W;
    memset(jerr, 0, J * sizeof(float));
    memset(e, 0, sizeof *e);
    ossa_sample_job job = {0};
    job.clip = bc;
    job.context = ctx;
    job.output = got;
    job.output_count = J;
    job.weights = W ? wb : NULL;
    job.weights_count = W;
    job.reference = B->sk->rest;
    job.reference_count = J;
    ossa_result r = OSSA_OK;
    for (uint32_t g = 0; g < B->G; g++) {
        job.time = B->grid[g];
        if (B->got) got = job.output = B->got + (size_t)g * J; /* kept for the loosening pass */
        if ((r = ossa_sample_job_run(&job)) != OSSA_OK) break;
        ossa__pose_points(got, B->sk->parents, J, B->opt.shell_distance, model, pts);
        uint32_t wj = 0;
        memset(now, 0, J * sizeof(float));
        float err = ossa__points_error(pts, B->points + (size_t)g * J * 12, J, &wj, now);
        if (B->err) memcpy(B->err + (size_t)g * J, now, J * sizeof(float));
        for (uint32_t j = 0; j < J; j++)
            if (!(now[j] <= jerr[j])) {
                jerr[j] = now[j];
                jworst[j] = g;
            }
        if (!(err <= e->max_error)) {
            e->max_error = err;
            e->worst_joint = wj;
            e->worst_time = B->grid[g];
        }
        for (uint32_t i = 0; i < B->clip->weight_track_count; i++) {
            ossa__clip_weights_exact(B->clip, i, B->grid[g], false, we, B->clip->weight_tracks[i].weights.components);
            const ossa__bc_wtrack *w = &bc->wtracks[i];
            for (uint32_t c = 0; c < w->components; c++) {
                float d = fabsf(we[c] - wb[w->offset + c]);
                if (!(d <= e->max_weight_error)) e->max_weight_error = d;
            }
        }
    }
    e->sample_count = B->G;
    ossa__free(B->alloc, s);
    return r;
}

/* Which channels make joint j miss the bound at grid time g: each packed or folded channel of
 * j and its ancestors is put alone into the exact pose; those whose error on j's virtual
 * vertices is at least half the largest are marked. */
static ossa_result attribute(builder *B, const ossa_built_clip *bc, ossa_sampling_context *ctx, uint32_t j, uint32_t g,
                             const int32_t *chan_of, unsigned char *mark) {
    uint32_t J = B->J;
    ossa_transform *buf = ossa__alloc_array(B->alloc, (size_t)J * 2, sizeof(ossa_transform));
    float *cerr = ossa__alloc_array(B->alloc, (size_t)B->nch + 1, sizeof(float));
    if (!buf || !cerr) {
        ossa__free(B->alloc, buf);
        ossa__free(B->alloc, cerr);
        return OSSA_ERROR_OUT_OF_MEMORY;
    }
    ossa_transform *got = buf, *tmp = buf + J;
    ossa_sample_job job = {0};
    job.clip = bc;
    job.context = ctx;
    job.time = B->grid[g];
    job.output = got;
    job.output_count = J;
    job.reference = B->sk->rest;
    job.reference_count = J;
    ossa_result r = ossa_sample_job_run(&job);
    if (r == OSSA_OK) {
        memcpy(tmp, B->exact + (size_t)g * J, J * sizeof *tmp);
        const float *ex = B->points + ((size_t)g * J + j) * 12;
        float worst = 0.0f;
        for (int32_t a = (int32_t)j; a >= 0; a = B->sk->parents[a])
            for (int k = 0; k < 3; k++) {
                int32_t ci = chan_of[(size_t)a * 3 + k];
                if (ci < 0 || B->ch[ci].mode == MODE_RAW) continue;
                ossa_transform save = tmp[a];
                memcpy(field(&tmp[a], k), field(&got[a], k), (k == OSSA__CH_R ? 4 : 3) * sizeof(float));
                ossa_mat4 m = ossa_pose_joint_to_model(tmp, B->sk->parents, J, j);
                float e = 0.0f;
                for (int p = 0; p < 4; p++)
                    for (int c = 0; c < 3; c++) {
                        float v = m.m[12 + c] + (p ? m.m[(p - 1) * 4 + c] * B->opt.shell_distance : 0.0f);
                        e = fmaxf(e, fabsf(v - ex[p * 3 + c]));
                    }
                tmp[a] = save;
                cerr[ci] = e;
                worst = fmaxf(worst, e);
            }
        for (int32_t a = (int32_t)j; a >= 0; a = B->sk->parents[a])
            for (int k = 0; k < 3; k++) {
                int32_t ci = chan_of[(size_t)a * 3 + k];
                if (ci >= 0 && B->ch[ci].mode != MODE_RAW && (cerr[ci] >= 0.5f * worst || !(worst > 0.0f))) mark[ci] = 1;
            }
    }
    ossa__free(B->alloc, buf);
    ossa__free(B->alloc, cerr);
    return r;
}

/* ---------------------------------------------------------------- loosen */

static float level_tol(const bchan *c) { return ldexpf(c->base_tol, -c->level) * (c->half ? 1.41421356f : 1.0f); }

/* The stored components of a packed channel: the three around the dropped one (rotations). */
static void stored_comps(const bchan *ch, int comp[3]) {
    for (int c = 0, k = 0; c < 4 && k < 3; c++)
        if (ch->kind != OSSA__CH_R || c != ch->drop) comp[k++] = c;
}

/* The exact values of packed channel ch at every grid time, rotations with the sign that keeps
 * the dropped component >= 0 (what fit quantised): into X. */
static void packed_values(const builder *B, const bchan *ch, float *X) {
    channel_values(B, ch, X);
    if (ch->kind != OSSA__CH_R) return;
    for (uint32_t g = 0; g < B->G; g++) {
        float *x = X + (size_t)g * 4;
        if (x[ch->drop] < 0.0f)
            for (int c = 0; c < 4; c++) x[c] = -x[c];
    }
}

/* Requantises packed channel ch's keys from X with its bits on its range (min .. min + ext),
 * the same arithmetic as fit. */
static void quantise(const builder *B, bchan *ch, const float *X) {
    int comp[3];
    stored_comps(ch, comp);
    qrange pq;
    memset(&pq, 0, sizeof pq);
    pq.kind = ch->kind;
    pq.drop = ch->drop;
    for (int c = 0; c < 3; c++) {
        pq.bits[c] = ch->bits[c];
        pq.min[c] = ch->min[c];
        pq.step[c] = ch->step[c] = qstep(ch->ext[c], ch->bits[c]);
    }
    for (uint32_t k = 0; k < ch->key_count; k++) {
        float v[4];
        quantise_key(&pq, X + (size_t)B->cand[ch->keys[k]] * 4, comp, ch->q + (size_t)k * 3, v);
    }
}

/* Channel ch (FOLD or PACKED) at every grid time as the sampling job gives it: into V. Packed
 * channels run the sampler's own scalar lerp kernel (the SIMD ones give its bits) on the keys
 * and segments the job sets up: t0 / dt of the segment (dt = INFINITY after the last key and
 * for STEP), rotations placed into V by the kernel as into the job's pose (the rebuilt
 * component at `drop`); t - t0 is formed as the job forms it. */
static void decode_channel(builder *B, const bchan *ch, float *V) {
    uint32_t G = B->G;
    if (ch->mode == MODE_FOLD) {
        for (uint32_t g = 0; g < G; g++) memcpy(V + (size_t)g * 4, ch->fold, sizeof ch->fold);
        return;
    }
    enum { N = 64 };
    float t0[N], dt[N], keys[N][8]; /* channel i's key a at keys[i], key b at keys[i] + 4 */
    uint32_t ka[N], kb[N], dst[N];
    float mn[3][N], st[3][N], o[3][N], drop[N];
    bool rot = ch->kind == OSSA__CH_R;
    ossa__lerp_soa soa = {t0, dt, keys[0], ka, kb, {mn[0], mn[1], mn[2]}, {st[0], st[1], st[2]}, {o[0], o[1], o[2], NULL},
                          NULL, dst, drop};
    for (uint32_t i = 0; i < N; i++) {
        for (int c = 0; c < 3; c++) {
            mn[c][i] = ch->min[c];
            st[c][i] = ch->step[c];
        }
        ka[i] = 8u * i, kb[i] = 8u * i + 4u;
        dst[i] = 4u * i;
        drop[i] = (float)ch->drop;
    }
    const uint32_t *cand = B->cand;
    uint32_t k = 0;
    for (uint32_t g0 = 0; g0 < G; g0 += N) {
        uint32_t n = G - g0 < N ? G - g0 : N;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t g = g0 + i;
            while (k + 1 < ch->key_count && cand[ch->keys[k + 1]] <= g) k++;
            bool hold = k + 1 == ch->key_count;
            float ta = B->grid[cand[ch->keys[k]]];
            t0[i] = -(B->grid[g] - ta); /* the kernel's (0 - t0) is the job's (t - t0) */
            dt[i] = hold || ch->interp == OSSA_INTERP_STEP ? INFINITY : B->grid[cand[ch->keys[k + 1]]] - ta;
            const uint32_t *a = ch->q + (size_t)k * 3, *b = hold ? a : a + 3;
            for (int c = 0; c < 3; c++) {
                keys[i][c] = (float)a[c];
                keys[i][4 + c] = (float)b[c];
            }
        }
        soa.pose = rot ? V + (size_t)g0 * 4 : NULL;
        ossa__lerp_scalar(&soa, 0.0f, 0, n, rot);
        for (uint32_t i = 0; !rot && i < n; i++) {
            float *v = V + (size_t)(g0 + i) * 4;
            v[0] = o[0][i];
            v[1] = o[1][i];
            v[2] = o[2][i];
            v[3] = 0.0f;
        }
    }
}

/* Whether the model-space error at every grid time stays within limit over the subtree of joint
 * j = ch->target when ch takes the values V and every other channel its current built values
 * (B->got). B->err holds, per grid time and joint, the current error or a bound above it: where
 * that error plus how far the change can move the subtree's vertices (the channel's change x
 * the subtree's reach, x the parent scale for translations) stays within the limit, the time
 * needs no evaluation; elsewhere the subtree's matrices are computed (its ancestors first, one
 * joint at a time, with the same kernel as the measurement). The grid is scanned from ch->probe
 * on, a failure moves it there. If it holds, the pose and the errors (or bounds) are stored. */
static bool eval_subtree(builder *B, bchan *ch, const float *V, float limit) {
    uint32_t J = B->J, j = ch->target, e = j + 1, nanc = 0;
    const int32_t *par = B->sk->parents;
    bool contiguous = true;
    for (uint32_t i = j + 1; i < J; i++) {
        int32_t a = par[i];
        while (a > (int32_t)j) a = par[a];
        if (a == (int32_t)j) {
            if (e != i) contiguous = false;
            e = i + 1;
        }
    }
    uint32_t begin = contiguous ? j : 0, *anc = B->save + (size_t)B->C * 4; /* j's ancestors, root first */
    if (contiguous) {
        for (int32_t a = par[j]; a >= 0; a = par[a]) nanc++;
        uint32_t k = nanc;
        for (int32_t a = par[j]; a >= 0; a = par[a]) anc[--k] = (uint32_t)a;
    }
    size_t n = (ch->kind == OSSA__CH_R ? 4 : 3) * sizeof(float);
    /* how far a change of d (channel units) can move a vertex of the subtree (B->bound_*) */
    float R = ch->kind == OSSA__CH_R ? B->bound_r[j] : ch->kind == OSSA__CH_T ? B->bound_t[j] : INFINITY;
    float shell = B->opt.shell_distance, skip = limit * 0.99f;
    double lim2 = (double)limit * limit;
    ossa_local_to_model_job job = {0};
    job.skeleton = B->sk;
    job.input_count = J;
    job.output = B->mod;
    job.output_count = J;
    uint32_t G = B->G, g = ch->probe < G ? ch->probe : 0;
    for (uint32_t step = 0; step < G; step++, g = g + 1 < G ? g + 1 : 0) {
        ossa_transform *gp = B->got + (size_t)g * J, keep = gp[j];
        const float *err = B->err + (size_t)g * J;
        float *terr = B->terr + (size_t)g * J;
        float d = chan_err(ch->kind, field(&gp[j], ch->kind), V + (size_t)g * 4), worst = 0.0f;
        for (uint32_t i = j; i < e; i++) worst = err[i] > worst ? err[i] : worst;
        if (worst + d * R + B->round2[j] <= skip) {
            for (uint32_t i = j; i < e; i++) terr[i] = err[i] + d * R + B->round2[j];
            continue;
        }
        memcpy(field(&gp[j], ch->kind), V + (size_t)g * 4, n); /* the candidate, in place for the job */
        job.input = gp;
        for (uint32_t k = 0; k < nanc; k++) {
            job.begin = anc[k];
            job.end = anc[k] + 1;
            ossa_local_to_model_job_run(&job);
        }
        job.begin = begin;
        job.end = e;
        ossa_local_to_model_job_run(&job);
        gp[j] = keep;
        bool over = false;
        for (uint32_t i = j; i < e; i++) {
            const float *m = B->mod[i].m, *x = B->points + ((size_t)g * J + i) * 12;
            double w2 = 0.0;
            for (int p = 0; p < 4; p++) {
                double d2 = 0.0;
                for (int r = 0; r < 3; r++) {
                    float v = m[12 + r] + (p ? m[(p - 1) * 4 + r] * shell : 0.0f);
                    double dd = (double)v - x[p * 3 + r];
                    d2 += dd * dd;
                }
                w2 = d2 > w2 ? d2 : w2;
            }
            if (!(w2 <= lim2)) {
                over = true;
                break;
            }
            terr[i] = (float)sqrt(w2);
        }
        if (over) {
            ch->probe = g;
            return false;
        }
    }
    for (g = 0; g < G; g++) {
        memcpy(B->err + (size_t)g * J + j, B->terr + (size_t)g * J + j, (e - j) * sizeof(float));
        memcpy(field(&B->got[(size_t)g * J + j], ch->kind), V + (size_t)g * 4, n);
    }
    return true;
}

/* Bytes a channel adds to the clip, roughly (the comparison of two choices for it). */
static double chan_bytes(const builder *B, const bchan *c) {
    if (c->mode == MODE_FOLD) return 0.0;
    if (c->mode == MODE_PACKED)
        return sizeof(ossa__bc_packed) + (B->C + (double)stream_bits(c)) / 8.0;
    ossa__bc_lane lanes[12];
    uint32_t per = 0;
    return sizeof(ossa__bc_raw) + (double)raw_lanes(c, lanes, &per);
}

static void save_chan(builder *B, const bchan *c, bchan *saved) {
    *saved = *c;
    memcpy(B->save, c->keys, c->key_count * sizeof(uint32_t));
    memcpy(B->save + B->C, c->q, (size_t)c->key_count * 3 * sizeof(uint32_t));
}

static void restore_chan(builder *B, bchan *c, const bchan *saved) {
    uint32_t probe = c->probe;
    *c = *saved;
    c->probe = probe;
    memcpy(c->keys, B->save, c->key_count * sizeof(uint32_t));
    memcpy(c->q, B->save + B->C, (size_t)c->key_count * 3 * sizeof(uint32_t));
}

/* How far a change of d (channel units) of joint j's rotation or translation can move a vertex
 * of its subtree, from the built pose (B->got): the parent's model frame is the product of the
 * ancestors' rotations and scales, so it stretches a vector by at most sigma = the product of
 * their largest |scale| and by at least the product of their smallest; a rotation change of d
 * moves a vertex by at most d x its distance from the joint x kappa (that ratio, 1 for uniform
 * scales): bound_r = kappa x (the subtree's reach + 2 precision: the built pose is within the
 * precision of the exact one); a translation change by at most d x sigma = bound_t. */
static void loosen_bounds(builder *B) {
    uint32_t J = B->J;
    const int32_t *par = B->sk->parents;
    float *kap = B->kap, *sig = B->kap + J; /* per joint at one time */
    for (uint32_t j = 0; j < J; j++) B->bound_r[j] = B->bound_t[j] = 0.0f;
    for (uint32_t g = 0; g < B->G; g++) {
        const ossa_transform *gp = B->got + (size_t)g * J;
        for (uint32_t j = 0; j < J; j++) {
            int32_t a = par[j];
            kap[j] = sig[j] = 1.0f;
            if (a >= 0) {
                const float *s = &gp[a].scale.x;
                float x = fabsf(s[0]), y = fabsf(s[1]), z = fabsf(s[2]); /* ternaries: fminf is a call here */
                float lo = x < y ? (x < z ? x : z) : (y < z ? y : z), hi = x > y ? (x > z ? x : z) : (y > z ? y : z);
                kap[j] = kap[a] * (lo > 0.0f ? hi / lo : INFINITY);
                sig[j] = sig[a] * hi;
            }
            if (!(kap[j] <= B->bound_r[j])) B->bound_r[j] = kap[j];
            if (!(sig[j] <= B->bound_t[j])) B->bound_t[j] = sig[j];
        }
    }
    for (uint32_t j = 0; j < J; j++) {
        B->bound_r[j] *= (B->reach[j] + 2.0f * B->opt.precision) * 1.0001f;
        B->bound_t[j] *= 1.0001f;
        if (!isfinite(B->bound_r[j])) B->bound_r[j] = INFINITY;
        if (!isfinite(B->bound_t[j])) B->bound_t[j] = INFINITY;
    }
}

/* Folds channel c into the base pose with its mean exact value over the grid (rotations:
 * normalised, on the hemisphere of the first). */
static void fold_mean(builder *B, bchan *c) {
    float *X = B->X;
    channel_values(B, c, X);
    double m[4] = {0, 0, 0, 0};
    for (uint32_t g = 0; g < B->G; g++) {
        const float *x = X + (size_t)g * 4;
        double sg = c->kind == OSSA__CH_R && x[0] * X[0] + x[1] * X[1] + x[2] * X[2] + x[3] * X[3] < 0.0f ? -1.0 : 1.0;
        for (int i = 0; i < 4; i++) m[i] += sg * x[i];
    }
    for (int i = 0; i < 4; i++) c->fold[i] = (float)(m[i] / B->G);
    if (c->kind == OSSA__CH_R) ossa__quat_normalize4(c->fold);
    else c->fold[3] = 0.0f;
    c->mode = MODE_FOLD;
}

/* Keeps channel c's new form if the model-space error stays within target at every grid time
 * (then its values are in B->got and the errors in B->err). */
static bool try_chan(builder *B, bchan *c, float target) {
    decode_channel(B, c, B->V);
    if (!eval_subtree(B, c, B->V, target)) return false;
    if (c->kind == OSSA__CH_S) loosen_bounds(B); /* the scales changed */
    return true;
}

/* The loosening's order: bits saved per step (keys) over the error a step adds (the largest
 * quantisation step x how far the channel moves its subtree); raw channels first. */
static double loosen_priority(const builder *B, const bchan *c) {
    if (c->mode != MODE_PACKED) return INFINITY;
    double R = c->kind == OSSA__CH_R ? B->bound_r[c->target] : c->kind == OSSA__CH_T ? B->bound_t[c->target] : 1.0;
    double st = fmax(fmax(c->step[0], c->step[1]), fmax(c->step[2], 1e-12));
    return c->key_count / (st * R);
}

/* Wins back what the halving of whole tolerances over-spent, once the bound is met: in rounds,
 * each channel (by loosen_priority) takes one step of each kind: folded (a small one), a
 * tolerance x sqrt 2 (fewer keys and bits; a raw channel packed again at the first doubling that
 * packs it), one bit less per component; each kept only if the model-space error at every grid
 * time stays within target, a kind that fails is not tried again for that channel (but a new
 * tolerance opens the bit steps again); until a round changes nothing. */
static void loosen(builder *B, float target) {
    bchan saved;
    loosen_bounds(B);
    for (uint32_t i = 0; i < B->nch; i++) B->ch[i].done = 0;
    uint32_t *order = B->save + (size_t)B->C * 4 + B->J; /* the channels by loosen_priority, per round */
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t i = 0, n = 0; i < B->nch; i++) { /* insertion sort: few channels */
            uint32_t k = n++;
            double ci = loosen_priority(B, &B->ch[i]);
            while (k > 0 && loosen_priority(B, &B->ch[order[k - 1]]) < ci) {
                order[k] = order[k - 1];
                k--;
            }
            order[k] = i;
        }
        for (uint32_t oi = 0; oi < B->nch; oi++) {
            bchan *c = &B->ch[order[oi]];
            if (c->kind == OSSA__CH_W) continue;
            if (c->mode == MODE_FOLD) { /* folded to another value: the reference's saves its base entry */
                if (!(c->done & 32) && !fold_is_rest(B, c)) {
                    c->done |= 32;
                    save_chan(B, c, &saved);
                    rest_value(B, c, c->fold);
                    if (try_chan(B, c, target)) changed = true;
                    else restore_chan(B, c, &saved);
                }
                continue;
            }
            if (!(c->done & 16) && c->mode == MODE_PACKED &&
                c->key_count * ((uint32_t)c->bits[0] + c->bits[1] + c->bits[2]) <= FOLD_TRY_BITS) {
                /* a small channel folded into the base pose (the reference's value, else its
                 * mean) saves its record */
                c->done |= 16 | 32;
                save_chan(B, c, &saved);
                c->mode = MODE_FOLD;
                rest_value(B, c, c->fold);
                if (try_chan(B, c, target)) {
                    changed = true;
                    continue;
                }
                fold_mean(B, c);
                if (try_chan(B, c, target)) {
                    changed = true;
                    continue;
                }
                restore_chan(B, c, &saved);
            }
            if (!(c->done & 1)) { /* one coarser tolerance (a raw channel: the first that packs) */
                bool kept = false;
                for (int level = c->level; level > MIN_LEVEL;) {
                    double before = chan_bytes(B, c);
                    save_chan(B, c, &saved);
                    if (saved.mode != MODE_RAW && !c->half) c->half = 1; /* x sqrt 2 */
                    else {
                        c->half = 0;
                        c->level = --level;
                    }
                    fit(B, c, level_tol(c));
                    if (c->mode == MODE_RAW) {
                        restore_chan(B, c, &saved);
                        if (saved.mode == MODE_RAW) continue;
                        break;
                    }
                    if (chan_bytes(B, c) < before && try_chan(B, c, target)) kept = true;
                    else restore_chan(B, c, &saved);
                    break;
                }
                if (kept) {
                    c->done &= 16;
                    changed = true;
                } else {
                    c->done |= 1;
                }
            }
            if (c->mode != MODE_PACKED) continue;
            bool values = false;
            for (int k = 0; k < 3; k++) { /* one bit less per component */
                if ((c->done & (2u << k)) || c->bits[k] == 0) continue;
                if (!values) packed_values(B, c, B->X);
                values = true;
                save_chan(B, c, &saved);
                c->bits[k]--;
                quantise(B, c, B->X);
                if (try_chan(B, c, target)) {
                    changed = true;
                } else {
                    restore_chan(B, c, &saved);
                    c->done |= (uint8_t)(2u << k);
                }
            }
        }
    }
}

/* Drops the key-grid times no packed channel keeps (they cost a float and a mask bit per
 * channel each): the channels' keys, values and so their samples stay the same. */
static void compact_key_grid(builder *B) {
    uint32_t *map = B->save, n = 0; /* map[k]: new index of key-grid time k, UINT32_MAX = unused */
    for (uint32_t k = 0; k < B->C; k++) map[k] = UINT32_MAX;
    for (uint32_t i = 0; i < B->nch; i++)
        if (B->ch[i].mode == MODE_PACKED)
            for (uint32_t k = 0; k < B->ch[i].key_count; k++) map[B->ch[i].keys[k]] = 0;
    for (uint32_t k = 0; k < B->C; k++)
        if (map[k] == 0 || k == 0) {
            map[k] = n;
            B->rank[n] = B->rank[k];
            B->cand[n++] = B->cand[k];
        }
    for (uint32_t i = 0; i < B->nch; i++) {
        if (B->ch[i].mode != MODE_PACKED) B->ch[i].key_count = 0; /* stale keys of the larger grid */
        for (uint32_t k = 0; k < B->ch[i].key_count; k++) B->ch[i].keys[k] = map[B->ch[i].keys[k]];
    }
    B->C = n;
}

/* ---------------------------------------------------------------- build */

/* Local tolerances at level 0 from the exact poses: rotation (radians) = precision / reach of
 * the joint's subtree, translation = precision / parent scale, scale likewise. */
static ossa_result base_tolerances(builder *B) {
    uint32_t J = B->J, G = B->G;
    const int32_t *par = B->sk->parents;
    float *reach = ossa__alloc_array(B->alloc, (size_t)J * 4, sizeof(float));
    if (!reach) return OSSA_ERROR_OUT_OF_MEMORY;
    float *smax = reach + J, *smin = smax + J, *lsmin = smin + J;
    for (uint32_t j = 0; j < J; j++) {
        smax[j] = 0.0f;
        smin[j] = INFINITY;
        lsmin[j] = INFINITY;
    }
    float shell = B->opt.shell_distance;
    for (uint32_t g = 0; g < G; g++) {
        const float *P = B->points + (size_t)g * J * 12;
        for (uint32_t d = 0; d < J; d++) {
            for (int p = 0; p < 4; p++) {
                const float *x = P + (size_t)d * 12 + p * 3;
                for (int32_t a = (int32_t)d; a >= 0; a = par[a]) {
                    const float *o = P + (size_t)a * 12;
                    float dist = sqrtf((x[0] - o[0]) * (x[0] - o[0]) + (x[1] - o[1]) * (x[1] - o[1]) + (x[2] - o[2]) * (x[2] - o[2]));
                    if (dist > reach[a]) reach[a] = dist;
                }
            }
            int32_t pa = par[d];
            for (int k = 0; k < 3; k++) {
                float n = 1.0f;
                if (pa >= 0 && shell > 0.0f) {
                    const float *o = P + (size_t)pa * 12, *x = o + 3 + k * 3;
                    n = sqrtf((x[0] - o[0]) * (x[0] - o[0]) + (x[1] - o[1]) * (x[1] - o[1]) + (x[2] - o[2]) * (x[2] - o[2])) / shell;
                }
                if (n > smax[d]) smax[d] = n;
                if (n < smin[d]) smin[d] = n;
                float ls = fabsf((&B->exact[(size_t)g * J + d].scale.x)[k]);
                if (ls < lsmin[d]) lsmin[d] = ls;
            }
        }
    }
    float P0 = B->opt.precision * TARGET_MARGIN * LEVEL0_SHARE;
    for (uint32_t i = 0; i < B->nch; i++) {
        bchan *c = &B->ch[i];
        if (c->kind == OSSA__CH_W) continue;
        uint32_t j = c->target;
        float tol;
        if (c->kind == OSSA__CH_T) tol = smax[j] > 0.0f ? P0 / smax[j] : 1e30f;
        else if (c->kind == OSSA__CH_R) tol = reach[j] > 0.0f ? P0 / reach[j] : 1.0f;
        else {
            float ratio = smax[j] > 0.0f ? smin[j] / smax[j] : 1.0f;
            float ls = lsmin[j] > 1e-6f ? lsmin[j] : 1e-6f;
            tol = reach[j] > 0.0f ? P0 * ls * ratio / reach[j] : 1e30f;
        }
        if (c->kind == OSSA__CH_R && tol > 1.0f) tol = 1.0f;
        if (!(tol > 0.0f) || !isfinite(tol)) tol = c->kind == OSSA__CH_R ? 1.0f : 1e30f;
        c->base_tol = tol;
    }
    if (B->reach) { /* for the loosening pass */
        memcpy(B->reach, reach, J * sizeof(float));
        /* The loosening's bounds hold for ideal values; a computed vertex of joint j's subtree
         * is rounded anew on each level below j when j changes: up to about an ulp of the
         * largest coordinate per level (2 more for the matrix product), and an error computed
         * before and after may move by that twice. */
        float big = 0.0f;
        for (size_t i = 0; i < (size_t)G * J * 12; i++) {
            float v = fabsf(B->points[i]);
            big = v > big ? v : big;
        }
        for (uint32_t j = 0; j < J; j++) B->round2[j] = 0.0f;
        for (uint32_t i = J; i-- > 0;) { /* children after parents: levels below each joint */
            float below = B->round2[i] + 1.0f;
            if (par[i] >= 0 && below > B->round2[par[i]]) B->round2[par[i]] = below;
        }
        for (uint32_t j = 0; j < J; j++) B->round2[j] = 2.0f * (B->round2[j] + 3.0f) * ldexpf(big, -23);
    }
    ossa__free(B->alloc, reach);
    return OSSA_OK;
}

/* Bytes of the builder's grid scratch: B.exact + B.points per grid time and joint, B.X/B.D,
 * the candidate list and, when compressing, every channel's key and value buffers (the key
 * grid is at most the measurement grid) and the loosening pass's B.got, B.err, B.terr, B.V
 * and B.save (plus O(J)). */
double ossa__clip_build_scratch(uint32_t G, uint32_t J, size_t channels, bool lossless) {
    double per_time = (double)J * (sizeof(ossa_transform) + 12 * sizeof(float)) + 8 * sizeof(float) + sizeof(uint32_t);
    /* the loosening pass: the built pose, its errors and a candidate's, a channel's values and
     * saved keys */
    if (!lossless)
        per_time += (double)channels * 4 * sizeof(uint32_t) + (double)J * (sizeof(ossa_transform) + 2 * sizeof(float)) + 8 * sizeof(float);
    return (double)G * per_time;
}

static bool bad_option(float v) { return isnan(v) || v < 0.0f || isinf(v); }

ossa_result ossa_clip_build(const ossa_clip *clip, const ossa_skeleton *skeleton, const ossa_clip_build_options *options,
                            const ossa_allocator *allocator, ossa_built_clip **out, ossa_clip_build_stats *stats) {
    if (stats) memset(stats, 0, sizeof *stats);
    if (!out) return OSSA_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (!clip || !skeleton) return OSSA_ERROR_INVALID_ARGUMENT;
    builder B;
    memset(&B, 0, sizeof B);
    if (options) B.opt = *options;
    if (bad_option(B.opt.precision) || bad_option(B.opt.shell_distance) || bad_option(B.opt.weight_precision))
        return OSSA_ERROR_INVALID_ARGUMENT;
    if (B.opt.precision == 0.0f) B.opt.precision = 1e-4f;
    if (B.opt.shell_distance == 0.0f) B.opt.shell_distance = 0.03f;
    if (B.opt.weight_precision == 0.0f) B.opt.weight_precision = 1e-3f;
    /* the loader's magnitude rule (OSSA__BC_VALUE_MAX): a clip past it would not load back */
    _Static_assert(sizeof(ossa_transform) == 10 * sizeof(float), "a transform is 10 floats");
    for (uint32_t i = 0; i < skeleton->joint_count; i++) {
        float rest[10];
        memcpy(rest, &skeleton->rest[i], sizeof rest);
        if (!ossa__values_bounded(rest, 1, 10, false, 0.0)) return OSSA_ERROR_LIMIT;
    }
    for (uint32_t i = 0; i < clip->track_count + clip->weight_track_count; i++) {
        const ossa_transform_track *t = i < clip->track_count ? &clip->tracks[i] : NULL;
        const ossa_track *tr[3] = {t ? &t->translation : &clip->weight_tracks[i - clip->track_count].weights,
                                   t ? &t->rotation : NULL, t ? &t->scale : NULL};
        for (int c = 0; c < 3; c++) {
            if (!tr[c] || !tr[c]->key_count) continue;
            double span = (double)tr[c]->times[tr[c]->key_count - 1] - (double)tr[c]->times[0];
            if (!ossa__values_bounded(tr[c]->values, tr[c]->key_count, tr[c]->components,
                                      tr[c]->interp == OSSA_INTERP_CUBIC, span))
                return OSSA_ERROR_LIMIT;
        }
    }
    B.clip = clip;
    B.sk = skeleton;
    B.alloc = allocator;
    B.J = skeleton->joint_count;
    uint32_t J = B.J;
    size_t raw_bytes = 0;
    for (uint32_t i = 0; i < clip->track_count; i++) {
        const ossa_transform_track *t = &clip->tracks[i];
        const ossa_track *tr[3] = {&t->translation, &t->rotation, &t->scale};
        for (int c = 0; c < 3; c++) raw_bytes += (tr[c]->key_count + track_floats(tr[c])) * sizeof(float);
    }
    for (uint32_t i = 0; i < clip->weight_track_count; i++) {
        const ossa_track *w = &clip->weight_tracks[i].weights;
        raw_bytes += (w->key_count + track_floats(w)) * sizeof(float);
    }

    /* the key grid: the key times and KEY_DIV - 1 steps between them (8 per interval for
     * CUBICSPLINE clips), so a fast rotation can take an extra key instead of going raw; the
     * fit prefers key times, then midpoints (rank) */
    uint32_t substeps = ossa__clip_grid_substeps(clip);
    ossa_result r = ossa__clip_grid(clip, J, substeps, substeps > 8 ? 8 : KEY_DIV, allocator, &B.grid, &B.G, &B.candidate);
    if (r) return r;
    uint32_t G = B.G;
    size_t nmax = (size_t)clip->track_count * 3 + clip->weight_track_count;
    /* the measurement grid's scratch (exact poses, virtual vertices, per-channel values and
     * key buffers) grows with duration x 480 Hz x joints: refuse it up front past the cap */
    double scratch = ossa__clip_build_scratch(G, J, nmax, B.opt.lossless);
    size_t cap = B.opt.max_scratch_bytes ? B.opt.max_scratch_bytes : OSSA_CLIP_BUILD_SCRATCH_CAP;
    if (scratch > (double)cap) {
        ossa__free(allocator, B.grid);
        return OSSA_ERROR_LIMIT;
    }
    B.cand = ossa__alloc_array(allocator, (size_t)G + 1, sizeof(uint32_t));
    if (!B.cand) {
        ossa__free(allocator, B.grid);
        return OSSA_ERROR_OUT_OF_MEMORY;
    }
    for (uint32_t g = 0; g < G; g++)
        if (B.candidate[g] || g + 1 == G) B.cand[B.C++] = g;
    B.rank = ossa__alloc_array(allocator, (size_t)B.C + 1, 1);
    if (!B.rank) {
        ossa__free(allocator, B.cand);
        ossa__free(allocator, B.grid);
        return OSSA_ERROR_OUT_OF_MEMORY;
    }
    for (uint32_t k = 0, prev = 0; k < B.C; k++) {
        B.rank[k] = B.candidate[B.cand[k]] == 2 || k + 1 == B.C ? 2 : 0;
        if (B.rank[k] == 2) {
            if (k > prev + 1 && (k - prev) % 2 == 0) B.rank[prev + (k - prev) / 2] = 1;
            prev = k;
        }
    }
    B.ch = ossa__alloc_array(allocator, nmax + 1, sizeof(bchan));
    B.exact = ossa__alloc_array(allocator, (size_t)G * J + 1, sizeof(ossa_transform));
    B.points = ossa__alloc_array(allocator, (size_t)G * J * 12 + 1, sizeof(float));
    B.X = ossa__alloc_array(allocator, (size_t)G * 8, sizeof(float));
    if (!B.opt.lossless) {
        B.got = ossa__alloc_array(allocator, (size_t)G * J + 1, sizeof(ossa_transform));
        B.V = ossa__alloc_array(allocator, (size_t)G * 4 + 1, sizeof(float));
        B.save = ossa__alloc_array(allocator, (size_t)B.C * 4 + J + nmax + 1, sizeof(uint32_t));
        B.err = ossa__alloc_array(allocator, (size_t)G * J * 2 + (size_t)J * 22 + 1, sizeof(float));
        if (B.err) {
            B.terr = B.err + (size_t)G * J;
            B.reach = B.terr + (size_t)G * J;
            B.bound_r = B.reach + J;
            B.bound_t = B.bound_r + J;
            B.kap = B.bound_t + J;
            B.round2 = B.kap + 2 * J;
            B.mod = (ossa_mat4 *)(B.round2 + J);
        }
    }
    float *jerr = ossa__alloc_array(allocator, (size_t)J * 5 + nmax + 1, sizeof(float));
    uint32_t *jworst = jerr ? (uint32_t *)(jerr + J) : NULL;
    int32_t *chan_of = jerr ? (int32_t *)(jworst + J) : NULL;
    unsigned char *touched = jerr ? (unsigned char *)(chan_of + (size_t)J * 3) : NULL;
    ossa_mat4 *model = ossa__alloc_array(allocator, (size_t)J + 1, sizeof(ossa_mat4));
    uint32_t *keybuf = NULL;
    ossa_sampling_context *ctx = NULL;
    ossa_built_clip *bc = NULL;
    if (!B.ch || !B.exact || !B.points || !B.X || !jerr || !model ||
        (!B.opt.lossless && (!B.got || !B.err || !B.V || !B.save))) {
        r = OSSA_ERROR_OUT_OF_MEMORY;
        goto done;
    }
    B.D = B.X + (size_t)G * 4;
    for (size_t i = 0; i < (size_t)J * 3; i++) chan_of[i] = -1;
    for (uint32_t i = 0; i < clip->track_count; i++) {
        const ossa_transform_track *t = &clip->tracks[i];
        if (t->joint >= J) continue;
        const ossa_track *tr[3] = {&t->translation, &t->rotation, &t->scale};
        static const uint8_t kinds[3] = {OSSA__CH_T, OSSA__CH_R, OSSA__CH_S};
        for (int c = 0; c < 3; c++) {
            if (!tr[c]->key_count) continue;
            chan_of[(size_t)t->joint * 3 + kinds[c]] = (int32_t)B.nch;
            bchan *ch = &B.ch[B.nch++];
            ch->target = t->joint;
            ch->kind = kinds[c];
            ch->src = tr[c];
        }
    }
    for (uint32_t i = 0; i < clip->weight_track_count; i++) {
        if (!clip->weight_tracks[i].weights.key_count) continue;
        bchan *ch = &B.ch[B.nch++];
        ch->target = i;
        ch->kind = OSSA__CH_W;
        ch->src = &clip->weight_tracks[i].weights;
        ch->mode = MODE_RAW;
    }
    /* exact poses and their virtual vertices at every grid time */
    for (uint32_t g = 0; g < G; g++) {
        ossa_transform *ex = B.exact + (size_t)g * J;
        ossa__clip_sample_exact(clip, B.grid[g], false, skeleton->rest, ex, J);
        ossa__pose_points(ex, skeleton->parents, J, B.opt.shell_distance, model, B.points + (size_t)g * J * 12);
    }
    if (B.opt.lossless) {
        for (uint32_t i = 0; i < B.nch; i++) {
            bchan *c = &B.ch[i];
            if (c->kind == OSSA__CH_W) continue;
            c->mode = track_constant(c->src) ? MODE_FOLD : MODE_RAW;
            if (c->mode == MODE_FOLD) {
                const ossa_track *s = c->src;
                memcpy(c->fold, s->values + (s->interp == OSSA_INTERP_CUBIC ? s->components : 0), s->components * sizeof(float));
            }
        }
    } else {
        keybuf = ossa__alloc_array(allocator, (size_t)B.nch * B.C * 4 + 1, sizeof(uint32_t));
        if (!keybuf) {
            r = OSSA_ERROR_OUT_OF_MEMORY;
            goto done;
        }
        if ((r = base_tolerances(&B)) != OSSA_OK) goto done;
        for (uint32_t i = 0; i < B.nch; i++) {
            bchan *c = &B.ch[i];
            c->keys = keybuf + (size_t)i * B.C * 4;
            c->q = c->keys + B.C;
            c->level = START_LEVEL;
            if (c->kind != OSSA__CH_W) fit(&B, c, level_tol(c));
        }
    }
    uint32_t W = 0;
    for (uint32_t i = 0; i < clip->weight_track_count; i++) W += clip->weight_tracks[i].weights.components;
    if ((r = ossa_sampling_context_create(J, W, allocator, &ctx)) != OSSA_OK) goto done;
    float target = B.opt.precision * TARGET_MARGIN;
    ossa_clip_error e;
    float best = INFINITY;
    for (int it = 0, stalled = 0;; it++) {
        if ((r = write_clip(&B, &bc)) != OSSA_OK) goto done;
        if ((r = measure(&B, bc, ctx, jerr, jworst, &e)) != OSSA_OK) goto done;
        if (B.opt.lossless || e.max_error <= target || it == MAX_ITERATIONS) break;
        /* halving tolerances that do not lower the worst error: leave it to the exact fallback */
        stalled = e.max_error < best ? 0 : stalled + 1;
        if (e.max_error < best) best = e.max_error;
        if (stalled == MAX_STALLED) break;
        memset(touched, 0, B.nch);
        for (uint32_t j = 0; j < J; j++)
            if (!(jerr[j] <= target) && (r = attribute(&B, bc, ctx, j, jworst[j], chan_of, touched)) != OSSA_OK) goto done;
        bool changed = false;
        for (uint32_t i = 0; i < B.nch; i++) {
            bchan *c = &B.ch[i];
            if (c->kind == OSSA__CH_W || c->mode == MODE_RAW || !touched[i]) continue;
            changed = true;
            if (c->half) { /* the tolerance / sqrt 2 */
                c->half = 0;
            } else {
                c->level++;
                c->half = 1;
            }
            if (c->level > MAX_LEVEL) c->mode = MODE_RAW;
            else fit(&B, c, level_tol(c));
        }
        if (!changed) break;
        ossa_built_clip_destroy(bc);
        bc = NULL;
    }
    /* The bound is a guarantee: whatever the tightening left above the target goes exact,
     * first the channels of each failing joint and its ancestors, as a last resort all of
     * them; re-measured after each step. */
    while (!B.opt.lossless && !(e.max_error <= target)) {
        bool changed = false;
        for (uint32_t j = 0; j < J; j++) {
            if (jerr[j] <= target) continue;
            for (int32_t a = (int32_t)j; a >= 0; a = skeleton->parents[a])
                for (int k = 0; k < 3; k++) {
                    int32_t ci = chan_of[(size_t)a * 3 + k];
                    if (ci >= 0 && B.ch[ci].mode != MODE_RAW) {
                        B.ch[ci].mode = MODE_RAW;
                        changed = true;
                    }
                }
        }
        for (uint32_t i = 0; !changed && i < B.nch; i++)
            if (B.ch[i].mode != MODE_RAW) {
                for (uint32_t k = i; k < B.nch; k++) B.ch[k].mode = MODE_RAW;
                changed = true;
            }
        if (!changed) break;
        ossa_built_clip_destroy(bc);
        bc = NULL;
        if ((r = write_clip(&B, &bc)) != OSSA_OK) goto done;
        if ((r = measure(&B, bc, ctx, jerr, jworst, &e)) != OSSA_OK) goto done;
    }
    if (!B.opt.lossless && e.max_error <= target) {
        /* the bound is met: drop the key-grid times no channel keeps (the samples stay the
         * same), win back what the tightening over-spent, drop the unused times again; keep
         * the result if the real measurement agrees (else the clip before the loosening) */
        compact_key_grid(&B);
        ossa_built_clip_destroy(bc);
        bc = NULL;
        if ((r = write_clip(&B, &bc)) != OSSA_OK) goto done;
        if ((r = measure(&B, bc, ctx, jerr, jworst, &e)) != OSSA_OK) goto done;
    }
    if (!B.opt.lossless && e.max_error <= target) {
        loosen(&B, target);
        compact_key_grid(&B);
        ossa_built_clip *tight = bc;
        ossa_clip_error et = e;
        bc = NULL;
        r = write_clip(&B, &bc);
        if (r == OSSA_OK) r = measure(&B, bc, ctx, jerr, jworst, &e);
        if (r != OSSA_OK || !(e.max_error <= target)) {
            ossa_built_clip_destroy(bc);
            bc = tight;
            e = et;
            if (r != OSSA_OK) goto done;
        } else {
            ossa_built_clip_destroy(tight);
        }
    }
    if (!B.opt.lossless && !(e.max_error <= B.opt.precision)) {
        /* even the exact keys miss it: float rounding of the model-space values is larger
         * than the precision asked for; say so instead of returning a clip that misses it */
        if (stats) {
            stats->max_error = e.max_error;
            stats->worst_joint = e.worst_joint;
            stats->worst_time = e.worst_time;
            stats->max_weight_error = e.max_weight_error;
        }
        r = OSSA_ERROR_LIMIT;
        goto done;
    }
    /* record what was measured in the block itself */
    ossa__bc_header *h = (ossa__bc_header *)ossa__built_clip_block(bc);
    h->raw_bytes_lo = (uint32_t)((uint64_t)raw_bytes & 0xffffffffu);
    h->raw_bytes_hi = (uint32_t)((uint64_t)raw_bytes >> 32);
    h->max_error = e.max_error;
    h->worst_joint = e.worst_joint;
    h->worst_time = e.worst_time;
    h->max_weight_error = e.max_weight_error;
    if (stats) *stats = ossa_built_clip_stats(bc);
    *out = bc;
    bc = NULL;
done:
    ossa_built_clip_destroy(bc);
    ossa_sampling_context_destroy(ctx);
    ossa__free(allocator, keybuf);
    ossa__free(allocator, model);
    ossa__free(allocator, jerr);
    ossa__free(allocator, B.X);
    ossa__free(allocator, B.got);
    ossa__free(allocator, B.err);
    ossa__free(allocator, B.V);
    ossa__free(allocator, B.save);
    ossa__free(allocator, B.points);
    ossa__free(allocator, B.exact);
    ossa__free(allocator, B.ch);
    ossa__free(allocator, B.rank);
    ossa__free(allocator, B.cand);
    ossa__free(allocator, B.grid);
    return r;
}
