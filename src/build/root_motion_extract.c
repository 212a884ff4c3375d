/* Root-motion extraction (offline library, ossa_offline; see ossa/root_motion.h): an editable
 * clip becomes an in-place clip plus an ossa_root_motion track (allocates). Sampling the track
 * and the per-frame delta job are runtime: src/anim/root_motion.c. */
#include <ossa/root_motion.h>

#include <math.h>
#include <stdint.h>
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

static bool is_zero(ossa_vec3 v) { return v.x == 0.0f && v.y == 0.0f && v.z == 0.0f; }
static bool is_finite3(ossa_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

/* The ground frame: unit up U, the heading-0 direction F0 on the ground and S0 = U × F0. */
typedef struct ground {
    ossa_vec3 up, fwd, side;
} ground;

static ossa_vec3 on_ground(const ground *g, ossa_vec3 v) {
    return ossa_vec3_sub(v, ossa_vec3_scale(g->up, ossa_vec3_dot(v, g->up)));
}

/* U = up (zero: +Y); F0 = +Z on the ground, or -Y when U is (nearly) along ±Z. */
static ground make_ground(ossa_vec3 up) {
    ground g;
    g.up = is_zero(up) ? ossa_vec3_make(0, 1, 0) : ossa_vec3_normalize(up);
    ossa_vec3 f = on_ground(&g, ossa_vec3_make(0, 0, 1));
    if (ossa_vec3_dot(f, f) < 0.25f) f = on_ground(&g, ossa_vec3_make(0, -1, 0));
    g.fwd = ossa_vec3_normalize(f);
    g.side = ossa_vec3_cross(g.up, g.fwd);
    return g;
}

/* The heading of direction f about U from F0, radians; false when f is (nearly) along U. */
static bool heading(const ground *g, ossa_vec3 f, float *yaw) {
    float x = ossa_vec3_dot(f, g->side), z = ossa_vec3_dot(f, g->fwd);
    if (!(x * x + z * z > 1e-8f * ossa_vec3_dot(f, f))) return false;
    *yaw = atan2f(x, z);
    return true;
}

static ossa_transform planar(const ground *g, ossa_vec3 p, float yaw) {
    ossa_transform t = ossa_transform_identity();
    t.translation = p;
    t.rotation = ossa_quat_from_axis_angle(g->up, yaw);
    return t;
}

/* The motion joint's local forward axis: the override, else the signed local axis whose
 * rest-pose model-space direction is closest to F0 (+Z first on ties). */
static ossa_vec3 forward_axis(const ossa_skeleton *s, uint32_t joint, const ground *g, ossa_vec3 override) {
    if (!is_zero(override)) return ossa_vec3_normalize(override);
    ossa_quat r = ossa_quat_normalize(ossa_pose_joint_to_model_transform(s->rest, s->parents, s->joint_count, joint).rotation);
    static const float axes[6][3] = {{0, 0, 1}, {0, 0, -1}, {1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}};
    ossa_vec3 best = ossa_vec3_make(0, 0, 1);
    float best_dot = -2.0f;
    for (int i = 0; i < 6; i++) {
        ossa_vec3 a = ossa_vec3_make(axes[i][0], axes[i][1], axes[i][2]);
        float d = ossa_vec3_dot(ossa_quat_rotate(r, a), g->fwd);
        if (d > best_dot) best = a, best_dot = d;
    }
    return best;
}

/* Whether a track's values change over its keys (tangents included). */
static bool track_moves(const ossa_track *t) {
    uint32_t stride = t->components * (t->interp == OSSA_INTERP_CUBIC ? 3u : 1u);
    for (uint32_t k = 1; k < t->key_count; k++)
        for (uint32_t c = 0; c < stride; c++)
            if (t->values[(size_t)k * stride + c] != t->values[c]) return true;
    return false;
}

/* The automatic motion joint (see root_motion.h): the most descendants among joints whose
 * translation moves, else among joints with a translation track, else joint 0. `size` is
 * scratch of joint_count entries. */
static uint32_t default_joint(const ossa_clip *clip, const ossa_skeleton *s, uint32_t *size) {
    const uint32_t n = s->joint_count;
    for (uint32_t j = 0; j < n; j++) size[j] = 1;
    for (uint32_t j = n; j-- > 1;) /* parents precede children */
        if (s->parents[j] >= 0) size[s->parents[j]] += size[j];
    for (int pass = 0; pass < 2; pass++) {
        uint32_t best = UINT32_MAX;
        for (uint32_t i = 0; i < clip->track_count; i++) {
            const ossa_transform_track *t = &clip->tracks[i];
            if (t->joint >= n || !t->translation.key_count || (pass == 0 && !track_moves(&t->translation))) continue;
            if (best == UINT32_MAX || size[t->joint] > size[best] || (size[t->joint] == size[best] && t->joint < best))
                best = t->joint;
        }
        if (best != UINT32_MAX) return best;
    }
    return 0;
}

/* Whether a track of joint `j` moves `joint` in model space: the joint itself or an ancestor. */
static bool affects(const ossa_skeleton *s, uint32_t j, uint32_t joint) {
    for (int32_t a = (int32_t)joint; a >= 0; a = s->parents[a])
        if ((uint32_t)a == j) return true;
    return false;
}

/* How many of a track's channels give key times: translation and rotation of the motion joint
 * and of the roots, all three for the motion joint's ancestors; 0 for the other joints. */
static int timed_channels(const ossa_skeleton *s, uint32_t track_joint, uint32_t joint) {
    if (track_joint >= s->joint_count) return 0;
    if (track_joint != joint && affects(s, track_joint, joint)) return 3;
    return track_joint == joint || s->parents[track_joint] < 0 ? 2 : 0;
}

/* An upper bound of the key times (start and end included). */
static size_t count_times(const ossa_clip *clip, const ossa_skeleton *s, uint32_t joint) {
    size_t cap = 2;
    for (uint32_t i = 0; i < clip->track_count; i++) {
        const ossa_transform_track *t = &clip->tracks[i];
        int c = timed_channels(s, t->joint, joint);
        if (c >= 2) cap += (size_t)t->translation.key_count + t->rotation.key_count;
        if (c == 3) cap += t->scale.key_count;
    }
    return cap;
}

/* The key times, sorted and unique; returns their count. */
static uint32_t collect_times(const ossa_clip *clip, const ossa_skeleton *s, uint32_t joint, float *times) {
    uint32_t count = 0;
    times[count++] = clip->start;
    times[count++] = clip->end;
    for (uint32_t i = 0; i < clip->track_count; i++) {
        const ossa_transform_track *tk = &clip->tracks[i];
        const ossa_track *ch[3] = {&tk->translation, &tk->rotation, &tk->scale};
        int channels = timed_channels(s, tk->joint, joint);
        for (int c = 0; c < channels; c++)
            for (uint32_t k = 0; k < ch[c]->key_count; k++) times[count++] = ch[c]->times[k];
    }
    qsort(times, count, sizeof(float), compare_floats);
    uint32_t unique = 0;
    for (uint32_t k = 0; k < count; k++)
        if (unique == 0 || times[k] > times[unique - 1]) times[unique++] = times[k];
    return unique;
}

/* What the key loop needs. */
typedef struct extraction {
    const ossa_clip *clip;
    const ossa_skeleton *skeleton;
    uint32_t joint;
    ossa_vec3 axis; /* the joint's local forward */
    ground g;
    bool extract_height, no_yaw;
    const uint32_t *roots;
    uint32_t root_count;
} extraction;

/* M at key k: the joint's ground position and unwrapped heading (previous keys in pos/yaws). */
static void motion_at(const extraction *x, const ossa_transform *pose, uint32_t k, ossa_vec3 *pos, float *yaws) {
    const ossa_skeleton *s = x->skeleton;
    ossa_transform model = ossa_pose_joint_to_model_transform(pose, s->parents, s->joint_count, x->joint);
    pos[k] = x->extract_height ? model.translation : on_ground(&x->g, model.translation);
    float yaw = k ? yaws[k - 1] : 0.0f; /* a heading along up keeps the previous one */
    if (!x->no_yaw && heading(&x->g, ossa_quat_rotate(ossa_quat_normalize(model.rotation), x->axis), &yaw) && k) {
        float d = yaw - yaws[k - 1]; /* unwrap: the nearest turn to the previous key's yaw */
        d -= 2.0f * PI_F * floorf((d + PI_F) / (2.0f * PI_F));
        yaw = yaws[k - 1] + d;
    }
    yaws[k] = x->no_yaw ? 0.0f : yaw;
}

/* Root r's new local at key k: M⁻¹ ∘ L, its rotation on the previous key's hemisphere. */
static void root_key(const ossa_transform *remove, const ossa_transform *local, uint32_t k, float *tv, float *rv) {
    ossa_transform l = ossa_transform_combine(*remove, *local);
    ossa_quat q = ossa_quat_normalize(l.rotation);
    float *r = rv + (size_t)k * 4;
    if (k && r[-4] * q.x + r[-3] * q.y + r[-2] * q.z + r[-1] * q.w < 0.0f) q = (ossa_quat){-q.x, -q.y, -q.z, -q.w};
    float *t = tv + (size_t)k * 3;
    t[0] = l.translation.x, t[1] = l.translation.y, t[2] = l.translation.z;
    r[0] = q.x, r[1] = q.y, r[2] = q.z, r[3] = q.w;
}

/* Samples the clip at every key: the motion, and the roots' new keys (tv / rv: count keys per root). */
static void extract_keys(const extraction *x, ossa_transform *pose, const float *times, uint32_t count, ossa_vec3 *pos,
                         float *yaws, float *tv, float *rv) {
    const uint32_t n = x->skeleton->joint_count;
    for (uint32_t k = 0; k < count; k++) {
        ossa_clip_sample_job sj = {.clip = x->clip, .time = times[k], .lookup = OSSA_LOOKUP_BINARY,
                                   .reference = x->skeleton->rest, .reference_count = n, .output = pose, .output_count = n};
        ossa_clip_sample_job_run(&sj);
        motion_at(x, pose, k, pos, yaws);
        ossa_transform remove = ossa_transform_inverse(planar(&x->g, pos[k], yaws[k]));
        for (uint32_t r = 0; r < x->root_count; r++)
            root_key(&remove, &pose[x->roots[r]], k, tv + (size_t)r * count * 3, rv + (size_t)r * count * 4);
    }
}

/* The clip's tracks with each root's translation and rotation replaced (or a track added). */
static uint32_t rewrite_tracks(const ossa_clip *clip, const extraction *x, const float *times, uint32_t count,
                               const float *tv, const float *rv, ossa_transform_track *tracks) {
    uint32_t track_count = clip->track_count;
    if (track_count) memcpy(tracks, clip->tracks, track_count * sizeof(ossa_transform_track));
    for (uint32_t r = 0; r < x->root_count; r++) {
        ossa_transform_track *t = NULL;
        for (uint32_t i = 0; i < clip->track_count && !t; i++)
            if (tracks[i].joint == x->roots[r]) t = &tracks[i];
        if (!t) {
            t = &tracks[track_count++];
            memset(t, 0, sizeof *t);
            t->joint = x->roots[r];
        }
        t->translation = (ossa_track){OSSA_TRACK_VECTOR, OSSA_INTERP_LINEAR, 3, count, times,
                                      tv + (size_t)r * count * 3, {0, 0, 0, NULL}};
        t->rotation = (ossa_track){OSSA_TRACK_ROTATION, OSSA_INTERP_LINEAR, 4, count, times,
                                   rv + (size_t)r * count * 4, {0, 0, 0, NULL}};
    }
    return track_count;
}

/* The motion joint from the options; UINT32_MAX when unknown or out of range. */
static uint32_t choose_joint(const ossa_clip *clip, const ossa_skeleton *s, const ossa_root_motion_options *opt,
                             uint32_t *scratch) {
    if (opt->joint_name) {
        int32_t j = ossa_skeleton_find_joint(s, opt->joint_name);
        return j < 0 ? UINT32_MAX : (uint32_t)j;
    }
    uint32_t joint = opt->joint ? opt->joint : default_joint(clip, s, scratch);
    return joint < s->joint_count ? joint : UINT32_MAX;
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
    if (!is_finite3(opt.up) || !is_finite3(opt.forward)) return OSSA_ERROR_INVALID_ARGUMENT;
    const uint32_t n = skeleton->joint_count;
    uint32_t *roots = ossa__alloc(allocator, (size_t)n * sizeof(uint32_t));
    if (!roots) return OSSA_ERROR_OUT_OF_MEMORY;
    extraction x = {clip, skeleton, choose_joint(clip, skeleton, &opt, roots), {0, 0, 1}, make_ground(opt.up),
                    opt.extract_height, opt.no_yaw, roots, 0};
    if (x.joint == UINT32_MAX) {
        ossa__free(allocator, roots);
        return OSSA_ERROR_INVALID_ARGUMENT;
    }
    x.axis = forward_axis(skeleton, x.joint, &x.g, opt.forward);
    for (uint32_t j = 0; j < n; j++)
        if (skeleton->parents[j] < 0) roots[x.root_count++] = j;

    size_t cap = count_times(clip, skeleton, x.joint);
    ossa__layout L = {0, cap > UINT32_MAX};
    size_t o_motion = ossa__layout_add(&L, 1, sizeof(ossa_root_motion));
    size_t o_times = ossa__layout_add(&L, cap, sizeof(float));
    size_t o_pos = ossa__layout_add(&L, cap, sizeof(ossa_vec3));
    size_t o_yaw = ossa__layout_add(&L, cap, sizeof(float));
    unsigned char *base = L.overflow ? NULL : ossa__alloc(allocator, L.size);
    /* Scratch: a pose, the roots' new keys (translation 3 + rotation 4 per key), the new track list. */
    ossa__layout S = {0, L.overflow || (x.root_count && cap > SIZE_MAX / 8 / x.root_count)};
    size_t s_pose = ossa__layout_add(&S, n, sizeof(ossa_transform));
    size_t s_tv = ossa__layout_add(&S, cap * x.root_count, 3 * sizeof(float));
    size_t s_rv = ossa__layout_add(&S, cap * x.root_count, 4 * sizeof(float));
    size_t s_tracks = ossa__layout_add(&S, (size_t)clip->track_count + x.root_count, sizeof(ossa_transform_track));
    unsigned char *scratch = S.overflow ? NULL : ossa__alloc(allocator, S.size);
    if (!base || !scratch) {
        ossa__free(allocator, base);
        ossa__free(allocator, scratch);
        ossa__free(allocator, roots);
        return OSSA_ERROR_OUT_OF_MEMORY;
    }
    memset(base, 0, L.size);
    ossa_root_motion *m = (ossa_root_motion *)(base + o_motion);
    float *times = (float *)(base + o_times);
    float *tv = (float *)(scratch + s_tv), *rv = (float *)(scratch + s_rv);
    uint32_t count = collect_times(clip, skeleton, x.joint, times);
    extract_keys(&x, (ossa_transform *)(scratch + s_pose), times, count, (ossa_vec3 *)(base + o_pos),
                 (float *)(base + o_yaw), tv, rv);
    *m = (ossa_root_motion){clip->start, clip->end, count, times, (ossa_vec3 *)(base + o_pos), (float *)(base + o_yaw),
                            x.joint, x.g.up, ossa__allocator_resolve(allocator)};

    ossa_transform_track *tracks = (ossa_transform_track *)(scratch + s_tracks);
    uint32_t track_count = rewrite_tracks(clip, &x, times, count, tv, rv, tracks);
    ossa_result r = ossa__clip_create_derived(clip, tracks, track_count, allocator, out_clip);
    ossa__free(allocator, scratch);
    ossa__free(allocator, roots);
    if (r != OSSA_OK) {
        ossa__free(allocator, base);
        return r;
    }
    *out_motion = m;
    return OSSA_OK;
}
