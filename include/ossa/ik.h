/* ossa/ik.h: inverse kinematics jobs: two-bone, aim (look-at), CCD and FABRIK chains.
 * Provided by library ossa (runtime; CMake ossa::ossa, pkg-config ossa).
 *
 * Where it sits: after local-to-model (pose.h). A caller samples and blends local poses,
 * computes model-space matrices, runs IK jobs on those matrices, then applies the
 * results to the local pose (ossa_ik_apply_job) and recomputes the model matrices.
 *
 *   two-bone, aim:  model matrices in  ->  LOCAL corrections out: quaternions to multiply
 *                   into the joints' local rotations (local.rotation = local.rotation * c),
 *                   as ozz-animation's IKTwoBoneJob / IKAimJob.
 *   CCD, FABRIK:    model matrices + local pose in  ->  corrected local rotations out
 *                   (one per chain joint), with hinge / ball-and-socket limits.
 *
 * Jobs are plain structs: inputs, outputs and parameters; zero-initialised parameters
 * mean the documented default. ossa_<job>_validate() is a cheap check (NULL inputs or
 * outputs and bad parameters -> OSSA_ERROR_INVALID_ARGUMENT, spans shorter than needed ->
 * OSSA_ERROR_BUFFER_TOO_SMALL) that names the wrong field in an optional ossa_diagnostic;
 * a zeroed job fails it; ossa_<job>_run() validates, then runs. Jobs own nothing,
 * never allocate and are re-entrant (different jobs may run on different threads).
 *
 * Units: model-space positions in the model's units, angles in radians. Corrections are
 * exact for joints whose model matrices are a rotation times a uniform scale (mirrored
 * joints included); with non-uniform scale along a chain the result is an approximation,
 * as in any rotation-only IK. */
#ifndef OSSA_IK_H
#define OSSA_IK_H

#include "math.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- two-bone IK (thigh-shin-foot, upper arm-forearm-hand) ---- */

/* Rotates the start and mid joints so that the end joint reaches `target`.
 * The mid joint only bends about its hinge axis (mid_axis); the start joint then swings
 * the chain onto the start->target line and twists it about that line so the mid joint
 * lies on the pole vector's side. An unreachable target gives a straight chain pointing
 * at it; a target closer than |len1 - len2| a folded one. */
typedef struct ossa_ik_two_bone_job {
    /* Inputs: model-space matrices of the three joints (start is an ancestor of mid, mid
     * of end; usually parent and child). */
    const ossa_mat4 *start_joint;
    const ossa_mat4 *mid_joint;
    const ossa_mat4 *end_joint;
    ossa_vec3 target;       /* model space */
    /* Model-space direction the mid joint (knee, elbow) should point to, from the
     * start->target line. Zero = no pole: keep the current bend plane (smallest swing). */
    ossa_vec3 pole_vector;
    /* Hinge axis of the mid joint in mid-joint space (need not be unit); the mid joint
     * bends by a positive (right-handed) rotation about it. Zero = the normal of the
     * current bend (start, mid, end); for a straight chain (bent < 0.06 degrees)
     * pole x (end - start), so the mid joint bends towards the pole; +z without a pole. */
    ossa_vec3 mid_axis;
    /* Soft limit in [0, 1): 0 = off. s > 0 softens the reach from (1 - s) * chain length
     * on, so the chain approaches full extension smoothly instead of snapping straight
     * (d' = da + ds * (1 - exp(-(d - da) / ds)), da = (1 - s) * L, ds = s * L). */
    float softness;
    /* Extra rotation of the whole chain about the start->target line after the pole
     * alignment (radians, right-handed about start->target); 0 = none. */
    float twist_angle;
    /* Blend of the correction: has_weight false = 1 (full). With has_weight true,
     * weight in [0, 1] scales both correction angles; 0 gives identity corrections. */
    bool has_weight;
    float weight;
    /* Outputs */
    ossa_quat *start_correction; /* multiply into the start joint's local rotation */
    ossa_quat *mid_correction;   /* multiply into the mid joint's local rotation */
    bool reached;                /* corrected end joint within 1e-4 x chain length of target */
} ossa_ik_two_bone_job;

/* OK or INVALID_ARGUMENT (NULL job, matrix or output; a non-finite vector or twist; softness
 * outside [0, 1); has_weight with weight outside [0, 1]); diag (may be NULL) names the field
 * ("start_joint", "mid_joint", "end_joint", "start_correction", "mid_correction", "target",
 * "pole_vector", "mid_axis", "softness", "twist_angle", "weight"). O(1). */
ossa_result ossa_ik_two_bone_job_validate(const ossa_ik_two_bone_job *job, ossa_diagnostic *diag);
/* Validates (nothing is written on failure), then writes both corrections and reached. */
ossa_result ossa_ik_two_bone_job_run(ossa_ik_two_bone_job *job);

/* ---- aim / look-at (head, eyes, a gun, a spine joint) ---- */

/* Rotates one joint so that the ray from `offset` along `forward` (both in joint space)
 * passes through `target`, then twists it about the aim line so that `up` lies in the
 * plane of the aim direction and pole_vector (exactly so when offset is zero, or on
 * the forward axis, and up is perpendicular to forward). */
typedef struct ossa_ik_aim_job {
    const ossa_mat4 *joint;  /* model-space matrix of the joint */
    ossa_vec3 target;        /* model space */
    ossa_vec3 forward;       /* joint space; zero = +x */
    ossa_vec3 up;            /* joint space; zero = +y */
    ossa_vec3 offset;        /* joint space origin of the aim ray (eyes); zero = the joint */
    ossa_vec3 pole_vector;   /* model space; zero = no up alignment (smallest rotation) */
    float twist_angle;       /* extra rotation about the aim line after the up alignment */
    bool has_weight;         /* false = weight 1 */
    float weight;            /* [0, 1], scales the correction angle */
    /* Outputs */
    ossa_quat *joint_correction; /* multiply into the joint's local rotation */
    bool reached; /* the corrected ray passes within 1e-4 x |target - joint| of target (false
                     when the target lies inside the offset's sphere or weight < 1 misses) */
} ossa_ik_aim_job;

/* OK or INVALID_ARGUMENT (NULL job, joint or output; a non-finite vector or twist;
 * has_weight with weight outside [0, 1]); diag (may be NULL) names the field ("joint",
 * "joint_correction", "target", "forward", "up", "offset", "pole_vector", "twist_angle",
 * "weight"). O(1). */
ossa_result ossa_ik_aim_job_validate(const ossa_ik_aim_job *job, ossa_diagnostic *diag);
/* Validates (nothing is written on failure), then writes the correction and reached (identity
 * and false for a singular joint matrix or a target at the joint). */
ossa_result ossa_ik_aim_job_run(ossa_ik_aim_job *job);

/* ---- joint limits for chains ---- */

typedef enum ossa_ik_limit_type {
    OSSA_IK_LIMIT_NONE = 0, /* free */
    OSSA_IK_LIMIT_HINGE,    /* one degree of freedom: rotation about axis in [min_angle, max_angle] */
    OSSA_IK_LIMIT_BALL,     /* ball and socket: swing of axis within cone_angle, optional twist */
    OSSA_IK_LIMIT_TYPE_COUNT
} ossa_ik_limit_type;

/* A limit on one joint's LOCAL rotation q, measured from `reference`: r = reference^-1 * q.
 *   hinge: r is a rotation about axis by an angle in [min_angle, max_angle] (any other
 *          component is removed);
 *   ball:  r = swing * twist (twist about axis, applied first): the swing angle (how far
 *          the bone direction axis turns) is at most cone_angle; with limit_twist the
 *          twist angle is in [-max_twist, max_twist].
 * Angles in radians; a zero-initialised limit is NONE. */
typedef struct ossa_ik_limit {
    ossa_ik_limit_type type;
    ossa_quat reference;  /* local rotation at the zero angle; all-zero = identity */
    ossa_vec3 axis;       /* joint space; zero = hinge: +z; ball: the direction of the next
                             chain joint in this joint's space (the bone) */
    float min_angle, max_angle; /* hinge, min <= max, each within [-pi, pi] */
    float cone_angle;     /* ball, [0, pi] */
    bool limit_twist;     /* ball: false = twist free */
    float max_twist;      /* ball, [0, pi] */
} ossa_ik_limit;

/* Applies a limit to a local rotation q of a joint whose next chain joint sits at local
 * offset `bone` (used only for a ball limit's zero axis); returns the nearest allowed
 * rotation in the swing/twist sense above. The chain jobs call it; exposed for tools. */
ossa_quat ossa_ik_limit_apply(const ossa_ik_limit *limit, ossa_vec3 bone, ossa_quat q);

/* ---- chains: CCD and FABRIK ---- */

typedef enum ossa_ik_solver {
    OSSA_IK_SOLVER_DEFAULT = 0, /* FABRIK */
    OSSA_IK_SOLVER_FABRIK,      /* forward and backward reaching, limits applied on the forward pass */
    OSSA_IK_SOLVER_CCD,         /* cyclic coordinate descent, tip to root, limits on every step */
    OSSA_IK_SOLVER_COUNT
} ossa_ik_solver;

#define OSSA_IK_CHAIN_MAX 64 /* chain joints a chain job solves (stack storage, no allocation) */

/* Moves the last joint of a chain (the end effector) to `target` by rotating the other
 * chain joints; the first joint's position stays. joints[k] must be the parent of
 * joints[k + 1]. Writes joint_count corrected LOCAL rotations (the end effector's is its
 * input rotation, unchanged). Stops after `iterations` or when the effector is within
 * `tolerance` of the target; an unreachable target stretches the chain towards it (one
 * root-to-tip pass, whichever solver). */
typedef struct ossa_ik_chain_job {
    ossa_ik_solver solver;
    const uint32_t *joints;          /* chain, root first, 2 to OSSA_IK_CHAIN_MAX joints */
    uint32_t joint_count;
    /* The skeleton's pose: local transforms, parents and model matrices (model[i] =
     * model[parents[i]] * locals[i]), indexed by joint; each span covers every chain joint. */
    const ossa_transform *locals;
    uint32_t local_count;
    const int32_t *parents;
    uint32_t parent_count;
    const ossa_mat4 *models;
    uint32_t model_count;
    /* Optional: NULL = no limits, else one per chain joint (the effector's is ignored). */
    const ossa_ik_limit *limits;
    uint32_t limit_count;
    ossa_vec3 target;                /* model space */
    uint32_t iterations;             /* 0 = 16 */
    float tolerance;                 /* model units; 0 = 1e-5 x chain length */
    bool has_weight;                 /* false = weight 1 */
    float weight;                    /* [0, 1]: slerp from the input rotations to the solution */
    /* Outputs */
    ossa_quat *rotations;            /* joint_count local rotations */
    uint32_t rotation_count;
    bool reached;                    /* effector within tolerance of the target (weight 1) */
    float distance;                  /* effector-target distance of the solution (weight 1) */
    uint32_t iterations_run;
} ossa_ik_chain_job;

/* OK, INVALID_ARGUMENT (NULL job or span; a bad solver; joint_count outside [2,
 * OSSA_IK_CHAIN_MAX]; a chain joint >= local_count or not the child of the previous one; a
 * bad limit: unknown type, hinge min > max or beyond +-pi, cone or twist outside [0, pi];
 * a non-finite target, a negative tolerance, a bad weight) or BUFFER_TOO_SMALL
 * (parent_count or model_count < local_count; rotation_count, or limit_count with limits,
 * < joint_count). diag (may be NULL) names the field: "solver", "joints", "joint_count",
 * "locals", "parents", "models", "rotations", the *_count fields, "target", "tolerance",
 * "weight", or one entry, "joints[k]" / "limits[k]". O(joint_count). */
ossa_result ossa_ik_chain_job_validate(const ossa_ik_chain_job *job, ossa_diagnostic *diag);
/* Validates (nothing is written on failure), then solves and writes rotations, reached,
 * distance and iterations_run. Cost: O(iterations x joint_count). */
ossa_result ossa_ik_chain_job_run(ossa_ik_chain_job *job);

/* ---- applying results ---- */

/* Writes IK results into a local pose and recomputes the model matrices of every joint
 * from the lowest listed joint to the end of the skeleton (all of their descendants, as
 * the skeleton is parents-first). Give either corrections (local.rotation =
 * normalize(local.rotation * c), from the two-bone and aim jobs) or rotations (replace,
 * from the chain job), one per listed joint. models must hold the model matrices of
 * `locals` on entry (at least for the joints before the lowest listed one). */
typedef struct ossa_ik_apply_job {
    const uint32_t *joints;
    uint32_t joint_count;
    const ossa_quat *corrections;    /* joint_count, or NULL when rotations is given */
    uint32_t correction_count;
    const ossa_quat *rotations;      /* joint_count, or NULL when corrections is given */
    uint32_t rotation_count;
    const int32_t *parents;          /* parents-first: parents[i] < i */
    uint32_t parent_count;
    ossa_transform *locals;          /* in/out */
    uint32_t local_count;
    ossa_mat4 *models;               /* in/out */
    uint32_t model_count;
} ossa_ik_apply_job;

/* OK, INVALID_ARGUMENT (NULL job, joints, parents, locals or models; joint_count 0; both or
 * neither of corrections and rotations; a joint >= local_count; a parent not before its
 * child from the lowest listed joint on) or BUFFER_TOO_SMALL (correction_count or
 * rotation_count < joint_count; parent_count or model_count < local_count). diag (may be
 * NULL) names the field: "joints", "joint_count", "corrections" (both or neither given),
 * "parents", "locals", "models", the *_count fields, or "joints[k]". O(local_count). */
ossa_result ossa_ik_apply_job_validate(const ossa_ik_apply_job *job, ossa_diagnostic *diag);
/* Validates (nothing is written on failure), then updates locals and models. */
ossa_result ossa_ik_apply_job_run(ossa_ik_apply_job *job);

/* ---- a small geometry helper for IK targets (foot placement) ---- */

/* Ray (origin + t * dir, t >= 0) against triangle (a, b, c), both sides
 * (Moller-Trumbore). Returns true and *t (in units of |dir|) on a hit. */
bool ossa_ray_intersect_triangle(ossa_vec3 origin, ossa_vec3 dir, ossa_vec3 a, ossa_vec3 b, ossa_vec3 c,
                                 float *t);

#ifdef __cplusplus
}
#endif
#endif
