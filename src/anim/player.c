/* Playback controller (the seed's Animator): clip clock, cursors, cross-fades, palettes
 * (see ossa/player.h). All buffers are allocated in create / play / crossfade. */
#include <ossa/player.h>

#include <string.h>

#include <ossa/pose.h>

#include "core/alloc.h"

typedef struct layer {
    const ossa_clip *clip;
    float time;          /* clip-adjusted seconds */
    float speed;
    bool loop;
    uint32_t *cursors;   /* cursor_capacity entries */
    uint32_t cursor_capacity;
} layer;

struct ossa_player {
    ossa_allocator allocator;
    const ossa_skeleton *skeleton;
    ossa_transform *pose;      /* joint_count: current local pose */
    ossa_transform *fade_pose; /* joint_count: the clip being faded out */
    ossa_mat4 *model;          /* joint_count: model-space matrices of pose */
    layer current, previous;   /* previous.clip != NULL while its clip is fading out */
    bool fading;               /* a fade is running (from previous.clip, or from the frozen fade_pose) */
    float fade_elapsed, fade_duration;
};

/* Model-space matrices of the current pose (the player's buffers always fit). */
static void update_model(ossa_player *p) {
    uint32_t n = p->skeleton->joint_count;
    ossa_local_to_model_job job = {.skeleton = p->skeleton, .input = p->pose, .input_count = n,
                                   .output = p->model, .output_count = n};
    ossa_local_to_model_job_run(&job);
}

/* Samples one layer's clip into out (joint_count transforms) from the rest pose. */
static void sample_layer(const ossa_player *p, layer *l, ossa_transform *out) {
    uint32_t n = p->skeleton->joint_count;
    ossa_clip_sample_job job = {.clip = l->clip, .time = l->time, .loop = l->loop, .lookup = OSSA_LOOKUP_CURSOR,
                                .cursors = l->cursors, .cursor_count = l->cursor_capacity,
                                .reference = p->skeleton->rest, .reference_count = n, .output = out,
                                .output_count = n};
    ossa_clip_sample_job_run(&job);
}

ossa_result ossa_player_create(const ossa_skeleton *skeleton, const ossa_allocator *allocator, ossa_player **out) {
    if (!out) return OSSA_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (!skeleton) return OSSA_ERROR_INVALID_ARGUMENT;
    uint32_t n = skeleton->joint_count;
    ossa__layout L = {0, false};
    size_t o_p = ossa__layout_add(&L, 1, sizeof(ossa_player));
    size_t o_pose = ossa__layout_add(&L, n, sizeof(ossa_transform));
    size_t o_fade = ossa__layout_add(&L, n, sizeof(ossa_transform));
    size_t o_model = ossa__layout_add(&L, n, sizeof(ossa_mat4));
    if (L.overflow) return OSSA_ERROR_OUT_OF_MEMORY;
    unsigned char *base = ossa__alloc(allocator, L.size);
    if (!base) return OSSA_ERROR_OUT_OF_MEMORY;
    memset(base, 0, L.size);
    ossa_player *p = (ossa_player *)(base + o_p);
    p->allocator = ossa__allocator_resolve(allocator);
    p->skeleton = skeleton;
    p->pose = (ossa_transform *)(base + o_pose);
    p->fade_pose = (ossa_transform *)(base + o_fade);
    p->model = (ossa_mat4 *)(base + o_model);
    if (n) memcpy(p->pose, skeleton->rest, n * sizeof(ossa_transform));
    update_model(p);
    *out = p;
    return OSSA_OK;
}

void ossa_player_destroy(ossa_player *player) {
    if (!player) return;
    ossa_allocator a = player->allocator;
    ossa__free(&a, player->current.cursors);
    ossa__free(&a, player->previous.cursors);
    ossa__free(&a, player);
}

/* Makes sure l has room for clip's cursors and resets them (allocates only when growing). */
static ossa_result reserve_cursors(ossa_player *p, layer *l, const ossa_clip *clip) {
    uint32_t need = ossa_clip_cursor_count(clip);
    if (need > l->cursor_capacity) {
        uint32_t *c = ossa__alloc_array(&p->allocator, need, sizeof(uint32_t));
        if (!c) return OSSA_ERROR_OUT_OF_MEMORY;
        ossa__free(&p->allocator, l->cursors);
        l->cursors = c;
        l->cursor_capacity = need;
    }
    if (l->cursors) memset(l->cursors, 0, l->cursor_capacity * sizeof(uint32_t));
    return OSSA_OK;
}

/* Samples the layers into the pose, blends a running fade, refreshes the model matrices. */
static void evaluate(ossa_player *p) {
    const ossa_skeleton *s = p->skeleton;
    uint32_t n = s->joint_count;
    if (!p->current.clip) {
        if (n) memcpy(p->pose, s->rest, n * sizeof(ossa_transform));
    } else {
        sample_layer(p, &p->current, p->pose);
        if (p->fading) {
            if (p->previous.clip) sample_layer(p, &p->previous, p->fade_pose);
            float w = p->fade_elapsed / p->fade_duration;
            if (!(w > 0.0f)) w = 0.0f;
            if (w > 1.0f) w = 1.0f;
            ossa_pose_blend(p->fade_pose, p->pose, w, n, p->pose);
        }
    }
    update_model(p);
}

ossa_result ossa_player_play(ossa_player *player, const ossa_clip *clip, float speed, bool loop) {
    if (!player || !clip) return OSSA_ERROR_INVALID_ARGUMENT;
    ossa_result r = reserve_cursors(player, &player->current, clip);
    if (r != OSSA_OK) return r;
    player->current.clip = clip;
    player->current.time = clip->start;
    player->current.speed = speed;
    player->current.loop = loop;
    player->previous.clip = NULL;
    player->fading = false;
    player->fade_elapsed = player->fade_duration = 0.0f;
    evaluate(player);
    return OSSA_OK;
}

ossa_result ossa_player_crossfade(ossa_player *player, const ossa_clip *clip, float duration, float speed, bool loop) {
    if (!player || !clip) return OSSA_ERROR_INVALID_ARGUMENT;
    if (!(duration > 0.0f) || !player->current.clip) return ossa_player_play(player, clip, speed, loop);
    if (player->fading) {
        /* A fade is already running: fade from the pose as it is now (frozen), so nothing jumps. */
        ossa_result r = reserve_cursors(player, &player->current, clip);
        if (r != OSSA_OK) return r;
        uint32_t n = player->skeleton->joint_count;
        if (n) memcpy(player->fade_pose, player->pose, n * sizeof(ossa_transform));
        player->previous.clip = NULL;
    } else {
        /* The current clip becomes the one fading out; the layers swap their cursor buffers. */
        layer old = player->current;
        player->current = player->previous;
        player->previous = old;
        ossa_result r = reserve_cursors(player, &player->current, clip);
        if (r != OSSA_OK) {
            layer back = player->current;
            player->current = player->previous;
            player->previous = back;
            player->previous.clip = NULL;
            return r;
        }
    }
    player->current.clip = clip;
    player->current.time = clip->start;
    player->current.speed = speed;
    player->current.loop = loop;
    player->fading = true;
    player->fade_elapsed = 0.0f;
    player->fade_duration = duration;
    evaluate(player);
    return OSSA_OK;
}

static void advance(layer *l, float dt) {
    if (!l->clip) return;
    l->time = ossa_clip_adjust_time(l->clip, l->time + dt * l->speed, l->loop);
}

void ossa_player_update(ossa_player *player, float dt) {
    if (!player) return;
    advance(&player->current, dt);
    if (player->fading) {
        advance(&player->previous, dt);
        player->fade_elapsed += dt;
        if (player->fade_elapsed >= player->fade_duration) { /* fade done */
            player->fading = false;
            player->previous.clip = NULL;
        }
    }
    evaluate(player);
}

void ossa_player_set_speed(ossa_player *player, float speed) {
    if (player) player->current.speed = speed;
}

float ossa_player_time(const ossa_player *player) { return player ? player->current.time : 0.0f; }

const ossa_clip *ossa_player_clip(const ossa_player *player) { return player ? player->current.clip : NULL; }

const ossa_transform *ossa_player_pose(const ossa_player *player) { return player ? player->pose : NULL; }

void ossa_player_model(const ossa_player *player, ossa_mat4 *out) {
    if (!player || !out) return;
    memcpy(out, player->model, player->skeleton->joint_count * sizeof(ossa_mat4));
}

ossa_result ossa_player_palette(const ossa_player *player, uint32_t skin, ossa_mat4 *out) {
    if (!player || !out) return OSSA_ERROR_INVALID_ARGUMENT;
    const ossa_skeleton *s = player->skeleton;
    if (skin >= s->skin_count) return OSSA_ERROR_INVALID_ARGUMENT;
    ossa_palette_job job = {.skeleton = s, .skin = skin, .model = player->model, .model_count = s->joint_count,
                            .output = out, .output_count = s->joint_count};
    return ossa_palette_job_run(&job);
}

float ossa_player_fade_weight(const ossa_player *player) {
    if (!player || !player->fading) return 1.0f;
    float w = player->fade_elapsed / player->fade_duration;
    return w < 0.0f ? 0.0f : (w > 1.0f ? 1.0f : w);
}
