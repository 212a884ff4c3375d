/* The sampling plan of a built clip (see sample_internal.h): the tables the sampling job reads
 * that depend on the clip alone, made once when the clip is bound and shared by every context,
 * so a playing instance keeps only its own cursors and decoded keys. */
#include <math.h>
#include <string.h>

#include "anim/sample_internal.h"
#include "core/alloc.h"

/* Offsets of the plan's parts in its one allocation. */
typedef struct plan_layout {
    ossa__layout L;
    size_t plan, mfirst, mch, poff, lbk, lto, lbt, lfo, lfm, pdst, pka, pmask, pstep, pf, rcached, clocks, fill, lanes, rdst, vdst, rstep, vstep, grid, mkeys, rdir;
} plan_layout;

/* The raw caches' capacities: rotation slots, vector slots and unpack-table lanes (each without
 * the kernels' spare entries). A context holds at most J rotations, 2 J vectors and 10 J lanes
 * (plan_raw_clocks), and the clip's n raw channels need at most n slots and 4 n lanes: the
 * smaller, so the plan grows with the file, never with a header's joint count alone. */
static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }
static size_t rotation_cap(const ossa__bc_header *h) { return min_size(h->joint_count, h->raw_count); }
static size_t vector_cap(const ossa__bc_header *h) { return min_size(2u * (size_t)h->joint_count, h->raw_count); }
static size_t lane_cap(const ossa__bc_header *h) {
    return min_size(10u * (size_t)h->joint_count, 4u * (size_t)h->raw_count);
}

/* 64-bit words of a key mask: entries of its rank directory. */
static size_t rdir_words(const ossa__bc_header *h) { return ((size_t)h->grid_count + 63u) / 64u; }

static plan_layout plan_measure(const ossa__bc_header *h, size_t block_entries) {
    const size_t S = OSSA__LERP_SLACK, P = h->packed_count, M = h->mask_count, C = h->clock_count;
    const size_t NR = rotation_cap(h), NV = vector_cap(h), LN = lane_cap(h) + S;
    plan_layout p;
    memset(&p, 0, sizeof p);
    p.plan = ossa__layout_add(&p.L, 1, sizeof(ossa__sample_plan));
    p.mfirst = ossa__layout_add(&p.L, M + 1, sizeof(uint32_t));
    p.mch = ossa__layout_add(&p.L, P, sizeof(uint32_t));
    p.poff = ossa__layout_add(&p.L, P, sizeof(uint32_t));
    p.lbk = ossa__layout_add(&p.L, P, sizeof(uint32_t));
    p.lto = ossa__layout_add(&p.L, P, sizeof(uint32_t));
    p.lbt = ossa__layout_add(&p.L, block_entries, sizeof(uint32_t));
    p.lfo = ossa__layout_add(&p.L, P * 32u, sizeof(uint32_t));
    p.lfm = ossa__layout_add(&p.L, P * 32u, sizeof(uint32_t));
    p.pdst = ossa__layout_add(&p.L, P + S, sizeof(uint32_t));
    p.pka = ossa__layout_add(&p.L, (P + S) * 2u, sizeof(uint32_t));
    p.pmask = ossa__layout_add(&p.L, P, sizeof(uint32_t));
    p.pstep = ossa__layout_add(&p.L, P, 1);
    p.pf = ossa__layout_add(&p.L, (P + S) * 7u, sizeof(float)); /* pdrop, mn[3], st[3] */
    p.rcached = ossa__layout_add(&p.L, h->raw_count, 1);
    p.clocks = ossa__layout_add(&p.L, C * 5u, sizeof(uint32_t));
    p.fill = ossa__layout_add(&p.L, C * 2u, sizeof(uint32_t));
    p.lanes = ossa__layout_add(&p.L, LN * 3u, sizeof(uint32_t));
    p.rdst = ossa__layout_add(&p.L, NR + S, sizeof(uint32_t));
    p.vdst = ossa__layout_add(&p.L, NV + S, sizeof(uint32_t));
    p.rstep = ossa__layout_add(&p.L, NR + S, 1);
    p.vstep = ossa__layout_add(&p.L, NV + S, 1);
    p.grid = ossa__layout_add(&p.L, (size_t)h->grid_count + 1u, sizeof(float)); /* grid_count < UINT32_MAX (validated) */
    p.mkeys = ossa__layout_add(&p.L, M, sizeof(uint32_t));
    p.rdir = ossa__layout_add(&p.L, M * rdir_words(h), sizeof(uint32_t)); /* <= the masks' bytes / 2 + 4 a mask */
    return p;
}

/* The flagged channels' block table entries, one per block (ossa__lift_soa), from the masks'
 * key counts (keys: mask_count entries). Each flagged
 * stream holds its M flag bits inside the block the loader validated, so they are at most
 * 8 size; OSSA_ERROR_LIMIT when a flagged stream reaches 2^31 bits (a 256 MB channel: its
 * entries' bits would not fit below OSSA__LIFT_WIDE). */
static ossa_result plan_block_entries(const ossa_built_clip *clip, const uint32_t *keys, size_t *entries) {
    const ossa__bc_header *h = clip->h;
    uint64_t off = h->stream_off, count = 0;
    ossa_result r = OSSA_OK;
    for (uint32_t i = 0; i < h->packed_count && r == OSSA_OK; i++) {
        const ossa__bc_packed *p = &clip->packed[i];
        uint64_t bits = ossa__lift_stream_bits(p, keys[p->mask], clip->base + off);
        off += (bits + 7u) / 8u;
        if (!ossa__pk_flagged(p)) continue;
        if (bits >= OSSA__LIFT_WIDE) r = OSSA_ERROR_LIMIT;
        count += ossa__lift_blocks(keys[p->mask]);
    }
    if (r != OSSA_OK) return r;
    if (count > 8u * (uint64_t)h->size || count >= OSSA__LIFT_COMPUTED) return OSSA_ERROR_INVALID_DATA; /* the loader's bounds */
    *entries = (size_t)count;
    return OSSA_OK;
}

/* Grouped packed channel g's (packed channel p of n keys, stream s) lift tables: block bits,
 * the narrow and wide blocks' field tables and, flagged, its block table at lbt + *next (each
 * block's first bit after the flags and the blocks before it, and its flag as the wide bit;
 * *next moves past it). */
static void plan_lift_tables(ossa__sample_plan *pl, const ossa__bc_packed *p, uint32_t g, uint32_t n, const unsigned char *s,
                             uint32_t *next) {
    size_t t = (size_t)g * 32u;
    uint32_t narrow = ossa__lift_table(p, 0, pl->lfo + t, pl->lfm + t);
    uint32_t wide = ossa__lift_table(p, 1, pl->lfo + t + 16u, pl->lfm + t + 16u);
    pl->lbk[g] = narrow;
    pl->lto[g] = OSSA__LIFT_COMPUTED;
    if (!ossa__pk_flagged(p)) return;
    uint32_t M = ossa__lift_blocks(n), pos = M, *entry = pl->lbt + *next; /* pos < 2^31: plan_block_entries */
    pl->lto[g] = *next;
    *next += M;
    for (uint32_t k = 0; k < M; k++) {
        uint32_t flag = ((unsigned)s[k >> 3] >> (k & 7u)) & 1u;
        entry[k] = pos | (flag ? OSSA__LIFT_WIDE : 0u);
        pos += flag ? wide : narrow;
    }
}

/* Each key mask's key count (mask_keys: mask_count entries), counted once per clip. */
static void count_mask_keys(const ossa_built_clip *clip, uint32_t *mask_keys) {
    const ossa__bc_header *h = clip->h;
    for (uint32_t m = 0; m < h->mask_count; m++)
        mask_keys[m] = ossa__mask_rank(clip->masks + (size_t)m * clip->mask_bytes, h->grid_count);
}

/* The key grid and the masks, once per clip (the block validated): the grid's times (grid:
 * grid_count + 1 floats; a ticked grid decoded, else copied) then +Inf (the end of a held key
 * and of a mask with no key yet), the key masks' counts (mask_keys, copied from keys) and each
 * mask's rank directory (rdir: per 64-bit word the keys before it); the clip's grid and
 * mask_keys point at them. */
static void plan_grid_and_masks(ossa_built_clip *clip, ossa__sample_plan *pl, const uint32_t *keys, float *grid,
                                uint32_t *mask_keys, uint32_t *rdir) {
    const ossa__bc_header *h = clip->h;
    uint32_t G = h->grid_count, W = (uint32_t)rdir_words(h);
    if (h->flags & OSSA__BC_FLAG_GRID_TICKS) ossa__grid_decode(h, clip->base, grid);
    else memcpy(grid, clip->grid, (size_t)G * sizeof *grid);
    grid[G] = INFINITY;
    clip->grid = pl->grid = grid;
    memcpy(mask_keys, keys, (size_t)h->mask_count * sizeof *mask_keys);
    clip->mask_keys = mask_keys;
    for (uint32_t m = 0; m < h->mask_count; m++) {
        const unsigned char *mask = clip->masks + (size_t)m * clip->mask_bytes;
        uint32_t *dir = rdir + (size_t)m * W, r = 0;
        for (uint32_t pos = 0; pos < G; pos += 32u) {
            if (!(pos & 63u)) dir[pos >> 6] = r;
            r += ossa__popcount32(ossa__bits_read(mask, pos, G - pos < 32u ? G - pos : 32u));
        }
    }
    pl->rdir = rdir;
    pl->rdir_words = W;
}

/* The packed channels' tables: grouped by mask (a counting sort: mfirst[m] is mask m's fill
 * point, ending at its end, then shifted back one), the streams' offsets (back to back from
 * stream_off, validated) and the lift tables in that grouped order, the pose offsets, the
 * masks, the interpolations, the ranges and where the keys are in the context in clip
 * order. */
static void plan_packed(ossa__sample_plan *pl, const ossa_built_clip *clip) {
    const ossa__bc_header *h = clip->h;
    uint32_t P = h->packed_count, M = h->mask_count;
    for (uint32_t m = 0; m <= M; m++) pl->mfirst[m] = 0;
    for (uint32_t i = 0; i < P; i++) pl->mfirst[clip->packed[i].mask + 1u]++; /* mask < M (validated) */
    for (uint32_t m = 0; m < M; m++) pl->mfirst[m + 1] += pl->mfirst[m];
    uint64_t off = h->stream_off;
    uint32_t next = 0; /* the block tables' fill point */
    for (uint32_t i = 0; i < P; i++) {
        const ossa__bc_packed *p = &clip->packed[i];
        uint32_t g = pl->mfirst[p->mask]++;
        pl->mch[g] = i;
        pl->poff[g] = (uint32_t)off;
        plan_lift_tables(pl, p, g, clip->mask_keys[p->mask], clip->base + off, &next);
        off += (ossa__lift_stream_bits(p, clip->mask_keys[p->mask], clip->base + off) + 7u) / 8u;
        pl->pdst[i] = p->joint * 10u + ossa__field_offset(p->kind);
        pl->pka[i] = 6u * i;
        pl->pkb[i] = 6u * i + 3u;
        pl->pmask[i] = p->mask;
        pl->pstep[i] = p->interp == OSSA_INTERP_STEP;
        pl->pdrop[i] = (float)ossa__pk_drop(p);
        for (int k = 0; k < 3; k++) {
            pl->mn[k][i] = p->min[k];
            pl->st[k][i] = ossa__step_float(p->step[k]);
        }
    }
    for (uint32_t m = M; m > 0; m--) pl->mfirst[m] = pl->mfirst[m - 1];
    pl->mfirst[0] = 0;
}

/* The raw channels' caches counted per clock, each clock given its slots and table entries
 * while they fit a context of joint_count joints (else its channels stay on the editable
 * path). */
static void plan_raw_clocks(ossa__sample_plan *pl, const ossa_built_clip *clip) {
    const ossa__bc_header *h = clip->h;
    uint32_t C = h->clock_count, n = h->raw_count, J = h->joint_count;
    pl->uncached = n;
    pl->unpack_wide = h->size < (1u << 29); /* bit positions < 8 * size fit in 32 bits */
    for (uint32_t k = 0; k < C; k++) pl->cnr[k] = pl->cnv[k] = 0;
    for (uint32_t i = 0; i < n; i++) {
        const ossa__bc_raw *r = &clip->raw[i];
        pl->rcached[i] = r->lanes_off && (r->interp == OSSA_INTERP_LINEAR || r->interp == OSSA_INTERP_STEP) &&
                         r->kind <= OSSA__CH_S; /* components: 4 (R) or 3 (T, S), checked by the loader */
        if (pl->rcached[i]) (r->kind == OSSA__CH_R ? pl->cnr : pl->cnv)[r->clock]++;
    }
    uint32_t nr = 0, nv = 0, lanes = 0;
    for (uint32_t k = 0; k < C; k++) {
        uint32_t a = pl->cnr[k], b = pl->cnv[k];
        pl->ctab[k] = UINT32_MAX;
        if (!a && !b) continue;
        if (a > J - nr || b > 2u * J - nv || 4u * (nr + a) + 3u * (nv + b) > 10u * J) {
            pl->cnr[k] = pl->cnv[k] = 0;
            continue;
        }
        pl->cr0[k] = nr;
        pl->cv0[k] = nv;
        pl->ctab[k] = lanes;
        nr += a;
        nv += b;
        lanes += 4u * a + 3u * b;
    }
    pl->nrot = nr;
    pl->nvec = nv;
    pl->lanes = lanes;
}

/* Each cached raw channel placed in its clock's slots and its lanes' unpack table entries
 * written (fill: per clock the rotations and vectors placed so far, all 0). */
static void plan_raw_channels(ossa__sample_plan *pl, const ossa_built_clip *clip, uint32_t *rfill, uint32_t *vfill) {
    for (uint32_t i = 0; i < clip->h->raw_count; i++) {
        const ossa__bc_raw *r = &clip->raw[i];
        uint32_t k = r->clock;
        if (!pl->rcached[i] || pl->ctab[k] == UINT32_MAX) {
            pl->rcached[i] = 0;
            continue;
        }
        bool rot = r->kind == OSSA__CH_R;
        uint32_t idx = rot ? rfill[k]++ : vfill[k]++, a = pl->cnr[k];
        uint32_t first = pl->ctab[k] + (rot ? idx : 4u * a + 3u * idx), stride = rot ? a : 1u; /* its lane 0, between lanes */
        const ossa__bc_lane *ln = (const ossa__bc_lane *)(clip->base + r->lanes_off);
        uint32_t per = 0, bit = 0;
        for (uint32_t q = 0; q < r->components; q++) per += ln[q].bits;
        for (uint32_t q = 0; q < r->components; q++) {
            uint32_t l = first + q * stride, b = ln[q].bits;
            pl->l_off[l] = r->values_off;
            pl->l_pos[l] = OSSA__UNPACK_POS(bit, per, b);
            pl->l_base[l] = ln[q].base;
            bit += b;
        }
        uint32_t dst = r->target * 10u + ossa__field_offset(r->kind);
        bool step = r->interp == OSSA_INTERP_STEP;
        if (rot) {
            pl->rdst[pl->cr0[k] + idx] = dst;
            pl->rstep[pl->cr0[k] + idx] = step;
        } else {
            pl->vdst[pl->cv0[k] + idx] = dst;
            pl->vstep[pl->cv0[k] + idx] = step;
        }
        pl->uncached--;
    }
}

/* The plan, given the masks' key counts (keys: mask_count entries). */
static ossa_result plan_make_with(ossa_built_clip *clip, const uint32_t *keys) {
    const ossa__bc_header *h = clip->h;
    size_t block_entries;
    ossa_result r = plan_block_entries(clip, keys, &block_entries);
    if (r != OSSA_OK) return r;
    plan_layout p = plan_measure(h, block_entries);
    if (p.L.overflow) return OSSA_ERROR_OUT_OF_MEMORY;
    unsigned char *mem = ossa__alloc(&clip->allocator, p.L.size);
    if (!mem) return OSSA_ERROR_OUT_OF_MEMORY;
    memset(mem, 0, p.L.size); /* the spare entries: finite values for the kernels' wide loads */
    const size_t S = OSSA__LERP_SLACK, P = h->packed_count, C = h->clock_count, LN = lane_cap(h) + S;
    ossa__sample_plan *pl = (ossa__sample_plan *)(mem + p.plan);
    pl->mfirst = (uint32_t *)(mem + p.mfirst);
    pl->mch = (uint32_t *)(mem + p.mch);
    pl->poff = (uint32_t *)(mem + p.poff);
    pl->lbk = (uint32_t *)(mem + p.lbk);
    pl->lto = (uint32_t *)(mem + p.lto);
    pl->lbt = (uint32_t *)(mem + p.lbt);
    pl->lfo = (uint32_t *)(mem + p.lfo);
    pl->lfm = (uint32_t *)(mem + p.lfm);
    pl->pdst = (uint32_t *)(mem + p.pdst);
    pl->pka = (uint32_t *)(mem + p.pka); /* the spare entries 0: the kernels' spare lanes read keys 0 .. 4 */
    pl->pkb = pl->pka + P + S;
    pl->pmask = (uint32_t *)(mem + p.pmask);
    pl->pstep = mem + p.pstep;
    float *f = (float *)(mem + p.pf);
    pl->pdrop = f;
    for (size_t k = 0; k < 3; k++) {
        pl->mn[k] = f + (1 + k) * (P + S);
        pl->st[k] = f + (4 + k) * (P + S);
    }
    pl->rcached = mem + p.rcached;
    uint32_t *ck = (uint32_t *)(mem + p.clocks);
    pl->cr0 = ck;
    pl->cv0 = ck + C;
    pl->cnr = ck + 2 * C;
    pl->cnv = ck + 3 * C;
    pl->ctab = ck + 4 * C;
    pl->l_off = (uint32_t *)(mem + p.lanes);
    pl->l_pos = pl->l_off + LN;
    pl->l_base = pl->l_off + 2 * LN;
    pl->rdst = (uint32_t *)(mem + p.rdst);
    pl->vdst = (uint32_t *)(mem + p.vdst);
    pl->rstep = mem + p.rstep;
    pl->vstep = mem + p.vstep;
    plan_grid_and_masks(clip, pl, keys, (float *)(mem + p.grid), (uint32_t *)(mem + p.mkeys), (uint32_t *)(mem + p.rdir));
    plan_packed(pl, clip);
    plan_raw_clocks(pl, clip);
    uint32_t *fill = (uint32_t *)(mem + p.fill); /* zeroed */
    plan_raw_channels(pl, clip, fill, fill + C);
    pl->raw_keys = (uint32_t)((6u * P + 4u + 3u) & ~(size_t)3u); /* + 4: key b's wide load at the last packed channel */
    pl->slots = h->mask_count + h->clock_count;
    pl->key_floats = pl->raw_keys + 2u * pl->lanes + (uint32_t)S; /* + S: the kernels' wide loads past key b's lanes */
    clip->plan = pl;
    return OSSA_OK;
}

/* The masks' key counts are counted once, into scratch: the block tables' size depends on them,
 * and the plan that keeps them (clip->mask_keys) is allocated after. */
ossa_result ossa__sample_plan_make(ossa_built_clip *clip) {
    uint32_t *keys = ossa__alloc_array(&clip->allocator, (size_t)clip->h->mask_count + 1u, sizeof(uint32_t));
    if (!keys) return OSSA_ERROR_OUT_OF_MEMORY;
    count_mask_keys(clip, keys);
    ossa_result r = plan_make_with(clip, keys);
    ossa__free(&clip->allocator, keys);
    return r;
}
