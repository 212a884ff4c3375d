/* The offline bake: a whole source clip played through the run-time retarget job at the
 * source key times, written as a new editable clip of the target (docs/retargeting.md). */
#include <ossa/retarget.h>

#include <ossa/pose.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "retarget/retarget_offline.h"

static int compare_floats(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

ossa_result ossa__retarget_key_times(const ossa_clip *clip, uint32_t joint_count, const ossa_allocator *allocator,
                                     float **out_times, uint32_t *out_count) {
    size_t total = 1;
    for (uint32_t i = 0; i < clip->track_count; i++) {
        const ossa_transform_track *t = &clip->tracks[i];
        if (t->joint >= joint_count) return OSSA_ERROR_INVALID_DATA;
        total += (size_t)t->translation.key_count + t->rotation.key_count + t->scale.key_count;
    }
    float *times = ossa__alloc_array(allocator, total, sizeof *times);
    if (!times) return OSSA_ERROR_OUT_OF_MEMORY;
    size_t n = 0;
    times[n++] = clip->start;
    for (uint32_t i = 0; i < clip->track_count; i++) {
        const ossa_track *tracks[3] = {&clip->tracks[i].translation, &clip->tracks[i].rotation, &clip->tracks[i].scale};
        for (int c = 0; c < 3; c++) {
            for (uint32_t k = 0; k < tracks[c]->key_count; k++) times[n++] = tracks[c]->times[k];
        }
    }
    qsort(times, n, sizeof *times, compare_floats);
    size_t unique = 0;
    for (size_t i = 0; i < n; i++) {
        if (unique == 0 || times[i] > times[unique - 1]) times[unique++] = times[i];
    }
    *out_times = times;
    *out_count = (uint32_t)unique;
    return OSSA_OK;
}

ossa_result ossa__retarget_sample_source(const ossa_retarget_rig *rig, const ossa_clip *clip, float time,
                                         ossa_transform *pose) {
    ossa_clip_sample_job job;
    memset(&job, 0, sizeof job);
    job.clip = clip;
    job.time = time;
    job.reference = rig->source->rest;
    job.reference_count = rig->source->joint_count;
    job.output = pose;
    job.output_count = rig->source->joint_count;
    return ossa_clip_sample_job_run(&job);
}

static const ossa_humanoid_bone LIMB_BONES[OSSA_RETARGET_LIMB_COUNT] = {
    OSSA_HUMANOID_LEFT_FOOT, OSSA_HUMANOID_RIGHT_FOOT, OSSA_HUMANOID_LEFT_HAND, OSSA_HUMANOID_RIGHT_HAND};

/* Each limb's floor: the lowest height its source joint reaches over the frames; the state is
 * primed so that the first frame's speed is measured towards the second (as the report does). */
static ossa_result measure_floors(const ossa_retarget_rig *rig, const ossa_clip *clip, const float *times,
                                  uint32_t frames, ossa_transform *pose, ossa_retarget_contacts *contacts) {
    for (int l = 0; l < OSSA_RETARGET_LIMB_COUNT; l++) contacts->floor[l] = 3.0e38f;
    for (uint32_t f = 0; f < frames; f++) {
        ossa_result r = ossa__retarget_sample_source(rig, clip, times[f], pose);
        if (r != OSSA_OK) return r;
        for (int l = 0; l < OSSA_RETARGET_LIMB_COUNT; l++) {
            int32_t joint = rig->source_map.joints[LIMB_BONES[l]];
            if (joint < 0) continue;
            ossa_vec3 p = ossa_pose_joint_to_model_transform(pose, rig->source->parents, rig->source->joint_count,
                                                             (uint32_t)joint).translation;
            float height = ossa_vec3_dot(p, rig->up);
            if (height < contacts->floor[l]) contacts->floor[l] = height;
            if (f == 1) contacts->source_previous[l] = p; /* the first frame's speed: to the second */
        }
    }
    contacts->has_floor = true;
    contacts->started = frames > 1;
    return OSSA_OK;
}

ossa_result ossa__retarget_play(const ossa_retarget_rig *rig, const ossa_clip *clip, const float *times,
                                uint32_t frames, const ossa_retarget_bake_options *options,
                                const ossa_allocator *allocator, ossa_transform *poses, uint32_t *contact_masks) {
    uint32_t S = rig->source->joint_count, T = rig->target->joint_count;
    ossa_transform *work = ossa__alloc_array(allocator, (size_t)2 * S + T, sizeof *work);
    if (!work) return OSSA_ERROR_OUT_OF_MEMORY;
    ossa_retarget_contacts contacts;
    memset(&contacts, 0, sizeof contacts);
    bool pin = !(options && options->no_contacts);
    ossa_result r = pin ? measure_floors(rig, clip, times, frames, work, &contacts) : OSSA_OK;
    ossa_retarget_job job;
    memset(&job, 0, sizeof job);
    job.rig = rig;
    job.input = work;
    job.input_count = S;
    job.output_count = T;
    job.scratch = work + S;
    job.scratch_count = S + T;
    job.contacts = pin ? &contacts : NULL;
    if (options) job.contact_options = options->contact_options;
    for (uint32_t f = 0; f < frames && r == OSSA_OK; f++) {
        r = ossa__retarget_sample_source(rig, clip, times[f], work);
        job.output = poses + (size_t)f * T;
        job.delta_time = f > 0 ? times[f] - times[f - 1] : frames > 1 ? times[1] - times[0] : 0.0f;
        if (r == OSSA_OK) r = ossa_retarget_job_run(&job);
        if (contact_masks) contact_masks[f] = job.contact_mask;
    }
    ossa__free(allocator, work);
    return r;
}

/* ---- writing the clip ---- */

static const float *component(const ossa_transform *t, int c) {
    return c == 0 ? &t->translation.x : c == 1 ? &t->rotation.x : &t->scale.x;
}

static uint32_t component_size(int c) {
    return c == 1 ? 4u : 3u;
}

/* Does component c of joint j differ from the rest pose at some frame? */
static bool animated(const ossa_transform *poses, uint32_t frames, uint32_t T, const ossa_transform *rest, uint32_t j,
                     int c) {
    for (uint32_t f = 0; f < frames; f++) {
        if (memcmp(component(&poses[(size_t)f * T + j], c), component(&rest[j], c), component_size(c) * sizeof(float))) {
            return true;
        }
    }
    return false;
}

/* Fills one LINEAR track of component c of joint j (rotations kept in one hemisphere). */
static void fill_track(ossa_track *track, const ossa_transform *poses, uint32_t frames, uint32_t T, uint32_t j, int c,
                       const float *times, float *values) {
    uint32_t n = component_size(c);
    for (uint32_t f = 0; f < frames; f++) {
        memcpy(values + (size_t)f * n, component(&poses[(size_t)f * T + j], c), n * sizeof(float));
        if (c == 1 && f > 0) {
            float *q = values + (size_t)f * 4, *p = q - 4;
            if (q[0] * p[0] + q[1] * p[1] + q[2] * p[2] + q[3] * p[3] < 0.0f) {
                for (int i = 0; i < 4; i++) q[i] = -q[i];
            }
        }
    }
    track->kind = c == 1 ? OSSA_TRACK_ROTATION : OSSA_TRACK_VECTOR;
    track->interp = OSSA_INTERP_LINEAR;
    track->components = n;
    track->key_count = frames;
    track->times = times;
    track->values = values;
}

ossa_result ossa__retarget_clip_from_poses(const ossa_retarget_rig *rig, const ossa_clip *source_clip,
                                           const float *times, uint32_t frames, const ossa_transform *poses,
                                           float table_rate, const ossa_allocator *allocator, ossa_clip **out) {
    const ossa_skeleton *target = rig->target;
    uint32_t T = target->joint_count, track_count = 0;
    size_t value_count = 0;
    for (uint32_t j = 0; j < T; j++) {
        bool any = false;
        for (int c = 0; c < 3; c++) {
            if (animated(poses, frames, T, target->rest, j, c)) any = true, value_count += (size_t)frames * component_size(c);
        }
        track_count += any;
    }
    ossa_transform_track *tracks = ossa__alloc_array(allocator, track_count ? track_count : 1, sizeof *tracks);
    float *values = ossa__alloc_array(allocator, value_count ? value_count : 1, sizeof *values);
    ossa_result r = tracks && values ? OSSA_OK : OSSA_ERROR_OUT_OF_MEMORY;
    uint32_t t = 0;
    size_t used = 0;
    for (uint32_t j = 0; j < T && r == OSSA_OK; j++) {
        ossa_track *parts[3] = {&tracks[t].translation, &tracks[t].rotation, &tracks[t].scale};
        bool any = false;
        for (int c = 0; c < 3; c++) {
            if (!animated(poses, frames, T, target->rest, j, c)) continue;
            fill_track(parts[c], poses, frames, T, j, c, times, values + used);
            used += (size_t)frames * component_size(c);
            any = true;
        }
        if (any) tracks[t++].joint = j;
    }
    if (r == OSSA_OK) {
        ossa_clip_desc desc;
        memset(&desc, 0, sizeof desc);
        desc.name = source_clip->name;
        desc.looping = source_clip->looping;
        desc.track_count = track_count;
        desc.tracks = tracks;
        desc.table_rate = table_rate;
        r = ossa_clip_create(&desc, allocator, out);
    }
    ossa__free(allocator, tracks);
    ossa__free(allocator, values);
    return r;
}

ossa_result ossa_retarget_bake(const ossa_retarget_rig *rig, const ossa_clip *source_clip,
                               const ossa_retarget_bake_options *options, const ossa_allocator *allocator,
                               ossa_clip **out) {
    if (!out) return OSSA_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (!rig || !source_clip) return OSSA_ERROR_INVALID_ARGUMENT;
    float *times = NULL;
    uint32_t frames = 0;
    ossa_result r = ossa__retarget_key_times(source_clip, rig->source->joint_count, allocator, &times, &frames);
    if (r != OSSA_OK) return r;
    uint32_t T = rig->target->joint_count;
    ossa_transform *poses = ossa__alloc_array(allocator, (size_t)frames * T, sizeof *poses);
    r = poses ? ossa__retarget_play(rig, source_clip, times, frames, options, allocator, poses, NULL)
              : OSSA_ERROR_OUT_OF_MEMORY;
    if (r == OSSA_OK) {
        r = ossa__retarget_clip_from_poses(rig, source_clip, times, frames, poses, options ? options->table_rate : 0.0f,
                                           allocator, out);
    }
    ossa__free(allocator, poses);
    ossa__free(allocator, times);
    return r;
}
