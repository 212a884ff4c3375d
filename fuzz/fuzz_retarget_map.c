/* libFuzzer target: JSON bone-map files (ossa_retarget_map_load_json) and what a loaded map
 * drives. The input is a map document, applied to both sides over the automatic map of a
 * 17-joint humanoid built here. A load must either fail with a result code, a NUL-terminated
 * diagnostic whose path is "" or a JSON pointer, and the map untouched; or succeed with every
 * joint index in [-1, joint_count). A loaded map that passes validation must build a rig whose
 * job runs on the rest pose and gives finite, unit-length rotations and the target reference's
 * bone lengths.
 *
 * Build: cmake -DOSSA_BUILD_FUZZ=ON -DOSSA_SANITIZE=ON with CC=clang (scripts/fuzz.sh).
 * Seeds: fuzz/corpus/fuzz_retarget_map. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ossa/ossa.h>

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_retarget_map: invariant failed: %s (line %d)\n", #cond, __LINE__); \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

#define JOINTS 17
static const char *const NAMES[JOINTS] = {"hips", "spine", "chest", "neck", "head", "upper_arm_L", "lower_arm_L",
                                          "hand_L", "upper_arm_R", "lower_arm_R", "hand_R", "upper_leg_L",
                                          "lower_leg_L", "foot_L", "upper_leg_R", "lower_leg_R", "foot_R"};
static const int32_t PARENTS[JOINTS] = {-1, 0, 1, 2, 3, 2, 5, 6, 2, 8, 9, 0, 11, 12, 0, 14, 15};
static const float OFFSETS[JOINTS][3] = {{0, 0.98f, 0}, {0, 0.12f, 0}, {0, 0.2f, 0}, {0, 0.2f, 0}, {0, 0.1f, 0},
                                         {0.21f, 0.15f, 0}, {0, -0.28f, 0}, {0, -0.25f, 0}, {-0.21f, 0.15f, 0},
                                         {0, -0.28f, 0}, {0, -0.25f, 0}, {0.1f, -0.06f, 0}, {0, -0.42f, 0},
                                         {0, -0.42f, 0}, {-0.1f, -0.06f, 0}, {0, -0.42f, 0}, {0, -0.42f, 0}};

static ossa_skeleton *g_skeleton;

static void make_skeleton(void) {
    ossa_transform rest[JOINTS];
    for (int j = 0; j < JOINTS; j++) {
        rest[j] = ossa_transform_identity();
        rest[j].translation = ossa_vec3_make(OFFSETS[j][0], OFFSETS[j][1], OFFSETS[j][2]);
    }
    ossa_skeleton_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.joint_count = JOINTS;
    desc.parents = PARENTS;
    desc.rest = rest;
    desc.names = NAMES;
    CHECK(ossa_skeleton_create(&desc, NULL, &g_skeleton) == OSSA_OK);
}

static void run_rig(const ossa_retarget_map *source, const ossa_retarget_map *target) {
    ossa_retarget_rig_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.source = g_skeleton;
    desc.source_map = source;
    desc.target = g_skeleton;
    desc.target_map = target;
    desc.tpose_fix = true;
    ossa_retarget_rig *rig = NULL;
    if (ossa_retarget_rig_create(&desc, NULL, &rig, NULL) != OSSA_OK) return; /* e.g. no hip height */
    ossa_transform out[JOINTS], scratch[2 * JOINTS];
    ossa_retarget_contacts contacts;
    memset(&contacts, 0, sizeof contacts);
    ossa_retarget_job job;
    memset(&job, 0, sizeof job);
    job.rig = rig;
    job.input = g_skeleton->rest;
    job.input_count = JOINTS;
    job.output = out;
    job.output_count = JOINTS;
    job.scratch = scratch;
    job.scratch_count = 2 * JOINTS;
    job.contacts = &contacts;
    job.delta_time = 1.0f / 30.0f;
    CHECK(ossa_retarget_job_run(&job) == OSSA_OK);
    CHECK(ossa_retarget_job_run(&job) == OSSA_OK);
    uint32_t hips = (uint32_t)target->joints[OSSA_HUMANOID_HIPS];
    for (uint32_t j = 0; j < JOINTS; j++) {
        ossa_quat q = out[j].rotation;
        float n = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
        CHECK(isfinite(n) && fabsf(n - 1.0f) < 1e-3f);
        if (j != hips) CHECK(!memcmp(&out[j].translation, &rig->target_reference[j].translation, sizeof(ossa_vec3)));
    }
    ossa_retarget_rig_destroy(rig);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!g_skeleton) make_skeleton();
    ossa_retarget_map automatic, maps[2];
    CHECK(ossa_retarget_map_auto(g_skeleton, &automatic, NULL) == OSSA_OK);
    static const char *const sides[2] = {"source", "target"};
    for (int s = 0; s < 2; s++) {
        maps[s] = automatic;
        ossa_diagnostic diag;
        memset(&diag, 0x7f, sizeof diag);
        ossa_result r = ossa_retarget_map_load_json((const char *)data, size, sides[s], g_skeleton, &maps[s], &diag);
        if (r != OSSA_OK) {
            CHECK(memchr(diag.path, 0, sizeof diag.path) && memchr(diag.message, 0, sizeof diag.message));
            CHECK(diag.path[0] == '\0' || diag.path[0] == '/');
            CHECK(!memcmp(&maps[s], &automatic, sizeof automatic));
            continue;
        }
        for (int b = 0; b < OSSA_HUMANOID_BONE_COUNT; b++) CHECK(maps[s].joints[b] >= -1 && maps[s].joints[b] < JOINTS);
    }
    if (ossa_retarget_map_validate(&maps[0], g_skeleton, NULL) == OSSA_OK &&
        ossa_retarget_map_validate(&maps[1], g_skeleton, NULL) == OSSA_OK) {
        run_rig(&maps[0], &maps[1]);
    }
    return 0;
}
