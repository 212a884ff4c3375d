/* Root motion: extraction (offline, allocates) and the per-frame delta job (see
 * ossa/root_motion.h). */
#include <ossa/root_motion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ossa/pose.h>

#include "anim/derived_clip.h"
#include "core/alloc.h"
#include "core/job.h"

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

/* Rigid transforms only (unit scale): exact inverse and product. */
static ossa_transform rigid_inverse(ossa_transform t) { return ossa_transform_inverse(t); }
static ossa_transform rigid_mul(ossa_transform a, ossa_transform b) {
    ossa_transform r = ossa_transform_combine(a, b);
    r.rotation = ossa_quat_normalize(r.rotation);
    r.scale = ossa_vec3_make(1, 1, 1);
    return r;
}

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

void ossa_root_motion_destroy(ossa_root_motion *motion) {
    if (!motion) return;
    ossa_allocator a = motion->allocator;
    ossa__free(&a, motion);
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

ossa_transform ossa_root_motion_sample(const ossa_root_motion *motion, float t) {
    if (!motion || motion->key_count == 0) return ossa_transform_identity();
    const float *T = motion->times;
    uint32_t n = motion->key_count;
    if (!(t > T[0])) return planar(motion->positions[0], motion->yaws[0]);
    if (t >= T[n - 1]) return planar(motion->positions[n - 1], motion->yaws[n - 1]);
    uint32_t lo = 0, hi = n - 1; /* T[lo] <= t < T[hi] */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (T[mid] <= t) lo = mid;
        else hi = mid;
    }
    float u = (t - T[lo]) / (T[hi] - T[lo]);
    ossa_vec3 p = ossa_vec3_lerp(motion->positions[lo], motion->positions[hi], u);
    float yaw = motion->yaws[lo] + (motion->yaws[hi] - motion->yaws[lo]) * u;
    return planar(p, yaw);
}

ossa_result ossa_root_motion_job_validate(const ossa_root_motion_job *job, ossa_diagnostic *diag) {
    const ossa_result bad = OSSA_ERROR_INVALID_ARGUMENT;
    if (!job) return ossa__job_fail(diag, bad, "job", "NULL");
    if (!job->motion) return ossa__job_fail(diag, bad, "motion", "NULL");
    if (!job->delta) return ossa__job_fail(diag, bad, "delta", "NULL");
    if (!isfinite(job->from)) return ossa__job_fail(diag, bad, "from", "not finite");
    if (!isfinite(job->advance)) return ossa__job_fail(diag, bad, "advance", "not finite");
    return OSSA_OK;
}

/* c^k for a rigid transform (k any sign), by squaring. */
static ossa_transform rigid_pow(ossa_transform c, double k) {
    if (k < 0) {
        c = rigid_inverse(c);
        k = -k;
    }
    ossa_transform r = ossa_transform_identity();
    uint64_t e = k > 1e18 ? (uint64_t)1e18 : (uint64_t)k;
    while (e) {
        if (e & 1u) r = rigid_mul(r, c);
        c = rigid_mul(c, c);
        e >>= 1;
    }
    return r;
}

ossa_result ossa_root_motion_job_run(ossa_root_motion_job *job) {
    ossa_result res = ossa_root_motion_job_validate(job, NULL);
    if (res != OSSA_OK) return res;
    const ossa_root_motion *m = job->motion;
    double a = job->from, b = (double)job->from + job->advance;
    double s = m->start, d = (double)m->end - m->start;
    if (!job->loop || !(d > 0.0)) {
        float fa = (float)(a < s ? s : (a > m->end ? m->end : a));
        float fb = (float)(b < s ? s : (b > m->end ? m->end : b));
        *job->delta = rigid_mul(rigid_inverse(ossa_root_motion_sample(m, fa)), ossa_root_motion_sample(m, fb));
        return OSSA_OK;
    }
    double na = floor((a - s) / d), nb = floor((b - s) / d);
    float ra = (float)(a - na * d), rb = (float)(b - nb * d);
    ossa_transform m0 = rigid_inverse(ossa_root_motion_sample(m, m->start));
    ossa_transform cycle = rigid_mul(m0, ossa_root_motion_sample(m, m->end));
    ossa_transform wa = rigid_mul(m0, ossa_root_motion_sample(m, ra));
    ossa_transform wb = rigid_mul(m0, ossa_root_motion_sample(m, rb));
    *job->delta = rigid_mul(rigid_inverse(wa), rigid_mul(rigid_pow(cycle, nb - na), wb));
    return OSSA_OK;
}
