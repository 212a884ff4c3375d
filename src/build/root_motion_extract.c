/* Root-motion extraction (offline library, ossa_offline; see ossa/root_motion.h): an editable
 * clip becomes an in-place clip plus an ossa_root_motion track (allocates). Sampling the track
 * and the per-frame delta job are runtime: src/anim/root_motion.c. */
#include <ossa/root_motion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ossa/pose.h>

#include "build/derived_clip.h"
#include "core/alloc.h"

#define PI_F 3.14159265358979f

static int compare_floats(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static ossa_transform planar(ossa_vec3 p, float yaw) {
    ossa_transform t = ossa_transform_identity();
    t.translation = p;
    t.rotation = ossa_quat_from_axis_angle(ossa_vec3_make(0, 1, 0), yaw);
    return t;
}

/* The inverse of a rigid transform (unit scale): exact. */
static ossa_transform rigid_inverse(ossa_transform t) { return ossa_transform_inverse(t); }

static uint32_t default_joint(const ossa_clip *clip, const ossa_skeleton *s) {
    for (uint32_t i = 0; i < clip->track_count; i++) /* tracks are sorted by joint */
        if (clip->tracks[i].joint < s->joint_count && clip->tracks[i].translation.key_count)
            return clip->tracks[i].joint;
    return 0;
}

/* Whether a track of joint `j` moves `joint` in model space: the joint itself or an ancestor. */
static bool affects(const ossa_skeleton *s, uint32_t j, uint32_t joint) {
    for (int32_t a = (int32_t)joint; a >= 0; a = s->parents[a])
        if ((uint32_t)a == j) return true;
    return false;
}

/* The key times a track contributes: translation and rotation (and scale for an ancestor,
 * counted for all to keep the bound simple). */
static size_t track_keys(const ossa_transform_track *t) {
    return (size_t)t->translation.key_count + t->rotation.key_count + t->scale.key_count;
}

ossa_result ossa_root_motion_extract(const ossa_clip *clip, const ossa_skeleton *skeleton,
                                     const ossa_root_motion_options *options, const ossa_allocator *allocator,
                                     ossa_clip **out_clip, ossa_root_motion **out_motion) {
    if (out_clip) *out_clip = NULL;
    if (out_motion) *out_motion = NULL;
    if (!clip || !skeleton || !out_clip || !out_motion || skeleton->joint_count == 0) return OSSA_ERROR_INVALID_ARGUMENT;
    ossa_root_motion_options opt;
    memset(&opt, 0, sizeof opt);
    if (options) opt = *options;
    const uint32_t n = skeleton->joint_count;
    uint32_t joint;
    if (opt.joint_name) {
        int32_t j = ossa_skeleton_find_joint(skeleton, opt.joint_name);
        if (j < 0) return OSSA_ERROR_INVALID_ARGUMENT;
        joint = (uint32_t)j;
    } else {
        joint = opt.joint ? opt.joint : default_joint(clip, skeleton);
    }
    if (joint >= n) return OSSA_ERROR_INVALID_ARGUMENT;
    const ossa_transform_track *src = NULL;
    uint32_t src_index = 0;
    for (uint32_t i = 0; i < clip->track_count; i++)
        if (clip->tracks[i].joint == joint) src = &clip->tracks[i], src_index = i;

    /* Key times: the joint's translation and rotation keys, its animated ancestors' keys
     * (they move the joint in model space too) and the clip's start and end. */
    size_t cap = 2;
    for (uint32_t i = 0; i < clip->track_count; i++)
        if (affects(skeleton, clip->tracks[i].joint, joint)) cap += track_keys(&clip->tracks[i]);
    if (cap > UINT32_MAX) return OSSA_ERROR_OUT_OF_MEMORY;
    ossa__layout L = {0, false};
    size_t o_motion = ossa__layout_add(&L, 1, sizeof(ossa_root_motion));
    size_t o_times = ossa__layout_add(&L, cap, sizeof(float));
    size_t o_pos = ossa__layout_add(&L, cap, sizeof(ossa_vec3));
    size_t o_yaw = ossa__layout_add(&L, cap, sizeof(float));
    if (L.overflow) return OSSA_ERROR_OUT_OF_MEMORY;
    unsigned char *base = ossa__alloc(allocator, L.size);
    /* Scratch: a pose, the new keys (translation 3 + rotation 4 per key), the new track list. */
    ossa__layout S = {0, false};
    size_t s_pose = ossa__layout_add(&S, n, sizeof(ossa_transform));
    size_t s_tv = ossa__layout_add(&S, (size_t)cap * 3u, sizeof(float));
    size_t s_rv = ossa__layout_add(&S, (size_t)cap * 4u, sizeof(float));
    size_t s_tracks = ossa__layout_add(&S, (size_t)clip->track_count + 1u, sizeof(ossa_transform_track));
    unsigned char *scratch = S.overflow ? NULL : ossa__alloc(allocator, S.size);
    if (!base || !scratch) {
        ossa__free(allocator, base);
        ossa__free(allocator, scratch);
        return OSSA_ERROR_OUT_OF_MEMORY;
    }
    memset(base, 0, L.size);
    ossa_root_motion *m = (ossa_root_motion *)(base + o_motion);
    float *times = (float *)(base + o_times);
    ossa_vec3 *pos = (ossa_vec3 *)(base + o_pos);
    float *yaws = (float *)(base + o_yaw);
    ossa_transform *pose = (ossa_transform *)(scratch + s_pose);
    float *tv = (float *)(scratch + s_tv), *rv = (float *)(scratch + s_rv);
    ossa_transform_track *tracks = (ossa_transform_track *)(scratch + s_tracks);

    uint32_t count = 0;
    times[count++] = clip->start;
    times[count++] = clip->end;
    for (uint32_t i = 0; i < clip->track_count; i++) {
        const ossa_transform_track *tk = &clip->tracks[i];
        if (!affects(skeleton, tk->joint, joint)) continue;
        const ossa_track *ch[3] = {&tk->translation, &tk->rotation, &tk->scale};
        for (int c = 0; c < (tk->joint == joint ? 2 : 3); c++)
            for (uint32_t k = 0; k < ch[c]->key_count; k++) times[count++] = ch[c]->times[k];
    }
    qsort(times, count, sizeof(float), compare_floats);
    uint32_t unique = 0;
    for (uint32_t k = 0; k < count; k++)
        if (unique == 0 || times[k] > times[unique - 1]) times[unique++] = times[k];
    count = unique;

    const int32_t parent = skeleton->parents[joint];
    for (uint32_t k = 0; k < count; k++) {
        ossa_clip_sample_job sj = {.clip = clip, .time = times[k], .lookup = OSSA_LOOKUP_BINARY,
                                   .reference = skeleton->rest, .reference_count = n, .output = pose, .output_count = n};
        ossa_clip_sample_job_run(&sj);
        ossa_transform pm = parent >= 0 ? ossa_pose_joint_to_model_transform(pose, skeleton->parents, n, (uint32_t)parent)
                                        : ossa_transform_identity();
        ossa_transform model = ossa_transform_combine(pm, pose[joint]);
        ossa_vec3 p = model.translation;
        if (!opt.extract_height) p.y = 0.0f;
        float yaw = 0.0f;
        if (!opt.no_yaw) {
            ossa_vec3 f = ossa_quat_rotate(ossa_quat_normalize(model.rotation), ossa_vec3_make(0, 0, 1));
            if (f.x * f.x + f.z * f.z > 1e-12f) yaw = atan2f(f.x, f.z);
            else if (k) yaw = yaws[k - 1];
            if (k) { /* unwrap: the nearest turn to the previous key's yaw */
                float d = yaw - yaws[k - 1];
                d -= 2.0f * PI_F * floorf((d + PI_F) / (2.0f * PI_F));
                yaw = yaws[k - 1] + d;
            }
        }
        pos[k] = p;
        yaws[k] = yaw;
        /* The joint's new local: parent ∘ L' = M⁻¹ ∘ parent ∘ L. */
        ossa_transform remove = rigid_inverse(planar(p, yaw));
        ossa_transform local = ossa_transform_combine(ossa_transform_inverse(pm), ossa_transform_combine(remove, model));
        ossa_quat q = ossa_quat_normalize(local.rotation);
        if (k) {
            const float *prev = rv + (k - 1) * 4;
            if (prev[0] * q.x + prev[1] * q.y + prev[2] * q.z + prev[3] * q.w < 0.0f)
                q = (ossa_quat){-q.x, -q.y, -q.z, -q.w};
        }
        tv[k * 3 + 0] = local.translation.x, tv[k * 3 + 1] = local.translation.y, tv[k * 3 + 2] = local.translation.z;
        rv[k * 4 + 0] = q.x, rv[k * 4 + 1] = q.y, rv[k * 4 + 2] = q.z, rv[k * 4 + 3] = q.w;
    }
    m->start = clip->start;
    m->end = clip->end;
    m->key_count = count;
    m->times = times;
    m->positions = pos;
    m->yaws = yaws;
    m->joint = joint;
    m->allocator = ossa__allocator_resolve(allocator);

    /* The clip with the joint's translation and rotation replaced (or a track added). */
    uint32_t track_count = clip->track_count;
    if (track_count) memcpy(tracks, clip->tracks, track_count * sizeof(ossa_transform_track));
    ossa_transform_track *t;
    if (src) {
        t = &tracks[src_index];
    } else {
        t = &tracks[track_count++];
        memset(t, 0, sizeof *t);
        t->joint = joint;
    }
    ossa_track tr = {OSSA_TRACK_VECTOR, OSSA_INTERP_LINEAR, 3, count, times, tv, {0, 0, 0, NULL}};
    ossa_track rr = {OSSA_TRACK_ROTATION, OSSA_INTERP_LINEAR, 4, count, times, rv, {0, 0, 0, NULL}};
    t->translation = tr;
    t->rotation = rr;
    ossa_result r = ossa__clip_create_derived(clip, tracks, track_count, allocator, out_clip);
    ossa__free(allocator, scratch);
    if (r != OSSA_OK) {
        ossa__free(allocator, base);
        return r;
    }
    *out_motion = m;
    return OSSA_OK;
}
