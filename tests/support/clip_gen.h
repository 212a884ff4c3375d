/* Generated skeletons and clips for the built-clip tests (not part of the library). */
#ifndef OSSA_TEST_CLIP_GEN_H
#define OSSA_TEST_CLIP_GEN_H

#include <stdint.h>

#include <ossa/ossa.h>

typedef struct ot_gen_options {
    uint32_t joints;        /* skeleton size */
    bool chain;             /* one deep chain (else random parents) */
    bool wild_scales;       /* non-uniform, tiny (1e-3) and huge (1e3) rest and animated scales */
    int interp;             /* 0 = a random interpolation per track, else that ossa_interp */
    uint32_t max_keys;      /* keys per track in [1, max_keys] */
    bool noisy;             /* noisy values (else smooth curves, some near-constant) */
    uint32_t weight_tracks; /* morph weight tracks */
} ot_gen_options;

/* A random skeleton (rest translations of ~0.1..1, random rotations; scales per options). */
ossa_skeleton *ot_gen_skeleton(uint64_t *state, const ot_gen_options *opt);
/* A random clip on that skeleton: every joint gets a track with a random subset of T/R/S,
 * per-track key times (own ranges), one-key tracks, constant and near-constant tracks. */
ossa_clip *ot_gen_clip(uint64_t *state, const ossa_skeleton *skeleton, const ot_gen_options *opt);
/* A clip of one LINEAR translation track on `joint` with two keys: times[2], values[6]
 * (copied by ossa_clip_create); fails the test unless it is created. */
ossa_clip *ot_translation_clip(uint32_t joint, const float *times, const float *values);

/* Test-side reference of the model-space error (independent of the builder's measure):
 * for each joint, ossa_pose_joint_to_model of both poses, origin and the points `shell` model
 * units from it at the bind pose along its local axes (the local offset: shell / the bind
 * frame's axis length); returns the largest distance. *magnitude (optional) gets the largest
 * coordinate of a's points: float rounding alone differs by ~1e-7 of it between two orders of
 * composing the same matrices. */
float ot_pose_error(const ossa_transform *a, const ossa_transform *b, const ossa_skeleton *skeleton, float shell,
                    float *magnitude);

#endif
