/* The retarget rig: both skeletons' references (optionally T-posed), their measures, and the
 * per-target-joint plan the job follows (docs/retargeting.md, "The transfer"). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "anim/retarget_internal.h"
#include "core/alloc.h"
#include "core/job.h"

#define B(x) OSSA_HUMANOID_##x

/* ---- small maths ---- */

static float dot3(ossa_vec3 a, ossa_vec3 b) {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

static bool finite3(ossa_vec3 v) {
    return isfinite(v.x) && isfinite(v.y) && isfinite(v.z);
}

/* Shortest rotation taking direction a to direction b (identity for a degenerate a or b). */
static ossa_quat rotation_between(ossa_vec3 a, ossa_vec3 b) {
    float ab = sqrtf(dot3(a, a) * dot3(b, b));
    if (!(ab > 1e-30f)) return ossa_quat_identity();
    float d = dot3(a, b);
    if (d < -0.999999f * ab) {
        ossa_vec3 axis = ossa_vec3_cross(ossa_vec3_make(1, 0, 0), a);
        if (dot3(axis, axis) < 1e-6f * dot3(a, a)) axis = ossa_vec3_cross(ossa_vec3_make(0, 1, 0), a);
        return ossa_quat_from_axis_angle(ossa_vec3_normalize(axis), 3.14159265358979f);
    }
    ossa_vec3 c = ossa_vec3_cross(a, b);
    ossa_quat q = {c.x, c.y, c.z, ab + d};
    return ossa_quat_normalize(q);
}

/* Model transforms of a local pose (parents first). */
static void model_pose(const ossa_skeleton *skeleton, const ossa_transform *locals, ossa_transform *models) {
    for (uint32_t j = 0; j < skeleton->joint_count; j++) {
        int32_t p = skeleton->parents[j];
        models[j] = p < 0 ? locals[j] : ossa_transform_combine(models[p], locals[j]);
    }
}

/* ---- the T-pose fix ---- */

typedef struct limb_direction {
    ossa_humanoid_bone bone;
    ossa_humanoid_bone children[3]; /* the first mapped one gives the bone's direction */
    int axis;                       /* 0 = +up, 1 = -up, 2 = +left, 3 = -left */
} limb_direction;

static const limb_direction TPOSE[] = {
    {B(SPINE), {B(CHEST), B(UPPER_CHEST), B(NECK)}, 0},
    {B(LEFT_UPPER_ARM), {B(LEFT_LOWER_ARM), B(LEFT_LOWER_ARM), B(LEFT_LOWER_ARM)}, 2},
    {B(LEFT_LOWER_ARM), {B(LEFT_HAND), B(LEFT_HAND), B(LEFT_HAND)}, 2},
    {B(LEFT_HAND), {B(LEFT_MIDDLE_1), B(LEFT_INDEX_1), B(LEFT_RING_1)}, 2},
    {B(RIGHT_UPPER_ARM), {B(RIGHT_LOWER_ARM), B(RIGHT_LOWER_ARM), B(RIGHT_LOWER_ARM)}, 3},
    {B(RIGHT_LOWER_ARM), {B(RIGHT_HAND), B(RIGHT_HAND), B(RIGHT_HAND)}, 3},
    {B(RIGHT_HAND), {B(RIGHT_MIDDLE_1), B(RIGHT_INDEX_1), B(RIGHT_RING_1)}, 3},
    {B(LEFT_UPPER_LEG), {B(LEFT_LOWER_LEG), B(LEFT_LOWER_LEG), B(LEFT_LOWER_LEG)}, 1},
    {B(LEFT_LOWER_LEG), {B(LEFT_FOOT), B(LEFT_FOOT), B(LEFT_FOOT)}, 1},
    {B(RIGHT_UPPER_LEG), {B(RIGHT_LOWER_LEG), B(RIGHT_LOWER_LEG), B(RIGHT_LOWER_LEG)}, 1},
    {B(RIGHT_LOWER_LEG), {B(RIGHT_FOOT), B(RIGHT_FOOT), B(RIGHT_FOOT)}, 1},
};

/* The joint giving entry i's direction in `map` (its first mapped child), or -1. */
static int32_t tpose_child(const ossa_retarget_map *map, size_t i) {
    int32_t child = -1;
    for (int c = 0; c < 3 && child < 0; c++) child = map->joints[TPOSE[i].children[c]];
    return map->joints[TPOSE[i].bone] >= 0 ? child : -1;
}

/* Turns each limb bone of `locals` so that it points along its T-pose direction (only the bones
 * both maps can aim: a hand is aimed at a finger only when both skeletons have one); `models`
 * is working memory (joint_count). */
static void apply_tpose_fix(const ossa_skeleton *skeleton, const ossa_retarget_map *map,
                            const ossa_retarget_map *other, ossa_vec3 up, ossa_vec3 left, ossa_transform *locals,
                            ossa_transform *models) {
    for (size_t i = 0; i < sizeof TPOSE / sizeof TPOSE[0]; i++) {
        int32_t joint = map->joints[TPOSE[i].bone], child = tpose_child(map, i);
        if (child < 0 || tpose_child(other, i) < 0) continue;
        model_pose(skeleton, locals, models);
        ossa_vec3 want = TPOSE[i].axis < 2 ? up : left;
        if (TPOSE[i].axis & 1) want = ossa_vec3_scale(want, -1.0f);
        ossa_vec3 have = ossa_vec3_sub(models[child].translation, models[joint].translation);
        ossa_quat turn = rotation_between(have, want);
        int32_t parent = skeleton->parents[joint];
        ossa_quat parent_rotation = parent < 0 ? ossa_quat_identity() : models[parent].rotation;
        ossa_quat model = ossa_quat_mul(turn, models[joint].rotation);
        locals[joint].rotation = ossa_quat_normalize(ossa_quat_mul(ossa_quat_inverse(parent_rotation), model));
    }
}

/* ---- measures ---- */

/* Height of the lowest mapped foot or toe joint along up. */
static float lowest_foot_height(const ossa_retarget_map *map, const ossa_transform *models, ossa_vec3 up) {
    static const ossa_humanoid_bone feet[] = {B(LEFT_FOOT), B(RIGHT_FOOT), B(LEFT_TOES), B(RIGHT_TOES)};
    float lowest = INFINITY;
    for (int i = 0; i < 4; i++) {
        int32_t j = map->joints[feet[i]];
        if (j >= 0) lowest = fminf(lowest, dot3(models[j].translation, up));
    }
    return lowest;
}

static float bone_distance(const ossa_retarget_map *map, const ossa_transform *models, ossa_humanoid_bone a,
                           ossa_humanoid_bone b) {
    return ossa_vec3_length(ossa_vec3_sub(models[map->joints[b]].translation, models[map->joints[a]].translation));
}

static float leg_length(const ossa_retarget_map *map, const ossa_transform *models) {
    float left = bone_distance(map, models, B(LEFT_UPPER_LEG), B(LEFT_LOWER_LEG)) +
                 bone_distance(map, models, B(LEFT_LOWER_LEG), B(LEFT_FOOT));
    float right = bone_distance(map, models, B(RIGHT_UPPER_LEG), B(RIGHT_LOWER_LEG)) +
                  bone_distance(map, models, B(RIGHT_LOWER_LEG), B(RIGHT_FOOT));
    return 0.5f * (left + right);
}

static float hip_height(const ossa_retarget_map *map, const ossa_transform *models, ossa_vec3 up) {
    return dot3(models[map->joints[B(HIPS)]].translation, up) - lowest_foot_height(map, models, up);
}

/* ---- facing alignment ---- */

/* Horizontal unit vector (perpendicular to up) from the right to the left mapped joint, or zero. */
static ossa_vec3 side_direction(const ossa_retarget_map *map, const ossa_transform *models, ossa_vec3 up,
                                ossa_humanoid_bone left, ossa_humanoid_bone right) {
    if (map->joints[left] < 0 || map->joints[right] < 0) return ossa_vec3_make(0, 0, 0);
    ossa_vec3 d = ossa_vec3_sub(models[map->joints[left]].translation, models[map->joints[right]].translation);
    d = ossa_vec3_sub(d, ossa_vec3_scale(up, dot3(d, up)));
    float length = ossa_vec3_length(d);
    return length > 1e-12f ? ossa_vec3_scale(d, 1.0f / length) : ossa_vec3_make(0, 0, 0);
}

/* The way a reference faces in its model space: left x up, where left is the sum of the unit
 * horizontal right-to-left directions of the upper legs and of the upper arms (those mapped);
 * `fallback` when they give none. Unit, perpendicular to up. */
static ossa_vec3 reference_facing(const ossa_retarget_map *map, const ossa_transform *models, ossa_vec3 up,
                                  ossa_vec3 fallback) {
    ossa_vec3 left = ossa_vec3_add(side_direction(map, models, up, B(LEFT_UPPER_LEG), B(RIGHT_UPPER_LEG)),
                                   side_direction(map, models, up, B(LEFT_UPPER_ARM), B(RIGHT_UPPER_ARM)));
    ossa_vec3 facing = ossa_vec3_cross(left, up);
    float length = ossa_vec3_length(facing);
    return length > 1e-6f ? ossa_vec3_scale(facing, 1.0f / length) : fallback;
}

/* Signed angle about up from direction a to direction b (both perpendicular to up), radians;
 * exactly 0 below OSSA__FACING_TOLERANCE so that rigs facing the same way are left untouched. */
#define OSSA__FACING_TOLERANCE 1e-3f
static float yaw_between(ossa_vec3 a, ossa_vec3 b, ossa_vec3 up) {
    float angle = atan2f(dot3(ossa_vec3_cross(a, b), up), dot3(a, b));
    return fabsf(angle) < OSSA__FACING_TOLERANCE ? 0.0f : angle;
}

/* Pre-multiplies every root of a reference by `turn` about the model origin (so all its model
 * rotations and positions are turned). */
static void turn_reference(const ossa_skeleton *skeleton, ossa_quat turn, ossa_transform *locals) {
    for (uint32_t j = 0; j < skeleton->joint_count; j++) {
        if (skeleton->parents[j] >= 0) continue;
        locals[j].rotation = ossa_quat_normalize(ossa_quat_mul(turn, locals[j].rotation));
        locals[j].translation = ossa_quat_rotate(turn, locals[j].translation);
    }
}

/* ---- the plan ---- */

/* Working memory of rig creation (freed before it returns). */
typedef struct rig_scratch {
    ossa_transform *source_models, *target_models;
    uint32_t *source_path, *target_path;
    float *source_position, *target_position;
} rig_scratch;

/* The joints from `ancestor` down to `joint` (both included), ancestor first; returns the count. */
static uint32_t joint_path(const ossa_skeleton *skeleton, int32_t ancestor, int32_t joint, uint32_t *path) {
    uint32_t n = 0;
    for (int32_t j = joint; j >= 0; j = skeleton->parents[j]) {
        path[n++] = (uint32_t)j;
        if (j == ancestor) break;
    }
    for (uint32_t i = 0; i < n / 2; i++) {
        uint32_t t = path[i];
        path[i] = path[n - 1 - i];
        path[n - 1 - i] = t;
    }
    return n;
}

/* Normalised length along a path of each of its joints (0 at the first, 1 at the last; by
 * index when the path has no length). */
static void path_positions(const ossa_transform *models, const uint32_t *path, uint32_t n, float *position) {
    position[0] = 0.0f;
    for (uint32_t k = 1; k < n; k++) {
        ossa_vec3 step = ossa_vec3_sub(models[path[k]].translation, models[path[k - 1]].translation);
        position[k] = position[k - 1] + ossa_vec3_length(step);
    }
    float total = position[n - 1];
    for (uint32_t k = 1; k < n; k++) position[k] = total > 0.0f ? position[k] / total : (float)k / (float)(n - 1);
}

static void plan_transfer(struct ossa__retarget_plan *plan, uint32_t target, uint32_t a, uint32_t b, float f) {
    plan->kind[target] = OSSA__RETARGET_TRANSFER;
    plan->source_a[target] = a;
    plan->source_b[target] = b;
    plan->fraction[target] = f;
}

/* Target joints strictly between the anchors (profile bones `upper` above `lower`, mapped on
 * both sides) take the source's change at the same normalised length along the source path. */
static void plan_chain(ossa_retarget_rig *rig, ossa_humanoid_bone upper, ossa_humanoid_bone lower, rig_scratch *s) {
    uint32_t sn = joint_path(rig->source, rig->source_map.joints[upper], rig->source_map.joints[lower], s->source_path);
    uint32_t tn = joint_path(rig->target, rig->target_map.joints[upper], rig->target_map.joints[lower], s->target_path);
    path_positions(s->source_models, s->source_path, sn, s->source_position);
    path_positions(s->target_models, s->target_path, tn, s->target_position);
    for (uint32_t k = 1; k + 1 < tn; k++) {
        uint32_t joint = s->target_path[k];
        if (rig->plan->kind[joint] != OSSA__RETARGET_REFERENCE) continue;
        float v = s->target_position[k];
        uint32_t i = 0;
        while (i + 2 < sn && s->source_position[i + 1] <= v) i++;
        float span = s->source_position[i + 1] - s->source_position[i];
        float f = span > 0.0f ? (v - s->source_position[i]) / span : 0.0f;
        plan_transfer(rig->plan, joint, s->source_path[i], s->source_path[i + 1], fminf(fmaxf(f, 0.0f), 1.0f));
    }
}

static bool mapped_on_both(const ossa_retarget_rig *rig, int bone) {
    return rig->source_map.joints[bone] >= 0 && rig->target_map.joints[bone] >= 0;
}

static void plan_limbs(ossa_retarget_rig *rig, const rig_scratch *s) {
    static const ossa_humanoid_bone chains[OSSA_RETARGET_LIMB_COUNT][3] = {
        {B(LEFT_UPPER_LEG), B(LEFT_LOWER_LEG), B(LEFT_FOOT)},
        {B(RIGHT_UPPER_LEG), B(RIGHT_LOWER_LEG), B(RIGHT_FOOT)},
        {B(LEFT_UPPER_ARM), B(LEFT_LOWER_ARM), B(LEFT_HAND)},
        {B(RIGHT_UPPER_ARM), B(RIGHT_LOWER_ARM), B(RIGHT_HAND)},
    };
    for (int l = 0; l < OSSA_RETARGET_LIMB_COUNT; l++) {
        ossa__retarget_limb *limb = &rig->plan->limbs[l];
        limb->present = mapped_on_both(rig, (int)chains[l][0]) && mapped_on_both(rig, (int)chains[l][1]) &&
                        mapped_on_both(rig, (int)chains[l][2]);
        if (!limb->present) continue;
        limb->source_end = (uint32_t)rig->source_map.joints[chains[l][2]];
        limb->target_start = (uint32_t)rig->target_map.joints[chains[l][0]];
        limb->target_mid = (uint32_t)rig->target_map.joints[chains[l][1]];
        limb->target_end = (uint32_t)rig->target_map.joints[chains[l][2]];
        float height = dot3(s->source_models[limb->source_end].translation, rig->up);
        limb->source_rest_height = l < OSSA_RETARGET_LEFT_HAND ? height : 0.0f;
    }
}

/* Fills the plan from the references (whose model transforms are in s). */
static void plan_rig(ossa_retarget_rig *rig, rig_scratch *s) {
    struct ossa__retarget_plan *plan = rig->plan;
    for (uint32_t j = 0; j < rig->source->joint_count; j++) {
        plan->source_reference_model_inverse[j] = ossa_quat_inverse(s->source_models[j].rotation);
    }
    for (uint32_t j = 0; j < rig->target->joint_count; j++) {
        plan->target_reference_model[j] = s->target_models[j].rotation;
    }
    for (int32_t b = 0; b < OSSA_HUMANOID_BONE_COUNT; b++) {
        if (!mapped_on_both(rig, b)) continue;
        uint32_t sj = (uint32_t)rig->source_map.joints[b];
        plan_transfer(plan, (uint32_t)rig->target_map.joints[b], sj, sj, 0.0f);
    }
    for (int32_t b = 1; b < OSSA_HUMANOID_BONE_COUNT; b++) {
        if (!mapped_on_both(rig, b)) continue;
        int32_t upper = ossa_humanoid_bone_parent((ossa_humanoid_bone)b);
        while (upper >= 0 && !mapped_on_both(rig, upper)) upper = ossa_humanoid_bone_parent((ossa_humanoid_bone)upper);
        if (upper >= 0) plan_chain(rig, (ossa_humanoid_bone)upper, (ossa_humanoid_bone)b, s);
    }
    plan->source_hips = (uint32_t)rig->source_map.joints[B(HIPS)];
    plan->target_hips = (uint32_t)rig->target_map.joints[B(HIPS)];
    int32_t parent = rig->target->parents[plan->target_hips];
    plan->target_hips_parent_inverse =
        parent < 0 ? ossa_transform_identity() : ossa_transform_inverse(s->target_models[parent]);
    plan_limbs(rig, s);
}

/* ---- creation ---- */

static ossa_result check_map(const ossa_retarget_map *map, const ossa_skeleton *skeleton, const char *side,
                             ossa_diagnostic *diag) {
    ossa_diagnostic inner;
    memset(&inner, 0, sizeof inner);
    ossa_result r = ossa_retarget_map_validate(map, skeleton, &inner);
    if (r == OSSA_OK) return OSSA_OK;
    size_t skip = strlen(inner.path) + 2;
    const char *why = strlen(inner.message) >= skip ? inner.message + skip : inner.message;
    char field[sizeof inner.path + 16];
    snprintf(field, sizeof field, "%.12s.%.120s", side, inner.path);
    return ossa__job_fail(diag, r, field, "%s", why);
}

/* Checks the desc and resolves up, forward and left into *frame (3 unit vectors). */
static ossa_result check_desc(const ossa_retarget_rig_desc *desc, ossa_vec3 frame[3], ossa_diagnostic *diag) {
    if (!desc) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "desc", "is NULL");
    if (!desc->source) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "source", "is NULL");
    if (!desc->source_map) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "source_map", "is NULL");
    if (!desc->target) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "target", "is NULL");
    if (!desc->target_map) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "target_map", "is NULL");
    if (!finite3(desc->up)) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "up", "is not finite");
    if (!finite3(desc->forward)) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "forward", "is not finite");
    if (!(desc->translation_scale >= 0.0f) || !isfinite(desc->translation_scale)) {
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "translation_scale", "must be finite and >= 0");
    }
    ossa_vec3 up = dot3(desc->up, desc->up) > 0.0f ? ossa_vec3_normalize(desc->up) : ossa_vec3_make(0, 1, 0);
    ossa_vec3 forward = desc->forward;
    if (!(dot3(forward, forward) > 0.0f)) forward = fabsf(up.z) > 0.9f ? ossa_vec3_make(0, -1, 0) : ossa_vec3_make(0, 0, 1);
    forward = ossa_vec3_sub(forward, ossa_vec3_scale(up, dot3(forward, up)));
    if (!(ossa_vec3_length(forward) > 1e-6f)) {
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "forward", "is parallel to up");
    }
    frame[0] = up;
    frame[1] = ossa_vec3_normalize(forward);
    frame[2] = ossa_vec3_cross(frame[0], frame[1]);
    ossa_result r = check_map(desc->source_map, desc->source, "source_map", diag);
    return r != OSSA_OK ? r : check_map(desc->target_map, desc->target, "target_map", diag);
}

static const ossa_transform *default_reference(const ossa_skeleton *skeleton) {
    return skeleton->skin_count > 0 ? skeleton->bind : skeleton->rest;
}

/* One allocation: the rig, its plan and every array. */
static ossa_retarget_rig *allocate_rig(const ossa_allocator *allocator, uint32_t S, uint32_t T) {
    ossa__layout layout = {0, false};
    size_t o_plan = ossa__layout_add(&layout, 1, sizeof(struct ossa__retarget_plan));
    size_t o_rig = ossa__layout_add(&layout, 1, sizeof(ossa_retarget_rig));
    size_t o_sref = ossa__layout_add(&layout, S, sizeof(ossa_transform));
    size_t o_tref = ossa__layout_add(&layout, T, sizeof(ossa_transform));
    size_t o_sinv = ossa__layout_add(&layout, S, sizeof(ossa_quat));
    size_t o_tmod = ossa__layout_add(&layout, T, sizeof(ossa_quat));
    size_t o_a = ossa__layout_add(&layout, T, sizeof(uint32_t));
    size_t o_b = ossa__layout_add(&layout, T, sizeof(uint32_t));
    size_t o_f = ossa__layout_add(&layout, T, sizeof(float));
    size_t o_kind = ossa__layout_add(&layout, T, sizeof(uint8_t));
    if (layout.overflow) return NULL;
    uint8_t *block = ossa__alloc(allocator, layout.size);
    if (!block) return NULL;
    memset(block, 0, layout.size);
    ossa_retarget_rig *rig = (ossa_retarget_rig *)(void *)(block + o_rig);
    rig->plan = (struct ossa__retarget_plan *)(void *)(block + o_plan);
    rig->source_reference = (ossa_transform *)(void *)(block + o_sref);
    rig->target_reference = (ossa_transform *)(void *)(block + o_tref);
    rig->plan->source_reference_model_inverse = (ossa_quat *)(void *)(block + o_sinv);
    rig->plan->target_reference_model = (ossa_quat *)(void *)(block + o_tmod);
    rig->plan->source_a = (uint32_t *)(void *)(block + o_a);
    rig->plan->source_b = (uint32_t *)(void *)(block + o_b);
    rig->plan->fraction = (float *)(void *)(block + o_f);
    rig->plan->kind = block + o_kind;
    rig->allocator = ossa__allocator_resolve(allocator);
    return rig;
}

static bool allocate_scratch(const ossa_allocator *allocator, uint32_t S, uint32_t T, rig_scratch *s, void **block) {
    ossa__layout layout = {0, false};
    size_t o_sm = ossa__layout_add(&layout, S, sizeof(ossa_transform));
    size_t o_tm = ossa__layout_add(&layout, T, sizeof(ossa_transform));
    size_t o_sp = ossa__layout_add(&layout, S, sizeof(uint32_t));
    size_t o_tp = ossa__layout_add(&layout, T, sizeof(uint32_t));
    size_t o_su = ossa__layout_add(&layout, S, sizeof(float));
    size_t o_tu = ossa__layout_add(&layout, T, sizeof(float));
    uint8_t *b = layout.overflow ? NULL : ossa__alloc(allocator, layout.size);
    if (!b) return false;
    s->source_models = (ossa_transform *)(void *)(b + o_sm);
    s->target_models = (ossa_transform *)(void *)(b + o_tm);
    s->source_path = (uint32_t *)(void *)(b + o_sp);
    s->target_path = (uint32_t *)(void *)(b + o_tp);
    s->source_position = (float *)(void *)(b + o_su);
    s->target_position = (float *)(void *)(b + o_tu);
    *block = b;
    return true;
}

/* Turns the target reference about up so that it faces the way the source reference faces
 * (docs/retargeting.md, "Facing alignment"); sets rig->facing_yaw and returns the source's
 * facing. */
static ossa_vec3 align_facings(ossa_retarget_rig *rig, rig_scratch *s) {
    model_pose(rig->source, rig->source_reference, s->source_models);
    model_pose(rig->target, rig->target_reference, s->target_models);
    ossa_vec3 source_facing = reference_facing(&rig->source_map, s->source_models, rig->up, rig->forward);
    ossa_vec3 target_facing = reference_facing(&rig->target_map, s->target_models, rig->up, rig->forward);
    rig->facing_yaw = yaw_between(target_facing, source_facing, rig->up);
    if (rig->facing_yaw != 0.0f) {
        turn_reference(rig->target, ossa_quat_from_axis_angle(rig->up, rig->facing_yaw), rig->target_reference);
    }
    return source_facing;
}

/* References (copied, facings aligned, T-posed), measures and scale. */
static ossa_result prepare_references(ossa_retarget_rig *rig, const ossa_retarget_rig_desc *desc, rig_scratch *s,
                                      ossa_diagnostic *diag) {
    uint32_t S = rig->source->joint_count, T = rig->target->joint_count;
    const ossa_transform *sref = desc->source_reference ? desc->source_reference : default_reference(rig->source);
    const ossa_transform *tref = desc->target_reference ? desc->target_reference : default_reference(rig->target);
    memcpy(rig->source_reference, sref, S * sizeof *sref);
    memcpy(rig->target_reference, tref, T * sizeof *tref);
    ossa_vec3 source_facing = align_facings(rig, s);
    if (desc->tpose_fix) {
        ossa_vec3 left = ossa_vec3_cross(rig->up, rig->forward);
        float yaw = yaw_between(rig->forward, source_facing, rig->up);
        if (yaw != 0.0f) left = ossa_quat_rotate(ossa_quat_from_axis_angle(rig->up, yaw), left);
        apply_tpose_fix(rig->source, &rig->source_map, &rig->target_map, rig->up, left, rig->source_reference,
                        s->source_models);
        apply_tpose_fix(rig->target, &rig->target_map, &rig->source_map, rig->up, left, rig->target_reference,
                        s->target_models);
    }
    model_pose(rig->source, rig->source_reference, s->source_models);
    model_pose(rig->target, rig->target_reference, s->target_models);
    rig->source_hip_height = hip_height(&rig->source_map, s->source_models, rig->up);
    rig->target_hip_height = hip_height(&rig->target_map, s->target_models, rig->up);
    rig->source_leg_length = leg_length(&rig->source_map, s->source_models);
    rig->target_leg_length = leg_length(&rig->target_map, s->target_models);
    if (!(rig->source_hip_height > 0.0f) || !(rig->target_hip_height > 0.0f)) {
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_DATA, rig->source_hip_height > 0.0f ? "target" : "source",
                              "the hips are not above the feet in the reference pose (hip height %g)",
                              (double)(rig->source_hip_height > 0.0f ? rig->target_hip_height : rig->source_hip_height));
    }
    if (!(rig->source_leg_length > 0.0f) || !(rig->target_leg_length > 0.0f)) {
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_DATA, rig->source_leg_length > 0.0f ? "target" : "source",
                              "the legs have no length in the reference pose");
    }
    rig->translation_scale =
        desc->translation_scale > 0.0f ? desc->translation_scale : rig->target_hip_height / rig->source_hip_height;
    return OSSA_OK;
}

ossa_result ossa_retarget_rig_create(const ossa_retarget_rig_desc *desc, const ossa_allocator *allocator,
                                     ossa_retarget_rig **out, ossa_diagnostic *diag) {
    if (!out) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "out", "is NULL");
    *out = NULL;
    ossa_vec3 frame[3];
    ossa_result r = check_desc(desc, frame, diag);
    if (r != OSSA_OK) return r;
    uint32_t S = desc->source->joint_count, T = desc->target->joint_count;
    ossa_retarget_rig *rig = allocate_rig(allocator, S, T);
    rig_scratch scratch;
    void *scratch_block = NULL;
    if (!rig || !allocate_scratch(allocator, S, T, &scratch, &scratch_block)) {
        ossa_retarget_rig_destroy(rig);
        return ossa__job_fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "desc", "out of memory");
    }
    rig->source = desc->source;
    rig->target = desc->target;
    rig->source_map = *desc->source_map;
    rig->target_map = *desc->target_map;
    rig->up = frame[0];
    rig->forward = frame[1];
    r = prepare_references(rig, desc, &scratch, diag);
    if (r == OSSA_OK) plan_rig(rig, &scratch);
    ossa__free(allocator, scratch_block);
    if (r != OSSA_OK) {
        ossa_retarget_rig_destroy(rig);
        return r;
    }
    *out = rig;
    return OSSA_OK;
}

void ossa_retarget_rig_destroy(ossa_retarget_rig *rig) {
    if (!rig) return;
    ossa_allocator allocator = rig->allocator;
    ossa__free(&allocator, rig->plan); /* the block starts with the plan */
}
