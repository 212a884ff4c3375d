/* ossa/inertialize.h: inertialization, a transition without blending two states (issue #27).
 *
 * At a transition the old state stops being evaluated. The record job stores, per joint, the
 * offset from the new state's first pose to the old pose (x0 = old - new) and the velocity of
 * that offset (v0, from the old pose's last two frames); from then on only the new state is
 * sampled, and the apply job adds the offset decayed by a quintic to the new pose:
 *   output(t) = x(t) (+) new(t),  x(0) = x0, x'(0) = v0, x(T) = x'(T) = x''(T) = 0.
 * Reference: D. Bollo, "Inertialization: High-Performance Animation Transitions in Gears of
 * War", GDC 2018. docs/inertialization.md has the derivation and the use with the player.
 *
 * Channels. Every joint has 9 independent scalar channels, each with its own quintic:
 *   0..2  translation offset   old.t - new.t                 (model units)
 *   3..5  rotation offset      rotation vector (axis * angle, radians) of old.r * conj(new.r)
 *                              on the short arc (angle <= pi); applied as exp(x) * new.r
 *   6..8  scale offset         old.s - new.s                 (additive)
 * Velocity v0 = (x0 - x_before) / dt, x_before the same offset taken from the old pose one dt
 * earlier against the same new pose (Bollo's finite difference; for rotation the before-offset
 * is taken on the hemisphere of x0 so the difference never jumps by 2 pi).
 *
 * The quintic of one channel (Bollo), with duration T > 0:
 *   if x0 == 0: the channel is zero (v0 is dropped: any velocity would overshoot zero);
 *   if v0 moves x away from 0 (x0 * v0 > 0): v0 = 0  (the clamp: the curve never leaves [0, x0]);
 *   if v0 moves x toward 0: T' = min(T, -5 x0 / v0)  (a shorter curve rather than an overshoot);
 *   a0 = (-8 v0 T' - 20 x0) / T'^2, set to 0 when its sign is opposite to x0's (Bollo's
 *        a0 >= 0 for a positive x0: the curve only brakes, it never pushes toward 0);
 *   A = -(a0 T'^2 + 6 v0 T' + 12 x0) / (2 T'^5)
 *   B =  (3 a0 T'^2 + 16 v0 T' + 30 x0) / (2 T'^4)
 *   C = -(3 a0 T'^2 + 12 v0 T' + 20 x0) / (2 T'^3)
 *   x(t) = A t^5 + B t^4 + C t^3 + (a0/2) t^2 + v0 t + x0 for 0 <= t < T', and exactly 0 after.
 * (Evaluated as the same polynomial in the remaining fraction u = 1 - t/T', w = 1 - u:
 *   x = u^3 [x0 (10 - 15u + 6u^2) + v0 T' w (4 - 3u) + a0 T'^2 w^2 / 2]: x0 exactly at t = 0,
 *   and the triple root at T' explicit, so no float cancellation near the end.)
 * Each channel then stays between 0 and x0 (never overshoots), so |x(t)| <= |x0| per vector.
 * The output's velocity at t = 0 is v0 plus the new state's own velocity: it equals the old
 * pose's velocity where v0 was not clamped and the new state is still at that instant.
 *
 * Time: the apply job takes the time since the transition (seconds), not a dt: the state is
 * read-only after recording, so any frame can be evaluated again or in joint ranges on several
 * threads. The caller's clock (e.g. the new state's play time) is the only thing that advances.
 *
 * Both jobs follow the job shape of ossa/common.h: counted spans, a zeroed job fails
 * validation, validate names the wrong field, nothing is allocated. Joint ranges: offset every
 * span by the same first joint. */
#ifndef OSSA_INERTIALIZE_H
#define OSSA_INERTIALIZE_H

#include "common.h"
#include "math.h"

#ifdef __cplusplus
extern "C" {
#endif

#define OSSA_INERTIALIZE_CHANNELS 9

/* One joint's recorded transition: 144 bytes (36 floats), channels as above. Written by the
 * record job, read by the apply job; plain data the caller owns (one per joint). */
typedef struct ossa_inertialize_joint {
    float offset[OSSA_INERTIALIZE_CHANNELS];       /* x0: offset at t = 0 */
    float velocity[OSSA_INERTIALIZE_CHANNELS];     /* v0 after the clamp (units / s) */
    float acceleration[OSSA_INERTIALIZE_CHANNELS]; /* a0 after the clamp (units / s^2) */
    float duration[OSSA_INERTIALIZE_CHANNELS];     /* T' <= the job's duration (s); 0: channel off */
} ossa_inertialize_joint;

/* Records a transition. joint count n = target_count. */
typedef struct ossa_inertialize_record_job {
    const ossa_transform *previous; /* required: the old pose at the transition (the last one shown) */
    uint32_t previous_count;        /* >= target_count */
    const ossa_transform *before;   /* optional: the old pose dt seconds before `previous`; NULL: v0 = 0 */
    uint32_t before_count;          /* >= target_count when before is given */
    const ossa_transform *target;   /* required: the new state's first pose (evaluated at t = 0) */
    uint32_t target_count;          /* the joint count */
    float duration;                 /* T: seconds for the offset to reach zero; > 0 and finite */
    float dt;                       /* seconds between before and previous; > 0 finite when before is given */
    ossa_inertialize_joint *state;  /* output: one record per joint, owned by the caller */
    uint32_t state_count;           /* >= target_count */
} ossa_inertialize_record_job;

/* OK, INVALID_ARGUMENT (a NULL previous / target / state, duration not > 0 or not finite,
 * dt not > 0 or not finite while before is given) or BUFFER_TOO_SMALL (previous_count,
 * before_count or state_count below target_count). diag (may be NULL) names the first wrong
 * field: "job", "previous", "target", "state", "duration", "dt", "previous_count",
 * "before_count", "state_count". Never writes the state. O(1). */
ossa_result ossa_inertialize_record_job_validate(const ossa_inertialize_record_job *job, ossa_diagnostic *diag);
/* Validates, then writes state[0, target_count) (the formulas above). O(joint count). */
ossa_result ossa_inertialize_record_job_run(ossa_inertialize_record_job *job);

/* Applies a recorded transition at one time. joint count n = target_count. */
typedef struct ossa_inertialize_apply_job {
    const ossa_inertialize_joint *state; /* required: from the record job */
    uint32_t state_count;                /* >= target_count */
    const ossa_transform *target;        /* required: the new state's current pose */
    uint32_t target_count;               /* the joint count */
    float time;                          /* seconds since the transition; >= 0 and finite */
    ossa_transform *output;              /* output_count >= target_count; may be `target` itself */
    uint32_t output_count;
} ossa_inertialize_apply_job;

/* OK, INVALID_ARGUMENT (a NULL state / target / output, time negative or not finite) or
 * BUFFER_TOO_SMALL (state_count or output_count below target_count). diag (may be NULL) names
 * the first wrong field: "job", "state", "target", "output", "time", "state_count",
 * "output_count". O(1). */
ossa_result ossa_inertialize_apply_job_validate(const ossa_inertialize_apply_job *job, ossa_diagnostic *diag);
/* Validates, then writes output[j] = x_j(time) (+) target[j] for j < target_count: translation
 * and scale added, rotation exp(x) * target.rotation. Once time >= every channel's duration
 * the output is the target pose bit for bit. O(joint count). */
ossa_result ossa_inertialize_apply_job_run(ossa_inertialize_apply_job *job);

#ifdef __cplusplus
}
#endif
#endif
