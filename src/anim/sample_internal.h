/* The sampling job's private parts, shared by its three files: sample_job.c (the context, the
 * job, the packed channels' segments), sample_raw.c (the raw channels' caches) and
 * sample_kernels.c (the scalar reference kernels and the choice of the SIMD ones). */
#ifndef OSSA_ANIM_SAMPLE_INTERNAL_H
#define OSSA_ANIM_SAMPLE_INTERNAL_H

#include "anim/built_clip_internal.h"

/* What a clock's two-key view gives this frame (ossa__interpolate's cases). */
enum { RM_NONE, RM_A, RM_B, RM_LERP };
_Static_assert(sizeof(ossa_transform) == 10 * sizeof(float), "the cached raw channels address the pose as floats");

/* The sampling plan of a built clip (sample_plan.c): every table the sampling job reads that
 * depends on the clip alone, computed once when the clip is bound (loaded or built) and shared
 * by every context that plays it, so a context keeps only per-instance state. Arrays indexed
 * by packed channel have OSSA__LERP_SLACK spare (zero) entries for the kernels' wide loads.
 * Packed channels: grouped by key mask (mask m's channels are mch[mfirst[m], mfirst[m + 1]),
 * in clip order within one), and in that grouped order (the single-key kernels', g = the position
 * in mch) each one's value stream's byte offset in the block, its lifted blocks' field table
 * (ossa__lift_table: the narrow and the wide blocks', 16 offsets and 16 masks each), block
 * bits and where its block table starts (ossa__lift_soa); the flagged channels' block tables
 * lbt (one entry per block); in clip order (the decode
 * kernel's) its float offset in the pose, where its keys a and b are in the context's keys
 * (6 i, 6 i + 3), its mask, STEP or not, its rebuilt rotation component (as a float,
 * ossa__pk_drop) and its range (min, step). Raw channels: the LINEAR / STEP T/R/S ones with packed lanes are cached
 * in the context, laid out clock by clock: clock c's rotations are the rotation slots [cr0[c],
 * + cnr[c]), its translations and scales the vector slots [cv0[c], + cnv[c]), its lanes'
 * unpack table entries [ctab[c], + 4 cnr + 3 cnv) (rotation component 0 of each rotation, then
 * 1, 2, 3, then each vector's three components; ctab UINT32_MAX: nothing cached). The decoded
 * keys in the context: component q of rotation slot r at lane q * nrot + r (SoA over every
 * clock's rotations: one slerp kernel pass for all), vector slot v's components at lanes
 * 4 * nrot + 3 v; a clip of J joints uses at most J rotation slots, 2 J vector slots and 10 J
 * lanes (what a context of max_joints >= J holds). The key grid (grid: grid_count times, then
 * +Inf at grid_count, a held key's end) and each
 * mask's rank directory (rdir: rdir_words entries a mask, entry w = the keys before grid index
 * 64 w), so the context keeps a mask's segment as two grid indices. */
typedef struct ossa__sample_plan {
    uint32_t *mfirst, *mch, *poff, *lbk, *lto, *lfo, *lfm; /* poff .. lfm: by grouped position (ossa__lift_soa) */
    uint32_t *lbt;                                        /* the block tables (ossa__lift_soa's blk) */
    uint32_t *pdst, *pka, *pkb, *pmask;
    uint8_t *pstep;
    float *pdrop, *mn[3], *st[3];
    uint8_t *rcached;     /* per raw channel: 1 = cached */
    uint32_t *cr0, *cv0, *cnr, *cnv, *ctab; /* per clock */
    uint32_t *l_off, *l_pos, *l_base; /* per lane: the unpack table */
    uint32_t *rdst, *vdst; /* per rotation / vector slot: float offset in the output pose */
    uint8_t *rstep, *vstep; /* per rotation / vector slot: STEP interpolation */
    uint32_t nrot, nvec;  /* the cached rotations (the slerp kernel's range) and vectors */
    uint32_t uncached;    /* raw channels without a cache (CUBIC, weights, no lanes) */
    uint32_t lanes;       /* 4 nrot + 3 nvec */
    uint32_t raw_keys;    /* the raw keys' first float in the context's key pool (after the packed keys) */
    uint32_t slots, key_floats; /* what a context needs: mask_count + clock_count slots, raw_keys + 2 lanes + OSSA__LERP_SLACK floats */
    float *grid;          /* grid_count + 1 times, the last +Inf (the clip's grid points at it) */
    uint32_t *rdir;       /* mask m's rank directory at rdir + m * rdir_words */
    uint32_t rdir_words;  /* (grid_count + 63) / 64 */
    bool unpack_wide;     /* the clip's bit positions fit in 32 bits: the SIMD unpack kernels may run */
} ossa__sample_plan;

/* The job keeps its key masks' segment times on its stack for clips of up to this many masks
 * (sample_job.c); the others' channels look them up from the context and the grid. */
#define OSSA__MASK_TIMES 128u

/* Makes clip->plan (allocated from clip->allocator, freed by ossa_built_clip_destroy) for a
 * bound, valid block: OK or OUT_OF_MEMORY. */
ossa_result ossa__sample_plan_make(ossa_built_clip *clip);

/* The per-instance sampling state, in two pools a clip lays itself out in (its clocks' slots
 * after its masks', its raw keys after its packed ones at the plan's raw_keys). The slots (2
 * arrays of 32-bit words: 8 bytes a slot): per key mask m (the shared key clock: channels with
 * one key mask have the same keys at the same grid times, so the segment is kept, checked and
 * stepped once per mask) its segment's start, the time of its key a (mt0; +Inf: no key), and
 * the grid index of the key after a (next; its time the plan's grid[next]: grid_count = key a
 * held or no key, its time +Inf), then per raw clock its key
 * cursor (the key k whose keys k, k + 1 are decoded; UINT32_MAX = none) and this frame's
 * parameter (its case folded in, sample_raw.c). The keys: per packed channel i the quantised
 * fields of its keys a and b (6 floats at 6 i), then the raw lanes' decoded keys k and k + 1
 * in two halves of `lanes` floats (key a's first; for a clip whose cached lanes all share one
 * clock, key n in half n % 2; OSSA__LERP_SLACK spare floats after them). Capacities:
 * `slots` and `key_floats`, what a clip's plan needs (ossa__sample_plan: slots, key_floats) or
 * what any clip of max_joints joints and max_weights weights needs. The kernels' per-frame
 * values (segment times, translation outputs, slerp parameters and flags) live on the job's
 * stack; a mask's key rank comes from the plan's rank directory when a key is decoded. */
struct ossa_sampling_context {
    ossa_allocator allocator;
    size_t size;
    uint32_t slots, key_floats; /* capacities: slots, floats of keys */
    uint64_t clip_id; /* clip the caches belong to; 0 = none */
    uint64_t ref_clip;    /* clip whose rest-pose hash ref_ptr was checked against; 0 = none */
    const ossa_transform *ref_ptr; /* the reference that matched it */
    float *mt0;           /* slot words 0: per key mask the time of key a (+Inf: no key); per clock (after the masks) its cursor */
    uint32_t *next;       /* slot words 1: per key mask the grid index of the key after a; per clock its parameter */
    float *kq;            /* the key pool: packed channel i's keys a and b as floats at 6 i, 6 i + 3 (the last key held: b = a) */
    float last_t;         /* the previous frame's clip time (-Inf after a clip switch) */
    float jump_dt;        /* a step past it further than this (4 mean grid steps), or back: a jump */
    double loops;         /* the looping clock's last quotient (ossa__sample_time; 0 after a clip switch) */
};

/* Clock k's key cursor and this frame's parameter (after the clip's key masks, the clip's
 * mask_count M). */
static inline uint32_t *ossa__clock_key(ossa_sampling_context *c, uint32_t M) { return (uint32_t *)(void *)(c->mt0 + M); }
static inline float *ossa__clock_param(ossa_sampling_context *c, uint32_t M) { return (float *)(void *)(c->next + M); }
/* The raw lanes' decoded keys k (a) and k + 1 (b = a + lanes: key a's kernel reads past its lanes land in key b's). */
static inline float *ossa__raw_keys(const ossa_sampling_context *c, const ossa__sample_plan *pl) { return c->kq + pl->raw_keys; }

/* The decode + lerp kernels over channels [begin, end) of soa (see ossa__lerp_soa): whole
 * vectors of the chosen kernel, the remainder with the narrowest one that covers it. */
void ossa__sample_decode(const ossa__lerp_soa *soa, float t, uint32_t begin, uint32_t end, bool rotation);
/* The chosen slerp kernel. */
ossa__slerp_kernel ossa__sample_slerp(void);
/* The chosen single-key kernel (a key mask's forward step or seek). */
ossa__key_kernel ossa__sample_key(void);
/* The chosen unpack kernel for a clip whose bit positions fit in 32 bits (wide; else the scalar
 * one). */
ossa__unpack_kernel ossa__sample_unpack(bool wide);

/* Raw channels (sample_raw.c). At a clip switch: resets the clocks' cursors (nothing decoded). Each frame at clip time t: every raw channel into out (joint_count
 * transforms) and the weight tracks into weights (weight_count floats, zeroed first; NULL =
 * none): the cached ones through their clocks' decoded keys, the others on the editable path. */
void ossa__raw_setup(ossa_sampling_context *c, const ossa_built_clip *clip);
void ossa__raw_sample(ossa_sampling_context *c, const ossa_built_clip *clip, float t, ossa_transform *out, float *weights);

#endif
