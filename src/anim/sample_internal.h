/* The sampling job's private parts, shared by its three files: sample_job.c (the context, the
 * job, the packed channels' segments), sample_raw.c (the raw channels' caches) and
 * sample_kernels.c (the scalar reference kernels and the choice of the SIMD ones). */
#ifndef OSSA_ANIM_SAMPLE_INTERNAL_H
#define OSSA_ANIM_SAMPLE_INTERNAL_H

#include "anim/built_clip_internal.h"

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
 * caches are their own arrays, laid out per clock at a clip switch (sample_raw.c). */
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
    ossa__lift_kernel lift; /* the lifted-block kernel (chosen at a clip switch) */
    float last_t;         /* the previous frame's clip time (-Inf after a clip switch) */
    double loops;         /* the looping clock's last quotient (ossa__sample_time; 0 after a clip switch) */
    float jump_dt;        /* a step past it further than this (4 mean grid steps), or back: a jump */
};

/* The decode + lerp kernels over channels [begin, end) of soa (see ossa__lerp_soa): whole
 * vectors of the chosen kernel, the remainder with the narrowest one that covers it. */
void ossa__sample_decode(const ossa__lerp_soa *soa, float t, uint32_t begin, uint32_t end, bool rotation);
/* The chosen slerp and lifted-block kernels (SSE has no lift kernel: the scalar one). */
ossa__slerp_kernel ossa__sample_slerp(void);
ossa__lift_kernel ossa__sample_lift(void);
/* The chosen unpack kernel for a clip whose bit positions fit in 32 bits (wide; else the scalar
 * one). */
ossa__unpack_kernel ossa__sample_unpack(bool wide);

/* Raw channels (sample_raw.c). At a clip switch: lays out the clip's caches (clock_key and
 * ckey reset). Each frame at clip time t: every raw channel into out (joint_count
 * transforms) and the weight tracks into weights (weight_count floats, zeroed first; NULL =
 * none): the cached ones through their clocks' decoded keys, the others on the editable path. */
void ossa__raw_setup(ossa_sampling_context *c, const ossa_built_clip *clip);
void ossa__raw_sample(ossa_sampling_context *c, const ossa_built_clip *clip, float t, ossa_transform *out, float *weights);

#endif
