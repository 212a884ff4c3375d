/* Retargeting (include/ossa/retarget.h): the profile and map validation, automatic maps of the
 * demo character and Woman (and of renamed copies), the run-time job against expectations
 * computed here (a skeleton onto itself, onto a copy scaled x2, onto a renamed copy), bone
 * lengths kept exactly, contact pinning measured on model positions computed here, the T-pose
 * fix, the job's validity and allocation tests, the bake and the report, and JSON map files
 * (good and malformed). */
#include "test_support.h"
#include "job_check.h"

#include <ossa/import.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo_character.h" /* support/ */

#define H(x) OSSA_HUMANOID_##x

/* ---- helpers ---- */

typedef struct counter { int allocs, frees; } counter;
static void *count_alloc(size_t n, void *u) { ((counter *)u)->allocs++; return malloc(n); }
static void count_free(void *p, void *u) { if (p) ((counter *)u)->frees++; free(p); }

/* Angle between two rotations, radians (sign-insensitive). */
static double rotation_distance(ossa_quat a, ossa_quat b) {
    /* conj(a) * b in double: angle = 2 atan2(|vector part|, |scalar part|) (well conditioned at 0) */
    double w = (double)a.w * b.w + (double)a.x * b.x + (double)a.y * b.y + (double)a.z * b.z;
    double x = (double)a.w * b.x - (double)a.x * b.w - (double)a.y * b.z + (double)a.z * b.y;
    double y = (double)a.w * b.y + (double)a.x * b.z - (double)a.y * b.w - (double)a.z * b.x;
    double z = (double)a.w * b.z - (double)a.x * b.y + (double)a.y * b.x - (double)a.z * b.w;
    return 2.0 * atan2(sqrt(x * x + y * y + z * z), fabs(w));
}

static double distance3(ossa_vec3 a, ossa_vec3 b) {
    return sqrt(((double)a.x - b.x) * (a.x - b.x) + ((double)a.y - b.y) * (a.y - b.y) + ((double)a.z - b.z) * (a.z - b.z));
}

/* Model transforms by an obvious walk up each chain (independent of the library's passes). */
static ossa_transform model_of(const ossa_skeleton *s, const ossa_transform *locals, uint32_t joint) {
    return ossa_pose_joint_to_model_transform(locals, s->parents, s->joint_count, joint);
}

typedef const char *(*rename_fn)(const char *name, char *buffer, size_t size);

/* A copy of `s` without skins: rest = s's bind pose with every translation times `scale`,
 * names through `rename` (NULL = same). */
static ossa_skeleton *copy_skeleton(const ossa_skeleton *s, float scale, rename_fn rename) {
    uint32_t n = s->joint_count;
    ossa_transform *rest = calloc(n, sizeof *rest);
    const char **names = calloc(n, sizeof *names);
    char (*buffers)[96] = calloc(n, sizeof *buffers);
    for (uint32_t j = 0; j < n; j++) {
        rest[j] = s->bind[j];
        rest[j].translation = ossa_vec3_scale(rest[j].translation, scale);
        names[j] = rename ? rename(s->names[j], buffers[j], sizeof buffers[j]) : s->names[j];
    }
    ossa_skeleton_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.joint_count = n;
    desc.parents = s->parents;
    desc.rest = rest;
    desc.names = names;
    ossa_skeleton *out = NULL;
    assert_int_equal(ossa_skeleton_create(&desc, NULL, &out), OSSA_OK);
    free(rest);
    free(names);
    free(buffers);
    return out;
}

/* "LeftUpLeg" -> "mixamorig:UpLeg_l", "RightHand" -> "mixamorig:Hand_r", "Spine1" -> "mixamorig:Spine1". */
static const char *mixamo_rename(const char *name, char *buffer, size_t size) {
    if (!strncmp(name, "Left", 4)) snprintf(buffer, size, "mixamorig:%s_l", name + 4);
    else if (!strncmp(name, "Right", 5)) snprintf(buffer, size, "mixamorig:%s_r", name + 5);
    else snprintf(buffer, size, "mixamorig:%s", name);
    return buffer;
}

static ossa_retarget_rig *make_rig(const ossa_skeleton *source, const ossa_skeleton *target, bool tpose_fix) {
    ossa_retarget_map sm, tm;
    ossa_diagnostic diag;
    memset(&diag, 0, sizeof diag);
    if (ossa_retarget_map_auto(source, &sm, &diag) != OSSA_OK) fail_msg("source map: %s", diag.message);
    if (ossa_retarget_map_auto(target, &tm, &diag) != OSSA_OK) fail_msg("target map: %s", diag.message);
    ossa_retarget_rig_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.source = source;
    desc.source_map = &sm;
    desc.target = target;
    desc.target_map = &tm;
    desc.tpose_fix = tpose_fix;
    ossa_retarget_rig *rig = NULL;
    if (ossa_retarget_rig_create(&desc, NULL, &rig, &diag) != OSSA_OK) fail_msg("rig: %s", diag.message);
    return rig;
}

/* Runs the job once (no contacts). */
static void retarget(const ossa_retarget_rig *rig, const ossa_transform *input, ossa_transform *output) {
    uint32_t scratch_count = ossa_retarget_scratch_count(rig);
    ossa_transform *scratch = calloc(scratch_count, sizeof *scratch);
    ossa_retarget_job job;
    memset(&job, 0, sizeof job);
    job.rig = rig;
    job.input = input;
    job.input_count = rig->source->joint_count;
    job.output = output;
    job.output_count = rig->target->joint_count;
    job.scratch = scratch;
    job.scratch_count = scratch_count;
    assert_int_equal(ossa_retarget_job_run(&job), OSSA_OK);
    free(scratch);
}

static ossa_asset *g_demo;

static const ossa_clip *demo_clip(const char *name) {
    int32_t c = ossa_asset_find_clip(g_demo, name);
    assert_true(c >= 0);
    return g_demo->clips[c];
}

/* ---- the profile and map validation ---- */

static void profile_names_and_parents(void **state) {
    (void)state;
    for (int b = 0; b < OSSA_HUMANOID_BONE_COUNT; b++) {
        const char *name = ossa_humanoid_bone_name((ossa_humanoid_bone)b);
        assert_non_null(name);
        assert_int_equal(ossa_humanoid_bone_from_name(name), b);
        assert_true(ossa_humanoid_bone_parent((ossa_humanoid_bone)b) < b); /* parents first, hips -1 */
    }
    assert_string_equal(ossa_humanoid_bone_name(H(LEFT_UPPER_LEG)), "left_upper_leg");
    assert_int_equal(ossa_humanoid_bone_from_name("Right_Toes"), H(RIGHT_TOES));
    assert_int_equal(ossa_humanoid_bone_from_name("tail"), -1);
    assert_null(ossa_humanoid_bone_name(OSSA_HUMANOID_BONE_COUNT));
    assert_true(ossa_humanoid_bone_required(H(LEFT_FOOT)));
    assert_false(ossa_humanoid_bone_required(H(LEFT_TOES)));
    assert_int_equal(ossa_humanoid_bone_parent(H(LEFT_LOWER_LEG)), H(LEFT_UPPER_LEG));
}

static void map_validation_names_the_fault(void **state) {
    (void)state;
    const ossa_skeleton *s = g_demo->skeleton;
    ossa_retarget_map map;
    ossa_diagnostic diag;
    assert_int_equal(ossa_retarget_map_auto(s, &map, NULL), OSSA_OK);
    ossa_retarget_map good = map;

    map.joints[H(LEFT_FOOT)] = -1; /* a required bone missing */
    assert_int_equal(ossa_retarget_map_validate(&map, s, &diag), OSSA_ERROR_INVALID_DATA);
    assert_string_equal(diag.path, "left_foot");
    assert_non_null(strstr(diag.message, "required bone left_foot is not mapped"));

    map = good; /* two bones on one joint */
    map.joints[H(RIGHT_FOOT)] = map.joints[H(LEFT_FOOT)];
    assert_int_equal(ossa_retarget_map_validate(&map, s, &diag), OSSA_ERROR_INVALID_DATA);
    assert_string_equal(diag.path, "right_foot");
    assert_non_null(strstr(diag.message, "left_foot and right_foot are both mapped to joint"));
    assert_non_null(strstr(diag.message, "'foot_L'"));

    map = good; /* a child above its parent: upper and lower leg swapped */
    int32_t upper = map.joints[H(LEFT_UPPER_LEG)];
    map.joints[H(LEFT_UPPER_LEG)] = map.joints[H(LEFT_LOWER_LEG)];
    map.joints[H(LEFT_LOWER_LEG)] = upper;
    assert_int_equal(ossa_retarget_map_validate(&map, s, &diag), OSSA_ERROR_INVALID_DATA);
    assert_string_equal(diag.path, "left_lower_leg");
    assert_non_null(strstr(diag.message, "'upper_leg_L'"));
    assert_non_null(strstr(diag.message, "is not below left_upper_leg"));

    map = good;
    map.joints[H(HEAD)] = 99;
    assert_int_equal(ossa_retarget_map_validate(&map, s, &diag), OSSA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(diag.path, "head");

    memset(&map, 0, sizeof map); /* a zeroed map: everything on joint 0 */
    assert_int_not_equal(ossa_retarget_map_validate(&map, s, &diag), OSSA_OK);
    assert_int_equal(ossa_retarget_map_validate(&good, s, &diag), OSSA_OK);

    /* the rig refuses a bad map and says which side */
    map = good;
    map.joints[H(LEFT_HAND)] = -1;
    ossa_retarget_rig_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.source = s;
    desc.source_map = &good;
    desc.target = s;
    desc.target_map = &map;
    ossa_retarget_rig *rig = (ossa_retarget_rig *)&desc; /* must be set to NULL */
    assert_int_equal(ossa_retarget_rig_create(&desc, NULL, &rig, &diag), OSSA_ERROR_INVALID_DATA);
    assert_null(rig);
    assert_string_equal(diag.path, "target_map.left_hand");
    assert_string_equal(diag.message, "target_map.left_hand: required bone left_hand is not mapped");
}

/* ---- automatic maps ---- */

static void expect_mapped(const ossa_skeleton *s, const ossa_retarget_map *map, ossa_humanoid_bone bone,
                          const char *joint_name) {
    int32_t j = map->joints[bone];
    if (j < 0) fail_msg("%s unmapped, expected '%s'", ossa_humanoid_bone_name(bone), joint_name);
    if (strcmp(s->names[j], joint_name)) {
        fail_msg("%s -> '%s', expected '%s'", ossa_humanoid_bone_name(bone), s->names[j], joint_name);
    }
}

static void automap_demo(void **state) {
    (void)state;
    const ossa_skeleton *s = g_demo->skeleton;
    ossa_retarget_map map;
    ossa_diagnostic diag;
    assert_int_equal(ossa_retarget_map_auto(s, &map, &diag), OSSA_OK);
    expect_mapped(s, &map, H(HIPS), "hips");
    expect_mapped(s, &map, H(SPINE), "spine");
    expect_mapped(s, &map, H(CHEST), "chest");
    expect_mapped(s, &map, H(NECK), "neck");
    expect_mapped(s, &map, H(HEAD), "head");
    expect_mapped(s, &map, H(LEFT_UPPER_ARM), "upper_arm_L");
    expect_mapped(s, &map, H(RIGHT_LOWER_ARM), "lower_arm_R");
    expect_mapped(s, &map, H(LEFT_HAND), "hand_L");
    expect_mapped(s, &map, H(RIGHT_UPPER_LEG), "upper_leg_R");
    expect_mapped(s, &map, H(LEFT_LOWER_LEG), "lower_leg_L");
    expect_mapped(s, &map, H(RIGHT_FOOT), "foot_R");
    assert_int_equal(map.joints[H(UPPER_CHEST)], -1);
    assert_int_equal(map.joints[H(LEFT_SHOULDER)], -1);
    assert_int_equal(map.joints[H(LEFT_TOES)], -1);
    int mapped = 0;
    for (int b = 0; b < OSSA_HUMANOID_BONE_COUNT; b++) mapped += map.joints[b] >= 0;
    assert_int_equal(mapped, DEMO_JOINT_COUNT); /* every joint plays a bone */
}

static void check_woman_map(const ossa_skeleton *s, const ossa_retarget_map *map, bool renamed) {
    char buffer[96];
#define W(bone, name) expect_mapped(s, map, H(bone), renamed ? mixamo_rename(name, buffer, sizeof buffer) : name)
    W(HIPS, "Hips");
    W(SPINE, "Spine");
    W(CHEST, "Spine1");
    W(UPPER_CHEST, "Spine2");
    W(NECK, "Neck");
    W(HEAD, "Head");
    W(LEFT_SHOULDER, "LeftShoulder");
    W(LEFT_UPPER_ARM, "LeftArm");
    W(LEFT_LOWER_ARM, "LeftForeArm");
    W(LEFT_HAND, "LeftHand");
    W(RIGHT_SHOULDER, "RightShoulder");
    W(RIGHT_UPPER_ARM, "RightArm");
    W(RIGHT_LOWER_ARM, "RightForeArm");
    W(RIGHT_HAND, "RightHand");
    W(LEFT_UPPER_LEG, "LeftUpLeg");
    W(LEFT_LOWER_LEG, "LeftLeg");
    W(LEFT_FOOT, "LeftFoot");
    W(LEFT_TOES, "LeftToeBase");
    W(RIGHT_UPPER_LEG, "RightUpLeg");
    W(RIGHT_LOWER_LEG, "RightLeg");
    W(RIGHT_FOOT, "RightFoot");
    W(RIGHT_TOES, "RightToeBase");
    W(LEFT_THUMB_1, "LeftHandThumb1");
    W(LEFT_THUMB_3, "LeftHandThumb3");
    W(LEFT_INDEX_2, "LeftHandIndex2");
    W(RIGHT_INDEX_1, "RightHandIndex1");
#undef W
    assert_int_equal(map->joints[H(LEFT_MIDDLE_1)], -1);
}

static void automap_woman(void **state) {
    (void)state;
    ossa_asset *woman = ot_load_asset("Woman/Woman.gltf");
    if (!woman) skip();
    assert_int_equal(woman->skeleton->joint_count, 43);
    ossa_retarget_map map;
    ossa_diagnostic diag;
    memset(&diag, 0, sizeof diag);
    if (ossa_retarget_map_auto(woman->skeleton, &map, &diag) != OSSA_OK) fail_msg("%s", diag.message);
    check_woman_map(woman->skeleton, &map, false);

    ossa_skeleton *renamed = copy_skeleton(woman->skeleton, 1.0f, mixamo_rename);
    ossa_retarget_map renamed_map;
    if (ossa_retarget_map_auto(renamed, &renamed_map, &diag) != OSSA_OK) fail_msg("%s", diag.message);
    check_woman_map(renamed, &renamed_map, true);
    assert_memory_equal(&map, &renamed_map, sizeof map); /* the same joints */
    ossa_skeleton_destroy(renamed);
    ossa_asset_destroy(woman);
}

/* Names from other conventions: Bip01, CC_Base_, .L/.R, L_, CMU's l prefix. */
static void automap_name_conventions(void **state) {
    (void)state;
    static const char *const names[] = {"Bip01 Pelvis", "CC_Base_Spine01", "spine.002", "DEF-neck", "Head",
                                        "Bip01 L Clavicle", "L_UpperArm", "forearm.L", "LeftHand",
                                        "Bip01 R Clavicle", "R_UpperArm", "forearm.R", "RightHand",
                                        "LHipJoint", "thigh.L", "CC_Base_L_Calf", "Bip01 L Foot", "LeftToeBase",
                                        "RHipJoint", "thigh.R", "CC_Base_R_Calf", "Bip01 R Foot", "RightToe",
                                        "LThumb"};
    static const int32_t parents[] = {-1, 0, 1, 2, 3, 2, 5, 6, 7, 2, 9, 10, 11, 0, 13, 14, 15, 16, 0, 18, 19, 20, 21, 8};
    ossa_skeleton_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.joint_count = sizeof names / sizeof names[0];
    desc.parents = parents;
    desc.names = names;
    ossa_skeleton *s = NULL;
    assert_int_equal(ossa_skeleton_create(&desc, NULL, &s), OSSA_OK);
    ossa_retarget_map map;
    ossa_diagnostic diag;
    memset(&diag, 0, sizeof diag);
    if (ossa_retarget_map_auto(s, &map, &diag) != OSSA_OK) fail_msg("%s", diag.message);
    expect_mapped(s, &map, H(HIPS), "Bip01 Pelvis");
    expect_mapped(s, &map, H(SPINE), "CC_Base_Spine01");
    expect_mapped(s, &map, H(CHEST), "spine.002");
    expect_mapped(s, &map, H(NECK), "DEF-neck");
    expect_mapped(s, &map, H(LEFT_SHOULDER), "Bip01 L Clavicle");
    expect_mapped(s, &map, H(LEFT_UPPER_ARM), "L_UpperArm");
    expect_mapped(s, &map, H(RIGHT_LOWER_ARM), "forearm.R");
    expect_mapped(s, &map, H(LEFT_UPPER_LEG), "thigh.L");
    expect_mapped(s, &map, H(RIGHT_LOWER_LEG), "CC_Base_R_Calf");
    expect_mapped(s, &map, H(LEFT_FOOT), "Bip01 L Foot");
    expect_mapped(s, &map, H(LEFT_TOES), "LeftToeBase");
    expect_mapped(s, &map, H(RIGHT_TOES), "RightToe");
    expect_mapped(s, &map, H(LEFT_THUMB_1), "LThumb");
    assert_int_equal(map.joints[H(UPPER_CHEST)], -1);
    ossa_skeleton_destroy(s);
}

/* ---- the transfer ---- */

/* The demo character onto itself: the output is the input (rotations and translations). */
static void onto_itself_is_identity(void **state) {
    (void)state;
    const ossa_skeleton *s = g_demo->skeleton;
    ossa_retarget_rig *rig = make_rig(s, s, false);
    ot_assert_near(rig->translation_scale, 1.0f, 1e-6f);
    ossa_transform in[DEMO_JOINT_COUNT], out[DEMO_JOINT_COUNT];
    for (int c = 0; c < 2; c++) {
        const ossa_clip *clip = g_demo->clips[c];
        for (int k = 0; k <= 20; k++) {
            float t = clip->start + (clip->end - clip->start) * (float)k / 20.0f;
            ot_clip_sample(clip, t, false, OSSA_LOOKUP_DEFAULT, NULL, s->rest, in, s->joint_count);
            retarget(rig, in, out);
            for (uint32_t j = 0; j < s->joint_count; j++) {
                assert_true(rotation_distance(in[j].rotation, out[j].rotation) <= 1e-5);
                assert_true(distance3(in[j].translation, out[j].translation) <= 1e-5);
                assert_true(distance3(in[j].scale, out[j].scale) <= 1e-5);
            }
        }
    }
    ossa_retarget_rig_destroy(rig);
}

/* Onto a copy scaled x2: every local rotation identical, the hips' translation doubled, every
 * other translation the copy's own (twice the source's). */
static void onto_scaled_copy(void **state) {
    (void)state;
    const ossa_skeleton *s = g_demo->skeleton;
    ossa_skeleton *big = copy_skeleton(s, 2.0f, NULL);
    ossa_retarget_rig *rig = make_rig(s, big, false);
    ot_assert_near(rig->translation_scale, 2.0f, 1e-5f);
    ot_assert_near(rig->target_leg_length, 2.0f * rig->source_leg_length, 1e-5f);
    ossa_transform in[DEMO_JOINT_COUNT], out[DEMO_JOINT_COUNT];
    const ossa_clip *clip = demo_clip("walk");
    int32_t hips = ossa_skeleton_find_joint(s, "hips");
    for (int k = 0; k <= 24; k++) {
        ot_clip_sample(clip, (float)k / 24.0f, true, OSSA_LOOKUP_DEFAULT, NULL, s->rest, in, s->joint_count);
        retarget(rig, in, out);
        for (uint32_t j = 0; j < s->joint_count; j++) {
            assert_true(rotation_distance(in[j].rotation, out[j].rotation) <= 1e-5);
            ossa_vec3 twice = ossa_vec3_scale(in[j].translation, 2.0f);
            assert_true(distance3(twice, out[j].translation) <= 2e-5);
        }
        /* the hips moved by twice the source's displacement from its rest */
        ossa_vec3 moved = ossa_vec3_sub(out[hips].translation, big->rest[hips].translation);
        ossa_vec3 source_moved = ossa_vec3_sub(in[hips].translation, s->rest[hips].translation);
        assert_true(distance3(moved, ossa_vec3_scale(source_moved, 2.0f)) <= 2e-5);
    }
    ossa_retarget_rig_destroy(rig);
    ossa_skeleton_destroy(big);
}

/* Woman's Walking onto a renamed copy of Woman (mixamorig: prefixes, _l/_r suffixes, no skin:
 * its rest is Woman's bind pose): the output is the input. The clip's translations of joints
 * other than the hips differ from the bind pose by float noise (1e-5 cm); the target keeps its
 * own bone lengths (and scales), so the input takes the bind translations (and scales) there:
 * the rule under test. */
static void onto_renamed_copy(void **state) {
    (void)state;
    ossa_asset *woman = ot_load_asset("Woman/Woman.gltf");
    if (!woman) skip();
    const ossa_skeleton *s = woman->skeleton;
    ossa_skeleton *renamed = copy_skeleton(s, 1.0f, mixamo_rename);
    ossa_retarget_rig *rig = make_rig(s, renamed, false);
    int32_t c = ossa_asset_find_clip(woman, "Walking");
    assert_true(c >= 0);
    const ossa_clip *clip = woman->clips[c];
    uint32_t n = s->joint_count;
    ossa_transform *in = calloc(n, sizeof *in), *out = calloc(n, sizeof *out);
    for (int k = 0; k <= 10; k++) {
        float t = clip->start + (clip->end - clip->start) * (float)k / 10.0f;
        ot_clip_sample(clip, t, false, OSSA_LOOKUP_DEFAULT, NULL, s->bind, in, n);
        for (uint32_t j = 0; j < n; j++) {
            if (strcmp(s->names[j], "Hips")) in[j].translation = s->bind[j].translation;
            in[j].scale = s->bind[j].scale;
        }
        retarget(rig, in, out);
        for (uint32_t j = 0; j < n; j++) {
            assert_true(rotation_distance(in[j].rotation, out[j].rotation) <= 1e-5);
            ossa_transform a = model_of(s, in, j), b = model_of(renamed, out, j);
            assert_true(rotation_distance(a.rotation, b.rotation) <= 1e-5);
            if (!(distance3(a.translation, b.translation) <= 1e-5 * (1.0 + ossa_vec3_length(a.translation)))) {
                fail_msg("t=%g joint %u '%s': %g %g %g vs %g %g %g (local in %g %g %g out %g %g %g)", (double)t, j, s->names[j],
                         (double)a.translation.x, (double)a.translation.y, (double)a.translation.z, (double)b.translation.x,
                         (double)b.translation.y, (double)b.translation.z, (double)in[j].translation.x, (double)in[j].translation.y, (double)in[j].translation.z, (double)out[j].translation.x, (double)out[j].translation.y, (double)out[j].translation.z);
            }
        }
    }
    free(in);
    free(out);
    ossa_retarget_rig_destroy(rig);
    ossa_skeleton_destroy(renamed);
    ossa_asset_destroy(woman);
}

/* ---- the job's shape ---- */

static void job_validity(void **state) {
    (void)state;
    const ossa_skeleton *s = g_demo->skeleton;
    ossa_retarget_rig *rig = make_rig(s, s, false);
    ossa_transform in[DEMO_JOINT_COUNT], out[DEMO_JOINT_COUNT], scratch[2 * DEMO_JOINT_COUNT];
    memcpy(in, s->rest, sizeof in);
    ossa_retarget_job job;
    memset(&job, 0, sizeof job);
    ot_assert_job(ossa_retarget_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "rig");
    job.rig = rig;
    ot_assert_job(ossa_retarget_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "input");
    job.input = in;
    ot_assert_job(ossa_retarget_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "output");
    job.output = out;
    ot_assert_job(ossa_retarget_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "scratch");
    job.scratch = scratch;
    ot_assert_job(ossa_retarget_job_validate, &job, OSSA_ERROR_BUFFER_TOO_SMALL, "input_count");
    job.input_count = DEMO_JOINT_COUNT;
    ot_assert_job(ossa_retarget_job_validate, &job, OSSA_ERROR_BUFFER_TOO_SMALL, "output_count");
    job.output_count = DEMO_JOINT_COUNT;
    ot_assert_job(ossa_retarget_job_validate, &job, OSSA_ERROR_BUFFER_TOO_SMALL, "scratch_count");
    job.scratch_count = 2 * DEMO_JOINT_COUNT - 1;
    ot_assert_job(ossa_retarget_job_validate, &job, OSSA_ERROR_BUFFER_TOO_SMALL, "scratch_count");
    job.scratch_count = ossa_retarget_scratch_count(rig);
    assert_int_equal(job.scratch_count, 2 * DEMO_JOINT_COUNT);
    ot_assert_job_ok(ossa_retarget_job_validate, &job);
    job.delta_time = -1.0f;
    ot_assert_job(ossa_retarget_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "delta_time");
    job.delta_time = NAN;
    ot_assert_job(ossa_retarget_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "delta_time");
    job.delta_time = 0.0f;
    job.contact_options.blend_time = INFINITY;
    ot_assert_job(ossa_retarget_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "contact_options.blend_time");
    job.contact_options.blend_time = 0.0f;
    job.contact_options.speed_threshold = -0.5f;
    ot_assert_job(ossa_retarget_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "contact_options.speed_threshold");
    job.contact_options.speed_threshold = 0.0f;
    job.contact_options.height_threshold = NAN;
    ot_assert_job(ossa_retarget_job_validate, &job, OSSA_ERROR_INVALID_ARGUMENT, "contact_options.height_threshold");
    job.contact_options.height_threshold = 0.0f;
    /* nothing is written when validation fails */
    memset(out, 0x5a, sizeof out);
    job.input_count = 3;
    assert_int_equal(ossa_retarget_job_run(&job), OSSA_ERROR_BUFFER_TOO_SMALL);
    for (size_t i = 0; i < sizeof out; i++) assert_int_equal(((unsigned char *)out)[i], 0x5a);
    assert_int_equal(ossa_retarget_job_run(NULL), OSSA_ERROR_INVALID_ARGUMENT);
    ossa_retarget_rig_destroy(rig);
}

/* The rig is one allocation from its allocator; the job (with contacts) allocates nothing. */
static void job_never_allocates(void **state) {
    (void)state;
    const ossa_skeleton *s = g_demo->skeleton;
    counter c = {0, 0};
    ossa_allocator a = {count_alloc, count_free, &c};
    ossa_retarget_map map;
    assert_int_equal(ossa_retarget_map_auto(s, &map, NULL), OSSA_OK);
    ossa_retarget_rig_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.source = s;
    desc.source_map = &map;
    desc.target = s;
    desc.target_map = &map;
    desc.tpose_fix = true;
    ossa_retarget_rig *rig = NULL;
    assert_int_equal(ossa_retarget_rig_create(&desc, &a, &rig, NULL), OSSA_OK);
    int allocs = c.allocs;
    assert_int_equal(c.allocs - c.frees, 1); /* the rig is one block; the working memory was freed */
    ossa_transform in[DEMO_JOINT_COUNT], out[DEMO_JOINT_COUNT], scratch[2 * DEMO_JOINT_COUNT];
    ossa_retarget_contacts contacts;
    memset(&contacts, 0, sizeof contacts);
    ossa_retarget_job job;
    memset(&job, 0, sizeof job);
    job.rig = rig;
    job.input = in;
    job.input_count = DEMO_JOINT_COUNT;
    job.output = out;
    job.output_count = DEMO_JOINT_COUNT;
    job.scratch = scratch;
    job.scratch_count = 2 * DEMO_JOINT_COUNT;
    job.contacts = &contacts;
    job.contact_options.hands = true;
    job.delta_time = 1.0f / 30.0f;
    for (int k = 0; k < 60; k++) {
        ot_clip_sample(demo_clip("walk"), (float)k / 30.0f, true, OSSA_LOOKUP_DEFAULT, NULL, s->rest, in, s->joint_count);
        assert_int_equal(ossa_retarget_job_run(&job), OSSA_OK);
    }
    assert_int_equal(c.allocs, allocs);
    ossa_retarget_rig_destroy(rig);
    assert_int_equal(c.allocs, c.frees);
}

/* ---- bake, contacts, report ---- */

/* Target model position of joint j in pose. */
static ossa_vec3 position_of(const ossa_skeleton *s, const ossa_transform *pose, uint32_t j) {
    return model_of(s, pose, j).translation;
}

/* Moves one leg of `pose` (upper, lower, foot joints) so that the foot reaches goal, knee
 * forward, with the two-bone IK job. */
static void source_leg_ik(const ossa_skeleton *s, ossa_transform *pose, const int32_t leg[3], ossa_vec3 goal) {
    ossa_mat4 m[3];
    for (int i = 0; i < 3; i++) m[i] = ossa_transform_to_mat4(model_of(s, pose, (uint32_t)leg[i]));
    ossa_quat c0, c1;
    ossa_ik_two_bone_job ik;
    memset(&ik, 0, sizeof ik);
    ik.start_joint = &m[0];
    ik.mid_joint = &m[1];
    ik.end_joint = &m[2];
    ik.target = goal;
    ik.pole_vector = ossa_vec3_make(0, 0, 1);
    ik.start_correction = &c0;
    ik.mid_correction = &c1;
    assert_int_equal(ossa_ik_two_bone_job_run(&ik), OSSA_OK);
    pose[leg[0]].rotation = ossa_quat_normalize(ossa_quat_mul(pose[leg[0]].rotation, c0));
    pose[leg[1]].rotation = ossa_quat_normalize(ossa_quat_mul(pose[leg[1]].rotation, c1));
}

/* A source motion with truly planted feet, made here: the demo character squats and sways
 * (hips down 5-13 cm, sideways 4 cm, turning) with both feet kept on their rest positions by
 * IK; after 1 s the left foot lifts 12 cm and comes back down (a contact ends, one begins). */
static void squat_pose(const ossa_skeleton *s, float t, ossa_transform *pose) {
    memcpy(pose, s->bind, s->joint_count * sizeof *pose);
    int32_t hips = ossa_skeleton_find_joint(s, "hips");
    float w = 2.0f * 3.14159265f * t;
    pose[hips].translation.x += 0.04f * sinf(w);
    pose[hips].translation.y -= 0.09f - 0.04f * cosf(w);
    pose[hips].rotation = ossa_quat_from_axis_angle(ossa_vec3_make(0, 1, 0), 0.15f * sinf(w));
    static const char *const names[2][3] = {{"upper_leg_L", "lower_leg_L", "foot_L"},
                                            {"upper_leg_R", "lower_leg_R", "foot_R"}};
    for (int side = 0; side < 2; side++) {
        int32_t leg[3];
        for (int i = 0; i < 3; i++) leg[i] = ossa_skeleton_find_joint(s, names[side][i]);
        ossa_vec3 goal = model_of(s, s->bind, (uint32_t)leg[2]).translation;
        if (side == 0 && t > 1.0f && t < 1.5f) goal.y += 0.12f * sinf(2.0f * 3.14159265f * (t - 1.0f));
        source_leg_ik(s, pose, leg, goal);
    }
}

/* The demo character with shins 1.6x longer, standing on the ground. */
static ossa_skeleton *long_shins_copy(void) {
    const ossa_skeleton *s = g_demo->skeleton;
    ossa_transform rest[DEMO_JOINT_COUNT];
    memcpy(rest, s->bind, sizeof rest);
    static const char *const shins[] = {"foot_L", "foot_R"};
    for (int i = 0; i < 2; i++) {
        int32_t j = ossa_skeleton_find_joint(s, shins[i]);
        rest[j].translation = ossa_vec3_scale(rest[j].translation, 1.6f);
    }
    rest[ossa_skeleton_find_joint(s, "hips")].translation.y += 0.42f * 0.6f; /* stand on the ground */
    ossa_skeleton_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.joint_count = s->joint_count;
    desc.parents = s->parents;
    desc.rest = rest;
    desc.names = (const char *const *)s->names;
    ossa_skeleton *tall = NULL;
    assert_int_equal(ossa_skeleton_create(&desc, NULL, &tall), OSSA_OK);
    return tall;
}

/* Plays the squat for 2 s at 60 Hz through the job (with or without contacts) and returns
 * the largest distance a foot moves from where it stood at the start of a contact (the job's
 * contacts, or the squat's own without); checks bone lengths on every frame. */
static double squat_foot_drift(const ossa_retarget_rig *rig, bool with_contacts, int *pinned, int *released) {
    const ossa_skeleton *s = g_demo->skeleton, *tall = rig->target;
    uint32_t n = s->joint_count, hips = (uint32_t)rig->target_map.joints[H(HIPS)];
    int32_t feet[2] = {ossa_skeleton_find_joint(tall, "foot_L"), ossa_skeleton_find_joint(tall, "foot_R")};
    ossa_transform in[DEMO_JOINT_COUNT], out[DEMO_JOINT_COUNT], scratch[2 * DEMO_JOINT_COUNT];
    ossa_retarget_contacts contacts;
    memset(&contacts, 0, sizeof contacts);
    ossa_retarget_job job = {.rig = rig, .input = in, .input_count = n, .output = out, .output_count = n,
                             .scratch = scratch, .scratch_count = 2 * n, .contacts = with_contacts ? &contacts : NULL};
    ossa_vec3 anchor[2];
    bool held[2] = {false, false};
    double worst = 0.0;
    *pinned = *released = 0;
    for (int k = 0; k <= 120; k++) {
        job.delta_time = k ? 1.0f / 60.0f : 0.0f;
        squat_pose(s, (float)k / 60.0f, in);
        assert_int_equal(ossa_retarget_job_run(&job), OSSA_OK);
        for (int f = 0; f < 2; f++) {
            ossa_vec3 p = position_of(tall, out, (uint32_t)feet[f]);
            bool contact = with_contacts ? contacts.in_contact[f] : (f == 1 || k < 60);
            if (!contact) {
                held[f] = false;
                (*released)++;
                continue;
            }
            if (with_contacts) {
                assert_true(job.contact_mask & (1u << f));
                ot_assert_near(contacts.weight[f], 1.0f, 0.0f);
            }
            if (!held[f]) anchor[f] = p, held[f] = true;
            double d = distance3(p, anchor[f]);
            if (d > worst) worst = d;
            (*pinned)++;
        }
        for (uint32_t j = 0; j < n; j++) {
            if (j != hips) assert_memory_equal(&out[j].translation, &rig->target_reference[j].translation, sizeof(ossa_vec3));
        }
    }
    return worst;
}

/* The squat onto a copy with shins 1.6x longer (standing on the ground): without contacts the
 * target feet move by more than 1% of its leg length; with them, on every frame where a source
 * contact holds (pin at full weight), each foot stays within 1% of the target leg length of
 * where its contact began; bone lengths are exact on every frame. */
static void contacts_pin_feet(void **state) {
    (void)state;
    ossa_skeleton *tall = long_shins_copy();
    ossa_retarget_rig *rig = make_rig(g_demo->skeleton, tall, false);
    double leg = rig->target_leg_length;
    int pinned, released;
    double free_drift = squat_foot_drift(rig, false, &pinned, &released);
    double pinned_drift = squat_foot_drift(rig, true, &pinned, &released);
    print_message("squat onto long shins: feet move up to %.3g%% of the leg during contacts without pinning, "
                  "%.3g%% with\n", 100.0 * free_drift / leg, 100.0 * pinned_drift / leg);
    if (!(free_drift > 0.01 * leg)) fail_msg("without contacts the feet moved only %g (leg %g)", free_drift, leg);
    assert_true(pinned >= 150);  /* both feet planted most of the time */
    assert_true(released >= 10); /* the left foot lifted */
    if (!(pinned_drift <= 0.01 * leg)) fail_msg("pinned foot moved %g (leg %g)", pinned_drift, leg);
    ossa_retarget_rig_destroy(rig);
    ossa_skeleton_destroy(tall);
}

/* ---- facing alignment ---- */

/* The horizontal direction a posed skeleton faces, from its model-space upper-leg joints:
 * normalize(cross(left hip - right hip, +Y)) with the Y component dropped. */
static ossa_vec3 hips_facing(const ossa_skeleton *s, const ossa_retarget_map *map, const ossa_transform *locals) {
    ossa_vec3 l = model_of(s, locals, (uint32_t)map->joints[H(LEFT_UPPER_LEG)]).translation;
    ossa_vec3 r = model_of(s, locals, (uint32_t)map->joints[H(RIGHT_UPPER_LEG)]).translation;
    double lx = (double)l.x - r.x, lz = (double)l.z - r.z; /* (lx, 0, lz) x (0, 1, 0) = (-lz, 0, lx) */
    double n = sqrt(lx * lx + lz * lz);
    assert_true(n > 0.0);
    return ossa_vec3_make((float)(-lz / n), 0.0f, (float)(lx / n));
}

static double facing_angle(ossa_vec3 a, ossa_vec3 b) {
    return atan2((double)a.x * b.z - (double)a.z * b.x, (double)a.x * b.x + (double)a.z * b.z);
}

/* A copy of `s` without skins whose rest is s's bind pose with every root turned `radians`
 * about +Y (about the model origin). */
static ossa_skeleton *yawed_copy(const ossa_skeleton *s, float radians) {
    uint32_t n = s->joint_count;
    ossa_transform *rest = calloc(n, sizeof *rest);
    ossa_quat turn = {0.0f, sinf(0.5f * radians), 0.0f, cosf(0.5f * radians)};
    for (uint32_t j = 0; j < n; j++) {
        rest[j] = s->bind[j];
        if (s->parents[j] >= 0) continue;
        rest[j].rotation = ossa_quat_mul(turn, rest[j].rotation);
        rest[j].translation = ossa_quat_rotate(turn, rest[j].translation);
    }
    ossa_skeleton_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.joint_count = n;
    desc.parents = s->parents;
    desc.rest = rest;
    desc.names = s->names;
    ossa_skeleton *out = NULL;
    assert_int_equal(ossa_skeleton_create(&desc, NULL, &out), OSSA_OK);
    free(rest);
    return out;
}

/* The demo character onto a copy whose whole reference is turned 90 degrees about +Y: the
 * rig turns it back, so the target faces where the source faces on every frame, and (being the
 * same skeleton) every target model transform is the source's. */
static void facing_aligned_onto_yawed_copy(void **state) {
    (void)state;
    const ossa_skeleton *s = g_demo->skeleton;
    ossa_skeleton *yawed = yawed_copy(s, 1.5707963f);
    ossa_retarget_rig *rig = make_rig(s, yawed, false);
    ot_assert_near(rig->facing_yaw, -1.5707963f, 1e-4f);
    ot_assert_near(rig->translation_scale, 1.0f, 1e-5f);
    ossa_retarget_map map;
    assert_int_equal(ossa_retarget_map_auto(s, &map, NULL), OSSA_OK);
    ossa_transform in[DEMO_JOINT_COUNT], out[DEMO_JOINT_COUNT];
    const ossa_clip *walk = demo_clip("walk");
    for (int k = 0; k <= 20; k++) {
        float t = walk->start + (walk->end - walk->start) * (float)k / 20.0f;
        ot_clip_sample(walk, t, false, OSSA_LOOKUP_DEFAULT, NULL, s->rest, in, s->joint_count);
        retarget(rig, in, out);
        assert_true(fabs(facing_angle(hips_facing(s, &map, in), hips_facing(yawed, &map, out))) <= 1e-4);
        for (uint32_t j = 0; j < s->joint_count; j++) {
            ossa_transform a = model_of(s, in, j), b = model_of(yawed, out, j);
            assert_true(rotation_distance(a.rotation, b.rotation) <= 1e-4);
            assert_true(distance3(a.translation, b.translation) <= 1e-4);
        }
    }
    ossa_retarget_rig_destroy(rig);
    ossa_skeleton_destroy(yawed);
}

/* The demo character's walk onto Woman, whose bind pose faces +X while her rest pose and the
 * demo face +Z: her skinned hips face where the demo's hips face, within a few degrees; and
 * Woman's Walking onto the demo the same way round. */
static void facing_aligned_demo_onto_woman(void **state) {
    (void)state;
    ossa_asset *woman = ot_load_asset("Woman/Woman.gltf");
    if (!woman) skip();
    const ossa_skeleton *s = g_demo->skeleton, *w = woman->skeleton;
    ossa_retarget_rig *rig = make_rig(s, w, false);
    printf("demo -> Woman facing yaw %.2f degrees\n", (double)rig->facing_yaw * 57.29578);
    ossa_retarget_map sm, wm;
    assert_int_equal(ossa_retarget_map_auto(s, &sm, NULL), OSSA_OK);
    assert_int_equal(ossa_retarget_map_auto(w, &wm, NULL), OSSA_OK);
    ossa_transform in[DEMO_JOINT_COUNT];
    ossa_transform *out = calloc(w->joint_count, sizeof *out);
    const ossa_clip *walk = demo_clip("walk");
    double worst = 0.0;
    for (int k = 0; k <= 20; k++) {
        float t = walk->start + (walk->end - walk->start) * (float)k / 20.0f;
        ot_clip_sample(walk, t, false, OSSA_LOOKUP_DEFAULT, NULL, s->rest, in, s->joint_count);
        retarget(rig, in, out);
        double angle = fabs(facing_angle(hips_facing(s, &sm, in), hips_facing(w, &wm, out)));
        worst = fmax(worst, angle);
    }
    printf("demo walk -> Woman: worst facing difference %.3f degrees\n", worst * 57.29578);
    assert_true(worst <= 3.0 / 57.29578);
    ossa_retarget_rig_destroy(rig);

    /* and back: Woman's Walking (bind reference facing +X) onto the demo character */
    rig = make_rig(w, s, false);
    const ossa_clip *walking = woman->clips[ossa_asset_find_clip(woman, "Walking")];
    worst = 0.0;
    for (int k = 0; k <= 20; k++) {
        float t = walking->start + (walking->end - walking->start) * (float)k / 20.0f;
        ot_clip_sample(walking, t, false, OSSA_LOOKUP_DEFAULT, NULL, w->rest, out, w->joint_count);
        retarget(rig, out, in);
        worst = fmax(worst, fabs(facing_angle(hips_facing(w, &wm, out), hips_facing(s, &sm, in))));
    }
    printf("Woman Walking -> demo: worst facing difference %.3f degrees\n", worst * 57.29578);
    assert_true(worst <= 3.0 / 57.29578);
    free(out);
    ossa_retarget_rig_destroy(rig);
    ossa_asset_destroy(woman);
}

/* Woman's Walking baked onto the demo character: the clip has the source's name and key
 * times, builds and plays; bone lengths exact at every key; the report is sane. */
static void bake_woman_walking_onto_demo(void **state) {
    (void)state;
    ossa_asset *woman = ot_load_asset("Woman/Woman.gltf");
    if (!woman) skip();
    const ossa_skeleton *demo = g_demo->skeleton;
    ossa_retarget_rig *rig = make_rig(woman->skeleton, demo, true);
    const ossa_clip *walking = woman->clips[ossa_asset_find_clip(woman, "Walking")];
    ossa_retarget_bake_options options;
    memset(&options, 0, sizeof options);
    ossa_clip *baked = NULL;
    assert_int_equal(ossa_retarget_bake(rig, walking, &options, NULL, &baked), OSSA_OK);
    assert_string_equal(baked->name, "Walking");
    ot_assert_near(baked->start, walking->start, 0.0f);
    ot_assert_near(baked->end, walking->end, 0.0f);
    assert_true(baked->track_count > 0);
    uint32_t keys = baked->tracks[0].rotation.key_count;
    assert_true(keys >= 2);
    ossa_transform pose[DEMO_JOINT_COUNT];
    int32_t hips = ossa_skeleton_find_joint(demo, "hips");
    for (uint32_t k = 0; k < keys; k++) {
        ot_clip_sample(baked, baked->tracks[0].rotation.times[k], false, OSSA_LOOKUP_DEFAULT, NULL, demo->rest, pose,
                       demo->joint_count);
        for (uint32_t j = 0; j < demo->joint_count; j++) {
            if ((int32_t)j == hips) continue;
            assert_memory_equal(&pose[j].translation, &rig->target_reference[j].translation, sizeof(ossa_vec3));
        }
    }
    ossa_built_clip *built = NULL;
    assert_int_equal(ossa_clip_build(baked, demo, NULL, NULL, &built, NULL), OSSA_OK);
    ossa_built_clip_destroy(built);

    ossa_retarget_report report;
    assert_int_equal(ossa_retarget_report_compute(rig, walking, baked, &options, NULL, &report), OSSA_OK);
    char json[8192];
    size_t length = ossa_retarget_report_to_json(&report, json, sizeof json);
    assert_true(length > 0 && length < sizeof json);
    assert_int_equal(length, ossa_retarget_report_to_json(&report, NULL, 0));
    printf("Woman Walking -> demo:\n%s", json);
    assert_int_equal(report.frame_count, keys);
    ot_assert_near(report.bone_length_change, 0.0f, 0.0f);
    for (int l = 0; l < 2; l++) { /* Walking walks in place: its feet slide back; at most a turning point */
        assert_true(report.limbs[l].contact_frames <= 2);
        assert_true(report.limbs[l].target_skate <= 0.01f);
    }
    assert_true(report.bones[H(LEFT_UPPER_LEG)].mapped);
    assert_false(report.bones[H(LEFT_TOES)].mapped); /* the demo has no toes */
    assert_true(report.angle_max_degrees < 90.0f);
    assert_true(report.round_trip_max_degrees < 1.0f); /* every demo joint is mapped: a clean round trip */
    assert_true(report.round_trip_hips < 1e-3f);
    ossa_clip_destroy(baked);

    /* without contacts nothing but the transfer moves a bone: every mapped bone's change equals
     * the source's (the demo has no chain between two mapped bones) */
    options.no_contacts = true;
    assert_int_equal(ossa_retarget_bake(rig, walking, &options, NULL, &baked), OSSA_OK);
    assert_int_equal(ossa_retarget_report_compute(rig, walking, baked, &options, NULL, &report), OSSA_OK);
    assert_true(report.angle_max_degrees < 1e-3f);
    ot_assert_near(report.bone_length_change, 0.0f, 0.0f);
    ossa_clip_destroy(baked);
    ossa_retarget_rig_destroy(rig);
    ossa_asset_destroy(woman);
}

/* ---- JSON map files ---- */

static ossa_result load_map(const char *json, const char *side, ossa_retarget_map *map, ossa_diagnostic *diag) {
    memset(diag, 0, sizeof *diag);
    return ossa_retarget_map_load_json(json, strlen(json), side, g_demo->skeleton, map, diag);
}

static void map_file_overrides_and_round_trips(void **state) {
    (void)state;
    const ossa_skeleton *s = g_demo->skeleton;
    ossa_retarget_map automatic, map;
    ossa_diagnostic diag;
    assert_int_equal(ossa_retarget_map_auto(s, &automatic, NULL), OSSA_OK);
    map = automatic;
    const char *json = "{\"source\": {\"head\": \"neck\"},\n"
                       " \"target\": {\"chest\": null, \"upper_chest\": \"chest\", \"Left_Toes\": \"foot_L\",\n"
                       "            \"left_foot\": \"lower_leg_L\", \"left_lower_leg\": \"upper_leg_L\",\n"
                       "            \"left_upper_leg\": null, \"neck\": \"n\\u0065ck\"},\n"
                       " \"comment\": [1, 2, {\"x\": null}]}";
    assert_int_equal(load_map(json, "target", &map, &diag), OSSA_OK);
    int32_t chest = ossa_skeleton_find_joint(s, "chest");
    assert_int_equal(map.joints[H(CHEST)], -1);
    assert_int_equal(map.joints[H(UPPER_CHEST)], chest);
    assert_int_equal(map.joints[H(LEFT_TOES)], ossa_skeleton_find_joint(s, "foot_L"));
    assert_int_equal(map.joints[H(LEFT_UPPER_LEG)], -1);
    assert_int_equal(map.joints[H(HEAD)], automatic.joints[H(HEAD)]); /* the source side is not read */
    /* the edited map fails validation, naming the bone */
    assert_int_equal(ossa_retarget_map_validate(&map, s, &diag), OSSA_ERROR_INVALID_DATA);
    assert_string_equal(diag.path, "left_upper_leg");

    /* writer -> reader gives the same map */
    size_t length = ossa_retarget_map_to_json(&automatic, s, NULL, 0);
    char *text = malloc(length + 40);
    assert_int_equal(ossa_retarget_map_to_json(&automatic, s, text + 11, length + 1), length);
    memcpy(text, "{\"source\": ", 11);
    strcpy(text + 11 + length, "}");
    assert_non_null(strstr(text, "\"left_upper_leg\": \"upper_leg_L\""));
    assert_non_null(strstr(text, "\"left_toes\": null"));
    ossa_retarget_map back;
    ossa_retarget_map_clear(&back);
    back.joints[H(LEFT_TOES)] = 3; /* null in the file unmaps it */
    if (load_map(text, "source", &back, &diag) != OSSA_OK) fail_msg("%s", diag.message);
    assert_memory_equal(&back, &automatic, sizeof back);
    char small[8];
    assert_int_equal(ossa_retarget_map_to_json(&automatic, s, small, sizeof small), length);
    assert_int_equal(strlen(small), 7);
    free(text);

    /* a file on disk, and one that is not there */
    const char *path = ot_tmp("retarget_map.json");
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(json, f);
    fclose(f);
    map = automatic;
    assert_int_equal(ossa_retarget_map_load_file(path, "source", s, &map, &diag), OSSA_OK);
    assert_int_equal(map.joints[H(HEAD)], ossa_skeleton_find_joint(s, "neck"));
    assert_int_equal(ossa_retarget_map_load_file(ot_tmp("no_such_map.json"), "source", s, &map, &diag), OSSA_ERROR_IO);
}

/* Malformed and hostile map files: each refused with the place named; the map untouched. */
static void map_file_malformed(void **state) {
    (void)state;
    static const struct {
        const char *json;
        ossa_result result;
        const char *path;
        const char *words;
    } cases[] = {
        {"{\"target\": {\"head\": \"head\"", OSSA_ERROR_PARSE, "", "broken JSON"},
        {"{\"target\": {\"head\" \"head\"}}", OSSA_ERROR_PARSE, "/target", "broken JSON"},
        {"", OSSA_ERROR_INVALID_DATA, "", "must be a JSON object"},
        {"[1, 2]", OSSA_ERROR_INVALID_DATA, "", "must be a JSON object"},
        {"{\"target\": [\"head\"]}", OSSA_ERROR_INVALID_DATA, "/target", "must be an object"},
        {"{\"target\": {\"tail\": \"head\"}}", OSSA_ERROR_INVALID_DATA, "/target/tail", "not a profile bone"},
        {"{\"target\": {\"a/b~\": \"head\"}}", OSSA_ERROR_INVALID_DATA, "/target/a~1b~0", "not a profile bone"},
        {"{\"target\": {\"left_foot\": \"LeftFoot\"}}", OSSA_ERROR_INVALID_DATA, "/target/left_foot",
         "no joint named 'LeftFoot'"},
        {"{\"target\": {\"left_foot\": 3}}", OSSA_ERROR_INVALID_DATA, "/target/left_foot", "a string) or null"},
        {"{\"target\": {\"left_foot\": {\"joint\": \"foot_L\"}}}", OSSA_ERROR_INVALID_DATA, "/target/left_foot",
         "a string) or null"},
        {"{\"target\": {\"head\": \"head\", \"HEAD\": \"neck\"}}", OSSA_ERROR_INVALID_DATA, "/target/HEAD", "given twice"},
        {"{\"target\": {}, \"target\": {}}", OSSA_ERROR_INVALID_DATA, "/target", "given twice"},
        {"{\"target\": {\"head\": \"he\\u00\"}}", OSSA_ERROR_PARSE, "", "broken JSON near byte 20"},
        {"{\"target\": {\"head\": \"he\\ud800ad\"}}", OSSA_ERROR_INVALID_DATA, "/target/head", "unpaired surrogate"},
        {"{\"target\": {\"head\": \"\\u0000\"}}", OSSA_ERROR_INVALID_DATA, "/target/head", "NUL"},
    };
    ossa_retarget_map automatic, map;
    ossa_diagnostic diag;
    assert_int_equal(ossa_retarget_map_auto(g_demo->skeleton, &automatic, NULL), OSSA_OK);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        map = automatic;
        ossa_result r = load_map(cases[i].json, "target", &map, &diag);
        if (r != cases[i].result || strcmp(diag.path, cases[i].path) || !strstr(diag.message, cases[i].words)) {
            fail_msg("case %zu: %s: got %s, path '%s', message '%s'", i, cases[i].json, ossa_result_string(r), diag.path,
                     diag.message);
        }
        assert_memory_equal(&map, &automatic, sizeof map);
    }
    /* nesting and size limits */
    char *deep = malloc(4096);
    strcpy(deep, "{\"x\": ");
    for (int i = 0; i < 40; i++) strcat(deep, "[");
    for (int i = 0; i < 40; i++) strcat(deep, "]");
    strcat(deep, "}");
    assert_int_equal(load_map(deep, "target", &map, &diag), OSSA_ERROR_LIMIT);
    free(deep);
    size_t big = (1u << 20) + 1;
    char *huge = malloc(big + 1);
    memset(huge, ' ', big);
    huge[0] = '{', huge[big - 1] = '}', huge[big] = '\0';
    assert_int_equal(ossa_retarget_map_load_json(huge, big, "target", g_demo->skeleton, &map, &diag), OSSA_ERROR_LIMIT);
    free(huge);
    assert_int_equal(load_map("{}", "both", &map, &diag), OSSA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(diag.path, "side");
    assert_int_equal(ossa_retarget_map_load_json(NULL, 0, "target", g_demo->skeleton, &map, &diag),
                     OSSA_ERROR_INVALID_ARGUMENT);
    assert_memory_equal(&map, &automatic, sizeof map);
}

/* ---- chains of different lengths ---- */

/* The demo character (spine, chest: 2 spine bones) onto a copy with 4 (spine, chest, spine2,
 * spine3, the arms on spine3): the copy's chest and neck take the source's changes exactly;
 * spine2 and spine3, between chest and neck, take the rotation on the geodesic from the
 * source chest's change to the source neck's at their normalised chain length (computed here
 * from the copy's offsets). */
static void chain_spread_by_length(void **state) {
    (void)state;
    const ossa_skeleton *s = g_demo->skeleton;
    enum { N = DEMO_JOINT_COUNT + 2 };
    static const char *const names[N] = {"hips", "spine", "chest", "spine2", "spine3", "neck", "head",
                                         "upper_arm_L", "lower_arm_L", "hand_L", "upper_arm_R", "lower_arm_R",
                                         "hand_R", "upper_leg_L", "lower_leg_L", "foot_L", "upper_leg_R",
                                         "lower_leg_R", "foot_R"};
    static const int32_t parents[N] = {-1, 0, 1, 2, 3, 4, 5, 4, 7, 8, 4, 10, 11, 0, 13, 14, 0, 16, 17};
    ossa_transform rest[N];
    for (int j = 0; j < N; j++) {
        int32_t from = ossa_skeleton_find_joint(s, names[j]);
        rest[j] = from >= 0 ? s->bind[from] : ossa_transform_identity();
    }
    rest[3].translation = ossa_vec3_make(0, 0.06f, 0); /* chest -> spine2 -> spine3 -> neck: 0.06, 0.04, 0.10 */
    rest[4].translation = ossa_vec3_make(0, 0.04f, 0);
    rest[5].translation = ossa_vec3_make(0, 0.10f, 0);
    rest[7].translation.y -= 0.10f; /* the arms keep their model positions on spine3 */
    rest[10].translation.y -= 0.10f;
    ossa_skeleton_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.joint_count = N;
    desc.parents = parents;
    desc.rest = rest;
    desc.names = names;
    ossa_skeleton *long_spine = NULL;
    assert_int_equal(ossa_skeleton_create(&desc, NULL, &long_spine), OSSA_OK);
    ossa_retarget_map map;
    assert_int_equal(ossa_retarget_map_auto(long_spine, &map, NULL), OSSA_OK);
    assert_int_equal(map.joints[H(SPINE)], 1);
    assert_int_equal(map.joints[H(UPPER_CHEST)], 4);
    ossa_retarget_rig *rig = make_rig(s, long_spine, false);

    ossa_transform in[DEMO_JOINT_COUNT], out[N];
    const float fraction[2] = {0.06f / 0.20f, 0.10f / 0.20f}; /* spine2, spine3 along chest -> neck */
    for (int k = 0; k <= 10; k++) {
        ot_clip_sample(demo_clip("walk"), (float)k / 10.0f, true, OSSA_LOOKUP_DEFAULT, NULL, s->rest, in,
                       DEMO_JOINT_COUNT);
        in[ossa_skeleton_find_joint(s, "neck")].rotation =
            ossa_quat_from_axis_angle(ossa_vec3_make(0, 0, 1), 0.3f * (float)k / 10.0f); /* bend the neck too */
        retarget(rig, in, out);
        /* model rotation changes: the rests have identity rotations, so a change is the model rotation */
        ossa_quat source_chest = model_of(s, in, (uint32_t)ossa_skeleton_find_joint(s, "chest")).rotation;
        ossa_quat source_neck = model_of(s, in, (uint32_t)ossa_skeleton_find_joint(s, "neck")).rotation;
        assert_true(rotation_distance(source_chest, model_of(long_spine, out, 2).rotation) <= 1e-5);
        assert_true(rotation_distance(source_neck, model_of(long_spine, out, 5).rotation) <= 1e-5);
        double between = rotation_distance(source_chest, source_neck);
        for (int i = 0; i < 2; i++) {
            ossa_quat q = model_of(long_spine, out, (uint32_t)(3 + i)).rotation;
            double from_chest = rotation_distance(source_chest, q), to_neck = rotation_distance(q, source_neck);
            ot_assert_near(from_chest + to_neck, between, 1e-5); /* on the geodesic */
            ot_assert_near(from_chest, fraction[i] * between, 1e-5);
        }
    }
    ossa_retarget_rig_destroy(rig);
    ossa_skeleton_destroy(long_spine);
}

/* ---- the T-pose fix ---- */

/* A copy of the demo character with both upper arms raised by `degrees` from hanging down. */
static ossa_skeleton *arms_raised(float degrees) {
    const ossa_skeleton *s = g_demo->skeleton;
    ossa_transform rest[DEMO_JOINT_COUNT];
    memcpy(rest, s->bind, sizeof rest);
    float a = degrees * 3.14159265f / 180.0f;
    rest[ossa_skeleton_find_joint(s, "upper_arm_L")].rotation = ossa_quat_from_axis_angle(ossa_vec3_make(0, 0, 1), a);
    rest[ossa_skeleton_find_joint(s, "upper_arm_R")].rotation = ossa_quat_from_axis_angle(ossa_vec3_make(0, 0, 1), -a);
    ossa_skeleton_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.joint_count = s->joint_count;
    desc.parents = s->parents;
    desc.rest = rest;
    desc.names = (const char *const *)s->names;
    ossa_skeleton *out = NULL;
    assert_int_equal(ossa_skeleton_create(&desc, NULL, &out), OSSA_OK);
    return out;
}

static double bone_direction_angle(const ossa_skeleton *a, const ossa_transform *pa, const ossa_skeleton *b,
                                   const ossa_transform *pb, const char *from, const char *to) {
    ossa_vec3 da = ossa_vec3_sub(position_of(a, pa, (uint32_t)ossa_skeleton_find_joint(a, to)),
                                 position_of(a, pa, (uint32_t)ossa_skeleton_find_joint(a, from)));
    ossa_vec3 db = ossa_vec3_sub(position_of(b, pb, (uint32_t)ossa_skeleton_find_joint(b, to)),
                                 position_of(b, pb, (uint32_t)ossa_skeleton_find_joint(b, from)));
    return atan2(ossa_vec3_length(ossa_vec3_cross(da, db)), ossa_vec3_dot(da, db));
}

/* An A-pose source (arms 45 degrees down) driving a T-pose target: with the fix every limb
 * bone points the same way in model space on every frame; without it the arms are off by the
 * difference of the references. */
static void tpose_fix_aligns_limbs(void **state) {
    (void)state;
    ossa_skeleton *a_pose = arms_raised(45.0f), *t_pose = arms_raised(90.0f);
    static const char *const bones[][2] = {{"upper_arm_L", "lower_arm_L"}, {"lower_arm_L", "hand_L"},
                                           {"upper_arm_R", "lower_arm_R"}, {"lower_arm_R", "hand_R"},
                                           {"upper_leg_L", "lower_leg_L"}, {"lower_leg_R", "foot_R"}};
    ossa_transform in[DEMO_JOINT_COUNT], out[DEMO_JOINT_COUNT];
    for (int fix = 0; fix < 2; fix++) {
        ossa_retarget_rig *rig = make_rig(a_pose, t_pose, fix);
        double worst = 0.0;
        for (int k = 0; k <= 12; k++) {
            ot_clip_sample(demo_clip("walk"), (float)k / 12.0f, true, OSSA_LOOKUP_DEFAULT, NULL, a_pose->rest, in,
                           DEMO_JOINT_COUNT);
            retarget(rig, in, out);
            for (size_t b = 0; b < sizeof bones / sizeof bones[0]; b++) {
                double angle = bone_direction_angle(a_pose, in, t_pose, out, bones[b][0], bones[b][1]);
                if (angle > worst) worst = angle;
            }
        }
        if (fix) assert_true(worst <= 1e-3);
        else assert_true(worst >= 40.0 * 3.14159265 / 180.0);
        ossa_retarget_rig_destroy(rig);
    }
    ossa_skeleton_destroy(a_pose);
    ossa_skeleton_destroy(t_pose);
}

/* CMU motion capture from Debian's assimp-testmodels, when installed: 01_01.bvh onto Woman
 * and onto the demo character, automatic maps complete, bone lengths exact. */
static void cmu_bvh_when_installed(void **state) {
    (void)state;
    const char *path = ot_assimp_model("BVH/01_01.bvh");
    if (!path) skip();
    ossa_asset *cmu = NULL;
    ossa_diagnostic diag;
    if (ossa_import_file(path, OSSA_IMPORTER_AUTO, NULL, &cmu, &diag) != OSSA_OK) {
        ot_skip_reason("%s: cannot import (%s)", path, diag.message);
        skip();
    }
    assert_true(cmu->clip_count >= 1);
    ossa_retarget_rig *rig = make_rig(cmu->skeleton, g_demo->skeleton, true);
    ossa_clip *baked = NULL;
    assert_int_equal(ossa_retarget_bake(rig, cmu->clips[0], NULL, NULL, &baked), OSSA_OK);
    ossa_retarget_report report;
    assert_int_equal(ossa_retarget_report_compute(rig, cmu->clips[0], baked, NULL, NULL, &report), OSSA_OK);
    char json[8192];
    ossa_retarget_report_to_json(&report, json, sizeof json);
    printf("CMU 01_01 -> demo (%u joints, %u frames):\n%s", cmu->skeleton->joint_count, report.frame_count, json);
    ot_assert_near(report.bone_length_change, 0.0f, 0.0f);
    assert_true(report.limbs[0].contact_count >= 1 && report.limbs[1].contact_count >= 1); /* it walks */
    assert_true(report.round_trip_max_degrees < 1.0f);
    ossa_clip_destroy(baked);
    ossa_retarget_rig_destroy(rig);
    ossa_asset_destroy(cmu);
}

static int setup(void **state) {
    (void)state;
    g_demo = demo_character_create();
    return g_demo ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    ossa_asset_destroy(g_demo);
    return 0;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(profile_names_and_parents),
        cmocka_unit_test(map_validation_names_the_fault),
        cmocka_unit_test(automap_demo),
        cmocka_unit_test(automap_woman),
        cmocka_unit_test(automap_name_conventions),
        cmocka_unit_test(onto_itself_is_identity),
        cmocka_unit_test(onto_scaled_copy),
        cmocka_unit_test(onto_renamed_copy),
        cmocka_unit_test(job_validity),
        cmocka_unit_test(job_never_allocates),
        cmocka_unit_test(contacts_pin_feet),
        cmocka_unit_test(bake_woman_walking_onto_demo),
        cmocka_unit_test(map_file_overrides_and_round_trips),
        cmocka_unit_test(map_file_malformed),
        cmocka_unit_test(chain_spread_by_length),
        cmocka_unit_test(tpose_fix_aligns_limbs),
        cmocka_unit_test(facing_aligned_onto_yawed_copy),
        cmocka_unit_test(facing_aligned_demo_onto_woman),
        cmocka_unit_test(cmu_bvh_when_installed),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
