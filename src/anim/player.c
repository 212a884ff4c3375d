/* Playback controller: layers of clip states arranged over the sampling, blend, local-to-model
 * and root-motion jobs (see ossa/player.h). Buffers are allocated in create / add_layer /
 * play / crossfade / bind_root_motion; update allocates nothing. Each state plays an editable clip
 * (clip sampling job with cursors) or a built clip (sampling job with a per-state context). */
#include <ossa/player.h>

#include <math.h>
#include <string.h>

#include <ossa/blend.h>
#include <ossa/pose.h>
#include <ossa/sample.h>

#include "anim/track_internal.h"
#include "core/alloc.h"

/* One playing clip: its clock and cursors. from / advance record the last update's step
 * (clip seconds) for root motion. */
typedef struct state {
    const void *key;                  /* clip or built: what plays (NULL = nothing) */
    const ossa_clip *clip;            /* an editable clip, sampled with cursors */
    const ossa_built_clip *built;     /* or a built clip, sampled with a sampling context */
    ossa_sampling_context *context;
    uint32_t context_joints, context_weights;
    float start, end;                 /* the clip's range, seconds */
    float time; /* clip-adjusted seconds */
    float speed;
    bool loop;
    uint32_t *cursors;
    uint32_t cursor_capacity;
    float from, advance;
} state;

typedef struct layer {
    ossa_player_layer_mode mode;
    float weight;
    uint32_t sync;
    bool has_mask;
    float *mask;               /* joint_count */
    ossa_transform *cur;       /* joint_count: the current clip's sample */
    ossa_transform *fade;      /* joint_count: the clip fading out (or the frozen pose) */
    ossa_transform *out;       /* joint_count: the layer's pose (cur, or the fade's blend) */
    state current, previous;   /* previous.key != NULL while its clip is fading out */
    bool fading;               /* a fade is running (from previous, or from the frozen fade) */
    float fade_elapsed, fade_duration;
    void *block;
} layer;

typedef struct binding {
    const void *clip;                 /* an ossa_clip or an ossa_built_clip */
    const ossa_root_motion *motion;
} binding;

struct ossa_player {
    ossa_allocator allocator;
    const ossa_skeleton *skeleton;
    ossa_transform *pose;      /* joint_count: current local pose */
    ossa_mat4 *model;          /* joint_count: model-space matrices of pose */
    layer *layers;
    uint32_t layer_count, layer_capacity;
    ossa_blend_layer *over, *add; /* layer_capacity each: the blend job's inputs */
    binding *bindings;
    uint32_t binding_count, binding_capacity;
    ossa_transform root, root_delta;
    ossa_player_pose_hook hook;
    void *hook_user;
};

static ossa_transform rigid_identity(void) { return ossa_transform_identity(); }

/* Model-space matrices of the current pose (the player's buffers always fit). */
static void update_model(ossa_player *p) {
    uint32_t n = p->skeleton->joint_count;
    ossa_local_to_model_job job = {.skeleton = p->skeleton, .input = p->pose, .input_count = n,
                                   .output = p->model, .output_count = n};
    ossa_local_to_model_job_run(&job);
}

ossa_result ossa_player_create(const ossa_skeleton *skeleton, const ossa_allocator *allocator, ossa_player **out) {
    if (!out) return OSSA_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (!skeleton) return OSSA_ERROR_INVALID_ARGUMENT;
    uint32_t n = skeleton->joint_count;
    ossa__layout L = {0, false};
    size_t o_p = ossa__layout_add(&L, 1, sizeof(ossa_player));
    size_t o_pose = ossa__layout_add(&L, n, sizeof(ossa_transform));
    size_t o_model = ossa__layout_add(&L, n, sizeof(ossa_mat4));
    if (L.overflow) return OSSA_ERROR_OUT_OF_MEMORY;
    unsigned char *base = ossa__alloc(allocator, L.size);
    if (!base) return OSSA_ERROR_OUT_OF_MEMORY;
    memset(base, 0, L.size);
    ossa_player *p = (ossa_player *)(base + o_p);
    p->allocator = ossa__allocator_resolve(allocator);
    p->skeleton = skeleton;
    p->pose = (ossa_transform *)(base + o_pose);
    p->model = (ossa_mat4 *)(base + o_model);
    p->root = p->root_delta = rigid_identity();
    if (n) memcpy(p->pose, skeleton->rest, n * sizeof(ossa_transform));
    update_model(p);
    ossa_result r = ossa_player_add_layer(p, OSSA_PLAYER_LAYER_OVERRIDE, NULL);
    if (r != OSSA_OK) {
        ossa_player_destroy(p);
        return r;
    }
    *out = p;
    return OSSA_OK;
}

void ossa_player_destroy(ossa_player *player) {
    if (!player) return;
    ossa_allocator a = player->allocator;
    for (uint32_t i = 0; i < player->layer_count; i++) {
        layer *l = &player->layers[i];
        ossa__free(&a, l->current.cursors);
        ossa__free(&a, l->previous.cursors);
        ossa_sampling_context_destroy(l->current.context);
        ossa_sampling_context_destroy(l->previous.context);
        ossa__free(&a, l->block);
    }
    ossa__free(&a, player->layers);
    ossa__free(&a, player->over);
    ossa__free(&a, player->add);
    ossa__free(&a, player->bindings);
    ossa__free(&a, player);
}

ossa_result ossa_player_add_layer(ossa_player *p, ossa_player_layer_mode mode, uint32_t *out_layer) {
    if (!p || (mode != OSSA_PLAYER_LAYER_OVERRIDE && mode != OSSA_PLAYER_LAYER_ADDITIVE))
        return OSSA_ERROR_INVALID_ARGUMENT;
    if (p->layer_count == p->layer_capacity) {
        uint32_t cap = p->layer_capacity ? p->layer_capacity * 2 : 4;
        layer *ls = ossa__alloc_array(&p->allocator, cap, sizeof(layer));
        ossa_blend_layer *ov = ossa__alloc_array(&p->allocator, cap, sizeof(ossa_blend_layer));
        ossa_blend_layer *ad = ossa__alloc_array(&p->allocator, cap, sizeof(ossa_blend_layer));
        if (!ls || !ov || !ad) {
            ossa__free(&p->allocator, ls);
            ossa__free(&p->allocator, ov);
            ossa__free(&p->allocator, ad);
            return OSSA_ERROR_OUT_OF_MEMORY;
        }
        if (p->layer_count) memcpy(ls, p->layers, p->layer_count * sizeof(layer));
        ossa__free(&p->allocator, p->layers);
        ossa__free(&p->allocator, p->over);
        ossa__free(&p->allocator, p->add);
        p->layers = ls;
        p->over = ov;
        p->add = ad;
        p->layer_capacity = cap;
    }
    uint32_t n = p->skeleton->joint_count;
    ossa__layout L = {0, false};
    size_t o_mask = ossa__layout_add(&L, n, sizeof(float));
    size_t o_cur = ossa__layout_add(&L, n, sizeof(ossa_transform));
    size_t o_fade = ossa__layout_add(&L, n, sizeof(ossa_transform));
    size_t o_out = ossa__layout_add(&L, n, sizeof(ossa_transform));
    if (L.overflow) return OSSA_ERROR_OUT_OF_MEMORY;
    unsigned char *base = ossa__alloc(&p->allocator, L.size ? L.size : 1);
    if (!base) return OSSA_ERROR_OUT_OF_MEMORY;
    layer *l = &p->layers[p->layer_count];
    memset(l, 0, sizeof *l);
    l->block = base;
    l->mode = mode;
    l->weight = 1.0f;
    l->mask = (float *)(base + o_mask);
    l->cur = (ossa_transform *)(base + o_cur);
    l->fade = (ossa_transform *)(base + o_fade);
    l->out = (ossa_transform *)(base + o_out);
    if (out_layer) *out_layer = p->layer_count;
    p->layer_count++;
    return OSSA_OK;
}

uint32_t ossa_player_layer_count(const ossa_player *p) { return p ? p->layer_count : 0; }

/* Makes sure s has a sampling context for `built` (allocates only when growing) and resets it.
 * A clip built for another rest pose (its reference hash) is INVALID_ARGUMENT. */
static ossa_result reserve_context(ossa_player *p, state *s, const ossa_built_clip *built) {
    uint32_t joints = ossa_built_clip_joint_count(built), weights = ossa_built_clip_weight_count(built);
    if (!ossa_built_clip_matches(built, p->skeleton->rest, p->skeleton->joint_count)) return OSSA_ERROR_INVALID_ARGUMENT;
    if (!s->context || joints > s->context_joints || weights > s->context_weights) {
        ossa_sampling_context *c = NULL;
        ossa_result r = ossa_sampling_context_create(joints, weights, &p->allocator, &c);
        if (r != OSSA_OK) return r;
        ossa_sampling_context_destroy(s->context);
        s->context = c;
        s->context_joints = joints;
        s->context_weights = weights;
    }
    ossa_sampling_context_reset(s->context);
    return OSSA_OK;
}

/* Makes sure s has room for clip's cursors and resets them (allocates only when growing). */
static ossa_result reserve_cursors(ossa_player *p, state *s, const ossa_clip *clip) {
    uint32_t need = ossa_clip_cursor_count(clip);
    if (need > s->cursor_capacity) {
        uint32_t *c = ossa__alloc_array(&p->allocator, need, sizeof(uint32_t));
        if (!c) return OSSA_ERROR_OUT_OF_MEMORY;
        ossa__free(&p->allocator, s->cursors);
        s->cursors = c;
        s->cursor_capacity = need;
    }
    if (s->cursors) memset(s->cursors, 0, s->cursor_capacity * sizeof(uint32_t));
    return OSSA_OK;
}

static float fade_weight(const layer *l) {
    if (!l->fading) return 1.0f;
    float w = l->fade_elapsed / l->fade_duration;
    return !(w > 0.0f) ? 0.0f : (w > 1.0f ? 1.0f : w);
}

static void sample_state(const ossa_player *p, state *s, ossa_transform *out) {
    uint32_t n = p->skeleton->joint_count;
    if (s->built) {
        /* A built clip fills its whole pose; joints past it (another skeleton's clip) keep the rest. */
        uint32_t bn = ossa_built_clip_joint_count(s->built);
        if (bn < n) memcpy(out + bn, p->skeleton->rest + bn, (n - bn) * sizeof(ossa_transform));
        ossa_sample_job job = {.clip = s->built, .context = s->context, .time = s->time, .loop = s->loop,
                               .output = out, .output_count = n, .reference = p->skeleton->rest,
                               .reference_count = n};
        if (ossa_sample_job_run(&job) != OSSA_OK) memcpy(out, p->skeleton->rest, n * sizeof(ossa_transform));
        return;
    }
    ossa_clip_sample_job job = {.clip = s->clip, .time = s->time, .loop = s->loop, .lookup = OSSA_LOOKUP_CURSOR,
                                .cursors = s->cursors, .cursor_count = s->cursor_capacity,
                                .reference = p->skeleton->rest, .reference_count = n, .output = out,
                                .output_count = n};
    ossa_clip_sample_job_run(&job);
}

/* Samples every layer, blends them (blend job), refreshes the model matrices, runs the hook. */
static void evaluate(ossa_player *p) {
    const ossa_skeleton *sk = p->skeleton;
    const uint32_t n = sk->joint_count;
    uint32_t over = 0, add = 0;
    for (uint32_t i = 0; i < p->layer_count; i++) {
        layer *l = &p->layers[i];
        if (!l->current.key) continue;
        const ossa_transform *pose = l->cur;
        sample_state(p, &l->current, l->cur);
        if (l->fading) {
            if (l->previous.key) sample_state(p, &l->previous, l->fade);
            float w = fade_weight(l);
            ossa_blend_layer two[2] = {{l->fade, n, 1.0f - w, NULL, 0}, {l->cur, n, w, NULL, 0}};
            ossa_blend_job fade = {two, 2, NULL, 0, sk->rest, n, 0.0f, l->out, n};
            ossa_blend_job_run(&fade);
            pose = l->out;
        }
        ossa_blend_layer b = {pose, n, l->weight, l->has_mask ? l->mask : NULL, l->has_mask ? n : 0};
        if (l->mode == OSSA_PLAYER_LAYER_ADDITIVE) p->add[add++] = b;
        else p->over[over++] = b;
    }
    ossa_blend_job job = {p->over, over, p->add, add, sk->rest, n, 0.0f, p->pose, n};
    if (ossa_blend_job_run(&job) != OSSA_OK && n) memcpy(p->pose, sk->rest, n * sizeof(ossa_transform));
    update_model(p);
    if (p->hook && p->hook(p->hook_user, sk, p->pose, p->model)) update_model(p);
}

static layer *get_layer(ossa_player *p, uint32_t index) {
    return p && index < p->layer_count ? &p->layers[index] : NULL;
}

/* INVALID_ARGUMENT when both clips are given, or none and `empty_ok` is false. */
static ossa_result check_source(ossa_clip_source src, bool empty_ok) {
    if (src.clip && src.built) return OSSA_ERROR_INVALID_ARGUMENT;
    return src.clip || src.built || empty_ok ? OSSA_OK : OSSA_ERROR_INVALID_ARGUMENT;
}

static ossa_result reserve(ossa_player *p, state *s, ossa_clip_source src) {
    return src.built ? reserve_context(p, s, src.built) : reserve_cursors(p, s, src.clip);
}

static void start_state(state *s, ossa_clip_source src, float speed, bool loop) {
    s->clip = src.clip;
    s->built = src.built;
    s->key = src.built ? (const void *)src.built : (const void *)src.clip;
    s->start = src.built ? ossa_built_clip_start(src.built) : src.clip->start;
    s->end = src.built ? ossa_built_clip_end(src.built) : src.clip->end;
    s->time = s->start;
    s->speed = speed;
    s->loop = loop;
    s->from = s->start;
    s->advance = 0.0f;
}

static void stop_state(state *s) {
    s->key = NULL;
    s->clip = NULL;
    s->built = NULL;
}

static ossa_result play_source(ossa_player *p, uint32_t index, ossa_clip_source src, float speed, bool loop) {
    layer *l = get_layer(p, index);
    if (!l || check_source(src, true) != OSSA_OK) return OSSA_ERROR_INVALID_ARGUMENT;
    stop_state(&l->previous);
    l->fading = false;
    l->fade_elapsed = l->fade_duration = 0.0f;
    if (!src.clip && !src.built) {
        stop_state(&l->current);
    } else {
        ossa_result r = reserve(p, &l->current, src);
        if (r != OSSA_OK) return r;
        start_state(&l->current, src, speed, loop);
    }
    evaluate(p);
    return OSSA_OK;
}

static ossa_result crossfade_source(ossa_player *p, uint32_t index, ossa_clip_source src, float duration, float speed,
                                    bool loop) {
    layer *l = get_layer(p, index);
    if (!l || check_source(src, false) != OSSA_OK) return OSSA_ERROR_INVALID_ARGUMENT;
    if (!(duration > 0.0f) || !l->current.key) return play_source(p, index, src, speed, loop);
    if (l->fading) {
        /* A fade is already running: fade from the layer's pose as it is now (frozen). */
        ossa_result r = reserve(p, &l->current, src);
        if (r != OSSA_OK) return r;
        uint32_t n = p->skeleton->joint_count;
        if (n) memcpy(l->fade, l->out, n * sizeof(ossa_transform));
        stop_state(&l->previous);
    } else {
        /* The current clip becomes the one fading out; the states swap their buffers. */
        state old = l->current;
        l->current = l->previous;
        l->previous = old;
        ossa_result r = reserve(p, &l->current, src);
        if (r != OSSA_OK) {
            state back = l->current;
            l->current = l->previous;
            l->previous = back;
            stop_state(&l->previous);
            return r;
        }
    }
    start_state(&l->current, src, speed, loop);
    l->fading = true;
    l->fade_elapsed = 0.0f;
    l->fade_duration = duration;
    evaluate(p);
    return OSSA_OK;
}

ossa_result ossa_player_layer_play(ossa_player *p, uint32_t index, ossa_clip_source source, float speed, bool loop) {
    return play_source(p, index, source, speed, loop);
}

ossa_result ossa_player_layer_crossfade(ossa_player *p, uint32_t index, ossa_clip_source source, float duration,
                                        float speed, bool loop) {
    return crossfade_source(p, index, source, duration, speed, loop);
}

ossa_result ossa_player_play(ossa_player *p, ossa_clip_source source, float speed, bool loop) {
    if (check_source(source, false) != OSSA_OK) return OSSA_ERROR_INVALID_ARGUMENT;
    return play_source(p, 0, source, speed, loop);
}

ossa_result ossa_player_crossfade(ossa_player *p, ossa_clip_source source, float duration, float speed, bool loop) {
    return crossfade_source(p, 0, source, duration, speed, loop);
}

/* Moves a state's clock by `advance` clip seconds, recording the step for root motion. */
static void step_state(state *s, float advance) {
    if (!s->key) return;
    s->from = s->time;
    s->advance = advance;
    s->time = ossa__adjust_time(s->start, s->end, s->time + advance, s->loop);
}

/* Advances the sync group of layer `first` (the lowest-index layer of its group) by dt.
 * Looping states take the group phase (that of the first looping state, wrapped); a
 * non-looping state moves its own phase by the same step and holds at its ends. */
static void advance_group(ossa_player *p, uint32_t first, float dt) {
    uint32_t g = p->layers[first].sync;
    double dsum = 0.0, ssum = 0.0, wsum = 0.0;
    const state *lead = &p->layers[first].current;
    bool lead_loops = false;
    for (uint32_t i = first; i < p->layer_count; i++) {
        const layer *l = &p->layers[i];
        if (l->sync != g || !l->current.key) continue;
        double w = l->weight > 0.0f ? l->weight : 0.0;
        dsum += w * (l->current.end - l->current.start);
        ssum += w * l->current.speed;
        wsum += w;
        if (l->current.loop && !lead_loops) lead = &l->current, lead_loops = true;
    }
    float d0 = lead->end - lead->start;
    float phase = d0 > 0.0f ? (lead->time - lead->start) / d0 : 0.0f;
    float cycle = wsum > 0.0 ? (float)(dsum / wsum) : d0;
    float speed = wsum > 0.0 ? (float)(ssum / wsum) : lead->speed;
    float step = cycle > 0.0f && isfinite(dt * speed / cycle) ? dt * speed / cycle : 0.0f; /* phase units */
    float next = ossa_sync_advance(phase, dt * speed, cycle);
    for (uint32_t i = first; i < p->layer_count; i++) {
        state *s = &p->layers[i].current;
        if (p->layers[i].sync != g || !s->key) continue;
        float d = s->end - s->start;
        s->from = s->time;
        if (s->loop) {
            s->advance = step * d;
            s->time = s->start + next * d;
        } else { /* hold at the ends: the advance is what was actually moved */
            float own = d > 0.0f ? (s->time - s->start) / d : 0.0f;
            float to = own + step;
            to = to < 0.0f ? 0.0f : to > 1.0f ? 1.0f : to;
            s->time = s->start + to * d;
            s->advance = s->time - s->from;
        }
    }
}

/* The weighted root delta of the override layers' playing clips that have a root motion. */
static ossa_transform root_delta(const ossa_player *p) {
    ossa_vec3 t = {0, 0, 0};
    ossa_quat q = {0, 0, 0, 0};
    float total = 0.0f;
    bool any = false;
    for (uint32_t i = 0; i < p->layer_count; i++) {
        const layer *l = &p->layers[i];
        if (l->mode != OSSA_PLAYER_LAYER_OVERRIDE || !(l->weight > 0.0f)) continue;
        float fw = fade_weight(l);
        const state *states[2] = {&l->current, &l->previous};
        const float ws[2] = {fw, l->fading ? 1.0f - fw : 0.0f};
        for (int k = 0; k < 2; k++) {
            const state *s = states[k];
            float w = l->weight * ws[k];
            if (!s->key || !(w > 0.0f)) continue;
            const ossa_root_motion *m = NULL;
            for (uint32_t b = 0; b < p->binding_count; b++)
                if (p->bindings[b].clip == s->key) m = p->bindings[b].motion;
            ossa_transform d = rigid_identity(); /* a clip without root motion stands still */
            ossa_root_motion_job job = {m, s->from, s->advance, s->loop, &d};
            if (m && ossa_root_motion_job_run(&job) != OSSA_OK) continue;
            any = any || m;
            if (ossa_quat_dot(q, d.rotation) < 0.0f)
                d.rotation = (ossa_quat){-d.rotation.x, -d.rotation.y, -d.rotation.z, -d.rotation.w};
            t = ossa_vec3_add(t, ossa_vec3_scale(d.translation, w));
            q.x += w * d.rotation.x, q.y += w * d.rotation.y, q.z += w * d.rotation.z, q.w += w * d.rotation.w;
            total += w;
        }
    }
    ossa_transform r = rigid_identity();
    if (any && total > 0.0f) {
        r.translation = ossa_vec3_scale(t, 1.0f / total);
        r.rotation = ossa_quat_normalize(q);
    }
    return r;
}

void ossa_player_update(ossa_player *p, float dt) {
    if (!p) return;
    for (uint32_t i = 0; i < p->layer_count; i++) {
        layer *l = &p->layers[i];
        if (l->sync) {
            bool lead = l->current.key != NULL;
            for (uint32_t k = 0; k < i && lead; k++)
                if (p->layers[k].sync == l->sync && p->layers[k].current.key) lead = false;
            if (lead) advance_group(p, i, dt);
        } else {
            step_state(&l->current, dt * l->current.speed);
        }
        if (l->fading) {
            step_state(&l->previous, dt * l->previous.speed);
            l->fade_elapsed += dt;
        }
    }
    p->root_delta = root_delta(p);
    ossa_transform r = ossa_transform_combine(p->root, p->root_delta);
    r.rotation = ossa_quat_normalize(r.rotation);
    p->root = r;
    for (uint32_t i = 0; i < p->layer_count; i++) {
        layer *l = &p->layers[i];
        if (l->fading && l->fade_elapsed >= l->fade_duration) { /* fade done */
            l->fading = false;
            stop_state(&l->previous);
        }
    }
    evaluate(p);
}

void ossa_player_set_speed(ossa_player *p, float speed) {
    if (p) p->layers[0].current.speed = speed;
}

float ossa_player_time(const ossa_player *p) { return ossa_player_layer_time(p, 0); }

const ossa_transform *ossa_player_pose(const ossa_player *p) { return p ? p->pose : NULL; }

ossa_result ossa_player_model(const ossa_player *p, ossa_mat4 *out, uint32_t out_count) {
    if (!p || !out) return OSSA_ERROR_INVALID_ARGUMENT;
    uint32_t n = p->skeleton->joint_count;
    if (out_count < n) return OSSA_ERROR_BUFFER_TOO_SMALL;
    if (n) memcpy(out, p->model, n * sizeof(ossa_mat4));
    return OSSA_OK;
}

ossa_result ossa_player_palette(const ossa_player *p, uint32_t skin, ossa_mat4 *out, uint32_t out_count) {
    if (!p || !out) return OSSA_ERROR_INVALID_ARGUMENT;
    const ossa_skeleton *s = p->skeleton;
    if (skin >= s->skin_count) return OSSA_ERROR_INVALID_ARGUMENT;
    ossa_palette_job job = {.skeleton = s, .skin = skin, .model = p->model, .model_count = s->joint_count,
                            .output = out, .output_count = out_count};
    return ossa_palette_job_run(&job);
}

float ossa_player_fade_weight(const ossa_player *p) { return p ? fade_weight(&p->layers[0]) : 1.0f; }

ossa_result ossa_player_layer_set_weight(ossa_player *p, uint32_t index, float weight) {
    layer *l = get_layer(p, index);
    if (!l || !isfinite(weight) || (l->mode == OSSA_PLAYER_LAYER_OVERRIDE && weight < 0.0f))
        return OSSA_ERROR_INVALID_ARGUMENT;
    l->weight = weight;
    return OSSA_OK;
}

float ossa_player_layer_weight(const ossa_player *p, uint32_t index) {
    return p && index < p->layer_count ? p->layers[index].weight : 0.0f;
}

ossa_result ossa_player_layer_set_speed(ossa_player *p, uint32_t index, float speed) {
    layer *l = get_layer(p, index);
    if (!l || !isfinite(speed)) return OSSA_ERROR_INVALID_ARGUMENT;
    l->current.speed = speed;
    return OSSA_OK;
}

ossa_result ossa_player_layer_set_mask(ossa_player *p, uint32_t index, const float *joint_weights,
                                       uint32_t weight_count) {
    layer *l = get_layer(p, index);
    if (!l) return OSSA_ERROR_INVALID_ARGUMENT;
    const uint32_t n = p->skeleton->joint_count;
    if (joint_weights) {
        if (weight_count < n) return OSSA_ERROR_BUFFER_TOO_SMALL;
        for (uint32_t j = 0; j < n; j++)
            if (!(joint_weights[j] >= 0.0f) || !isfinite(joint_weights[j])) return OSSA_ERROR_INVALID_ARGUMENT;
        if (n) memcpy(l->mask, joint_weights, n * sizeof(float));
    }
    l->has_mask = joint_weights != NULL;
    return OSSA_OK;
}

ossa_result ossa_player_layer_set_mask_joint(ossa_player *p, uint32_t index, const char *joint_name) {
    layer *l = get_layer(p, index);
    if (!l) return OSSA_ERROR_INVALID_ARGUMENT;
    if (!joint_name) {
        l->has_mask = false;
        return OSSA_OK;
    }
    ossa_result r = ossa_blend_mask_from_name(p->skeleton, joint_name, 1.0f, 0.0f, l->mask, p->skeleton->joint_count);
    if (r == OSSA_OK) l->has_mask = true;
    return r;
}

ossa_result ossa_player_layer_set_sync(ossa_player *p, uint32_t index, uint32_t group) {
    layer *l = get_layer(p, index);
    if (!l) return OSSA_ERROR_INVALID_ARGUMENT;
    l->sync = group;
    return OSSA_OK;
}

float ossa_player_layer_time(const ossa_player *p, uint32_t index) {
    return p && index < p->layer_count ? p->layers[index].current.time : 0.0f;
}

ossa_clip_source ossa_player_layer_source(const ossa_player *p, uint32_t index) {
    ossa_clip_source none = {NULL, NULL};
    if (!p || index >= p->layer_count) return none;
    ossa_clip_source playing = {p->layers[index].current.clip, p->layers[index].current.built};
    return playing;
}

static ossa_result bind(ossa_player *p, const void *clip, const ossa_root_motion *motion) {
    if (!p || !clip) return OSSA_ERROR_INVALID_ARGUMENT;
    for (uint32_t b = 0; b < p->binding_count; b++) {
        if (p->bindings[b].clip != clip) continue;
        if (motion) {
            p->bindings[b].motion = motion;
        } else {
            p->bindings[b] = p->bindings[--p->binding_count];
        }
        return OSSA_OK;
    }
    if (!motion) return OSSA_OK;
    if (p->binding_count == p->binding_capacity) {
        uint32_t cap = p->binding_capacity ? p->binding_capacity * 2 : 4;
        binding *nb = ossa__alloc_array(&p->allocator, cap, sizeof(binding));
        if (!nb) return OSSA_ERROR_OUT_OF_MEMORY;
        if (p->binding_count) memcpy(nb, p->bindings, p->binding_count * sizeof(binding));
        ossa__free(&p->allocator, p->bindings);
        p->bindings = nb;
        p->binding_capacity = cap;
    }
    p->bindings[p->binding_count].clip = clip;
    p->bindings[p->binding_count].motion = motion;
    p->binding_count++;
    return OSSA_OK;
}

void ossa_player_layer_step(const ossa_player *p, uint32_t index, float *from, float *advance) {
    const state *s = p && index < p->layer_count && p->layers[index].current.key ? &p->layers[index].current : NULL;
    if (from) *from = s ? s->from : 0.0f;
    if (advance) *advance = s ? s->advance : 0.0f;
}

ossa_result ossa_player_bind_root_motion(ossa_player *p, ossa_clip_source source, const ossa_root_motion *motion) {
    if (check_source(source, false) != OSSA_OK) return OSSA_ERROR_INVALID_ARGUMENT;
    return bind(p, source.clip ? (const void *)source.clip : (const void *)source.built, motion);
}

ossa_transform ossa_player_root_delta(const ossa_player *p) { return p ? p->root_delta : rigid_identity(); }
ossa_transform ossa_player_root_transform(const ossa_player *p) { return p ? p->root : rigid_identity(); }
void ossa_player_set_root_transform(ossa_player *p, ossa_transform root) {
    if (p) p->root = root;
}

void ossa_player_set_pose_hook(ossa_player *p, ossa_player_pose_hook hook, void *user) {
    if (!p) return;
    p->hook = hook;
    p->hook_user = user;
}
