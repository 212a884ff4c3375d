/* The quality report of a retargeted clip (docs/retargeting.md, "The report"). Every figure is
 * measured on model transforms computed here from the sampled clips, at the source key times. */
#include <ossa/retarget.h>

#include <math.h>
#include <ossa/pose.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "retarget/retarget_offline.h"

#define B(x) OSSA_HUMANOID_##x
#define DEGREES 57.29577951308232

/* Everything the measures read: the frames' model transforms of both clips and the references. */
typedef struct report_frames {
    const ossa_retarget_rig *rig;
    uint32_t frames, S, T;
    float *times;
    ossa_transform *source_locals, *target_locals;   /* frames x S, frames x T */
    ossa_transform *source_models, *target_models;   /* frames x S, frames x T */
    ossa_transform *source_reference, *target_reference; /* model transforms of the references */
} report_frames;

static void model_pose(const ossa_skeleton *s, const ossa_transform *locals, ossa_transform *models) {
    for (uint32_t j = 0; j < s->joint_count; j++) {
        int32_t p = s->parents[j];
        models[j] = p < 0 ? locals[j] : ossa_transform_combine(models[p], locals[j]);
    }
}

static float height(const report_frames *r, ossa_vec3 p) {
    return ossa_vec3_dot(p, r->rig->up);
}

/* Rotation angle between two rotations, degrees (sign-insensitive). */
static double angle_between(ossa_quat a, ossa_quat b) {
    ossa_quat d = ossa_quat_mul(ossa_quat_inverse(a), b);
    double v = sqrt((double)d.x * d.x + (double)d.y * d.y + (double)d.z * d.z);
    return 2.0 * atan2(v, fabs((double)d.w)) * DEGREES;
}

static ossa_result sample_target(const ossa_retarget_rig *rig, const ossa_clip *clip, float time, ossa_transform *pose) {
    ossa_clip_sample_job job;
    memset(&job, 0, sizeof job);
    job.clip = clip;
    job.time = time;
    job.reference = rig->target->rest;
    job.reference_count = rig->target->joint_count;
    job.output = pose;
    job.output_count = rig->target->joint_count;
    return ossa_clip_sample_job_run(&job);
}

static ossa_result load_frames(report_frames *r, const ossa_clip *source_clip, const ossa_clip *target_clip,
                               const ossa_allocator *allocator) {
    const ossa_retarget_rig *rig = r->rig;
    r->S = rig->source->joint_count;
    r->T = rig->target->joint_count;
    ossa_result res = ossa__retarget_key_times(source_clip, r->S, allocator, &r->times, &r->frames);
    if (res != OSSA_OK) return res;
    for (uint32_t i = 0; i < target_clip->track_count; i++) {
        if (target_clip->tracks[i].joint >= r->T) return OSSA_ERROR_INVALID_DATA;
    }
    size_t count = (size_t)r->frames * (r->S + r->T) * 2 + r->S + r->T;
    ossa_transform *block = ossa__alloc_array(allocator, count, sizeof *block);
    if (!block) return OSSA_ERROR_OUT_OF_MEMORY;
    r->source_locals = block;
    r->target_locals = r->source_locals + (size_t)r->frames * r->S;
    r->source_models = r->target_locals + (size_t)r->frames * r->T;
    r->target_models = r->source_models + (size_t)r->frames * r->S;
    r->source_reference = r->target_models + (size_t)r->frames * r->T;
    r->target_reference = r->source_reference + r->S;
    model_pose(rig->source, rig->source_reference, r->source_reference);
    model_pose(rig->target, rig->target_reference, r->target_reference);
    for (uint32_t f = 0; f < r->frames && res == OSSA_OK; f++) {
        ossa_transform *sl = r->source_locals + (size_t)f * r->S, *tl = r->target_locals + (size_t)f * r->T;
        res = ossa__retarget_sample_source(rig, source_clip, r->times[f], sl);
        if (res == OSSA_OK) res = sample_target(rig, target_clip, r->times[f], tl);
        model_pose(rig->source, sl, r->source_models + (size_t)f * r->S);
        model_pose(rig->target, tl, r->target_models + (size_t)f * r->T);
    }
    return res;
}

/* ---- contacts and foot skate ---- */

static const ossa_humanoid_bone LIMB_BONES[OSSA_RETARGET_LIMB_COUNT] = {B(LEFT_FOOT), B(RIGHT_FOOT), B(LEFT_HAND),
                                                                          B(RIGHT_HAND)};

/* Source contact flags of one limb over the frames (the job's detector with the bake's floors). */
static void detect_contacts(const report_frames *r, uint32_t joint, const ossa_retarget_contact_options *o,
                            bool *contact) {
    float floor = 3.0e38f;
    for (uint32_t f = 0; f < r->frames; f++) {
        floor = fminf(floor, height(r, r->source_models[(size_t)f * r->S + joint].translation));
    }
    float leg = r->rig->source_leg_length;
    float height_threshold = (o->height_threshold > 0.0f ? o->height_threshold : 0.05f) * leg;
    float speed_threshold = (o->speed_threshold > 0.0f ? o->speed_threshold : 0.5f) * leg;
    for (uint32_t f = 0; f < r->frames; f++) {
        ossa_vec3 p = r->source_models[(size_t)f * r->S + joint].translation;
        bool slow = true;
        uint32_t g = f > 0 ? f - 1 : f + 1; /* the speed from the previous frame (the next for the first) */
        if (g < r->frames && r->times[f] != r->times[g]) {
            ossa_vec3 q = r->source_models[(size_t)g * r->S + joint].translation;
            slow = ossa_vec3_length(ossa_vec3_sub(p, q)) / fabsf(r->times[f] - r->times[g]) < speed_threshold;
        }
        contact[f] = height(r, p) - floor < height_threshold && slow;
    }
}

/* Largest distance a joint moves from where it was at a contact's first frame. */
static float skate(const ossa_transform *models, uint32_t stride, uint32_t joint, const bool *contact, uint32_t frames) {
    float worst = 0.0f;
    ossa_vec3 anchor = {0, 0, 0};
    for (uint32_t f = 0; f < frames; f++) {
        if (!contact[f]) continue;
        ossa_vec3 p = models[(size_t)f * stride + joint].translation;
        if (f == 0 || !contact[f - 1]) anchor = p;
        worst = fmaxf(worst, ossa_vec3_length(ossa_vec3_sub(p, anchor)));
    }
    return worst;
}

static void measure_contacts(const report_frames *r, const ossa_retarget_bake_options *options, bool *contact,
                             ossa_retarget_report *out) {
    ossa_retarget_contact_options none;
    memset(&none, 0, sizeof none);
    const ossa_retarget_contact_options *o = options ? &options->contact_options : &none;
    int limbs = o->hands ? OSSA_RETARGET_LIMB_COUNT : OSSA_RETARGET_LEFT_HAND;
    for (int l = 0; l < limbs; l++) {
        int32_t sj = r->rig->source_map.joints[LIMB_BONES[l]], tj = r->rig->target_map.joints[LIMB_BONES[l]];
        if (sj < 0 || tj < 0) continue;
        detect_contacts(r, (uint32_t)sj, o, contact);
        ossa_retarget_limb_report *limb = &out->limbs[l];
        for (uint32_t f = 0; f < r->frames; f++) {
            limb->contact_frames += contact[f];
            limb->contact_count += contact[f] && (f == 0 || !contact[f - 1]);
        }
        limb->target_skate = skate(r->target_models, r->T, (uint32_t)tj, contact, r->frames) / r->rig->target_leg_length;
        limb->source_skate = skate(r->source_models, r->S, (uint32_t)sj, contact, r->frames) / r->rig->source_leg_length;
    }
}

/* ---- bone lengths, angles, penetration ---- */

static void measure_lengths(const report_frames *r, ossa_retarget_report *out) {
    uint32_t hips = (uint32_t)r->rig->target_map.joints[B(HIPS)];
    for (uint32_t f = 0; f < r->frames; f++) {
        for (uint32_t j = 0; j < r->T; j++) {
            if (j == hips) continue;
            float have = ossa_vec3_length(r->target_locals[(size_t)f * r->T + j].translation);
            float want = ossa_vec3_length(r->rig->target_reference[j].translation);
            out->bone_length_change = fmaxf(out->bone_length_change, fabsf(have - want));
        }
    }
}

static void measure_angles(const report_frames *r, ossa_retarget_report *out) {
    double total = 0.0;
    uint32_t samples = 0;
    out->angle_max_bone = -1;
    for (int b = 0; b < OSSA_HUMANOID_BONE_COUNT; b++) {
        int32_t sj = r->rig->source_map.joints[b], tj = r->rig->target_map.joints[b];
        if (sj < 0 || tj < 0) continue;
        ossa_retarget_angle_stats *stats = &out->bones[b];
        stats->mapped = true;
        double sum = 0.0;
        for (uint32_t f = 0; f < r->frames; f++) {
            ossa_quat s = ossa_quat_mul(r->source_models[(size_t)f * r->S + (uint32_t)sj].rotation,
                                        ossa_quat_inverse(r->source_reference[sj].rotation));
            ossa_quat t = ossa_quat_mul(r->target_models[(size_t)f * r->T + (uint32_t)tj].rotation,
                                        ossa_quat_inverse(r->target_reference[tj].rotation));
            double a = angle_between(s, t);
            sum += a;
            if (a > stats->max_degrees) stats->max_degrees = (float)a;
        }
        stats->mean_degrees = (float)(sum / r->frames);
        total += sum;
        samples += r->frames;
        if (stats->max_degrees > out->angle_max_degrees || out->angle_max_bone < 0) {
            out->angle_max_degrees = stats->max_degrees;
            out->angle_max_bone = b;
        }
    }
    out->angle_mean_degrees = samples ? (float)(total / samples) : 0.0f;
}

/* Deepest a foot or toe joint goes below its resting height (its height over the lowest foot
 * or toe joint in the reference), / leg length. */
static float penetration(const report_frames *r, const ossa_retarget_map *map, const ossa_transform *reference,
                         const ossa_transform *models, uint32_t stride, float leg) {
    static const ossa_humanoid_bone feet[] = {B(LEFT_FOOT), B(RIGHT_FOOT), B(LEFT_TOES), B(RIGHT_TOES)};
    float lowest = 3.0e38f, deepest = 0.0f;
    for (int i = 0; i < 4; i++) {
        if (map->joints[feet[i]] >= 0) lowest = fminf(lowest, height(r, reference[map->joints[feet[i]]].translation));
    }
    for (int i = 0; i < 4; i++) {
        int32_t j = map->joints[feet[i]];
        if (j < 0) continue;
        float rest = height(r, reference[j].translation) - lowest;
        for (uint32_t f = 0; f < r->frames; f++) {
            deepest = fmaxf(deepest, rest - height(r, models[(size_t)f * stride + (uint32_t)j].translation));
        }
    }
    return deepest / leg;
}

/* ---- the round trip ---- */

static ossa_result reverse_rig(const ossa_retarget_rig *rig, const ossa_allocator *allocator, ossa_retarget_rig **out) {
    ossa_retarget_rig_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.source = rig->target;
    desc.source_map = &rig->target_map;
    desc.source_reference = rig->target_reference;
    desc.target = rig->source;
    desc.target_map = &rig->source_map;
    desc.target_reference = rig->source_reference;
    desc.up = rig->up;
    desc.forward = rig->forward;
    desc.translation_scale = 1.0f / rig->translation_scale;
    return ossa_retarget_rig_create(&desc, allocator, out, NULL);
}

static ossa_result run_job(const ossa_retarget_rig *rig, const ossa_transform *in, ossa_transform *out,
                           ossa_transform *scratch) {
    ossa_retarget_job job;
    memset(&job, 0, sizeof job);
    job.rig = rig;
    job.input = in;
    job.input_count = rig->source->joint_count;
    job.output = out;
    job.output_count = rig->target->joint_count;
    job.scratch = scratch;
    job.scratch_count = ossa_retarget_scratch_count(rig);
    return ossa_retarget_job_run(&job);
}

static void compare_round_trip(const report_frames *r, uint32_t f, const ossa_transform *back, double *sum,
                               uint32_t *count, ossa_retarget_report *out) {
    const ossa_transform *models = r->source_models + (size_t)f * r->S;
    for (int b = 0; b < OSSA_HUMANOID_BONE_COUNT; b++) {
        int32_t sj = r->rig->source_map.joints[b];
        if (sj < 0 || r->rig->target_map.joints[b] < 0) continue;
        double a = angle_between(models[sj].rotation, back[sj].rotation);
        *sum += a;
        *count += 1;
        out->round_trip_max_degrees = fmaxf(out->round_trip_max_degrees, (float)a);
    }
    uint32_t hips = (uint32_t)r->rig->source_map.joints[B(HIPS)];
    float error = ossa_vec3_length(ossa_vec3_sub(models[hips].translation, back[hips].translation));
    out->round_trip_hips = fmaxf(out->round_trip_hips, error / r->rig->source_leg_length);
}

static ossa_result measure_round_trip(const report_frames *r, const ossa_allocator *allocator,
                                      ossa_retarget_report *out) {
    ossa_retarget_rig *back_rig = NULL;
    ossa_result res = reverse_rig(r->rig, allocator, &back_rig);
    if (res != OSSA_OK) return res;
    size_t count = (size_t)r->T + r->S * 2 + (r->S + r->T);
    ossa_transform *work = ossa__alloc_array(allocator, count, sizeof *work);
    if (!work) {
        ossa_retarget_rig_destroy(back_rig);
        return OSSA_ERROR_OUT_OF_MEMORY;
    }
    ossa_transform *b = work, *a = b + r->T, *a_models = a + r->S, *scratch = a_models + r->S;
    double sum = 0.0;
    uint32_t samples = 0;
    for (uint32_t f = 0; f < r->frames && res == OSSA_OK; f++) {
        res = run_job(r->rig, r->source_locals + (size_t)f * r->S, b, scratch);
        if (res == OSSA_OK) res = run_job(back_rig, b, a, scratch);
        if (res != OSSA_OK) break;
        model_pose(r->rig->source, a, a_models);
        compare_round_trip(r, f, a_models, &sum, &samples, out);
    }
    out->round_trip_mean_degrees = samples ? (float)(sum / samples) : 0.0f;
    ossa__free(allocator, work);
    ossa_retarget_rig_destroy(back_rig);
    return res;
}

ossa_result ossa_retarget_report_compute(const ossa_retarget_rig *rig, const ossa_clip *source_clip,
                                         const ossa_clip *target_clip, const ossa_retarget_bake_options *options,
                                         const ossa_allocator *allocator, ossa_retarget_report *out) {
    if (!out) return OSSA_ERROR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    out->angle_max_bone = -1;
    if (!rig || !source_clip || !target_clip) return OSSA_ERROR_INVALID_ARGUMENT;
    report_frames r;
    memset(&r, 0, sizeof r);
    r.rig = rig;
    ossa_result res = load_frames(&r, source_clip, target_clip, allocator);
    bool *contact = res == OSSA_OK ? ossa__alloc_array(allocator, r.frames, sizeof *contact) : NULL;
    if (res == OSSA_OK && !contact) res = OSSA_ERROR_OUT_OF_MEMORY;
    if (res == OSSA_OK) {
        out->frame_count = r.frames;
        out->duration = r.times[r.frames - 1] - r.times[0];
        measure_contacts(&r, options, contact, out);
        measure_lengths(&r, out);
        measure_angles(&r, out);
        out->target_penetration = penetration(&r, &rig->target_map, r.target_reference, r.target_models, r.T,
                                              rig->target_leg_length);
        out->source_penetration = penetration(&r, &rig->source_map, r.source_reference, r.source_models, r.S,
                                              rig->source_leg_length);
        res = measure_round_trip(&r, allocator, out);
    }
    ossa__free(allocator, contact);
    ossa__free(allocator, r.source_locals);
    ossa__free(allocator, r.times);
    return res;
}

/* ---- JSON ---- */

/* snprintf-style appending: `length` counts everything, the buffer gets what fits. */
typedef struct text {
    char *out;
    size_t capacity, length;
} text;

static void put(text *t, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void put(text *t, const char *format, ...) {
    va_list args;
    va_start(args, format);
    char *at = t->out && t->length < t->capacity ? t->out + t->length : NULL;
    size_t room = at ? t->capacity - t->length : 0;
    int n = vsnprintf(at, room, format, args);
    va_end(args);
    if (n > 0) t->length += (size_t)n;
}

static const char *const LIMB_NAMES[OSSA_RETARGET_LIMB_COUNT] = {"left_foot", "right_foot", "left_hand", "right_hand"};

size_t ossa_retarget_report_to_json(const ossa_retarget_report *report, char *out, size_t capacity) {
    if (out && capacity) out[0] = '\0';
    if (!report) return 0;
    text t = {out, capacity, 0};
    put(&t, "{\"frame_count\": %u, \"duration\": %.6g,\n \"limbs\": {", (unsigned)report->frame_count,
        (double)report->duration);
    for (int l = 0; l < OSSA_RETARGET_LIMB_COUNT; l++) {
        const ossa_retarget_limb_report *limb = &report->limbs[l];
        put(&t, "%s\n  \"%s\": {\"contact_count\": %u, \"contact_frames\": %u, \"target_skate\": %.6g, "
                "\"source_skate\": %.6g}",
            l ? "," : "", LIMB_NAMES[l], (unsigned)limb->contact_count, (unsigned)limb->contact_frames,
            (double)limb->target_skate, (double)limb->source_skate);
    }
    put(&t, "},\n \"bone_length_change\": %.6g,\n \"bones\": {", (double)report->bone_length_change);
    bool first = true;
    for (int b = 0; b < OSSA_HUMANOID_BONE_COUNT; b++) {
        const ossa_retarget_angle_stats *s = &report->bones[b];
        if (!s->mapped) continue;
        put(&t, "%s\n  \"%s\": {\"mean_degrees\": %.6g, \"max_degrees\": %.6g}", first ? "" : ",",
            ossa_humanoid_bone_name((ossa_humanoid_bone)b), (double)s->mean_degrees, (double)s->max_degrees);
        first = false;
    }
    const char *max_bone = report->angle_max_bone >= 0 ? ossa_humanoid_bone_name((ossa_humanoid_bone)report->angle_max_bone) : NULL;
    put(&t, "},\n \"angle_mean_degrees\": %.6g, \"angle_max_degrees\": %.6g, \"angle_max_bone\": %s%s%s,\n",
        (double)report->angle_mean_degrees, (double)report->angle_max_degrees, max_bone ? "\"" : "",
        max_bone ? max_bone : "null", max_bone ? "\"" : "");
    put(&t, " \"target_penetration\": %.6g, \"source_penetration\": %.6g,\n", (double)report->target_penetration,
        (double)report->source_penetration);
    put(&t, " \"round_trip_mean_degrees\": %.6g, \"round_trip_max_degrees\": %.6g, \"round_trip_hips\": %.6g}\n",
        (double)report->round_trip_mean_degrees, (double)report->round_trip_max_degrees,
        (double)report->round_trip_hips);
    return t.length;
}
