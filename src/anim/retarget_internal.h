/* The retarget rig's precomputed plan, shared by the rig builder (retarget_rig.c) and the job
 * (retarget.c). Internal. */
#ifndef OSSA_ANIM_RETARGET_INTERNAL_H
#define OSSA_ANIM_RETARGET_INTERNAL_H

#include <ossa/retarget.h>

/* How the job computes one target joint's rotation. */
typedef enum ossa__retarget_kind {
    OSSA__RETARGET_REFERENCE = 0, /* local transform = the target reference's */
    OSSA__RETARGET_TRANSFER,      /* model rotation = slerp(D(a), D(b), f) * target reference model rotation,
                                     D(s) = the source joint s's model rotation change from its reference */
} ossa__retarget_kind;

/* One limb the contact pass can pin: the source's end joint, the target's three-joint chain. */
typedef struct ossa__retarget_limb {
    bool present;
    uint32_t source_end;
    uint32_t target_start, target_mid, target_end;
    float source_rest_height; /* feet: the source end joint's height in the reference; hands: 0 */
} ossa__retarget_limb;

struct ossa__retarget_plan {
    /* source joints */
    ossa_quat *source_reference_model_inverse; /* inverse model rotations of the source reference */
    uint32_t source_hips;
    /* target joints */
    uint8_t *kind;                    /* ossa__retarget_kind */
    uint32_t *source_a, *source_b;    /* TRANSFER: the two source joints whose changes are blended */
    float *fraction;                  /* TRANSFER: the blend (0 = source_a) */
    ossa_quat *target_reference_model; /* model rotations of the target reference */
    uint32_t target_hips;
    ossa_transform target_hips_parent_inverse; /* inverse model transform of the hips' parent
                                                  (identity for a root hips) in the reference */
    ossa__retarget_limb limbs[OSSA_RETARGET_LIMB_COUNT];
};

#endif
