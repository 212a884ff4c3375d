/* The clip builder's writer (see clip_build_internal.h): the fitted channels serialised into a
 * built clip's relocatable block (docs/built-clips.md has the layout). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ossa/pose.h>

#include "anim/clip_build_internal.h"
#include "core/alloc.h"
#include "math/fast.h"

static size_t up4(size_t x) { return (x + 3u) & ~(size_t)3u; }

size_t ossa__build_raw_lanes(const bchan *c, ossa__bc_lane *lanes, uint32_t *per_key) {
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
        if (s0 + j < n) v[j] = c->q[(size_t)(s0 + j) * 3 + (size_t)x];
    if (s0 + 4 < n) return; /* only the last block reaches past the keys */
    int64_t last = c->q[(size_t)(n - 1) * 3 + (size_t)x], e = last;
    if (n >= 2) e += (int64_t)(s0 + 4 - (n - 1)) * (last - (int64_t)c->q[(size_t)(n - 2) * 3 + (size_t)x]);
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

uint64_t ossa__build_stream_bits(const bchan *c) {
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

ossa_result ossa__build_write(builder *B, ossa_built_clip **out) {
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
        size_t packed = ossa__build_raw_lanes(&B->ch[raw_idx[k]], lanes, &per);
        off += packed ? packed : track_floats(B->ch[raw_idx[k]].src) * sizeof(float);
    }
    size_t o_mask = off;
    off = up4(off + (size_t)nmask * (sizeof(uint32_t) + mb));
    size_t o_bits = off;
    for (uint32_t k = 0; k < npk; k++) off += (ossa__build_stream_bits(&B->ch[order[k]]) + 7) / 8; /* byte-aligned */
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
        size_t packed = ossa__build_raw_lanes(c, lanes, &per);
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

