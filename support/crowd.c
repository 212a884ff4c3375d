/* Crowd sampling: clip → locals → (placement ∘ root) → skeleton-indexed palette, CROWD_BATCH
 * instances a palette batch job. */
#include "crowd.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint32_t next_rand(uint32_t *s) {
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}
static float rand01(uint32_t *s) { return (float)next_rand(s) / 16777216.0f; }

static double clock_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Bytes rounded up to whole cache lines (CROWD_LINE). */
static size_t round_to_line(size_t bytes) { return (bytes + CROWD_LINE - 1u) & ~(size_t)(CROWD_LINE - 1u); }

/* A block of whole cache lines starting on a line; NULL on out of memory. */
static void *alloc_lines(size_t bytes) { return aligned_alloc(CROWD_LINE, round_to_line(bytes ? bytes : 1)); }

void crowd_destroy(crowd *c) {
    if (!c) return;
    for (uint32_t i = 0; c->contexts && i < c->count; i++) ossa_sampling_context_destroy(c->contexts[i]);
    free(c->context_arena.base);
    free(c->slot_begin);
    free(c->order);
    free(c->order_tmp);
    free(c->bins);
    for (uint32_t i = 0; c->owns_built && c->built && i < c->clip_count; i++) ossa_built_clip_destroy(c->built[i]);
    if (c->owns_built) free(c->built);
    free(c->contexts);
    free(c->instances);
    free(c->palettes);
    free(c->cursors);
    free(c->locals);
    free(c->batch);
    memset(c, 0, sizeof *c);
}

/* Start and duration of clip k, editable or built. */
static void clip_range(const crowd *c, uint32_t k, float *start, float *duration) {
    if (c->built) {
        *start = ossa_built_clip_start(c->built[k]);
        *duration = ossa_built_clip_duration(c->built[k]);
    } else {
        *start = c->asset->clips[k]->start;
        *duration = c->asset->clips[k]->end - c->asset->clips[k]->start;
    }
}

float crowd_instance_time(const crowd *c, uint32_t i, float t) {
    const crowd_instance *in = &c->instances[i];
    float start, d;
    clip_range(c, in->clip, &start, &d);
    if (!(d > 0)) return start;
    double x = fmod((double)in->phase + (double)in->speed * (double)t, (double)d);
    if (x < 0) x += d;
    return start + (float)x;
}

/* Sorts one group order[g0..) of one clip, up to `end` (a slot's end); returns where it stops. */
static uint32_t order_group_by_time(crowd *c, uint32_t g0, uint32_t end, float t) {
    uint32_t clip = c->instances[c->order[g0]].clip, at[CROWD_TIME_BINS + 1] = {0}, g1;
    float start, d;
    clip_range(c, clip, &start, &d);
    for (g1 = g0; g1 < end && c->instances[c->order[g1]].clip == clip; g1++) {
        float x = d > 0 ? (crowd_instance_time(c, c->order[g1], t) - start) / d * CROWD_TIME_BINS : 0;
        uint32_t b = x > 0 ? (x < CROWD_TIME_BINS - 1 ? (uint32_t)x : CROWD_TIME_BINS - 1u) : 0u;
        c->bins[g1] = b;
        at[b + 1]++;
    }
    for (uint32_t b = 0; b < CROWD_TIME_BINS; b++) at[b + 1] += at[b];
    for (uint32_t k = g0; k < g1; k++) c->order_tmp[g0 + at[c->bins[k]]++] = c->order[k];
    memcpy(c->order + g0, c->order_tmp + g0, (size_t)(g1 - g0) * sizeof *c->order);
    return g1;
}

void crowd_order_slot_by_time(crowd *c, uint32_t slot, float t) {
    for (uint32_t g0 = c->slot_begin[slot]; g0 < c->slot_begin[slot + 1];)
        g0 = order_group_by_time(c, g0, c->slot_begin[slot + 1], t);
}

void crowd_order_by_time(crowd *c, float t) {
    for (uint32_t s = 0; s < c->scratch_slots; s++) crowd_order_slot_by_time(c, s, t);
}

/* Instance i's local pose at crowd time t into locals (the rest pose if its clip cannot be
 * sampled), placed: its roots moved to the instance's place. */
static void sample_instance(const crowd *c, uint32_t i, float t, ossa_transform *locals) {
    const ossa_skeleton *sk = c->asset->skeleton;
    uint32_t jc = c->joint_count;
    const crowd_instance *in = &c->instances[i];
    if (c->built) {
        ossa_sample_job sj = {.clip = c->built[in->clip], .context = c->contexts[i],
                              .time = crowd_instance_time(c, i, t), .loop = true, .output = locals,
                              .output_count = jc, .reference = sk->rest, .reference_count = jc};
        if (ossa_sample_job_run(&sj) != OSSA_OK) memcpy(locals, sk->rest, jc * sizeof *locals); /* never stale */
    } else {
        ossa_clip_sample_job sj = {.clip = c->asset->clips[in->clip], .time = crowd_instance_time(c, i, t),
                                   .loop = true, .lookup = OSSA_LOOKUP_CURSOR,
                                   .cursors = c->cursors + (size_t)i * c->cursor_stride,
                                   .cursor_count = c->cursor_stride, .reference = sk->rest,
                                   .reference_count = jc, .output = locals, .output_count = jc};
        if (ossa_clip_sample_job_run(&sj) != OSSA_OK) memcpy(locals, sk->rest, jc * sizeof *locals);
    }
    for (uint32_t j = 0; j < jc; j++)
        if (sk->parents[j] < 0) locals[j] = ossa_transform_combine(in->place, locals[j]);
}

void crowd_update_range(crowd *c, uint32_t begin, uint32_t end, uint32_t slot, float t) {
    const ossa_skeleton *sk = c->asset->skeleton;
    uint32_t jc = c->joint_count, scratch_count = ossa_palette_batch_scratch_count(sk);
    unsigned char *poses = (unsigned char *)c->locals + (size_t)slot * CROWD_BATCH * c->locals_stride;
    float *scratch = (float *)(void *)((unsigned char *)c->batch + slot * c->batch_stride);
    const ossa_transform *locals[CROWD_BATCH];
    ossa_mat4 *palettes[CROWD_BATCH];
    end = end < c->count ? end : c->count;
    for (uint32_t k0 = begin; k0 < end; k0 += CROWD_BATCH) {
        uint32_t n = end - k0 < CROWD_BATCH ? end - k0 : CROWD_BATCH;
        for (uint32_t g = 0; g < n; g++) {
            uint32_t i = c->order[k0 + g];
            ossa_transform *pose = (ossa_transform *)(void *)(poses + g * c->locals_stride);
            sample_instance(c, i, t, pose);
            locals[g] = pose;
            palettes[g] = c->palettes + (size_t)i * jc;
        }
        ossa_palette_batch_job pb = {.skeleton = sk, .skin = c->skin, .locals = locals, .outputs = palettes,
                                     .pose_count = n, .output_count = jc, .scratch = scratch, .scratch_count = scratch_count};
        ossa_palette_batch_job_run(&pb);
    }
}

void crowd_update_slot(crowd *c, uint32_t slot, float t) {
    crowd_update_range(c, c->slot_begin[slot], c->slot_begin[slot + 1], slot, t);
}

/* A bump allocator over the crowd's context arena: every piece on its own cache lines. */
static void *arena_alloc(size_t size, void *user) {
    crowd_arena *a = user;
    size = round_to_line(size);
    if (size > a->capacity - a->used) return NULL;
    void *p = a->base + a->used;
    a->used += size;
    return p;
}
static void arena_free(void *ptr, void *user) { (void)ptr, (void)user; }

/* One sampling context per instance, sized for the clips the crowd's instances play (the
 * desc's clip list, or every clip: ossa_sampling_context_create_for_clips), as a game sizes a
 * character's state for the clips it may switch between; false on out of memory (crowd_destroy
 * frees what was made). */
static bool create_contexts(crowd *c, const crowd_desc *d) {
    bool listed = d->clips && d->clip_count;
    uint32_t n = listed ? d->clip_count : c->clip_count;
    const ossa_built_clip **plays = malloc((size_t)n * sizeof *plays);
    c->contexts = plays ? calloc(c->count, sizeof *c->contexts) : NULL;
    for (uint32_t k = 0; c->contexts && k < n; k++) plays[k] = c->built[listed ? d->clips[k] : k];
    /* one context made and freed to learn the size, then all of them in update order (each
     * slot's instances contiguous, every context on its own lines) in one arena */
    ossa_sampling_context *probe = NULL;
    bool ok = c->contexts && ossa_sampling_context_create_for_clips(plays, n, NULL, &probe) == OSSA_OK;
    c->context_bytes = ossa_sampling_context_size(probe);
    ossa_sampling_context_destroy(probe);
    c->context_arena.capacity = (size_t)c->count * round_to_line(c->context_bytes);
    c->context_arena.base = ok ? alloc_lines(c->context_arena.capacity) : NULL;
    ossa_allocator in_arena = {arena_alloc, arena_free, &c->context_arena};
    ok = ok && c->context_arena.base;
    for (uint32_t k = 0; ok && k < c->count; k++)
        ok = ossa_sampling_context_create_for_clips(plays, n, &in_arena, &c->contexts[c->order[k]]) == OSSA_OK;
    free(plays);
    return ok;
}

/* The per-instance and per-slot buffers: palettes and each slot's pose scratch on cache lines
 * of their own (a slot's local poses and batch scratch never share a line with another slot's). */
static bool alloc_buffers(crowd *c) {
    size_t jc = c->joint_count;
    c->locals_stride = round_to_line(jc * sizeof *c->locals);
    c->batch_stride = round_to_line((size_t)ossa_palette_batch_scratch_count(c->asset->skeleton) * sizeof *c->batch);
    c->instances = calloc(c->count, sizeof *c->instances);
    c->palettes = alloc_lines((size_t)c->count * jc * sizeof *c->palettes);
    c->cursors = calloc((size_t)c->count * c->cursor_stride, sizeof *c->cursors);
    c->locals = alloc_lines(c->scratch_slots * CROWD_BATCH * c->locals_stride);
    c->batch = alloc_lines(c->scratch_slots * c->batch_stride);
    c->order = malloc(c->count * sizeof *c->order);
    c->order_tmp = malloc(c->count * sizeof *c->order_tmp);
    c->bins = malloc(c->count * sizeof *c->bins);
    c->slot_begin = malloc((c->scratch_slots + 1u) * sizeof *c->slot_begin);
    return c->instances && c->palettes && c->cursors && c->locals && c->batch && c->order && c->order_tmp && c->bins &&
           c->slot_begin;
}

/* Update order: instances grouped by clip, so the cache keeps one clip's data while a slot walks
 * a group (counting sort, stable); then each slot a fixed contiguous share of it, for good (the
 * same instances every frame: crowd_order_by_time reorders within a slot only). */
static void assign_slots(crowd *c) {
    uint32_t at = 0;
    for (uint32_t k = 0; k < c->clip_count; k++)
        for (uint32_t i = 0; i < c->count; i++)
            if (c->instances[i].clip == k) c->order[at++] = i;
    for (uint32_t s = 0; s <= c->scratch_slots; s++)
        c->slot_begin[s] = (uint32_t)((uint64_t)c->count * s / c->scratch_slots);
}

static void extend_bounds(float lo[3], float hi[3], const float p[3]) {
    for (int k = 0; k < 3; k++) lo[k] = fminf(lo[k], p[k]), hi[k] = fmaxf(hi[k], p[k]);
}

/* Bounds of the meshes the crowd draws (those of its skin) at the rest pose, skinned: a skin's
 * inverse binds need not match the rest pose (a Z-up mesh under a rotated root; Assimp's HL1
 * models, whose meshes are bound in other axes), so the vertices as stored can lie elsewhere.
 * Falls back to the meshes' own vertex bounds if nothing could be skinned. */
static void rest_pose_bounds(const crowd *c, float lo[3], float hi[3]) {
    const ossa_asset *a = c->asset;
    const ossa_skeleton *sk = a->skeleton;
    uint32_t J = sk->joint_count, most = 0;
    for (uint32_t i = 0; i < a->mesh_count; i++)
        if (a->meshes[i]->vertex_count > most) most = a->meshes[i]->vertex_count;
    ossa_mat4 *model = malloc((size_t)J * sizeof *model), *palette = malloc((size_t)J * sizeof *palette);
    float *skinned = malloc((size_t)(most ? most : 1) * 3 * sizeof *skinned);
    for (int k = 0; k < 3; k++) lo[k] = INFINITY, hi[k] = -INFINITY;
    ossa_local_to_model_job l2m = {.skeleton = sk, .input = sk->rest, .input_count = J, .output = model, .output_count = J};
    ossa_palette_job pal = {.skeleton = sk, .skin = c->skin, .model = model, .model_count = J, .output = palette,
                            .output_count = J};
    bool posed = model && palette && skinned && ossa_local_to_model_job_run(&l2m) == OSSA_OK &&
                 ossa_palette_job_run(&pal) == OSSA_OK;
    for (uint32_t i = 0; posed && i < a->mesh_count; i++) {
        const ossa_mesh *m = a->meshes[i];
        if (m->skin != (int32_t)c->skin || !m->influences || !m->vertex_count) continue; /* what the crowd draws */
        ossa_skin_job job = {.end = m->vertex_count, .vertex_count = m->vertex_count, .influences = m->influences,
                             .joints = m->joints, .weights = m->weights, .palette = palette, .palette_count = J,
                             .positions = m->positions, .out_positions = skinned};
        if (ossa_skin_job_run(&job) != OSSA_OK) continue;
        for (uint32_t v = 0; v < m->vertex_count; v++) extend_bounds(lo, hi, skinned + 3 * v);
    }
    for (uint32_t i = 0; !(lo[0] <= hi[0]) && i < a->mesh_count; i++) { /* nothing skinned */
        ossa_vec3 mn, mx;
        if (!ossa_mesh_bounds(a->meshes[i], &mn, &mx)) continue;
        const float p[2][3] = {{mn.x, mn.y, mn.z}, {mx.x, mx.y, mx.z}};
        extend_bounds(lo, hi, p[0]);
        extend_bounds(lo, hi, p[1]);
    }
    free(model);
    free(palette);
    free(skinned);
}

/* The crowd's skin (the first skin a skinned mesh uses) and clips: the asset's built clips
 * (CROWD_SAMPLING_BUILT when it has one for each clip), else its editable ones; every index
 * of d->clips must be one of them. False with the reason in err. */
static bool crowd_check(const crowd_desc *d, int32_t *skin, bool *use_asset_built, uint32_t *clip_count, char *err,
                        size_t err_size) {
    const ossa_asset *a = d->asset;
    if (!a || !a->skeleton || !d->count) {
        snprintf(err, err_size, "no skeleton or no instances");
        return false;
    }
    *skin = -1;
    for (uint32_t i = 0; i < a->mesh_count && *skin < 0; i++)
        if (a->meshes[i]->skin >= 0 && a->meshes[i]->influences) *skin = a->meshes[i]->skin;
    if (*skin < 0 || (uint32_t)*skin >= a->skeleton->skin_count) {
        snprintf(err, err_size, "the file has no skinned mesh");
        return false;
    }
    *use_asset_built = d->sampling == CROWD_SAMPLING_BUILT && a->built_clip_count && a->built_clips &&
                       (!a->clip_count || a->built_clip_count == a->clip_count);
    *clip_count = *use_asset_built ? a->built_clip_count : a->clip_count;
    if (!*clip_count) {
        snprintf(err, err_size, "the file has no clip");
        return false;
    }
    for (uint32_t k = 0; d->clips && k < d->clip_count; k++)
        if (d->clips[k] >= *clip_count) {
            snprintf(err, err_size, "clip %u does not exist (%u clips)", d->clips[k], *clip_count);
            return false;
        }
    return true;
}

/* c->built: the asset's built clips, or each clip built here (compressed at the default
 * precision, or lossless) unless the crowd samples the editable clips (c->built NULL). False
 * with the reason in err. */
static bool crowd_take_clips(crowd *c, const crowd_desc *d, bool use_asset_built, char *err, size_t err_size) {
    const ossa_asset *a = d->asset;
    if (use_asset_built) {
        c->built = a->built_clips;
        return true;
    }
    if (d->sampling == CROWD_SAMPLING_EDITABLE) return true;
    double t0 = clock_seconds();
    c->built = calloc(c->clip_count, sizeof *c->built);
    c->owns_built = true;
    if (!c->built) {
        snprintf(err, err_size, "out of memory");
        return false;
    }
    ossa_clip_build_options opt = {.lossless = d->sampling == CROWD_SAMPLING_LOSSLESS};
    for (uint32_t k = 0; k < c->clip_count; k++) {
        ossa_result r = ossa_clip_build(a->clips[k], a->skeleton, &opt, NULL, &c->built[k], NULL);
        if (r != OSSA_OK) {
            snprintf(err, err_size, "building clip %u failed: %s", k, ossa_result_string(r));
            return false;
        }
    }
    c->build_seconds = clock_seconds() - t0;
    return true;
}

/* The grid spacing: d->spacing, else from the rest-pose footprint lo..hi (limbs swing about
 * half the height whatever the rest pose: T-pose arms count less). */
static float crowd_spacing(const crowd_desc *d, const float lo[3], const float hi[3]) {
    float ext = fmaxf(hi[0] - lo[0], hi[2] - lo[2]), height = hi[1] - lo[1];
    if (!(ext > 0)) ext = 1;
    if (height > 0) ext = fmaxf(0.45f * height, fminf(ext, 0.7f * height));
    return d->spacing > 0 ? d->spacing : 1.3f * ext;
}

/* Each instance's clip (dealt round-robin over a shuffled order, so grid columns mix clips),
 * phase, speed and place on a grid of `cols` columns (a little yaw and jitter), from d->seed. */
static void place_instances(crowd *c, const crowd_desc *d, float spacing, uint32_t cols) {
    uint32_t rows = (c->count + cols - 1) / cols;
    uint32_t seed = d->seed ? d->seed : 1;
    for (uint32_t i = 0; i < c->count; i++) {
        crowd_instance *in = &c->instances[i];
        uint32_t n = d->clips && d->clip_count ? d->clip_count : c->clip_count;
        uint32_t k = (i + next_rand(&seed) % 2u * (n > 2 ? n / 2 : 0)) % n;
        in->clip = d->clips && d->clip_count ? d->clips[k] : k;
        float start, duration;
        clip_range(c, in->clip, &start, &duration);
        in->phase = rand01(&seed) * duration;
        in->speed = 0.8f + 0.4f * rand01(&seed);
        float yaw = (rand01(&seed) - 0.5f) * 0.8f;
        ossa_vec3 up = {0, 1, 0};
        in->place = ossa_transform_identity();
        in->place.rotation = ossa_quat_from_axis_angle(up, yaw);
        float jx = (rand01(&seed) - 0.5f) * 0.2f * spacing, jz = (rand01(&seed) - 0.5f) * 0.2f * spacing;
        in->place.translation.x = ((float)(i % cols) - 0.5f * (float)(cols - 1)) * spacing + jx;
        in->place.translation.z = ((float)(i / cols) - 0.5f * (float)(rows - 1)) * spacing + jz;
    }
}

bool crowd_create(crowd *c, const crowd_desc *d, char *err, size_t err_size) {
    memset(c, 0, sizeof *c);
    int32_t skin;
    bool use_asset_built;
    uint32_t clip_count;
    if (!crowd_check(d, &skin, &use_asset_built, &clip_count, err, err_size)) return false;
    const ossa_asset *a = d->asset;
    c->asset = a;
    c->clip_count = clip_count;
    c->sampling = d->sampling;
    if (!crowd_take_clips(c, d, use_asset_built, err, err_size)) {
        crowd_destroy(c);
        return false;
    }
    c->count = d->count;
    c->joint_count = a->skeleton->joint_count;
    c->skin = (uint32_t)skin;
    c->scratch_slots = d->scratch_slots ? d->scratch_slots : 1;
    for (uint32_t k = 0; !c->built && k < a->clip_count; k++) {
        uint32_t n = ossa_clip_cursor_count(a->clips[k]);
        if (n > c->cursor_stride) c->cursor_stride = n;
    }
    if (!c->cursor_stride) c->cursor_stride = 1;
    if (!alloc_buffers(c)) {
        crowd_destroy(c);
        snprintf(err, err_size, "out of memory for %u instances", d->count);
        return false;
    }
    float lo[3], hi[3];
    rest_pose_bounds(c, lo, hi);
    float spacing = crowd_spacing(d, lo, hi);
    uint32_t cols = (uint32_t)ceil(sqrt((double)c->count)), rows = (c->count + cols - 1) / cols;
    place_instances(c, d, spacing, cols);
    assign_slots(c);
    if (c->built && !create_contexts(c, d)) {
        crowd_destroy(c);
        snprintf(err, err_size, "out of memory for %u instances", d->count);
        return false;
    }
    /* crowd bounds: the grid (with its jitter) plus half a cell around it */
    float half_x = (0.5f * (float)(cols - 1) + 0.4f) * spacing, half_z = (0.5f * (float)(rows - 1) + 0.3f) * spacing;
    float cx = 0.5f * (lo[0] + hi[0]), cz = 0.5f * (lo[2] + hi[2]);
    c->lo[0] = cx - half_x, c->hi[0] = cx + half_x;
    c->lo[2] = cz - half_z, c->hi[2] = cz + half_z;
    c->lo[1] = lo[1], c->hi[1] = hi[1];
    return true;
}
