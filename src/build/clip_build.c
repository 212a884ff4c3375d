/* The clip builder (see ossa/built_clip.h; the method is described in clip_build_internal.h,
 * the format in docs/built-clips.md): the measurement grid and the exact poses, each channel's
 * tolerance, then fit (clip_fit.c), write (clip_write.c), measure and halve the tolerances of
 * the channels that cause a miss, loosen (clip_loosen.c), write again. */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ossa/pose.h>

#include "build/clip_build_internal.h"
#include "core/alloc.h"
#include "core/job.h"
#include "math/fast.h"

/* Per joint, over every grid time of the exact poses: how far its subtree reaches (the farthest
 * virtual vertex of a descendant from its origin), and the largest and smallest stretch of its
 * parent's model frame (an axis length over its local shell offset; 1 at roots) and the smallest
 * |local scale| of any axis. */
static void joint_extents(const builder *B, float *reach, float *stretch_max, float *stretch_min,
                          float *local_scale_min) {
    uint32_t J = B->joint_count, G = B->grid_count;
    const int32_t *par = B->skeleton->parents;
    for (uint32_t j = 0; j < J; j++) {
        stretch_max[j] = 0.0f;
        stretch_min[j] = INFINITY;
        local_scale_min[j] = INFINITY;
    }
    /* reach[] holds squared distances until the end: sqrtf is monotonic and correctly rounded,
     * so the root of the largest square is the largest root (and NaN is skipped either way) */
    for (uint32_t g = 0; g < G; g++) {
        const float *P = B->exact_points + (size_t)g * J * 12;
        for (uint32_t d = 0; d < J; d++) {
            for (int p = 0; p < 4; p++) {
                const float *x = P + (size_t)d * 12 + p * 3;
                for (int32_t a = (int32_t)d; a >= 0; a = par[a]) {
                    const float *o = P + (size_t)a * 12;
                    float dist2 = (x[0] - o[0]) * (x[0] - o[0]) + (x[1] - o[1]) * (x[1] - o[1]) +
                                  (x[2] - o[2]) * (x[2] - o[2]);
                    if (dist2 > reach[a]) reach[a] = dist2;
                }
            }
            int32_t pa = par[d];
            for (int k = 0; k < 3; k++) {
                float n = 1.0f;
                float shell = pa >= 0 ? B->axis_shell[(size_t)pa * 3 + (size_t)k] : 0.0f;
                if (pa >= 0 && shell > 0.0f) {
                    const float *o = P + (size_t)pa * 12, *x = o + 3 + k * 3;
                    n = sqrtf((x[0] - o[0]) * (x[0] - o[0]) + (x[1] - o[1]) * (x[1] - o[1]) +
                              (x[2] - o[2]) * (x[2] - o[2])) / shell;
                }
                if (n > stretch_max[d]) stretch_max[d] = n;
                if (n < stretch_min[d]) stretch_min[d] = n;
                float ls = fabsf((&B->exact_pose[(size_t)g * J + d].scale.x)[k]);
                if (ls < local_scale_min[d]) local_scale_min[d] = ls;
            }
        }
    }
    for (uint32_t j = 0; j < J; j++) reach[j] = sqrtf(reach[j]);
}

/* The level-0 tolerance of every T/R/S channel from its joint's extents (joint_extents). */
static void channel_base_tolerances(builder *B, const float *reach, const float *stretch_max,
                                    const float *stretch_min, const float *local_scale_min) {
    float P0 = B->options.precision * TARGET_MARGIN * LEVEL0_SHARE;
    for (uint32_t i = 0; i < B->channel_count; i++) {
        build_channel *c = &B->channels[i];
        if (c->kind == OSSA__CH_W) continue;
        uint32_t j = c->target;
        float tol;
        if (c->kind == OSSA__CH_T) tol = stretch_max[j] > 0.0f ? P0 / stretch_max[j] : 1e30f;
        else if (c->kind == OSSA__CH_R) tol = reach[j] > 0.0f ? P0 / reach[j] : 1.0f;
        else {
            float ratio = stretch_max[j] > 0.0f ? stretch_min[j] / stretch_max[j] : 1.0f;
            float ls = local_scale_min[j] > 1e-6f ? local_scale_min[j] : 1e-6f;
            tol = reach[j] > 0.0f ? P0 * ls * ratio / reach[j] : 1e30f;
        }
        if (c->kind == OSSA__CH_R && tol > 1.0f) tol = 1.0f;
        if (!(tol > 0.0f) || !isfinite(tol)) tol = c->kind == OSSA__CH_R ? 1.0f : 1e30f;
        c->base_tolerance = tol;
    }
}

/* The loosening's bounds hold for ideal values; a computed vertex of joint j's subtree is
 * rounded anew on each level below j when j changes: up to about an ulp of the largest
 * coordinate per level (2 more for the matrix product), and an error computed before and after
 * may move by that twice: into B->rounding_slack. */
static void rounding_slack(builder *B) {
    uint32_t J = B->joint_count;
    const int32_t *par = B->skeleton->parents;
    float big = 0.0f;
    for (size_t i = 0; i < (size_t)B->grid_count * J * 12; i++) {
        float v = fabsf(B->exact_points[i]);
        big = v > big ? v : big;
    }
    float *slack = B->rounding_slack;
    for (uint32_t j = 0; j < J; j++) slack[j] = 0.0f;
    for (uint32_t i = J; i-- > 0;) { /* children after parents: levels below each joint */
        float below = slack[i] + 1.0f;
        if (par[i] >= 0 && below > slack[par[i]]) slack[par[i]] = below;
    }
    for (uint32_t j = 0; j < J; j++) slack[j] = 2.0f * (slack[j] + 3.0f) * ldexpf(big, -23);
}

/* Local tolerances at level 0 from the exact poses: rotation (radians) = precision / reach of
 * the joint's subtree, translation = precision / parent scale, scale likewise. Keeps the reach
 * and the rounding slack for the loosening pass. */
static ossa_result base_tolerances(builder *B) {
    uint32_t J = B->joint_count;
    float *reach = ossa__alloc_array(B->allocator, (size_t)J * 4, sizeof(float));
    if (!reach) return OSSA_ERROR_OUT_OF_MEMORY;
    float *stretch_max = reach + J, *stretch_min = stretch_max + J, *local_scale_min = stretch_min + J;
    joint_extents(B, reach, stretch_max, stretch_min, local_scale_min);
    channel_base_tolerances(B, reach, stretch_max, stretch_min, local_scale_min);
    if (B->subtree_reach) { /* for the loosening pass */
        memcpy(B->subtree_reach, reach, J * sizeof(float));
        rounding_slack(B);
    }
    ossa__free(B->allocator, reach);
    return OSSA_OK;
}

/* Bytes of the builder's grid scratch: exact_pose + exact_points per grid time and joint,
 * channel_values / decoded_keys, the key grid and, when compressing, every channel's key and
 * value buffers (the key grid is at most the measurement grid) and the loosening pass's
 * built_pose, joint_error, candidate_error, candidate_values and index_scratch (plus O(J)). */
double ossa__clip_build_scratch(uint32_t G, uint32_t J, size_t channels, bool lossless) {
    double per_time = (double)J * (sizeof(ossa_transform) + 12 * sizeof(float)) + 8 * sizeof(float) + sizeof(uint32_t);
    /* the loosening pass: the built pose, its errors and a candidate's, a channel's values and
     * saved keys */
    if (!lossless)
        per_time += (double)channels * 4 * sizeof(uint32_t) + (double)J * (sizeof(ossa_transform) + 2 * sizeof(float)) +
                    8 * sizeof(float);
    return (double)G * per_time;
}

/* ---------------------------------------------------------------- the driver's phases */

/* What the driver keeps besides the builder: per-joint results of the latest measurement, the
 * channel map, the current built clip and its error. */
typedef struct build_run {
    float *joint_max_error;      /* J: each joint's largest error over the grid */
    uint32_t *joint_worst_time;  /* J: the grid index where it is */
    int32_t *channel_of;         /* J x 3: the channel of joint j's T, R, S (by kind), -1 = none */
    unsigned char *touched;      /* channel_count: the channels a miss is attributed to */
    ossa_mat4 *model;            /* J: model matrices while the exact points are computed */
    uint32_t *key_buffer;        /* compressed: every channel's keys and quantised values */
    ossa_sampling_context *context;
    ossa_built_clip *built;      /* the latest built clip (owned) */
    ossa_clip_error error;       /* its measurement */
    float target;                /* the error the build aims at: precision x TARGET_MARGIN */
    vertex_check vertices;       /* the final check on the meshes' vertices (when there are meshes) */
    bool vertices_checked;
    float height;                /* the skeleton's bind-pose height */
    float progress;              /* the last fraction reported (options.progress) */
} build_run;

/* Reports the build's progress (options.progress): never below the last report, nor above 1. */
static void report_progress(const builder *B, build_run *R, float fraction) {
    const ossa_clip_build_options *o = &B->options;
    if (!o->progress) return;
    if (fraction < R->progress) fraction = R->progress;
    if (fraction > 1.0f) fraction = 1.0f;
    R->progress = fraction;
    o->progress(o->progress_user, o->progress_clip_index, o->progress_clip_count, fraction);
}

/* Progress of the phases, as fractions of the whole build: the exact poses end at
 * PROGRESS_EXACT, the first fit at PROGRESS_FIT, the measurement rounds at PROGRESS_TIGHTEN. */
#define PROGRESS_GRID 0.02f
#define PROGRESS_EXACT 0.15f
#define PROGRESS_FIT 0.30f
#define PROGRESS_TIGHTEN 0.70f
#define PROGRESS_LOOSEN 0.75f

static bool bad_option(float v) { return isnan(v) || v < 0.0f || isinf(v); }

/* The options with zero meaning the default; INVALID_ARGUMENT for a negative or NaN one. */
static ossa_result resolve_options(const ossa_clip_build_options *options, ossa_clip_build_options *out) {
    if (options) *out = *options;
    if (out->mesh_count && !out->meshes) return OSSA_ERROR_INVALID_ARGUMENT;
    if (bad_option(out->precision) || bad_option(out->shell_distance) || bad_option(out->weight_precision))
        return OSSA_ERROR_INVALID_ARGUMENT;
    /* precision and shell 0: scale-aware, set by resolve_scaled_defaults once the skeleton is known */
    if (out->weight_precision == 0.0f) out->weight_precision = 1e-3f;
    return OSSA_OK;
}

/* The scale-aware defaults: precision ossa__default_precision (1e-4 on a 1.8 m character; no
 * looser than 0.1 mm where the unit is declared, unless that is below 1e-5 of the height) and
 * shell 0.03 for a bind-pose height of 1.8 model units, in proportion otherwise
 * (ossa_skeleton_bind_height). Returns the height. */
static float resolve_scaled_defaults(ossa_clip_build_options *o, const ossa_skeleton *skeleton) {
    float height = ossa_skeleton_bind_height(skeleton);
    if (o->precision == 0.0f) o->precision = ossa__default_precision(height, skeleton->metres_per_unit);
    if (o->shell_distance == 0.0f) o->shell_distance = 0.03f * height / 1.8f;
    if (!(o->precision > 0.0f) || !isfinite(o->precision)) o->precision = 1e-4f;
    if (!(o->shell_distance > 0.0f) || !isfinite(o->shell_distance)) o->shell_distance = 0.03f;
    return height;
}

/* Refuses a build: when diag is not NULL, diag->path = field and diag->message =
 * "clip '<name>': <field>: <printf(fmt, ...)>". Returns r. */
#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static ossa_result build_fail(ossa_diagnostic *diag, ossa_result r, const ossa_clip *clip, const char *field,
                              const char *fmt, ...) {
    if (!diag) return r;
    char why[sizeof diag->message];
    va_list args;
    va_start(args, fmt);
    vsnprintf(why, sizeof why, fmt, args);
    va_end(args);
    snprintf(diag->path, sizeof diag->path, "%s", field);
    snprintf(diag->message, sizeof diag->message, "clip '%.80s': %s: %.270s", clip->name, field, why);
    return r;
}

/* Names a channel of the clip for a diagnostic: "tracks[i].rotation", "weight_tracks[i]". */
static void channel_path(char *path, size_t size, uint32_t i, uint32_t track_count, int c) {
    static const char *const parts[3] = {"translation", "rotation", "scale"};
    if (i < track_count) snprintf(path, size, "tracks[%u].%s", i, parts[c]);
    else snprintf(path, size, "weight_tracks[%u]", i - track_count);
}

/* The loader's magnitude rule (OSSA__BC_VALUE_MAX): LIMIT for a rest pose or a track past it
 * (such a clip would not load back), with diag naming it. */
static ossa_result check_magnitudes(const ossa_clip *clip, const ossa_skeleton *skeleton, ossa_diagnostic *diag) {
    _Static_assert(sizeof(ossa_transform) == 10 * sizeof(float), "a transform is 10 floats");
    for (uint32_t i = 0; i < skeleton->joint_count; i++) {
        float rest[10];
        memcpy(rest, &skeleton->rest[i], sizeof rest);
        if (!ossa__values_bounded(rest, 1, 10, false, 0.0))
            return build_fail(diag, OSSA_ERROR_LIMIT, clip, "skeleton", "joint %u's rest pose is past 2^50", i);
    }
    for (uint32_t i = 0; i < clip->track_count + clip->weight_track_count; i++) {
        const ossa_transform_track *t = i < clip->track_count ? &clip->tracks[i] : NULL;
        const ossa_track *tr[3] = {t ? &t->translation : &clip->weight_tracks[i - clip->track_count].weights,
                                   t ? &t->rotation : NULL, t ? &t->scale : NULL};
        for (int c = 0; c < 3; c++) {
            if (!tr[c] || !tr[c]->key_count) continue;
            double span = (double)tr[c]->times[tr[c]->key_count - 1] - (double)tr[c]->times[0];
            if (ossa__values_bounded(tr[c]->values, tr[c]->key_count, tr[c]->components,
                                     tr[c]->interp == OSSA_INTERP_CUBIC, span))
                continue;
            char path[64];
            channel_path(path, sizeof path, i, clip->track_count, c);
            return build_fail(diag, OSSA_ERROR_LIMIT, clip, path,
                              "a value is past 2^50 (CUBICSPLINE: or a tangent times the key span)");
        }
    }
    return OSSA_OK;
}

/* The time rule (ossa__span_fits): the clip's span end - start a finite float. */
static ossa_result check_span(const ossa_clip *clip, ossa_diagnostic *diag) {
    if (ossa__span_fits(clip->start, clip->end)) return OSSA_OK;
    return build_fail(diag, OSSA_ERROR_LIMIT, clip, "times",
                      "key times %g .. %g s span %g s, past FLT_MAX (%g s): a built clip's clock is float "
                      "(the editable clip samples it)",
                      (double)clip->start, (double)clip->end, (double)clip->end - (double)clip->start,
                      (double)FLT_MAX);
}

/* Bytes of the editable clip's keys (times and values), the stats' raw size. */
static size_t raw_clip_bytes(const ossa_clip *clip) {
    size_t raw_bytes = 0;
    for (uint32_t i = 0; i < clip->track_count; i++) {
        const ossa_transform_track *t = &clip->tracks[i];
        const ossa_track *tr[3] = {&t->translation, &t->rotation, &t->scale};
        for (int c = 0; c < 3; c++) raw_bytes += (tr[c]->key_count + track_floats(tr[c])) * sizeof(float);
    }
    for (uint32_t i = 0; i < clip->weight_track_count; i++) {
        const ossa_track *w = &clip->weight_tracks[i].weights;
        raw_bytes += (w->key_count + track_floats(w)) * sizeof(float);
    }
    return raw_bytes;
}

static size_t max_channel_count(const ossa_clip *clip) {
    return (size_t)clip->track_count * 3 + clip->weight_track_count;
}

static size_t scratch_cap(const ossa_clip_build_options *resolved) {
    return resolved->max_scratch_bytes ? resolved->max_scratch_bytes : OSSA_CLIP_BUILD_SCRATCH_CAP;
}

/* The block format's caps a build can predict from the clip: a packed channel's joint is 16 bits
 * ("joint_index_bits", compressed builds), and a lossless block holds every key within 4 GiB
 * ("block_bytes"). */
static ossa_result check_format_caps(const ossa_clip *clip, const ossa_skeleton *skeleton,
                                     const ossa_clip_build_options *resolved, ossa_diagnostic *diag) {
    for (uint32_t i = 0; !resolved->lossless && i < clip->track_count; i++)
        if (clip->tracks[i].joint > 0xFFFFu && clip->tracks[i].joint < skeleton->joint_count)
            return build_fail(diag, OSSA_ERROR_LIMIT, clip, "joint_index_bits",
                              "tracks[%u] animates joint %u, past the 65,535 a compressed block's 16-bit joint "
                              "index holds (a format cap, not raisable); build losslessly", i, clip->tracks[i].joint);
    size_t raw = raw_clip_bytes(clip);
    if (resolved->lossless && raw > UINT32_MAX)
        return build_fail(diag, OSSA_ERROR_LIMIT, clip, "block_bytes",
                          "the keys alone take %.3g GB, past a built block's 4 GiB (32-bit offsets: a format cap, "
                          "not raisable); build it compressed or split the clip", (double)raw / 1e9);
    return OSSA_OK;
}

/* The scratch cap ("max_scratch_bytes"): the measurement grid's scratch against the cap, with
 * what a compressed and a lossless build of the clip need. */
static ossa_result check_scratch_cap(const ossa_clip *clip, const ossa_skeleton *skeleton,
                                     const ossa_clip_build_options *resolved, ossa_diagnostic *diag) {
    uint32_t substeps = ossa__clip_grid_substeps(clip), G = 0, J = skeleton->joint_count;
    float *grid = NULL;
    ossa_result r = ossa__clip_grid(clip, J, substeps, substeps > 8 ? 8 : KEY_DIV, NULL, &grid, &G, NULL);
    if (r != OSSA_OK) return build_fail(diag, r, clip, "times", "the measurement grid could not be allocated");
    ossa__free(NULL, grid);
    size_t channels = max_channel_count(clip), cap = scratch_cap(resolved);
    double need = ossa__clip_build_scratch(G, J, channels, resolved->lossless);
    if (need <= (double)cap) return OSSA_OK;
    double lossless_need = ossa__clip_build_scratch(G, J, channels, true);
    return build_fail(diag, OSSA_ERROR_LIMIT, clip, "max_scratch_bytes",
                      "%u grid times (%.6g s) x %u joints need %.3g GB of scratch%s, past the cap %.3g GB; "
                      "raise options.max_scratch_bytes to >= %.0f bytes%s%.3g GB)", G,
                      (double)clip->end - (double)clip->start, J, need / 1e9, resolved->lossless ? " (lossless)" : "",
                      (double)cap / 1e9, ceil(need), resolved->lossless ? " (" : ", or build lossless (needs ",
                      lossless_need / 1e9);
}

/* What ossa_clip_build checks before building (the scratch cap comes with the grid). */
static ossa_result check_clip(const ossa_clip *clip, const ossa_skeleton *skeleton,
                              const ossa_clip_build_options *resolved, ossa_diagnostic *diag) {
    ossa_result r = check_span(clip, diag);
    if (r == OSSA_OK) r = check_magnitudes(clip, skeleton, diag);
    return r != OSSA_OK ? r : check_format_caps(clip, skeleton, resolved, diag);
}

ossa_result ossa_clip_build_check(const ossa_clip *clip, const ossa_skeleton *skeleton,
                                  const ossa_clip_build_options *options, ossa_diagnostic *diag) {
    if (diag) memset(diag, 0, sizeof *diag);
    if (!clip || !skeleton)
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, clip ? "skeleton" : "clip", "NULL");
    ossa_clip_build_options resolved;
    memset(&resolved, 0, sizeof resolved);
    if (resolve_options(options, &resolved) != OSSA_OK)
        return build_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, clip, "options",
                          "a precision or shell distance is negative, NaN or infinite, or mesh_count > 0 without meshes");
    ossa_result r = check_clip(clip, skeleton, &resolved, diag);
    return r != OSSA_OK ? r : check_scratch_cap(clip, skeleton, &resolved, diag);
}

/* The measurement grid and the key grid: the key times and KEY_DIV - 1 steps between them (8
 * per interval for CUBICSPLINE clips), so a fast rotation can take an extra key instead of
 * going raw; the fit prefers key times, then midpoints (key_grid_rank). LIMIT when the scratch
 * the grid needs passes the cap. */
static ossa_result make_grids(builder *B) {
    const ossa_clip *clip = B->clip;
    uint32_t substeps = ossa__clip_grid_substeps(clip);
    ossa_result r = ossa__clip_grid(clip, B->joint_count, substeps, substeps > 8 ? 8 : KEY_DIV, B->allocator,
                                    &B->grid_times, &B->grid_count, &B->grid_candidate);
    if (r) return r;
    uint32_t G = B->grid_count;
    /* the measurement grid's scratch (exact poses, virtual vertices, per-channel values and
     * key buffers) grows with duration x 480 Hz x joints: refuse it up front past the cap */
    double scratch = ossa__clip_build_scratch(G, B->joint_count, max_channel_count(clip), B->options.lossless);
    if (scratch > (double)scratch_cap(&B->options)) return OSSA_ERROR_LIMIT; /* the check names it */
    B->key_grid = ossa__alloc_array(B->allocator, (size_t)G + 1, sizeof(uint32_t));
    if (!B->key_grid) return OSSA_ERROR_OUT_OF_MEMORY;
    for (uint32_t g = 0; g < G; g++)
        if (B->grid_candidate[g] || g + 1 == G) B->key_grid[B->key_grid_count++] = g;
    uint32_t C = B->key_grid_count;
    B->key_grid_rank = ossa__alloc_array(B->allocator, (size_t)C + 1, 1);
    if (!B->key_grid_rank) return OSSA_ERROR_OUT_OF_MEMORY;
    uint8_t *rank = B->key_grid_rank;
    for (uint32_t k = 0, prev = 0; k < C; k++) {
        rank[k] = B->grid_candidate[B->key_grid[k]] == 2 || k + 1 == C ? 2 : 0;
        if (rank[k] == 2) {
            if (k > prev + 1 && (k - prev) % 2 == 0) rank[prev + (k - prev) / 2] = 1;
            prev = k;
        }
    }
    return OSSA_OK;
}

/* The builder's grid scratch (builder, clip_build_internal.h) and the run's per-joint arrays. */
static ossa_result alloc_scratch(builder *B, build_run *R) {
    const ossa_allocator *al = B->allocator;
    uint32_t J = B->joint_count, G = B->grid_count;
    size_t nmax = max_channel_count(B->clip);
    B->channels = ossa__alloc_array(al, nmax + 1, sizeof(build_channel));
    B->exact_pose = ossa__alloc_array(al, (size_t)G * J + 1, sizeof(ossa_transform));
    B->exact_points = ossa__alloc_array(al, (size_t)G * J * 12 + 1, sizeof(float));
    B->channel_values = ossa__alloc_array(al, (size_t)G * 8, sizeof(float));
    if (!B->options.lossless) {
        B->built_pose = ossa__alloc_array(al, (size_t)G * J + 1, sizeof(ossa_transform));
        B->candidate_values = ossa__alloc_array(al, (size_t)G * 4 + 1, sizeof(float));
        B->index_scratch = ossa__alloc_array(al, (size_t)B->key_grid_count * 4 + J + nmax + 1, sizeof(uint32_t));
        B->joint_error = ossa__alloc_array(al, (size_t)G * J * 2 + (size_t)J * 22 + 1, sizeof(float));
        if (B->joint_error) {
            B->candidate_error = B->joint_error + (size_t)G * J;
            B->subtree_reach = B->candidate_error + (size_t)G * J;
            B->rotation_bound = B->subtree_reach + J;
            B->translation_bound = B->rotation_bound + J;
            B->bound_scratch = B->translation_bound + J;
            B->rounding_slack = B->bound_scratch + 2 * J;
            B->subtree_model = (ossa_mat4 *)(B->rounding_slack + J);
        }
    }
    R->joint_max_error = ossa__alloc_array(al, (size_t)J * 5 + nmax + 1, sizeof(float));
    if (R->joint_max_error) {
        R->joint_worst_time = (uint32_t *)(R->joint_max_error + J);
        R->channel_of = (int32_t *)(R->joint_worst_time + J);
        R->touched = (unsigned char *)(R->channel_of + (size_t)J * 3);
    }
    R->model = ossa__alloc_array(al, (size_t)J + 1, sizeof(ossa_mat4));
    if (!B->channels || !B->exact_pose || !B->exact_points || !B->channel_values || !R->joint_max_error || !R->model ||
        (!B->options.lossless && (!B->built_pose || !B->joint_error || !B->candidate_values || !B->index_scratch)))
        return OSSA_ERROR_OUT_OF_MEMORY;
    B->decoded_keys = B->channel_values + (size_t)G * 4;
    return OSSA_OK;
}

/* One channel per animated T/R/S of a joint of the skeleton (by track, T R S), then one per
 * weight track (always raw); R->channel_of maps joints to them. */
static void make_channels(builder *B, build_run *R) {
    const ossa_clip *clip = B->clip;
    uint32_t J = B->joint_count;
    for (size_t i = 0; i < (size_t)J * 3; i++) R->channel_of[i] = -1;
    for (uint32_t i = 0; i < clip->track_count; i++) {
        const ossa_transform_track *t = &clip->tracks[i];
        if (t->joint >= J) continue;
        const ossa_track *tr[3] = {&t->translation, &t->rotation, &t->scale};
        static const uint8_t kinds[3] = {OSSA__CH_T, OSSA__CH_R, OSSA__CH_S};
        for (int c = 0; c < 3; c++) {
            if (!tr[c]->key_count) continue;
            R->channel_of[(size_t)t->joint * 3 + kinds[c]] = (int32_t)B->channel_count;
            build_channel *ch = &B->channels[B->channel_count++];
            ch->target = t->joint;
            ch->kind = kinds[c];
            ch->source = tr[c];
        }
    }
    for (uint32_t i = 0; i < clip->weight_track_count; i++) {
        if (!clip->weight_tracks[i].weights.key_count) continue;
        build_channel *ch = &B->channels[B->channel_count++];
        ch->target = i;
        ch->kind = OSSA__CH_W;
        ch->source = &clip->weight_tracks[i].weights;
        ch->mode = MODE_RAW;
    }
}

/* The exact poses and their virtual vertices at every grid time (progress about every 1 %). */
static void exact_poses(builder *B, build_run *R) {
    uint32_t J = B->joint_count, G = B->grid_count, every = G / 100 + 1;
    for (uint32_t g = 0; g < G; g++) {
        ossa_transform *ex = B->exact_pose + (size_t)g * J;
        ossa__clip_sample_exact(B->clip, B->grid_times[g], false, B->skeleton->rest, ex, J);
        ossa__pose_points(ex, B->skeleton->parents, J, B->axis_shell, R->model,
                          B->exact_points + (size_t)g * J * 12);
        if (g % every == every - 1)
            report_progress(B, R, PROGRESS_GRID + (PROGRESS_EXACT - PROGRESS_GRID) * (float)g / (float)G);
    }
    report_progress(B, R, PROGRESS_EXACT);
}

/* Lossless: a constant T/R/S channel folds (its value bit for bit), every other one is raw. */
static void lossless_modes(builder *B) {
    for (uint32_t i = 0; i < B->channel_count; i++) {
        build_channel *c = &B->channels[i];
        if (c->kind == OSSA__CH_W) continue;
        c->mode = ossa__build_track_constant(c->source) ? MODE_FOLD : MODE_RAW;
        if (c->mode == MODE_FOLD) {
            const ossa_track *s = c->source;
            memcpy(c->fold_value, s->values + (s->interp == OSSA_INTERP_CUBIC ? s->components : 0),
                   s->components * sizeof(float));
        }
    }
}

/* Compressed: every channel's key buffers, its base tolerance, and a first fit of each T/R/S
 * channel at START_LEVEL. */
static ossa_result first_fit(builder *B, build_run *R) {
    uint32_t C = B->key_grid_count;
    R->key_buffer = ossa__alloc_array(B->allocator, (size_t)B->channel_count * C * 4 + 1, sizeof(uint32_t));
    if (!R->key_buffer) return OSSA_ERROR_OUT_OF_MEMORY;
    ossa_result r = base_tolerances(B);
    if (r != OSSA_OK) return r;
    uint32_t every = B->channel_count / 100 + 1;
    for (uint32_t i = 0; i < B->channel_count; i++) {
        build_channel *c = &B->channels[i];
        c->keys = R->key_buffer + (size_t)i * C * 4;
        c->quantised = c->keys + C;
        c->level = START_LEVEL;
        if (c->kind != OSSA__CH_W) ossa__build_fit(B, c, level_tol(c));
        if (i % every == every - 1)
            report_progress(B, R, PROGRESS_EXACT + (PROGRESS_FIT - PROGRESS_EXACT) * (float)i / (float)B->channel_count);
    }
    report_progress(B, R, PROGRESS_FIT);
    return OSSA_OK;
}

/* Writes the channels into a new built clip (replacing R->built) and measures it. */
static ossa_result write_and_measure(builder *B, build_run *R) {
    ossa_built_clip_destroy(R->built);
    R->built = NULL;
    ossa_result r = ossa__build_write(B, &R->built);
    if (r == OSSA_OK)
        r = ossa__build_measure(B, R->built, R->context, R->joint_max_error, R->joint_worst_time, &R->error);
    return r;
}

/* The channels marked in R->touched take the next tolerance down (a factor sqrt 2), or go raw
 * past MAX_LEVEL, and are fitted again. Whether any changed. */
static bool halve_touched_tolerances(builder *B, const build_run *R) {
    bool changed = false;
    for (uint32_t i = 0; i < B->channel_count; i++) {
        build_channel *c = &B->channels[i];
        if (c->kind == OSSA__CH_W || c->mode == MODE_RAW || !R->touched[i]) continue;
        changed = true;
        if (c->half_level) { /* the tolerance / sqrt 2 */
            c->half_level = 0;
        } else {
            c->level++;
            c->half_level = 1;
        }
        if (c->level > MAX_LEVEL) c->mode = MODE_RAW;
        else ossa__build_fit(B, c, level_tol(c));
    }
    return changed;
}

/* Write, measure, and tighten the channels that cause each joint's miss, until the target is
 * met (lossless: once), MAX_ITERATIONS, MAX_STALLED iterations without a lower worst error, or
 * nothing left to tighten. */
static ossa_result tighten(builder *B, build_run *R) {
    float best = INFINITY;
    for (int it = 0, stalled = 0;; it++) {
        ossa_result r = write_and_measure(B, R);
        if (r != OSSA_OK) return r;
        report_progress(B, R, PROGRESS_FIT + (PROGRESS_TIGHTEN - PROGRESS_FIT) * (float)(it + 1) / (MAX_ITERATIONS + 1));
        float worst = R->error.max_error;
        if (B->options.lossless || worst <= R->target || it == MAX_ITERATIONS) return OSSA_OK;
        /* halving tolerances that do not lower the worst error: leave it to the exact fallback */
        stalled = worst < best ? 0 : stalled + 1;
        if (worst < best) best = worst;
        if (stalled == MAX_STALLED) return OSSA_OK;
        memset(R->touched, 0, B->channel_count);
        for (uint32_t j = 0; j < B->joint_count; j++)
            if (!(R->joint_max_error[j] <= R->target) &&
                (r = ossa__build_attribute(B, R->built, R->context, j, R->joint_worst_time[j], R->channel_of,
                                           R->touched)) != OSSA_OK)
                return r;
        if (!halve_touched_tolerances(B, R)) return OSSA_OK;
    }
}

/* Every channel of joint j and of its ancestors goes raw. Whether any changed. */
static bool chain_exact(builder *B, const build_run *R, uint32_t j) {
    bool changed = false;
    for (int32_t a = (int32_t)j; a >= 0; a = B->skeleton->parents[a])
        for (size_t k = 0; k < 3; k++) {
            int32_t ci = R->channel_of[(size_t)a * 3 + k];
            if (ci >= 0 && B->channels[ci].mode != MODE_RAW) {
                B->channels[ci].mode = MODE_RAW;
                changed = true;
            }
        }
    return changed;
}

/* Every channel of each failing joint and of its ancestors goes raw; if there is none left
 * to change there, every channel from the first non-raw one on. Whether any changed. */
static bool failing_channels_exact(builder *B, const build_run *R) {
    bool changed = false;
    for (uint32_t j = 0; j < B->joint_count; j++) {
        if (!(R->joint_max_error[j] <= R->target)) changed |= chain_exact(B, R, j); /* NaN too */
    }
    for (uint32_t i = 0; !changed && i < B->channel_count; i++)
        if (B->channels[i].mode != MODE_RAW) {
            for (uint32_t k = i; k < B->channel_count; k++) B->channels[k].mode = MODE_RAW;
            changed = true;
        }
    return changed;
}

/* The bound is a guarantee: whatever the tightening left above the target goes exact, first
 * the channels of each failing joint and its ancestors, as a last resort all of them;
 * re-measured after each step. */
static ossa_result exact_fallback(builder *B, build_run *R) {
    while (!(R->error.max_error <= R->target)) {
        if (!failing_channels_exact(B, R)) return OSSA_OK;
        ossa_result r = write_and_measure(B, R);
        if (r != OSSA_OK) return r;
    }
    return OSSA_OK;
}

/* Once the bound is met: drop the key-grid times no channel keeps (the samples stay the same),
 * win back what the tightening over-spent, drop the unused times again; keep the result if the
 * real measurement agrees (else the clip before the loosening). */
static ossa_result compact_and_loosen(builder *B, build_run *R) {
    if (!(R->error.max_error <= R->target)) return OSSA_OK;
    ossa__build_compact_key_grid(B);
    ossa_result r = write_and_measure(B, R);
    if (r != OSSA_OK || !(R->error.max_error <= R->target)) return r;
    report_progress(B, R, PROGRESS_LOOSEN);
    ossa__build_loosen(B, R->target);
    report_progress(B, R, 0.97f);
    ossa__build_compact_key_grid(B);
    ossa_built_clip *tight = R->built;
    ossa_clip_error tight_error = R->error;
    R->built = NULL;
    r = write_and_measure(B, R);
    if (r != OSSA_OK || !(R->error.max_error <= R->target)) {
        ossa_built_clip_destroy(R->built);
        R->built = tight;
        R->error = tight_error;
    } else {
        ossa_built_clip_destroy(tight);
    }
    return r;
}

/* The failing joints of the final check: each one's channels and its ancestors' that cause its
 * miss at its worst time are marked in R->touched (ossa__build_attribute). */
static ossa_result mark_vertex_culprits(builder *B, build_run *R, const uint32_t *fail_time) {
    memset(R->touched, 0, B->channel_count);
    for (uint32_t j = 0; j < B->joint_count; j++) {
        if (fail_time[j] == UINT32_MAX) continue;
        ossa_result r = ossa__build_attribute(B, R->built, R->context, j, fail_time[j], R->channel_of, R->touched);
        if (r != OSSA_OK) return r;
    }
    return OSSA_OK;
}

/* Every channel of each failing joint (fail_time set) and its ancestors goes raw; if none is
 * left to change, every channel. Whether any changed. */
static bool vertex_culprits_exact(builder *B, const build_run *R, const uint32_t *fail_time) {
    bool changed = false;
    for (uint32_t j = 0; j < B->joint_count; j++) {
        if (fail_time[j] != UINT32_MAX) changed |= chain_exact(B, R, j);
    }
    for (uint32_t i = 0; !changed && i < B->channel_count; i++)
        if (B->channels[i].kind != OSSA__CH_W && B->channels[i].mode != MODE_RAW) {
            for (uint32_t k = i; k < B->channel_count; k++)
                if (B->channels[k].kind != OSSA__CH_W) B->channels[k].mode = MODE_RAW;
            changed = true;
        }
    return changed;
}

/* The final check on real vertices: skin the meshes through the built and the exact clip
 * (ossa__build_vertex_check) and tighten the channels behind each failing vertex's dominant
 * joint (VERTEX_ROUNDS rounds of tolerance / sqrt 2), then make their chains exact, until no
 * checked vertex is above the target. */
static ossa_result vertex_pass(builder *B, build_run *R) {
    if (!B->options.meshes || !B->options.mesh_count || B->options.lossless) return OSSA_OK;
    uint32_t *fail_time = ossa__alloc_array(B->allocator, (size_t)B->joint_count + 1, sizeof(uint32_t));
    if (!fail_time) return OSSA_ERROR_OUT_OF_MEMORY;
    ossa_result r = OSSA_OK;
    R->vertices_checked = true;
    for (int round = 0; r == OSSA_OK; round++) {
        r = ossa__build_vertex_check(B, R->built, R->context, R->target, &R->vertices, fail_time);
        if (r != OSSA_OK || !R->vertices.over) break;
        bool changed = false;
        if (round < VERTEX_ROUNDS) {
            r = mark_vertex_culprits(B, R, fail_time);
            if (r == OSSA_OK) changed = halve_touched_tolerances(B, R);
        }
        if (r == OSSA_OK && !changed) changed = vertex_culprits_exact(B, R, fail_time);
        if (r != OSSA_OK || !changed) break;
        r = write_and_measure(B, R);
        /* a refit can move another joint's shell error over the target: the shell pass again */
        if (r == OSSA_OK && !(R->error.max_error <= R->target) && (r = tighten(B, R)) == OSSA_OK)
            r = exact_fallback(B, R);
    }
    ossa__free(B->allocator, fail_time);
    return r;
}

/* Records what was measured in the block itself (ossa__bc_header). */
static void record_measurement(ossa_built_clip *bc, size_t raw_bytes, const ossa_clip_error *e) {
    ossa__bc_header *h = (ossa__bc_header *)ossa__built_clip_block(bc);
    h->raw_bytes_lo = (uint32_t)((uint64_t)raw_bytes & 0xffffffffu);
    h->raw_bytes_hi = (uint32_t)((uint64_t)raw_bytes >> 32);
    h->max_error = e->max_error;
    h->worst_joint = e->worst_joint;
    h->worst_time = e->worst_time;
    h->max_weight_error = e->max_weight_error;
}

static void free_scratch(builder *B, build_run *R) {
    const ossa_allocator *al = B->allocator;
    ossa_built_clip_destroy(R->built);
    ossa_sampling_context_destroy(R->context);
    ossa__free(al, R->key_buffer);
    ossa__free(al, R->model);
    ossa__free(al, R->joint_max_error);
    ossa__free(al, B->channel_values);
    ossa__free(al, B->built_pose);
    ossa__free(al, B->joint_error);
    ossa__free(al, B->candidate_values);
    ossa__free(al, B->index_scratch);
    ossa__free(al, B->exact_points);
    ossa__free(al, B->exact_pose);
    ossa__free(al, B->channels);
    ossa__free(al, B->key_grid_rank);
    ossa__free(al, B->key_grid);
    ossa__free(al, B->grid_times);
    ossa__build_free_shells(B);
}

/* All phases after the options and the magnitudes are checked; the result in R->built. */
static ossa_result build(builder *B, build_run *R) {
    ossa_result r;
    if ((r = make_grids(B)) != OSSA_OK) return r;
    if ((r = alloc_scratch(B, R)) != OSSA_OK) return r;
    make_channels(B, R);
    if ((r = ossa__build_shells(B)) != OSSA_OK) return r;
    report_progress(B, R, PROGRESS_GRID);
    exact_poses(B, R);
    if (B->options.lossless) lossless_modes(B);
    else if ((r = first_fit(B, R)) != OSSA_OK) return r;
    uint32_t W = 0;
    for (uint32_t i = 0; i < B->clip->weight_track_count; i++) W += B->clip->weight_tracks[i].weights.components;
    if ((r = ossa_sampling_context_create(B->joint_count, W, B->allocator, &R->context)) != OSSA_OK) return r;
    R->target = B->options.precision * TARGET_MARGIN;
    if ((r = tighten(B, R)) != OSSA_OK) return r;
    if (B->options.lossless) return OSSA_OK;
    report_progress(B, R, PROGRESS_TIGHTEN);
    if ((r = exact_fallback(B, R)) != OSSA_OK) return r;
    if ((r = compact_and_loosen(B, R)) != OSSA_OK) return r;
    return vertex_pass(B, R);
}

/* The final check's findings into stats (ossa_clip_build only: the block does not keep them). */
static void vertex_stats(const builder *B, const build_run *R, ossa_clip_build_stats *stats) {
    stats->character_height = R->height;
    if (!R->vertices_checked) return;
    uint32_t meshes = 0;
    for (uint32_t i = 0; i < B->options.mesh_count; i++) {
        const ossa_mesh *m = B->options.meshes[i];
        meshes += m && m->vertex_count && m->positions && m->joints && m->weights &&
                  (m->influences == 4 || m->influences == 8) && m->skin >= 0 &&
                  (uint32_t)m->skin < B->skeleton->skin_count;
    }
    stats->vertex_meshes = meshes;
    stats->max_vertex_error = R->vertices.max_error;
    stats->worst_mesh = R->vertices.mesh;
    stats->worst_vertex = R->vertices.vertex;
    stats->worst_vertex_joint = R->vertices.joint;
    stats->worst_vertex_time = R->vertices.max_error > 0.0f ? B->grid_times[R->vertices.grid] : 0.0f;
    stats->vertex_times = R->vertices.times_checked;
    stats->vertex_times_unchecked = R->vertices.times_unchecked;
}

ossa_result ossa_clip_build(const ossa_clip *clip, const ossa_skeleton *skeleton, const ossa_clip_build_options *options,
                            const ossa_allocator *allocator, ossa_built_clip **out, ossa_clip_build_stats *stats) {
    if (stats) memset(stats, 0, sizeof *stats);
    if (!out) return OSSA_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (!clip || !skeleton) return OSSA_ERROR_INVALID_ARGUMENT;
    builder B;
    memset(&B, 0, sizeof B);
    ossa_result r = resolve_options(options, &B.options);
    if (r == OSSA_OK) r = check_clip(clip, skeleton, &B.options, NULL);
    if (r != OSSA_OK) return r;
    B.clip = clip;
    B.skeleton = skeleton;
    B.allocator = allocator;
    B.joint_count = skeleton->joint_count;
    build_run R;
    memset(&R, 0, sizeof R);
    R.height = resolve_scaled_defaults(&B.options, skeleton);
    r = build(&B, &R);
    if (r == OSSA_OK && !B.options.lossless &&
        (!(R.error.max_error <= B.options.precision) || !(R.vertices.max_error <= B.options.precision))) {
        /* even the exact keys miss it: float rounding of the model-space values is larger
         * than the precision asked for; say so instead of returning a clip that misses it */
        if (stats) {
            stats->max_error = R.error.max_error;
            stats->worst_joint = R.error.worst_joint;
            stats->worst_time = R.error.worst_time;
            stats->max_weight_error = R.error.max_weight_error;
            vertex_stats(&B, &R, stats);
        }
        r = OSSA_ERROR_LIMIT;
    }
    if (r == OSSA_OK) {
        record_measurement(R.built, raw_clip_bytes(clip), &R.error);
        if (stats) {
            *stats = ossa_built_clip_stats(R.built);
            vertex_stats(&B, &R, stats);
        }
        report_progress(&B, &R, 1.0f);
        *out = R.built;
        R.built = NULL;
    }
    free_scratch(&B, &R);
    return r;
}
