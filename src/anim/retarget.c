/* The run-time retarget job: source local pose -> target local pose through a rig, with
 * optional contact pinning by two-bone IK (docs/retargeting.md). No allocation. */
#include <math.h>
#include <string.h>

#include <ossa/ik.h>
#include <ossa/pose.h>

#include "anim/retarget_internal.h"
#include "core/job.h"
#include "math/fast.h"

uint32_t ossa_retarget_scratch_count(const ossa_retarget_rig *rig) {
    return rig ? rig->source->joint_count + rig->target->joint_count : 0;
}

ossa_vec3 ossa_retarget_scale_translation(const ossa_retarget_rig *rig, ossa_vec3 source_translation) {
    return rig ? ossa_vec3_scale(source_translation, rig->translation_scale) : source_translation;
}

static bool valid_option(float x) {
    return isfinite(x) && x >= 0.0f;
}

ossa_result ossa_retarget_job_validate(const ossa_retarget_job *job, ossa_diagnostic *diag) {
    if (!job) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "job", "is NULL");
    if (!job->rig) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "rig", "is NULL");
    if (!job->input) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "input", "is NULL");
    if (!job->output) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "output", "is NULL");
    if (!job->scratch) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "scratch", "is NULL");
    if (!valid_option(job->delta_time)) {
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "delta_time", "must be finite and >= 0");
    }
    const ossa_retarget_contact_options *o = &job->contact_options;
    if (!valid_option(o->height_threshold)) {
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "contact_options.height_threshold",
                              "must be finite and >= 0");
    }
    if (!valid_option(o->speed_threshold)) {
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "contact_options.speed_threshold",
                              "must be finite and >= 0");
    }
    if (!valid_option(o->blend_time)) {
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "contact_options.blend_time", "must be finite and >= 0");
    }
    uint32_t S = job->rig->source->joint_count, T = job->rig->target->joint_count;
    if (job->input_count < S) {
        return ossa__job_fail(diag, OSSA_ERROR_BUFFER_TOO_SMALL, "input_count", "%u < %u source joints",
                              (unsigned)job->input_count, (unsigned)S);
    }
    if (job->output_count < T) {
        return ossa__job_fail(diag, OSSA_ERROR_BUFFER_TOO_SMALL, "output_count", "%u < %u target joints",
                              (unsigned)job->output_count, (unsigned)T);
    }
    if (job->scratch_count < S + T) {
        return ossa__job_fail(diag, OSSA_ERROR_BUFFER_TOO_SMALL, "scratch_count", "%u < %u (source + target joints)",
                              (unsigned)job->scratch_count, (unsigned)(S + T));
    }
    return OSSA_OK;
}

/* ---- the transfer ---- */

static inline ossa_quat qconj(ossa_quat q) {
    ossa_quat r = {-q.x, -q.y, -q.z, q.w};
    return r;
}

static inline ossa_quat qnormalize(ossa_quat q) {
    float d = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
    if (!(d > 0.0f) || !isfinite(d)) return ossa_quat_identity();
    float s = 1.0f / sqrtf(d);
    ossa_quat r = {q.x * s, q.y * s, q.z * s, q.w * s};
    return r;
}

/* Model-space rotations of the source pose (positions only where asked: source_position). */
static void source_rotations(const ossa_skeleton *skeleton, const ossa_transform *locals, ossa_transform *models) {
    for (uint32_t j = 0; j < skeleton->joint_count; j++) {
        int32_t p = skeleton->parents[j];
        models[j].rotation = p < 0 ? locals[j].rotation : ossa__quat_mul(models[p].rotation, locals[j].rotation);
    }
}

/* Model-space position of one source joint (its chain walked up). */
static ossa_vec3 source_position(const ossa_retarget_job *job, uint32_t joint) {
    const ossa_skeleton *s = job->rig->source;
    return ossa_pose_joint_to_model_transform(job->input, s->parents, s->joint_count, joint).translation;
}

/* The source joint's model rotation change from its reference. */
static ossa_quat source_change(const struct ossa__retarget_plan *plan, const ossa_transform *models, uint32_t j) {
    return ossa__quat_mul(models[j].rotation, plan->source_reference_model_inverse[j]);
}

/* Target local rotations (and model rotations into models[].rotation). */
static void transfer_rotations(const ossa_retarget_rig *rig, const ossa_transform *sources, ossa_transform *output,
                               ossa_transform *models) {
    const struct ossa__retarget_plan *plan = rig->plan;
    const int32_t *parents = rig->target->parents;
    for (uint32_t j = 0; j < rig->target->joint_count; j++) {
        ossa_quat parent = parents[j] < 0 ? ossa_quat_identity() : models[parents[j]].rotation;
        output[j] = rig->target_reference[j];
        if (plan->kind[j] == OSSA__RETARGET_REFERENCE) {
            models[j].rotation = ossa__quat_mul(parent, output[j].rotation);
            continue;
        }
        ossa_quat change = source_change(plan, sources, plan->source_a[j]);
        if (plan->source_b[j] != plan->source_a[j]) {
            change = ossa_quat_slerp(change, source_change(plan, sources, plan->source_b[j]), plan->fraction[j]);
        }
        ossa_quat model = ossa__quat_mul(change, plan->target_reference_model[j]);
        models[j].rotation = model;
        output[j].rotation = qnormalize(ossa__quat_mul(qconj(parent), model));
    }
}

static void transfer_hips(const ossa_retarget_job *job) {
    const ossa_retarget_rig *rig = job->rig;
    const struct ossa__retarget_plan *plan = rig->plan;
    ossa_vec3 position = ossa_vec3_scale(source_position(job, plan->source_hips), rig->translation_scale);
    job->output[plan->target_hips].translation = ossa_transform_point(plan->target_hips_parent_inverse, position);
}

/* ---- contacts ---- */

/* parent ∘ child for TRS transforms, as ossa_transform_combine, inlined. */
static inline ossa_transform combine(const ossa_transform *parent, const ossa_transform *child) {
    ossa_vec3 v = {parent->scale.x * child->translation.x, parent->scale.y * child->translation.y,
                   parent->scale.z * child->translation.z};
    ossa_quat q = parent->rotation;
    ossa_vec3 t = {2.0f * (q.y * v.z - q.z * v.y), 2.0f * (q.z * v.x - q.x * v.z), 2.0f * (q.x * v.y - q.y * v.x)};
    ossa_transform r;
    r.translation.x = parent->translation.x + v.x + q.w * t.x + (q.y * t.z - q.z * t.y);
    r.translation.y = parent->translation.y + v.y + q.w * t.y + (q.z * t.x - q.x * t.z);
    r.translation.z = parent->translation.z + v.z + q.w * t.z + (q.x * t.y - q.y * t.x);
    r.rotation = ossa__quat_mul(q, child->rotation);
    r.scale.x = parent->scale.x * child->scale.x;
    r.scale.y = parent->scale.y * child->scale.y;
    r.scale.z = parent->scale.z * child->scale.z;
    return r;
}

static void target_models_from(const ossa_skeleton *skeleton, const ossa_transform *locals, ossa_transform *models,
                               uint32_t first) {
    for (uint32_t j = first; j < skeleton->joint_count; j++) {
        int32_t p = skeleton->parents[j];
        models[j] = p < 0 ? locals[j] : combine(&models[p], &locals[j]);
    }
}

/* Is the source limb in contact this frame? Updates the previous position. */
static bool detect_contact(const ossa_retarget_job *job, int limb) {
    const ossa_retarget_rig *rig = job->rig;
    const ossa__retarget_limb *l = &rig->plan->limbs[limb];
    ossa_retarget_contacts *c = job->contacts;
    const ossa_retarget_contact_options *o = &job->contact_options;
    float height_threshold = (o->height_threshold > 0.0f ? o->height_threshold : 0.05f) * rig->source_leg_length;
    float speed_threshold = (o->speed_threshold > 0.0f ? o->speed_threshold : 0.5f) * rig->source_leg_length;
    ossa_vec3 position = source_position(job, l->source_end);
    float floor = c->has_floor ? c->floor[limb] : l->source_rest_height;
    float height = position.x * rig->up.x + position.y * rig->up.y + position.z * rig->up.z - floor;
    bool slow = true;
    if (c->started && job->delta_time > 0.0f) {
        float speed = ossa_vec3_length(ossa_vec3_sub(position, c->source_previous[limb])) / job->delta_time;
        slow = speed < speed_threshold;
    }
    c->source_previous[limb] = position;
    return height < height_threshold && slow;
}

/* Moves the limb's end joint to `goal` with the two-bone IK job, keeping the end joint's model
 * rotation; models[] hold the target's model transforms and are kept current. */
static void pin_limb(const ossa_retarget_rig *rig, const ossa__retarget_limb *l, ossa_vec3 goal,
                     ossa_transform *output, ossa_transform *models) {
    ossa_quat end_rotation = models[l->target_end].rotation;
    ossa_mat4 start = ossa_transform_to_mat4(models[l->target_start]);
    ossa_mat4 mid = ossa_transform_to_mat4(models[l->target_mid]);
    ossa_mat4 end = ossa_transform_to_mat4(models[l->target_end]);
    ossa_quat start_correction, mid_correction;
    ossa_ik_two_bone_job ik;
    memset(&ik, 0, sizeof ik);
    ik.start_joint = &start;
    ik.mid_joint = &mid;
    ik.end_joint = &end;
    ik.target = goal;
    ik.start_correction = &start_correction;
    ik.mid_correction = &mid_correction;
    if (ossa_ik_two_bone_job_run(&ik) != OSSA_OK) return;
    ossa_transform *s = &output[l->target_start], *m = &output[l->target_mid];
    s->rotation = ossa_quat_normalize(ossa_quat_mul(s->rotation, start_correction));
    m->rotation = ossa_quat_normalize(ossa_quat_mul(m->rotation, mid_correction));
    target_models_from(rig->target, output, models, l->target_start);
    int32_t parent = rig->target->parents[l->target_end];
    ossa_quat parent_rotation = parent < 0 ? ossa_quat_identity() : models[parent].rotation;
    output[l->target_end].rotation =
        ossa_quat_normalize(ossa_quat_mul(ossa_quat_inverse(parent_rotation), end_rotation));
    target_models_from(rig->target, output, models, l->target_end);
}

/* Detects contacts, moves pins and weights, pins the limbs; returns the contact mask. */
static uint32_t apply_contacts(ossa_retarget_job *job, ossa_transform *models) {
    const ossa_retarget_rig *rig = job->rig;
    ossa_retarget_contacts *c = job->contacts;
    float blend = job->contact_options.blend_time > 0.0f ? job->contact_options.blend_time : 0.1f;
    int limbs = job->contact_options.hands ? OSSA_RETARGET_LIMB_COUNT : OSSA_RETARGET_LEFT_HAND;
    uint32_t mask = 0;
    target_models_from(rig->target, job->output, models, 0);
    for (int limb = 0; limb < limbs; limb++) {
        const ossa__retarget_limb *l = &rig->plan->limbs[limb];
        if (!l->present) continue;
        bool contact = detect_contact(job, limb);
        ossa_vec3 free_position = models[l->target_end].translation;
        if (contact && !c->in_contact[limb]) { /* a new contact: pin where the limb is shown now */
            c->pin[limb] = ossa_vec3_lerp(free_position, c->pin[limb], c->weight[limb]);
            c->weight[limb] = 1.0f;
        } else if (!contact) {
            c->weight[limb] = c->started ? fmaxf(0.0f, c->weight[limb] - job->delta_time / blend) : 0.0f;
        }
        c->in_contact[limb] = contact;
        if (c->weight[limb] <= 0.0f) continue;
        pin_limb(rig, l, ossa_vec3_lerp(free_position, c->pin[limb], c->weight[limb]), job->output, models);
        mask |= 1u << limb;
    }
    c->started = true;
    return mask;
}

ossa_result ossa_retarget_job_run(ossa_retarget_job *job) {
    ossa_result r = ossa_retarget_job_validate(job, NULL);
    if (r != OSSA_OK) return r;
    const ossa_retarget_rig *rig = job->rig;
    ossa_transform *sources = job->scratch, *models = job->scratch + rig->source->joint_count;
    source_rotations(rig->source, job->input, sources);
    transfer_rotations(rig, sources, job->output, models);
    transfer_hips(job);
    job->contact_mask = job->contacts ? apply_contacts(job, models) : 0;
    return OSSA_OK;
}
