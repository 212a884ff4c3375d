/* The clip builder's writer (see clip_build_internal.h): the fitted channels serialised into a
 * built clip's relocatable block (docs/built-clips.md has the layout). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ossa/pose.h>

#include "build/clip_build_internal.h"
#include "core/alloc.h"
#include "math/fast.h"

static size_t up4(size_t x) { return (x + 3u) & ~(size_t)3u; }

size_t ossa__build_raw_lanes(const build_channel *c, ossa__bc_lane *lanes, uint32_t *per_key) {
    const ossa_track *t = c->source;
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
static void lift_slots(const build_channel *c, uint32_t x, uint32_t m, uint32_t v[5]) {
    uint32_t n = c->key_count, top = (1u << c->bits[x]) - 1u, s0 = 4u * m;
    for (uint32_t j = 0; j < 5; j++)
        if (s0 + j < n) v[j] = c->quantised[(size_t)(s0 + j) * 3 + x];
    if (s0 + 4 < n) return; /* only the last block reaches past the keys */
    int64_t last = c->quantised[(size_t)(n - 1) * 3 + x], e = last;
    if (n >= 2) e += (int64_t)(s0 + 4 - (n - 1)) * (last - (int64_t)c->quantised[(size_t)(n - 2) * 3 + x]);
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
static void lift_widths(const build_channel *c, uint8_t w1[3], uint8_t w2[3]) {
    uint32_t M = ossa__lift_blocks(c->key_count);
    for (uint32_t x = 0; x < 3; x++) {
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

/* A lifted stream's widths: the residuals' (the channel's widest, ossa__bc_packed.resid) and the
 * narrow blocks' reductions (all 0: no flags). */
typedef struct lift_layout {
    uint8_t w1[3], w2[3], d1[3], d2[3];
} lift_layout;

/* Block m's slack per component x at bit 5x: how many bits narrower than w1[x] its slots 1 and
 * 3 could be (at most 7, bits 0..2) and than w2[x] its slot 2 (at most 3, bits 3..4). */
static uint32_t lift_slack(const build_channel *c, const lift_layout *L, uint32_t m) {
    uint32_t code = 0;
    for (uint32_t x = 0; x < 3; x++) {
        uint32_t v[5], wa = c->bits[x];
        int32_t r[3];
        if (!wa) continue; /* no residual bits: no slack */
        lift_slots(c, x, m, v);
        lift_residuals(v, wa, r);
        uint32_t n1 = lift_width(r[0] < 0 ? r[0] : 0, r[0] > 0 ? r[0] : 0, wa);
        uint32_t n3 = lift_width(r[2] < 0 ? r[2] : 0, r[2] > 0 ? r[2] : 0, wa);
        uint32_t n2 = lift_width(r[1] < 0 ? r[1] : 0, r[1] > 0 ? r[1] : 0, wa);
        uint32_t s1 = L->w1[x] - (n1 > n3 ? n1 : n3), s2 = L->w2[x] - n2;
        code |= ((s1 < 7u ? s1 : 7u) | (s2 < 3u ? s2 : 3u) << 3) << (5 * x);
    }
    return code;
}

/* Whether a block of slack `code` fits the reductions d1, d2 (its residuals take their narrow widths). */
static bool lift_fits(uint32_t code, const uint8_t d1[3], const uint8_t d2[3]) {
    for (int x = 0; x < 3; x++) {
        uint32_t k = code >> (5 * x);
        if ((k & 7u) < d1[x] || ((k >> 3) & 3u) < d2[x]) return false;
    }
    return true;
}

/* Bits of the residual fields and flags of M blocks of slack codes under L's reductions (the
 * codes in `codes`, or, when NULL, computed again per block). */
#define LIFT_SLACK_STACK 512u
static uint64_t lift_cost(const build_channel *c, const lift_layout *L, uint32_t M, const uint16_t *codes) {
    uint32_t N = 0, W = 0;
    bool flagged = false;
    for (int x = 0; x < 3; x++) {
        W += 2u * L->w1[x] + L->w2[x];
        N += 2u * (uint32_t)(L->w1[x] - L->d1[x]) + (uint32_t)(L->w2[x] - L->d2[x]);
        flagged = flagged || L->d1[x] || L->d2[x];
    }
    if (!flagged) return (uint64_t)M * W;
    uint64_t bits = M;
    for (uint32_t m = 0; m < M; m++) bits += lift_fits(codes ? codes[m] : lift_slack(c, L, m), L->d1, L->d2) ? N : W;
    return bits;
}

/* Packed channel c's lifted layout: the residual widths (lift_widths), then the narrow blocks'
 * reductions by coordinate descent on the stream's bits (each of the six reductions in turn
 * set to its best value, d1 0..7 and d2 0..3 within the widths, until a round changes
 * nothing), from none. */
static void lift_layout_of(const build_channel *c, lift_layout *L) {
    memset(L, 0, sizeof *L);
    lift_widths(c, L->w1, L->w2);
    uint32_t M = ossa__lift_blocks(c->key_count);
    uint16_t stack[LIFT_SLACK_STACK], *codes = M <= LIFT_SLACK_STACK ? stack : NULL;
    for (uint32_t m = 0; codes && m < M; m++) codes[m] = (uint16_t)lift_slack(c, L, m);
    uint64_t best = lift_cost(c, L, M, codes);
    for (bool changed = true; changed;) {
        changed = false;
        for (int v = 0; v < 6; v++) {
            uint8_t *d = v < 3 ? &L->d1[v % 3] : &L->d2[v % 3], keep = *d;
            uint32_t w = v < 3 ? L->w1[v % 3] : L->w2[v % 3], top = v < 3 ? 7u : 3u;
            for (uint32_t k = 0; k <= (w < top ? w : top); k++) {
                *d = (uint8_t)k;
                uint64_t cost = lift_cost(c, L, M, codes);
                if (cost < best) best = cost, keep = (uint8_t)k, changed = true;
            }
            *d = keep;
        }
    }
}

/* The record's widths and residual words of channel c under layout L. */
static void lift_record(const build_channel *c, const lift_layout *L, ossa__bc_packed *p) {
    p->widths = ossa__pk_widths(c->bits, c->dropped) | ossa__pk_narrow(L->d1, L->d2);
    p->resid = ossa__pk_resid(L->w1, L->w2);
}

/* Packed channel c's stream bits under layout L. */
static uint64_t lift_bits(const build_channel *c, const lift_layout *L) {
    ossa__bc_packed p = {0};
    lift_record(c, L, &p);
    uint32_t M = ossa__lift_blocks(c->key_count), wide = 0;
    bool flagged = ossa__pk_flagged(&p);
    for (uint32_t m = 0; flagged && m < M; m++) wide += !lift_fits(lift_slack(c, L, m), L->d1, L->d2);
    return ossa__lift_bits_with(&p, c->key_count, wide);
}

uint64_t ossa__build_stream_bits(const build_channel *c) {
    lift_layout L;
    lift_layout_of(c, &L);
    return lift_bits(c, &L);
}

/* Writes packed channel c's lifted value stream at s (zeroed) under layout L: the flags (a
 * flagged channel), then each block's anchors and residuals in its narrow or wide widths, then
 * the final anchor. */
static void put_stream(unsigned char *s, const build_channel *c, const lift_layout *L) {
    uint32_t M = ossa__lift_blocks(c->key_count), v[3][5];
    bool flagged = false;
    for (int x = 0; x < 3; x++) flagged = flagged || L->d1[x] || L->d2[x];
    uint64_t pos = flagged ? M : 0u;
    for (uint32_t m = 0; m <= M; m++) {
        for (uint32_t x = 0; x < 3; x++) lift_slots(c, x, m < M ? m : M - 1u, v[x]);
        if (m == M) { /* the final anchor */
            for (int x = 0; x < 3; x++) {
                put_bits(s, pos, v[x][4], c->bits[x]);
                pos += c->bits[x];
            }
            break;
        }
        bool wide = flagged && !lift_fits(lift_slack(c, L, m), L->d1, L->d2);
        if (wide) put_bits(s, m, 1u, 1u);
        int32_t r[3][3];
        for (int x = 0; x < 3; x++) lift_residuals(v[x], c->bits[x], r[x]);
        for (int x = 0; x < 3; x++) {
            put_bits(s, pos, v[x][0], c->bits[x]);
            pos += c->bits[x];
        }
        for (int slot = 0; slot < 3; slot++)
            for (int x = 0; x < 3; x++) {
                uint32_t w = slot == 1 ? L->w2[x] - (wide ? 0u : L->d2[x]) : L->w1[x] - (wide ? 0u : L->d1[x]);
                put_bits(s, pos, (uint32_t)(r[x][slot] + (int32_t)ossa__lift_bias(w)) & ((1u << c->bits[x]) - 1u), w);
                pos += w;
            }
    }
}

static int cmp_packed_order(const build_channel *a, const build_channel *b) {
    int ra = a->kind == OSSA__CH_R ? 0 : 1, rb = b->kind == OSSA__CH_R ? 0 : 1;
    if (ra != rb) return ra - rb;
    if (a->target != b->target) return a->target < b->target ? -1 : 1;
    return (int)a->kind - (int)b->kind;
}

/* The key grid as ticks (OSSA__BC_FLAG_GRID_TICKS, ossa__grid_decode) when that is smaller
 * than its floats: the lattice step is the grid's span over its whole number of smallest gaps
 * (the quarter source intervals on a uniformly keyed clip), a time's tick its offset from the
 * start in steps, rounded, and its correction the difference of its ordered bits from the
 * lattice time's: exact by construction, whatever the source key times. */
typedef struct grid_coding {
    bool ticks;
    float step;
    uint32_t last_tick, order;
    uint64_t bits;  /* of the corrections */
    size_t bytes;   /* of the section, a multiple of 4 */
} grid_coding;

/* What the writer plans before it allocates the block: the channels' order and grouping, the
 * shared key masks and clocks, and the offset of every section (docs/built-clips.md). */
typedef struct write_plan {
    uint32_t *packed_order;          /* packed_count channel indices: rotations, then T/S, by joint */
    uint32_t *raw_order;             /* raw_count channel indices: rotations first */
    uint32_t *clock_of;              /* per raw channel (raw_order): its clock */
    uint32_t *mask_of;               /* per packed channel (packed_order): its key mask */
    uint32_t packed_count, rotation_count, raw_count, clock_count, mask_count;
    uint32_t base_count, base_rotation_count; /* folded channels off the rest pose, rotations */
    uint32_t key_grid_count;         /* key-grid times stored (0 without packed channels) */
    grid_coding grid;                /* how the key grid is stored (plan_grid_coding) */
    uint32_t mask_bytes;             /* bytes of one key mask */
    unsigned char *masks;            /* mask_count masks (+ 8 bytes: the rank reads 8-byte windows) */
    const ossa_track **clock_source; /* clock_count: the track whose key times each clock stores */
    const char *name;
    size_t name_len;
    /* byte offsets in the block, and its size */
    size_t name_off, base_off, clock_off, raw_off, packed_off, wtrack_off, grid_off, times_off, values_off,
        mask_off, stream_off, size;
} write_plan;

static void free_plan(const builder *B, write_plan *P) {
    ossa__free(B->allocator, P->masks);
    ossa__free(B->allocator, P->clock_source);
    ossa__free(B->allocator, P->packed_order);
}

static uint32_t zigzag_u32(int64_t c) { return c >= 0 ? (uint32_t)(2 * c) : (uint32_t)(-2 * c - 1); }

/* Bits of value z in the Exp-Golomb code of order k. */
static uint32_t exp_golomb_bits(uint32_t z, uint32_t k) {
    uint64_t v = (uint64_t)z + ((uint64_t)1 << k);
    uint32_t n = 0;
    while (v >> n) n++;
    return 2u * n - 1u - k;
}

static float key_grid_time(const builder *B, uint32_t k) { return B->grid_times[B->key_grid[k]]; }

/* Key-grid time k's tick (its offset from the start in steps, rounded). */
static uint32_t grid_tick(const builder *B, const grid_coding *g, uint32_t k) {
    return (uint32_t)llround(((double)key_grid_time(B, k) - (double)B->clip->start) / (double)g->step);
}

/* Key-grid time k's signed correction from the lattice time of its tick. */
static int64_t grid_correction(const builder *B, const grid_coding *g, uint32_t k, uint32_t tick) {
    float lattice = ossa__grid_predict(B->clip->start, tick, g->step);
    return (int64_t)ossa__float_ord(key_grid_time(B, k)) - (int64_t)ossa__float_ord(lattice);
}

/* The lattice: its step (the span over its whole number of smallest gaps) and last tick;
 * false when the ticks would not be strictly increasing or reach 2^28. */
static bool plan_grid_lattice(const builder *B, uint32_t G, grid_coding *g) {
    double start = B->clip->start, span = (double)key_grid_time(B, G - 1) - start, gap = span;
    for (uint32_t k = 1; k < G; k++) {
        double d = (double)key_grid_time(B, k) - (double)key_grid_time(B, k - 1);
        gap = d < gap ? d : gap;
    }
    if (!(gap > 0.0) || !(span / gap < (double)(1u << 28))) return false;
    g->step = (float)(span / (double)llround(span / gap));
    if (!(g->step > 0.0f) || !isfinite(g->step) || !(span / (double)g->step < (double)(1u << 28))) return false;
    for (uint32_t k = 1; k < G; k++)
        if (grid_tick(B, g, k) <= grid_tick(B, g, k - 1)) return false;
    g->last_tick = grid_tick(B, g, G - 1);
    return grid_tick(B, g, 0) == 0;
}

/* Plans the key grid's coding: ticks when every correction fits 2^24 ulps and the section
 * is smaller than the floats, the Exp-Golomb order (0..15) that codes them in the fewest bits. */
static void plan_grid_coding(const builder *B, write_plan *P) {
    grid_coding *g = &P->grid;
    uint32_t G = P->key_grid_count;
    memset(g, 0, sizeof *g);
    g->bytes = (size_t)G * sizeof(float);
    if (G < 2 || key_grid_time(B, 0) != B->clip->start || !plan_grid_lattice(B, G, g)) return;
    uint64_t bits[16] = {0};
    for (uint32_t k = 0; k < G; k++) {
        uint32_t tick = grid_tick(B, g, k);
        int64_t c = grid_correction(B, g, k, tick);
        if (c > (1 << 24) || c < -(1 << 24) || !isfinite(ossa__grid_predict(B->clip->start, tick, g->step))) return;
        for (uint32_t o = 0; o < 16; o++) bits[o] += exp_golomb_bits(zigzag_u32(c), o);
    }
    for (uint32_t o = 1; o < 16; o++)
        if (bits[o] < bits[g->order]) g->order = o;
    g->bits = bits[g->order];
    size_t bytes = up4(((size_t)g->last_tick + 8u) / 8u + (size_t)((g->bits + 7u) / 8u));
    if (g->bits > OSSA__GRID_CODE_BITS || bytes >= g->bytes) return;
    g->ticks = true;
    g->bytes = bytes;
}

/* Writes value z in the Exp-Golomb code of order k at bit pos of p (zeroed); the bits written. */
static uint32_t put_exp_golomb(unsigned char *p, uint64_t pos, uint32_t z, uint32_t k) {
    uint64_t v = (uint64_t)z + ((uint64_t)1 << k);
    uint32_t n = 0;
    while (v >> n) n++;
    uint32_t zeros = n - 1u - k;
    for (uint32_t i = 0; i < n; i++) put_bits(p, pos + zeros + i, (uint32_t)(v >> (n - 1u - i)) & 1u, 1);
    return zeros + n;
}

/* The key grid section: floats, or the tick bits then the corrections. */
static void write_grid(const builder *B, const write_plan *P, unsigned char *b) {
    const grid_coding *g = &P->grid;
    if (!g->ticks) {
        for (uint32_t k = 0; k < P->key_grid_count; k++) ((float *)(b + P->grid_off))[k] = key_grid_time(B, k);
        return;
    }
    unsigned char *ticks = b + P->grid_off, *corrections = ticks + ((size_t)g->last_tick + 8u) / 8u;
    uint64_t pos = 0;
    for (uint32_t k = 0; k < P->key_grid_count; k++) {
        uint32_t tick = grid_tick(B, g, k);
        put_bits(ticks, tick, 1u, 1);
        pos += put_exp_golomb(corrections, pos, zigzag_u32(grid_correction(B, g, k, tick)), g->order);
    }
}

/* The packed channels in stored order: rotations first, then T/S, each by joint (insertion
 * sort: few channels). LIMIT for a joint past ossa__bc_packed.joint's 16 bits. */
static ossa_result plan_packed_order(const builder *B, write_plan *P) {
    uint32_t *order = P->packed_order;
    for (uint32_t i = 0; i < B->channel_count; i++) {
        if (B->channels[i].mode != MODE_PACKED) continue;
        uint32_t k = P->packed_count++;
        while (k > 0 && cmp_packed_order(&B->channels[i], &B->channels[order[k - 1]]) < 0) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = i;
        if (B->channels[i].kind == OSSA__CH_R) P->rotation_count++;
        if (B->channels[i].target > 0xFFFFu) return OSSA_ERROR_LIMIT; /* ossa__bc_packed.joint is 16 bits */
    }
    return OSSA_OK;
}

/* The packed channels' key masks over the key grid, equal ones stored once. LIMIT past
 * ossa__bc_packed.mask's 16 bits. */
static ossa_result plan_key_masks(const builder *B, write_plan *P) {
    P->key_grid_count = P->packed_count ? B->key_grid_count : 0;
    uint32_t mb = P->mask_bytes = (P->key_grid_count + 7) / 8;
    size_t bytes = (size_t)P->packed_count * mb + 8; /* + 8: the rank reads 8-byte windows */
    P->masks = ossa__alloc_array(B->allocator, bytes, 1);
    if (!P->masks) return OSSA_ERROR_OUT_OF_MEMORY;
    memset(P->masks, 0, bytes);
    for (uint32_t k = 0; k < P->packed_count; k++) {
        const build_channel *c = &B->channels[P->packed_order[k]];
        unsigned char *m = P->masks + (size_t)P->mask_count * mb;
        for (uint32_t i = 0; i < c->key_count; i++) put_bits(m, c->keys[i], 1u, 1);
        uint32_t e = 0;
        while (e < P->mask_count && memcmp(P->masks + (size_t)e * mb, m, mb)) e++;
        if (e == P->mask_count) P->mask_count++;
        else memset(m, 0, mb);
        P->mask_of[k] = e;
    }
    if (P->mask_count > 0xFFFFu) return OSSA_ERROR_LIMIT; /* ossa__bc_packed.mask is 16 bits */
    return OSSA_OK;
}

/* The raw channels in stored order (rotations first: the sampler's slerp kernel runs over the
 * leading rotation channels) and their clocks (identical key-time arrays are stored once). */
static ossa_result plan_raw_clocks(const builder *B, write_plan *P) {
    uint32_t nch = B->channel_count;
    P->clock_source = ossa__alloc_array(B->allocator, (size_t)nch + 1, sizeof(*P->clock_source));
    if (!P->clock_source) return OSSA_ERROR_OUT_OF_MEMORY;
    for (uint32_t j = 0; j < 2 * nch; j++) {
        uint32_t i = j % nch;
        const ossa_track *t = B->channels[i].source;
        if (B->channels[i].mode != MODE_RAW || (B->channels[i].kind == OSSA__CH_R) != (j < nch)) continue;
        uint32_t k = 0;
        while (k < P->clock_count &&
               !(P->clock_source[k]->key_count == t->key_count &&
                 !memcmp(P->clock_source[k]->times, t->times, t->key_count * sizeof(float))))
            k++;
        if (k == P->clock_count) P->clock_source[P->clock_count++] = t;
        P->clock_of[P->raw_count] = k;
        P->raw_order[P->raw_count++] = i;
    }
    return OSSA_OK;
}

/* Whether folded T/R/S channel c goes into the sparse base pose: its value differs from the
 * rest pose's bit for bit. */
static bool in_base_pose(const builder *B, const build_channel *c) {
    if (c->mode != MODE_FOLD || c->kind == OSSA__CH_W) return false;
    ossa_transform rest = B->skeleton->rest[c->target];
    return memcmp(field(&rest, c->kind), c->fold_value, (c->kind == OSSA__CH_R ? 4 : 3) * sizeof(float)) != 0;
}

/* The offset of every section and the block's size, in the order docs/built-clips.md gives. */
static void plan_layout(const builder *B, write_plan *P) {
    P->name = B->clip->name ? B->clip->name : "";
    P->name_len = strlen(P->name);
    /* the sparse base pose: folded channels that differ from the rest pose bit for bit */
    for (uint32_t i = 0; i < B->channel_count; i++) {
        if (!in_base_pose(B, &B->channels[i])) continue;
        P->base_count++;
        P->base_rotation_count += B->channels[i].kind == OSSA__CH_R;
    }
    uint32_t nbase = P->base_count, nbrot = P->base_rotation_count;
    size_t off = sizeof(ossa__bc_header);
    P->name_off = off;
    off = up4(off + P->name_len + 1);
    P->base_off = off;
    off += ((size_t)nbase + 4u * nbrot + 3u * (nbase - nbrot)) * sizeof(float);
    P->clock_off = off;
    off += (size_t)P->clock_count * sizeof(ossa__bc_clock);
    P->raw_off = off;
    off += (size_t)P->raw_count * sizeof(ossa__bc_raw);
    P->packed_off = off;
    off += (size_t)P->packed_count * sizeof(ossa__bc_packed);
    P->wtrack_off = off;
    off += (size_t)B->clip->weight_track_count * sizeof(ossa__bc_wtrack);
    P->grid_off = off;
    plan_grid_coding(B, P);
    off += P->grid.bytes;
    P->times_off = off;
    for (uint32_t k = 0; k < P->clock_count; k++) off += (size_t)P->clock_source[k]->key_count * sizeof(float);
    P->values_off = off;
    for (uint32_t k = 0; k < P->raw_count; k++) {
        ossa__bc_lane lanes[12];
        uint32_t per;
        const build_channel *c = &B->channels[P->raw_order[k]];
        size_t packed = ossa__build_raw_lanes(c, lanes, &per);
        off += packed ? packed : track_floats(c->source) * sizeof(float);
    }
    P->mask_off = off;
    off = up4(off + (size_t)P->mask_count * P->mask_bytes);
    P->stream_off = off;
    for (uint32_t k = 0; k < P->packed_count; k++) /* byte-aligned */
        off += (ossa__build_stream_bits(&B->channels[P->packed_order[k]]) + 7) / 8;
    P->size = up4(off) + OSSA__BC_PAD;
}

/* The header: counts, offsets, options, the reference's hash. */
static void write_header(const builder *B, const write_plan *P, ossa__bc_header *h) {
    const ossa_clip *clip = B->clip;
    uint32_t J = B->joint_count;
    h->magic = OSSA__BC_MAGIC;
    h->version = OSSA__BC_VERSION;
    h->size = (uint32_t)P->size;
    h->flags = (B->options.lossless ? OSSA__BC_FLAG_LOSSLESS : 0u) | (clip->looping ? OSSA__BC_FLAG_LOOPING : 0u);
    h->start = clip->start;
    h->end = clip->end;
    h->joint_count = J;
    for (uint32_t i = 0; i < clip->track_count; i++)
        if (clip->tracks[i].joint < J) h->track_count++;
    h->weight_track_count = clip->weight_track_count;
    h->clock_count = P->clock_count;
    h->raw_count = P->raw_count;
    h->packed_count = P->packed_count;
    h->rot_count = P->rotation_count;
    h->grid_count = P->key_grid_count;
    h->name_off = (uint32_t)P->name_off;
    h->name_len = (uint32_t)P->name_len;
    h->base_off = (uint32_t)P->base_off;
    h->clock_off = (uint32_t)P->clock_off;
    h->raw_off = (uint32_t)P->raw_off;
    h->packed_off = (uint32_t)P->packed_off;
    h->wtrack_off = (uint32_t)P->wtrack_off;
    h->grid_off = (uint32_t)P->grid_off;
    h->mask_count = P->mask_count;
    h->mask_off = (uint32_t)P->mask_off;
    h->stream_off = (uint32_t)P->stream_off;
    if (P->grid.ticks) {
        h->flags |= OSSA__BC_FLAG_GRID_TICKS;
        h->grid_step = P->grid.step;
        h->grid_ticks = P->grid.last_tick;
        h->grid_code = (uint32_t)P->grid.bits | P->grid.order << 28;
    }
    h->precision = B->options.precision;
    h->shell_distance = B->options.shell_distance;
    h->weight_precision = B->options.weight_precision;
    uint64_t ref_hash = ossa__reference_hash(B->skeleton->rest, J);
    h->ref_hash_lo = (uint32_t)ref_hash;
    h->ref_hash_hi = (uint32_t)(ref_hash >> 32);
    h->base_count = P->base_count;
    h->base_rot_count = P->base_rotation_count;
}

/* The sparse base pose: codes (joint << 2 | kind), then the values; rotations first, then
 * translations and scales (channels come by joint, T R S: each group's codes increase). */
static void write_base_pose(const builder *B, const write_plan *P, unsigned char *b) {
    uint32_t *codes = (uint32_t *)(b + P->base_off);
    float *values = (float *)(codes + P->base_count);
    for (int pass = 0, k = 0; pass < 2; pass++) /* rotations, then translations and scales */
        for (uint32_t i = 0; i < B->channel_count; i++) {
            const build_channel *c = &B->channels[i];
            if ((c->kind == OSSA__CH_R) != (pass == 0) || !in_base_pose(B, c)) continue;
            uint32_t n = c->kind == OSSA__CH_R ? 4 : 3;
            codes[k++] = c->target << 2 | c->kind;
            memcpy(values, c->fold_value, n * sizeof(float));
            values += n;
        }
}

/* The clocks' table and their key times. */
static void write_clocks(const write_plan *P, unsigned char *b) {
    ossa__bc_clock *clocks = (ossa__bc_clock *)(b + P->clock_off);
    size_t cur = P->times_off;
    for (uint32_t k = 0; k < P->clock_count; k++) {
        const ossa_track *t = P->clock_source[k];
        clocks[k].key_count = t->key_count;
        clocks[k].times_off = (uint32_t)cur;
        memcpy(b + cur, t->times, t->key_count * sizeof(float));
        cur += t->key_count * sizeof(float);
    }
}

/* The weight tracks' table (each track's raw channel is set by write_raw_channels). */
static void write_weight_tracks(const builder *B, const write_plan *P, unsigned char *b, ossa__bc_header *h) {
    const ossa_clip *clip = B->clip;
    ossa__bc_wtrack *wt = (ossa__bc_wtrack *)(b + P->wtrack_off);
    uint32_t woff = 0;
    for (uint32_t i = 0; i < clip->weight_track_count; i++) {
        wt[i].joint = clip->weight_tracks[i].joint;
        wt[i].components = clip->weight_tracks[i].weights.components;
        wt[i].offset = woff;
        wt[i].raw = UINT32_MAX;
        woff += wt[i].components;
    }
    h->weight_count = woff;
}

/* Raw channel c's values at b + cur: T/R/S packed per float lane (lane table, then per key its
 * lanes' fields), weights as plain floats. The bytes written. */
static size_t write_raw_values(const build_channel *c, unsigned char *b, size_t cur, ossa__bc_raw *raw) {
    const ossa_track *src = c->source;
    ossa__bc_lane lanes[12];
    uint32_t per = 0, n = src->components * (src->interp == OSSA_INTERP_CUBIC ? 3u : 1u);
    size_t packed = ossa__build_raw_lanes(c, lanes, &per);
    if (!packed) {
        raw->values_off = (uint32_t)cur;
        memcpy(b + cur, src->values, track_floats(src) * sizeof(float));
        return track_floats(src) * sizeof(float);
    }
    raw->lanes_off = (uint32_t)cur;
    memcpy(b + cur, lanes, n * sizeof(ossa__bc_lane));
    cur += n * sizeof(ossa__bc_lane);
    raw->values_off = (uint32_t)cur;
    uint64_t pos = 0;
    for (uint32_t i = 0; i < src->key_count; i++)
        for (uint32_t l = 0; l < n; l++) {
            put_bits(b + cur, pos, ossa__float_ord(src->values[(size_t)i * n + l]) - lanes[l].base, lanes[l].bits);
            pos += lanes[l].bits;
        }
    return packed;
}

/* The raw channels' table and values. */
static void write_raw_channels(const builder *B, const write_plan *P, unsigned char *b) {
    ossa__bc_wtrack *wt = (ossa__bc_wtrack *)(b + P->wtrack_off);
    ossa__bc_raw *raw = (ossa__bc_raw *)(b + P->raw_off);
    size_t cur = P->values_off;
    for (uint32_t k = 0; k < P->raw_count; k++) {
        const build_channel *c = &B->channels[P->raw_order[k]];
        raw[k].target = c->target;
        raw[k].kind = c->kind;
        raw[k].interp = (uint8_t)c->source->interp;
        raw[k].components = (uint16_t)c->source->components;
        raw[k].clock = P->clock_of[k];
        cur += write_raw_values(c, b, cur, &raw[k]);
        if (c->kind == OSSA__CH_W) wt[c->target].raw = k;
    }
}

/* The packed channels' table and their lifted value streams. */
static void write_packed_channels(const builder *B, const write_plan *P, unsigned char *b) {
    ossa__bc_packed *pk = (ossa__bc_packed *)(b + P->packed_off);
    size_t cur = P->stream_off;
    for (uint32_t k = 0; k < P->packed_count; k++) {
        const build_channel *c = &B->channels[P->packed_order[k]];
        ossa__bc_packed *p = &pk[k];
        p->joint = (uint16_t)c->target;
        p->kind = c->kind;
        p->interp = c->interp;
        lift_layout L;
        lift_layout_of(c, &L);
        lift_record(c, &L, p);
        p->mask = (uint16_t)P->mask_of[k];
        memcpy(p->min, c->range_min, sizeof p->min);
        for (int x = 0; x < 3; x++) p->step[x] = ossa__step_bits(c->step[x]); /* exact: qstep's value */
        put_stream(b + cur, c, &L);
        cur += (lift_bits(c, &L) + 7) / 8;
    }
}

/* The key masks and the key grid (write_grid). */
static void write_masks_and_grid(const builder *B, const write_plan *P, unsigned char *b) {
    memcpy(b + P->mask_off, P->masks, (size_t)P->mask_count * P->mask_bytes);
    write_grid(B, P, b);
}

/* Plans the block (write_plan): orders, masks, clocks, offsets. */
static ossa_result plan_block(const builder *B, write_plan *P) {
    uint32_t nch = B->channel_count;
    P->packed_order = ossa__alloc_array(B->allocator, (size_t)nch * 4 + 1, sizeof(uint32_t));
    if (!P->packed_order) return OSSA_ERROR_OUT_OF_MEMORY;
    P->raw_order = P->packed_order + nch;
    P->clock_of = P->raw_order + nch;
    P->mask_of = P->clock_of + nch;
    ossa_result r = plan_packed_order(B, P);
    if (r == OSSA_OK) r = plan_key_masks(B, P);
    if (r == OSSA_OK) r = plan_raw_clocks(B, P);
    if (r == OSSA_OK) plan_layout(B, P);
    return r;
}

ossa_result ossa__build_write(builder *B, ossa_built_clip **out) {
    write_plan P;
    memset(&P, 0, sizeof P);
    ossa_result r = plan_block(B, &P);
    ossa_built_clip *bc = NULL;
    if (r == OSSA_OK) {
        bc = P.size > UINT32_MAX ? NULL : ossa__built_clip_alloc(B->allocator, NULL, P.size);
        if (!bc) r = P.size > UINT32_MAX ? OSSA_ERROR_LIMIT : OSSA_ERROR_OUT_OF_MEMORY;
    }
    if (r != OSSA_OK) {
        free_plan(B, &P);
        return r;
    }
    unsigned char *b = ossa__built_clip_block(bc);
    ossa__bc_header *h = (ossa__bc_header *)b;
    write_header(B, &P, h);
    memcpy(b + P.name_off, P.name, P.name_len);
    write_base_pose(B, &P, b);
    write_clocks(&P, b);
    write_weight_tracks(B, &P, b, h);
    write_raw_channels(B, &P, b);
    write_packed_channels(B, &P, b);
    write_masks_and_grid(B, &P, b);
    free_plan(B, &P);
    if ((r = ossa__built_clip_bind(bc, b)) != OSSA_OK) {
        ossa_built_clip_destroy(bc);
        return r;
    }
    *out = bc;
    return OSSA_OK;
}
