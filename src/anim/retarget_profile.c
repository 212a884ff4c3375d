/* The canonical humanoid profile (names, parents, required bones) and bone-map validation. */
#include <ossa/retarget.h>

#include <stdio.h>
#include <string.h>

#include "core/job.h"

#define B(x) OSSA_HUMANOID_##x

typedef struct bone_info {
    const char *name;
    int32_t parent;
    bool required;
} bone_info;

static const bone_info BONES[OSSA_HUMANOID_BONE_COUNT] = {
    [B(HIPS)] = {"hips", -1, true},
    [B(SPINE)] = {"spine", B(HIPS), true},
    [B(CHEST)] = {"chest", B(SPINE), false},
    [B(UPPER_CHEST)] = {"upper_chest", B(CHEST), false},
    [B(NECK)] = {"neck", B(UPPER_CHEST), false},
    [B(HEAD)] = {"head", B(NECK), true},
    [B(LEFT_SHOULDER)] = {"left_shoulder", B(UPPER_CHEST), false},
    [B(LEFT_UPPER_ARM)] = {"left_upper_arm", B(LEFT_SHOULDER), true},
    [B(LEFT_LOWER_ARM)] = {"left_lower_arm", B(LEFT_UPPER_ARM), true},
    [B(LEFT_HAND)] = {"left_hand", B(LEFT_LOWER_ARM), true},
    [B(RIGHT_SHOULDER)] = {"right_shoulder", B(UPPER_CHEST), false},
    [B(RIGHT_UPPER_ARM)] = {"right_upper_arm", B(RIGHT_SHOULDER), true},
    [B(RIGHT_LOWER_ARM)] = {"right_lower_arm", B(RIGHT_UPPER_ARM), true},
    [B(RIGHT_HAND)] = {"right_hand", B(RIGHT_LOWER_ARM), true},
    [B(LEFT_UPPER_LEG)] = {"left_upper_leg", B(HIPS), true},
    [B(LEFT_LOWER_LEG)] = {"left_lower_leg", B(LEFT_UPPER_LEG), true},
    [B(LEFT_FOOT)] = {"left_foot", B(LEFT_LOWER_LEG), true},
    [B(LEFT_TOES)] = {"left_toes", B(LEFT_FOOT), false},
    [B(RIGHT_UPPER_LEG)] = {"right_upper_leg", B(HIPS), true},
    [B(RIGHT_LOWER_LEG)] = {"right_lower_leg", B(RIGHT_UPPER_LEG), true},
    [B(RIGHT_FOOT)] = {"right_foot", B(RIGHT_LOWER_LEG), true},
    [B(RIGHT_TOES)] = {"right_toes", B(RIGHT_FOOT), false},
    [B(LEFT_THUMB_1)] = {"left_thumb_1", B(LEFT_HAND), false},
    [B(LEFT_THUMB_2)] = {"left_thumb_2", B(LEFT_THUMB_1), false},
    [B(LEFT_THUMB_3)] = {"left_thumb_3", B(LEFT_THUMB_2), false},
    [B(LEFT_INDEX_1)] = {"left_index_1", B(LEFT_HAND), false},
    [B(LEFT_INDEX_2)] = {"left_index_2", B(LEFT_INDEX_1), false},
    [B(LEFT_INDEX_3)] = {"left_index_3", B(LEFT_INDEX_2), false},
    [B(LEFT_MIDDLE_1)] = {"left_middle_1", B(LEFT_HAND), false},
    [B(LEFT_MIDDLE_2)] = {"left_middle_2", B(LEFT_MIDDLE_1), false},
    [B(LEFT_MIDDLE_3)] = {"left_middle_3", B(LEFT_MIDDLE_2), false},
    [B(LEFT_RING_1)] = {"left_ring_1", B(LEFT_HAND), false},
    [B(LEFT_RING_2)] = {"left_ring_2", B(LEFT_RING_1), false},
    [B(LEFT_RING_3)] = {"left_ring_3", B(LEFT_RING_2), false},
    [B(LEFT_LITTLE_1)] = {"left_little_1", B(LEFT_HAND), false},
    [B(LEFT_LITTLE_2)] = {"left_little_2", B(LEFT_LITTLE_1), false},
    [B(LEFT_LITTLE_3)] = {"left_little_3", B(LEFT_LITTLE_2), false},
    [B(RIGHT_THUMB_1)] = {"right_thumb_1", B(RIGHT_HAND), false},
    [B(RIGHT_THUMB_2)] = {"right_thumb_2", B(RIGHT_THUMB_1), false},
    [B(RIGHT_THUMB_3)] = {"right_thumb_3", B(RIGHT_THUMB_2), false},
    [B(RIGHT_INDEX_1)] = {"right_index_1", B(RIGHT_HAND), false},
    [B(RIGHT_INDEX_2)] = {"right_index_2", B(RIGHT_INDEX_1), false},
    [B(RIGHT_INDEX_3)] = {"right_index_3", B(RIGHT_INDEX_2), false},
    [B(RIGHT_MIDDLE_1)] = {"right_middle_1", B(RIGHT_HAND), false},
    [B(RIGHT_MIDDLE_2)] = {"right_middle_2", B(RIGHT_MIDDLE_1), false},
    [B(RIGHT_MIDDLE_3)] = {"right_middle_3", B(RIGHT_MIDDLE_2), false},
    [B(RIGHT_RING_1)] = {"right_ring_1", B(RIGHT_HAND), false},
    [B(RIGHT_RING_2)] = {"right_ring_2", B(RIGHT_RING_1), false},
    [B(RIGHT_RING_3)] = {"right_ring_3", B(RIGHT_RING_2), false},
    [B(RIGHT_LITTLE_1)] = {"right_little_1", B(RIGHT_HAND), false},
    [B(RIGHT_LITTLE_2)] = {"right_little_2", B(RIGHT_LITTLE_1), false},
    [B(RIGHT_LITTLE_3)] = {"right_little_3", B(RIGHT_LITTLE_2), false},
};

static bool bone_in_range(ossa_humanoid_bone bone) {
    return (unsigned)bone < (unsigned)OSSA_HUMANOID_BONE_COUNT;
}

const char *ossa_humanoid_bone_name(ossa_humanoid_bone bone) {
    return bone_in_range(bone) ? BONES[bone].name : NULL;
}

static int ascii_lower(int c) {
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static bool equal_ignoring_case(const char *a, const char *b) {
    for (; *a && *b; a++, b++) {
        if (ascii_lower((unsigned char)*a) != ascii_lower((unsigned char)*b)) return false;
    }
    return *a == *b;
}

int32_t ossa_humanoid_bone_from_name(const char *name) {
    if (!name) return -1;
    for (int32_t b = 0; b < OSSA_HUMANOID_BONE_COUNT; b++) {
        if (equal_ignoring_case(name, BONES[b].name)) return b;
    }
    return -1;
}

bool ossa_humanoid_bone_required(ossa_humanoid_bone bone) {
    return bone_in_range(bone) && BONES[bone].required;
}

int32_t ossa_humanoid_bone_parent(ossa_humanoid_bone bone) {
    return bone_in_range(bone) ? BONES[bone].parent : -1;
}

void ossa_retarget_map_clear(ossa_retarget_map *map) {
    if (!map) return;
    for (int b = 0; b < OSSA_HUMANOID_BONE_COUNT; b++) map->joints[b] = -1;
}

/* The joint of the nearest mapped profile ancestor of `bone`, or -1. */
static int32_t mapped_ancestor_joint(const ossa_retarget_map *map, int32_t bone, int32_t *ancestor_bone) {
    for (int32_t a = BONES[bone].parent; a >= 0; a = BONES[a].parent) {
        if (map->joints[a] >= 0) {
            *ancestor_bone = a;
            return map->joints[a];
        }
    }
    return -1;
}

static bool joint_is_descendant(const ossa_skeleton *skeleton, int32_t joint, int32_t ancestor) {
    for (int32_t j = skeleton->parents[joint]; j >= 0; j = skeleton->parents[j]) {
        if (j == ancestor) return true;
    }
    return false;
}

static ossa_result check_ranges_and_required(const ossa_retarget_map *map, const ossa_skeleton *skeleton,
                                             ossa_diagnostic *diag) {
    for (int32_t b = 0; b < OSSA_HUMANOID_BONE_COUNT; b++) {
        int32_t j = map->joints[b];
        if (j < -1 || (j >= 0 && (uint32_t)j >= skeleton->joint_count)) {
            return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, BONES[b].name,
                                  "joint %d is not a joint of the skeleton (%u joints)", (int)j,
                                  (unsigned)skeleton->joint_count);
        }
    }
    for (int32_t b = 0; b < OSSA_HUMANOID_BONE_COUNT; b++) {
        if (BONES[b].required && map->joints[b] < 0) {
            return ossa__job_fail(diag, OSSA_ERROR_INVALID_DATA, BONES[b].name, "required bone %s is not mapped",
                                  BONES[b].name);
        }
    }
    return OSSA_OK;
}

static ossa_result check_duplicates(const ossa_retarget_map *map, const ossa_skeleton *skeleton,
                                    ossa_diagnostic *diag) {
    for (int32_t b = 1; b < OSSA_HUMANOID_BONE_COUNT; b++) {
        int32_t j = map->joints[b];
        if (j < 0) continue;
        for (int32_t other = 0; other < b; other++) {
            if (map->joints[other] == j) {
                return ossa__job_fail(diag, OSSA_ERROR_INVALID_DATA, BONES[b].name,
                                      "bones %s and %s are both mapped to joint %d '%s'", BONES[other].name,
                                      BONES[b].name, (int)j, skeleton->names[j]);
            }
        }
    }
    return OSSA_OK;
}

static ossa_result check_hierarchy(const ossa_retarget_map *map, const ossa_skeleton *skeleton,
                                   ossa_diagnostic *diag) {
    for (int32_t b = 1; b < OSSA_HUMANOID_BONE_COUNT; b++) {
        int32_t j = map->joints[b];
        int32_t ancestor_bone = -1;
        if (j < 0) continue;
        int32_t a = mapped_ancestor_joint(map, b, &ancestor_bone);
        if (a >= 0 && !joint_is_descendant(skeleton, j, a)) {
            return ossa__job_fail(diag, OSSA_ERROR_INVALID_DATA, BONES[b].name,
                                  "%s (joint %d '%s') is not below %s (joint %d '%s') in the hierarchy",
                                  BONES[b].name, (int)j, skeleton->names[j], BONES[ancestor_bone].name, (int)a,
                                  skeleton->names[a]);
        }
    }
    return OSSA_OK;
}

ossa_result ossa_retarget_map_validate(const ossa_retarget_map *map, const ossa_skeleton *skeleton,
                                       ossa_diagnostic *diag) {
    if (!map) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "map", "is NULL");
    if (!skeleton) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "skeleton", "is NULL");
    ossa_result r = check_ranges_and_required(map, skeleton, diag);
    if (r == OSSA_OK) r = check_duplicates(map, skeleton, diag);
    if (r == OSSA_OK) r = check_hierarchy(map, skeleton, diag);
    return r;
}
