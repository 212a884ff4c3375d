/* ossa/retarget.h: retargeting: one humanoid's motion on another humanoid's skeleton.
 * Provided by two libraries:
 *   ossa (runtime; CMake ossa::ossa, pkg-config ossa): the humanoid profile, bone maps and
 *     their validation, the retarget rig (built once) and the run-time retarget job;
 *   ossa_retarget (offline; CMake ossa::ossa_retarget, pkg-config ossa_retarget): automatic
 *     mapping by name, JSON map files, the clip bake and the quality report.
 * docs/retargeting.md has the algorithm, the profile, the map format and the report.
 *
 * Where it sits: after sampling and blending, before local-to-model (docs/architecture.md):
 *   source local pose ─► retarget job (rig: source + target skeletons, maps, references)
 *                      ─► target local pose ─► local-to-model ─► palettes ─► skinning.
 *
 * The method. Both skeletons are mapped onto one canonical humanoid profile (hips, spine
 * chain, neck, head, shoulders, arms, hands, legs, feet, toes, optional fingers). Each has a
 * reference pose: its bind pose (from the skins' inverse bind matrices) when it has a skin,
 * else its rest pose. The target reference is turned about up (about the model origin) so
 * that it faces the way the source reference faces (facing = left x up, left = the summed
 * horizontal right-to-left directions of the upper legs and upper arms; rig->facing_yaw);
 * with tpose_fix both are then turned into a common T-pose by limb direction. Per frame, every mapped target bone takes the source bone's model-space rotation
 * change from the source reference, delta = Q_source * Q_source_ref^-1, and applies it on top
 * of its own reference: Q_target = delta * Q_target_ref; the result goes back to local
 * rotations. Target joints on the path between two bones mapped on both sides (a spine of 4
 * bones driven by one of 2) take the source's delta at the same normalised chain length
 * (slerp between the source joints around it). Every other target joint keeps its reference
 * local transform. Local translations and scales are the target reference's (bone lengths
 * are kept exactly), except the hips' model-space position: ratio * the source hips' model
 * position, ratio = target hip height / source hip height (the ground is the plane through
 * each model origin normal to up, so a root motion is scaled too). Contacts (optional):
 * a source foot (hand) whose height above its floor and whose speed are below thresholds
 * scaled by the source leg length is in contact; the target foot is then pinned where it was
 * when the contact began, with the two-bone IK job (ik.h), and released smoothly (blended out
 * over blend_time) when the contact ends.
 *
 * Conventions: both skeletons' model spaces share up (default +Y); forward (default +Z; left
 * is up x forward, +X by default) is used only where a reference gives no facing of its own
 * (and for the T-pose fix's left, turned to the source reference's facing). Rotations are exact for joints whose model transforms are a rotation times a positive
 * uniform scale (a mirrored or sheared parent gives an approximation).
 * Ownership and threads: a rig is one allocation from ossa_retarget_rig_create, freed by
 * ossa_retarget_rig_destroy, immutable afterwards and shareable between threads; it borrows
 * both skeletons, which must outlive it. The job owns nothing and never allocates; contact
 * state is per character instance. Offline calls allocate through the given allocator. */
#ifndef OSSA_RETARGET_H
#define OSSA_RETARGET_H

#include "clip.h"
#include "skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ======================= the canonical humanoid profile (ossa) ======================= */

/* Profile bones. An index enum (like a joint index): HIPS is 0 and arrays are indexed by it.
 * Required bones (ossa_humanoid_bone_required): hips, spine, head, and per side upper arm,
 * lower arm, hand, upper leg, lower leg, foot. Everything else is optional. */
typedef enum ossa_humanoid_bone {
    OSSA_HUMANOID_HIPS = 0,
    OSSA_HUMANOID_SPINE,          /* the first spine bone above the hips */
    OSSA_HUMANOID_CHEST,
    OSSA_HUMANOID_UPPER_CHEST,
    OSSA_HUMANOID_NECK,
    OSSA_HUMANOID_HEAD,
    OSSA_HUMANOID_LEFT_SHOULDER,  /* clavicle */
    OSSA_HUMANOID_LEFT_UPPER_ARM,
    OSSA_HUMANOID_LEFT_LOWER_ARM,
    OSSA_HUMANOID_LEFT_HAND,
    OSSA_HUMANOID_RIGHT_SHOULDER,
    OSSA_HUMANOID_RIGHT_UPPER_ARM,
    OSSA_HUMANOID_RIGHT_LOWER_ARM,
    OSSA_HUMANOID_RIGHT_HAND,
    OSSA_HUMANOID_LEFT_UPPER_LEG, /* thigh */
    OSSA_HUMANOID_LEFT_LOWER_LEG, /* shin, calf */
    OSSA_HUMANOID_LEFT_FOOT,
    OSSA_HUMANOID_LEFT_TOES,
    OSSA_HUMANOID_RIGHT_UPPER_LEG,
    OSSA_HUMANOID_RIGHT_LOWER_LEG,
    OSSA_HUMANOID_RIGHT_FOOT,
    OSSA_HUMANOID_RIGHT_TOES,
    /* fingers (optional): 1 = proximal, 2 = intermediate, 3 = distal */
    OSSA_HUMANOID_LEFT_THUMB_1,
    OSSA_HUMANOID_LEFT_THUMB_2,
    OSSA_HUMANOID_LEFT_THUMB_3,
    OSSA_HUMANOID_LEFT_INDEX_1,
    OSSA_HUMANOID_LEFT_INDEX_2,
    OSSA_HUMANOID_LEFT_INDEX_3,
    OSSA_HUMANOID_LEFT_MIDDLE_1,
    OSSA_HUMANOID_LEFT_MIDDLE_2,
    OSSA_HUMANOID_LEFT_MIDDLE_3,
    OSSA_HUMANOID_LEFT_RING_1,
    OSSA_HUMANOID_LEFT_RING_2,
    OSSA_HUMANOID_LEFT_RING_3,
    OSSA_HUMANOID_LEFT_LITTLE_1,
    OSSA_HUMANOID_LEFT_LITTLE_2,
    OSSA_HUMANOID_LEFT_LITTLE_3,
    OSSA_HUMANOID_RIGHT_THUMB_1,
    OSSA_HUMANOID_RIGHT_THUMB_2,
    OSSA_HUMANOID_RIGHT_THUMB_3,
    OSSA_HUMANOID_RIGHT_INDEX_1,
    OSSA_HUMANOID_RIGHT_INDEX_2,
    OSSA_HUMANOID_RIGHT_INDEX_3,
    OSSA_HUMANOID_RIGHT_MIDDLE_1,
    OSSA_HUMANOID_RIGHT_MIDDLE_2,
    OSSA_HUMANOID_RIGHT_MIDDLE_3,
    OSSA_HUMANOID_RIGHT_RING_1,
    OSSA_HUMANOID_RIGHT_RING_2,
    OSSA_HUMANOID_RIGHT_RING_3,
    OSSA_HUMANOID_RIGHT_LITTLE_1,
    OSSA_HUMANOID_RIGHT_LITTLE_2,
    OSSA_HUMANOID_RIGHT_LITTLE_3,
    OSSA_HUMANOID_BONE_COUNT
} ossa_humanoid_bone;

/* The bone's name as used in map files and messages: lower case with underscores, e.g.
 * "hips", "upper_chest", "left_upper_arm", "right_toes", "left_index_2". NULL when `bone` is
 * out of range. Static strings. */
const char *ossa_humanoid_bone_name(ossa_humanoid_bone bone);
/* The bone named `name` (exactly one of the names above, ASCII case-insensitive), or -1. */
int32_t ossa_humanoid_bone_from_name(const char *name);
/* True for the required bones (see ossa_humanoid_bone); false when out of range. */
bool ossa_humanoid_bone_required(ossa_humanoid_bone bone);
/* The profile parent of a bone (the bone it hangs from: spine -> hips, left_upper_arm ->
 * left_shoulder, left_shoulder -> upper_chest, left_index_1 -> left_hand, ...), or -1 for the
 * hips and out-of-range bones. Mapped joints must follow this order in the skeleton. */
int32_t ossa_humanoid_bone_parent(ossa_humanoid_bone bone);

/* ============================ bone maps (ossa) ============================ */

/* A bone map: which skeleton joint plays each profile bone. Plain data, copyable.
 * joints[b] is a joint index of the skeleton it was made for, or -1 for an unmapped bone.
 * Start from ossa_retarget_map_clear (a zeroed map maps every bone to joint 0: it fails
 * validation, as a duplicate). */
typedef struct ossa_retarget_map {
    int32_t joints[OSSA_HUMANOID_BONE_COUNT];
} ossa_retarget_map;

/* Sets every bone unmapped (-1). NULL is a no-op. */
void ossa_retarget_map_clear(ossa_retarget_map *map);

/* Checks a map against its skeleton, in this order, and reports the first fault:
 *   a joint index outside [-1, joint_count)         path "<bone>"  (INVALID_ARGUMENT)
 *   a required bone unmapped                         path "<bone>"  "required bone ... is not mapped"
 *   two bones mapped to one joint                    path "<bone>"  (the later bone; the message
 *                                                                    names both bones and the joint)
 *   a bone's joint not a strict descendant of the joint of its nearest mapped profile ancestor
 *                                                    path "<bone>"  (names both joints)
 * with INVALID_DATA for the last three. Messages name bones by profile name and joints by
 * index and name. OK, or INVALID_ARGUMENT for NULL map or skeleton (path "map" / "skeleton").
 * diag may be NULL. O(bones x depth). */
ossa_result ossa_retarget_map_validate(const ossa_retarget_map *map, const ossa_skeleton *skeleton,
                                       ossa_diagnostic *diag);

/* ============================ the retarget rig (ossa) ============================ */

/* Zero means default for every field but the four required ones. */
typedef struct ossa_retarget_rig_desc {
    const ossa_skeleton *source;          /* required; borrowed: must outlive the rig */
    const ossa_retarget_map *source_map;  /* required; must pass ossa_retarget_map_validate */
    const ossa_skeleton *target;          /* required; borrowed */
    const ossa_retarget_map *target_map;  /* required */
    /* Reference local poses (joint_count transforms each, copied); NULL = the skeleton's
     * bind pose when it has a skin, else its rest pose. */
    const ossa_transform *source_reference;
    const ossa_transform *target_reference;
    /* Turn both references into a common T-pose first: arms straight out sideways (along
     * +-left), legs straight down (-up), spine and neck up, hands and fingers in line with
     * their forearms, feet and toes keep their own direction. For an A-pose rig driven by a
     * T-pose rig (or the reverse): without it, the difference of the references is kept and
     * arms cross or spread. */
    bool tpose_fix;
    ossa_vec3 up;        /* model-space up of both skeletons, any length; zero = +Y */
    ossa_vec3 forward;   /* facing used when a reference gives none (and by the T-pose fix); zero = +Z (-Y when up is +-Z) */
    /* Scale of the hips' translation, target / source; 0 = the ratio of hip heights (the
     * hips' height above the lowest mapped foot or toe joint along up, in the references). */
    float translation_scale;
} ossa_retarget_rig_desc;

/* A rig: both skeletons, maps and references and what the job precomputes from them.
 * Read-only fields; the internal plan is not for callers. */
typedef struct ossa_retarget_rig {
    const ossa_skeleton *source;               /* borrowed */
    const ossa_skeleton *target;               /* borrowed */
    ossa_retarget_map source_map, target_map;  /* copied */
    ossa_transform *source_reference;          /* source joint_count locals (after tpose_fix) */
    ossa_transform *target_reference;          /* target joint_count locals (turned by facing_yaw,
                                                  after tpose_fix) */
    ossa_vec3 up, forward;                     /* unit */
    float facing_yaw;                          /* radians about up by which target_reference was
                                                  turned to face the way the source reference faces
                                                  (0 when they already agree within 1e-3) */
    float translation_scale;                   /* target / source (resolved, > 0) */
    float source_hip_height, target_hip_height; /* model units (see translation_scale) */
    float source_leg_length, target_leg_length; /* upper leg + lower leg bone lengths in the
                                                   references, mean of both sides, model units */
    struct ossa__retarget_plan *plan;          /* internal */
    ossa_allocator allocator;
} ossa_retarget_rig;

/* Builds a rig: validates both maps (diag names "source_map.<bone>" / "target_map.<bone>"),
 * copies the references, applies tpose_fix, measures hip heights and leg lengths, and plans
 * every target joint. INVALID_ARGUMENT (NULLs, non-finite or parallel up / forward, negative
 * or non-finite translation_scale), INVALID_DATA (a map fails validation; a hip height or
 * leg length that is not positive), OUT_OF_MEMORY. On failure *out is NULL. */
ossa_result ossa_retarget_rig_create(const ossa_retarget_rig_desc *desc, const ossa_allocator *allocator,
                                     ossa_retarget_rig **out, ossa_diagnostic *diag);
/* Frees a rig; NULL is a no-op. */
void ossa_retarget_rig_destroy(ossa_retarget_rig *rig);

/* Scratch transforms the retarget job needs for `rig`: source + target joint counts. */
uint32_t ossa_retarget_scratch_count(const ossa_retarget_rig *rig);

/* A source model-space translation (root motion, a hips displacement) scaled for the target:
 * translation_scale * v. For an extracted root-motion track (root_motion.h), scale its
 * positions with it. */
ossa_vec3 ossa_retarget_scale_translation(const ossa_retarget_rig *rig, ossa_vec3 source_translation);

/* ======================= contacts (state for the run-time job) ======================= */

/* Limbs that can be pinned. */
typedef enum ossa_retarget_limb {
    OSSA_RETARGET_LEFT_FOOT = 0,
    OSSA_RETARGET_RIGHT_FOOT,
    OSSA_RETARGET_LEFT_HAND,
    OSSA_RETARGET_RIGHT_HAND,
    OSSA_RETARGET_LIMB_COUNT
} ossa_retarget_limb;

/* Contact detection and pinning parameters; zero means default for every field. */
typedef struct ossa_retarget_contact_options {
    bool hands;               /* also detect and pin hands (default: feet only) */
    float height_threshold;   /* a source foot (hand) is low when its height above its floor
                                 (ossa_retarget_contacts) is below this x source leg length;
                                 0 = 0.05 */
    float speed_threshold;    /* ... and slow when its speed is below this x source leg length
                                 per second; 0 = 0.5 */
    float blend_time;         /* seconds to blend a pin in and out (released smoothly); 0 = 0.1 */
} ossa_retarget_contact_options;

/* Per-instance contact state, zero-initialised before the first frame (or after a jump in
 * time); the job updates it. Plain data. */
typedef struct ossa_retarget_contacts {
    bool started;                                   /* false until the first run */
    ossa_vec3 source_previous[OSSA_RETARGET_LIMB_COUNT]; /* source model positions, last frame */
    bool in_contact[OSSA_RETARGET_LIMB_COUNT];      /* source contact this frame */
    float weight[OSSA_RETARGET_LIMB_COUNT];         /* pin blend weight in [0, 1] */
    ossa_vec3 pin[OSSA_RETARGET_LIMB_COUNT];        /* target model position the limb is pinned at */
    /* Set by the caller (optional): heights are measured above floor[limb] when has_floor, else
     * above the foot's height in the source reference (feet) or the ground plane (hands). ossa_retarget_bake sets each to the lowest height the
     * limb's source joint reaches in the clip. */
    bool has_floor;
    float floor[OSSA_RETARGET_LIMB_COUNT];
} ossa_retarget_contacts;

/* ========================= the run-time retarget job (ossa) ========================= */

/* Retarget job: source local pose -> target local pose through a rig.
 *
 * input: the source's local pose (input_count >= source joint_count); output: the target's
 * local pose (output_count >= target joint_count), fully written; scratch: scratch_count >=
 * ossa_retarget_scratch_count(rig) transforms of working memory (model-space transforms of
 * both skeletons; undefined afterwards). With `contacts` (per-instance state) the limbs in
 * contact are pinned with two-bone IK (see the header's opening comment); delta_time is the
 * seconds since the previous run with that state (> 0 to measure speed; 0 on a first frame).
 * No allocation; O(source + target joints). */
typedef struct ossa_retarget_job {
    const ossa_retarget_rig *rig;          /* required */
    const ossa_transform *input;           /* required: source local pose */
    uint32_t input_count;
    ossa_transform *output;                /* required: target local pose */
    uint32_t output_count;
    ossa_transform *scratch;               /* required: working memory */
    uint32_t scratch_count;
    ossa_retarget_contacts *contacts;      /* optional: NULL = no contact pinning */
    ossa_retarget_contact_options contact_options; /* zero = defaults */
    float delta_time;                      /* seconds, >= 0 (used with contacts) */
    uint32_t contact_mask;                 /* out: bit (1 << limb) set for limbs pinned this frame */
} ossa_retarget_job;

/* OK, INVALID_ARGUMENT (NULL job / rig / input / output / scratch; a negative or non-finite
 * delta_time or contact option) or BUFFER_TOO_SMALL (input_count, output_count or
 * scratch_count too small). diag (may be NULL) names the field: "rig", "input", "output",
 * "scratch", "input_count", "output_count", "scratch_count", "delta_time",
 * "contact_options.height_threshold", "contact_options.speed_threshold",
 * "contact_options.blend_time". O(1). */
ossa_result ossa_retarget_job_validate(const ossa_retarget_job *job, ossa_diagnostic *diag);
/* Validates (nothing is written on failure), then writes output (and contacts, contact_mask). */
ossa_result ossa_retarget_job_run(ossa_retarget_job *job);

/* ===================== automatic mapping and map files (ossa_retarget) ===================== */

/* Maps a skeleton's joints to the profile by name, then checks the result against the
 * hierarchy. Names are compared after normalising: ASCII case folded, separators (space _ - . :
 * |) dropped, known prefixes stripped (a namespace up to ':' such as "mixamorig:", "Bip01 ",
 * "Bip001 ", "CC_Base_", "DEF-", "ORG-", "Armature|", ...), the side read from "Left"/"Right",
 * "L_"/"R_", "_l"/"_r", ".L"/".R", "l"/"r" prefixes before a known word (CMU's "LHipJoint",
 * "LeftUpLeg"); synonyms are accepted (UpLeg/Thigh/UpperLeg, Leg/Calf/Shin/LowerLeg,
 * Arm/UpperArm, ForeArm/LowerArm/Elbow, Shoulder/Clavicle/Collar, ToeBase/Toe/Ball,
 * Pelvis/Hips/Hip, Spine/Spine1/Spine2/Chest/UpperChest/LowerBack, ...). Spine bones are
 * then assigned along the hips -> neck (head) path: the first spine joint is spine, the last
 * below the neck upper_chest (or chest), one between them chest. A candidate that breaks the
 * profile's hierarchy (a child above its parent) is refused.
 * *out is always written (unmatched bones -1). Returns OK when the map passes
 * ossa_retarget_map_validate, else its INVALID_DATA and diagnostic (the map still holds what
 * was found: complete it with a map file); INVALID_ARGUMENT for NULLs. Allocates nothing. */
ossa_result ossa_retarget_map_auto(const ossa_skeleton *skeleton, ossa_retarget_map *out, ossa_diagnostic *diag);

/* Applies a JSON map file's entries for one side onto *map (which the automatic map usually
 * filled first). The document (docs/retargeting.md has the schema):
 *   { "source": { "<bone>": "<joint name>" | null, ... },
 *     "target": { "<bone>": "<joint name>" | null, ... } }
 * `side` is "source" or "target"; a missing side object changes nothing. A string maps the
 * bone to the first joint of that exact name, null unmaps it. The input is untrusted:
 * PARSE (broken JSON), INVALID_DATA (not an object; an unknown bone; a value that is not a
 * string or null; a joint name the skeleton lacks; a duplicated key) with diag->path the JSON
 * pointer ("/target/left_foot"), INVALID_ARGUMENT (NULLs, side not "source"/"target"),
 * OUT_OF_MEMORY, LIMIT (more than 1 MiB or nesting deeper than 32). The map is validated
 * afterwards by the caller (or by the rig). On failure *map is unchanged. */
ossa_result ossa_retarget_map_load_json(const char *json, size_t size, const char *side,
                                        const ossa_skeleton *skeleton, ossa_retarget_map *map,
                                        ossa_diagnostic *diag);
/* The same reading a file (IO when it cannot be read; diag names the file). */
ossa_result ossa_retarget_map_load_file(const char *path, const char *side, const ossa_skeleton *skeleton,
                                        ossa_retarget_map *map, ossa_diagnostic *diag);

/* Writes a map as the JSON object of one side, { "hips": "Hips", ..., "left_toes": null },
 * every profile bone in profile order, one per line, joint names escaped, into out (capacity
 * bytes, NUL-terminated when capacity > 0). Returns the length the whole text needs (without
 * the NUL), snprintf-style: call with capacity 0 to size the buffer. map and skeleton must be
 * non-NULL (returns 0 otherwise); bones mapped outside the skeleton are written as null. */
size_t ossa_retarget_map_to_json(const ossa_retarget_map *map, const ossa_skeleton *skeleton, char *out,
                                 size_t capacity);

/* ================================ the bake (ossa_retarget) ================================ */

/* Zero means default for every field. */
typedef struct ossa_retarget_bake_options {
    bool no_contacts;                              /* default: pin feet during source contacts */
    ossa_retarget_contact_options contact_options; /* zero = defaults */
    float table_rate;                              /* the new clip's ossa_clip_desc.table_rate */
} ossa_retarget_bake_options;

/* Retargets a whole editable clip of rig->source into a new editable clip of rig->target at
 * the source key times (the union of every track's key times; at least the clip's start),
 * played in order through the run-time job (contacts on unless no_contacts). The new clip has
 * the source clip's name and looping flag and LINEAR tracks (rotations kept in one hemisphere
 * from key to key) for every component that differs from the target's REST pose at some key
 * (the clip falls back to the rest pose, which can differ from the rig's reference); build and
 * pack it like any clip. INVALID_ARGUMENT (NULLs), INVALID_DATA (a clip track's joint outside
 * the source skeleton), OUT_OF_MEMORY. On failure *out is NULL. */
ossa_result ossa_retarget_bake(const ossa_retarget_rig *rig, const ossa_clip *source_clip,
                               const ossa_retarget_bake_options *options, const ossa_allocator *allocator,
                               ossa_clip **out);

/* ============================ the quality report (ossa_retarget) ============================ */

/* Per-bone angle statistics, degrees. */
typedef struct ossa_retarget_angle_stats {
    bool mapped;          /* mapped on both sides (else the figures are 0) */
    float mean_degrees;
    float max_degrees;
} ossa_retarget_angle_stats;

/* Foot (hand) contact figures for one limb. */
typedef struct ossa_retarget_limb_report {
    uint32_t contact_count;     /* source contacts (runs of contact frames) */
    uint32_t contact_frames;    /* frames in contact */
    float target_skate;         /* largest distance a target foot moves from where it stood at a
                                   contact's first frame, over every contact, / target leg length */
    float source_skate;         /* the same for the source foot, / source leg length */
} ossa_retarget_limb_report;

/* The quality of one retargeted clip, all measured at the source key times. Definitions in
 * docs/retargeting.md. */
typedef struct ossa_retarget_report {
    uint32_t frame_count;                 /* source key times measured */
    float duration;                       /* seconds */
    ossa_retarget_limb_report limbs[OSSA_RETARGET_LIMB_COUNT]; /* hands only with options.hands */
    float bone_length_change;             /* largest | |local translation| - reference | over every
                                             target joint but the hips and every frame, model units
                                             (must be 0) */
    ossa_retarget_angle_stats bones[OSSA_HUMANOID_BONE_COUNT]; /* angle between the source's and
                                             the target's model-space rotation change from their
                                             references, per bone mapped on both sides */
    float angle_mean_degrees;             /* over every mapped bone and frame */
    float angle_max_degrees;
    int32_t angle_max_bone;               /* the bone of angle_max_degrees, -1 when none */
    float target_penetration;             /* deepest a target foot or toe joint goes below its
                                             reference height (along up), / target leg length */
    float source_penetration;             /* the same for the source, / source leg length */
    float round_trip_mean_degrees;        /* source -> target -> source (no contacts): angle
                                             between each mapped source bone's model rotation and
                                             its round trip, mean and max over bones and frames */
    float round_trip_max_degrees;
    float round_trip_hips;                /* largest hips position error of the round trip,
                                             / source leg length */
} ossa_retarget_report;

/* Measures `target_clip` (usually ossa_retarget_bake's result, with the same options) against
 * `source_clip` through rig; builds the reverse rig (target -> source, same references and
 * options) for the round trip. INVALID_ARGUMENT (NULLs), INVALID_DATA (a track joint outside
 * its skeleton), OUT_OF_MEMORY. *out is zeroed first. */
ossa_result ossa_retarget_report_compute(const ossa_retarget_rig *rig, const ossa_clip *source_clip,
                                         const ossa_clip *target_clip, const ossa_retarget_bake_options *options,
                                         const ossa_allocator *allocator, ossa_retarget_report *out);

/* Writes a report as one JSON object (keys as the struct's fields, "bones" an object by profile
 * bone name with only mapped bones, "limbs" by "left_foot", "right_foot", "left_hand",
 * "right_hand"), snprintf-style as ossa_retarget_map_to_json. 0 for a NULL report. */
size_t ossa_retarget_report_to_json(const ossa_retarget_report *report, char *out, size_t capacity);

#ifdef __cplusplus
}
#endif
#endif
