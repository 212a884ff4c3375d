/* ossa_graph_create: the description resolved against a skeleton and clips, copied into one
 * allocation. The copy runs twice over the same code: once to measure (arena without memory:
 * nothing is written), once to fill. */
#include "anim/graph_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* JSON pointers are cut at the diagnostic's size on purpose. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

#include <ossa/blend.h>
#include <ossa/sample.h>

#include "core/alloc.h"

typedef struct arena {
    char *base;            /* NULL while measuring */
    ossa__layout layout;
} arena;

static void *take(arena *a, size_t count, size_t size) {
    size_t offset = ossa__layout_add(&a->layout, count, size);
    return a->base && !a->layout.overflow ? a->base + offset : NULL;
}

static const char *copy_string(arena *a, const char *s) {
    size_t n = strlen(s) + 1;
    char *out = take(a, n, 1);
    if (out) memcpy(out, s, n);
    return out;
}

/* ---- resolving names (before anything is allocated) ---- */

typedef struct resolver {
    const ossa_skeleton *skeleton;
    const ossa_graph_clip *clips;
    uint32_t clip_count;
    ossa_diagnostic *diag;
} resolver;

static int32_t find_clip(const resolver *r, const char *name) {
    for (uint32_t i = 0; i < r->clip_count; i++)
        if (r->clips[i].name && strcmp(r->clips[i].name, name) == 0) return (int32_t)i;
    return -1;
}

/* The clip `name` used at `path`: it exists and can play on the skeleton. */
static ossa_result resolve_clip(const resolver *r, const char *name, const char *path, uint32_t *out) {
    int32_t c = find_clip(r, name);
    if (c < 0) return ossa__graph_fail(r->diag, OSSA_ERROR_INVALID_DATA, path, "no clip \"%s\"", name);
    const ossa_graph_clip *clip = &r->clips[c];
    if (!clip->source.clip == !clip->source.built)
        return ossa__graph_fail(r->diag, OSSA_ERROR_INVALID_ARGUMENT, path,
                                "clip \"%s\": its source needs exactly one clip", name);
    const ossa_built_clip *b = clip->source.built;
    if (b && (ossa_built_clip_joint_count(b) > r->skeleton->joint_count ||
              !ossa_built_clip_matches(b, r->skeleton->rest, ossa_built_clip_joint_count(b))))
        return ossa__graph_fail(r->diag, OSSA_ERROR_INVALID_DATA, path,
                                "clip \"%s\" was built for another skeleton", name);
    *out = (uint32_t)c;
    return OSSA_OK;
}

static ossa_result resolve_states(const resolver *r, const ossa_graph_desc *desc) {
    char path[192];
    uint32_t index;
    for (uint32_t l = 0; l < desc->layer_count; l++) {
        const ossa_graph_layer_desc *layer = &desc->layers[l];
        if (layer->mask_joint && ossa_skeleton_find_joint(r->skeleton, layer->mask_joint) < 0) {
            snprintf(path, sizeof path, "/layers/%u/mask", l);
            return ossa__graph_fail(r->diag, OSSA_ERROR_INVALID_DATA, path, "no joint \"%s\"", layer->mask_joint);
        }
        for (uint32_t s = 0; s < layer->state_count; s++) {
            const ossa_graph_state_desc *st = &layer->states[s];
            ossa_result res = OSSA_OK;
            if (st->kind == OSSA_GRAPH_STATE_CLIP || st->kind == OSSA_GRAPH_STATE_ADDITIVE) {
                snprintf(path, sizeof path, "/layers/%u/states/%s/%s", l, st->name,
                         st->kind == OSSA_GRAPH_STATE_CLIP ? "clip" : "additive");
                res = resolve_clip(r, st->clip, path, &index);
            }
            for (uint32_t i = 0; i < st->sample_count && res == OSSA_OK && st->kind >= OSSA_GRAPH_STATE_BLEND_1D &&
                                 st->kind <= OSSA_GRAPH_STATE_BLEND_2D;
                 i++) {
                snprintf(path, sizeof path, "/layers/%u/states/%s/%s/clips/%u/0", l, st->name,
                         st->kind == OSSA_GRAPH_STATE_BLEND_1D ? "blend1d" : "blend2d", i);
                res = resolve_clip(r, st->samples[i].clip, path, &index);
            }
            if (res != OSSA_OK) return res;
        }
    }
    return OSSA_OK;
}

static void clip_range(const ossa_clip_source *s, float *start, float *end) {
    *start = s->clip ? s->clip->start : ossa_built_clip_start(s->built);
    *end = s->clip ? s->clip->end : ossa_built_clip_end(s->built);
}

static ossa_result resolve_events(const resolver *r, const ossa_graph_desc *desc) {
    char path[64];
    uint32_t c;
    for (uint32_t i = 0; i < desc->event_count; i++) {
        const ossa_graph_event_desc *e = &desc->events[i];
        snprintf(path, sizeof path, "/events/%u/clip", i);
        ossa_result res = resolve_clip(r, e->clip, path, &c);
        if (res != OSSA_OK) return res;
        float start, end;
        clip_range(&r->clips[c].source, &start, &end);
        if (e->time < start || e->time > end) {
            snprintf(path, sizeof path, "/events/%u/time", i);
            return ossa__graph_fail(r->diag, OSSA_ERROR_INVALID_DATA, path,
                                    "%g is outside the clip's [%g, %g]", (double)e->time,
                        (double)start, (double)end);
        }
    }
    return OSSA_OK;
}

/* ---- the copy ---- */

static void copy_parameters(arena *a, ossa_graph *g, const ossa_graph_desc *desc) {
    uint32_t n = desc->parameter_count;
    const char **names = take(a, n, sizeof *names);
    ossa_graph_parameter_type *types = take(a, n, sizeof *types);
    ossa_graph_value *initial = take(a, n, sizeof *initial);
    for (uint32_t i = 0; i < n; i++) {
        const char *name = copy_string(a, desc->parameters[i].name);
        if (!a->base) continue;
        names[i] = name;
        types[i] = desc->parameters[i].type;
        initial[i] = desc->parameters[i].initial;
    }
    g->parameter_names = names, g->parameter_types = types, g->parameter_initial = initial;
}

static void copy_state(arena *a, const resolver *r, const ossa_graph_state_desc *d, ossa__graph_state *s) {
    bool blend = d->kind == OSSA_GRAPH_STATE_BLEND_1D || d->kind == OSSA_GRAPH_STATE_BLEND_2D;
    uint32_t n = blend ? d->sample_count : d->kind == OSSA_GRAPH_STATE_EMPTY ? 0 : 1;
    const char *name = copy_string(a, d->name);
    uint32_t *clips = take(a, n, sizeof *clips);
    float *xs = take(a, n, sizeof *xs), *ys = take(a, n, sizeof *ys);
    if (!a->base) return;
    *s = (ossa__graph_state){.name = name, .kind = d->kind, .loop = blend || d->loop, .sync = blend && d->sync,
                             .speed = d->speed == 0.0f ? 1.0f : d->speed, .sample_count = n, .clips = clips,
                             .xs = xs, .ys = ys, .parameter_x = d->parameter_x, .parameter_y = d->parameter_y};
    for (uint32_t i = 0; i < n; i++) {
        int32_t c = find_clip(r, blend ? d->samples[i].clip : d->clip);
        clips[i] = (uint32_t)c;
        xs[i] = blend ? d->samples[i].x : 0.0f;
        ys[i] = blend ? d->samples[i].y : 0.0f;
    }
}

static void copy_transition(arena *a, const ossa_graph_transition_desc *d, ossa__graph_transition *t) {
    ossa_graph_instruction *code = take(a, d->condition_count, sizeof *code);
    if (!a->base) return;
    if (d->condition_count) memcpy(code, d->condition, d->condition_count * sizeof *code);
    *t = (ossa__graph_transition){.from = d->from, .to = d->to, .code = code, .code_count = d->condition_count,
                                  .has_exit_time = d->has_exit_time, .exit_time = d->exit_time,
                                  .duration = d->duration, .blend = d->blend};
}

static void copy_layer(arena *a, const resolver *r, const ossa_graph_layer_desc *d, ossa__graph_layer *l) {
    uint32_t joints = r->skeleton->joint_count;
    const char *name = copy_string(a, d->name);
    float *mask = d->mask_joint ? take(a, joints, sizeof *mask) : NULL;
    ossa__graph_state *states = take(a, d->state_count, sizeof *states);
    ossa__graph_transition *transitions = take(a, d->transition_count, sizeof *transitions);
    uint32_t max_samples = 1;
    for (uint32_t i = 0; i < d->state_count; i++) {
        copy_state(a, r, &d->states[i], states ? &states[i] : NULL);
        if (d->states[i].kind >= OSSA_GRAPH_STATE_BLEND_1D && d->states[i].kind <= OSSA_GRAPH_STATE_BLEND_2D &&
            d->states[i].sample_count > max_samples)
            max_samples = d->states[i].sample_count;
    }
    for (uint32_t i = 0; i < d->transition_count; i++)
        copy_transition(a, &d->transitions[i], transitions ? &transitions[i] : NULL);
    if (!a->base) return;
    if (mask) {
        int32_t root = ossa_skeleton_find_joint(r->skeleton, d->mask_joint);
        ossa_blend_mask_subtree(r->skeleton, (uint32_t)root, 1.0f, 0.0f, mask, joints);
    }
    *l = (ossa__graph_layer){.name = name, .mode = d->mode, .mask = mask, .weight = d->weight,
                             .weight_parameter = d->weight_parameter, .start_state = d->start_state,
                             .state_count = d->state_count, .transition_count = d->transition_count,
                             .states = states, .transitions = transitions, .max_samples = max_samples};
}

/* Every given clip with its events sorted by time (insertion sort per clip: events are few). */
static void copy_clips(arena *a, const resolver *r, const ossa_graph_desc *desc, ossa_graph *g) {
    ossa__graph_clip *clips = take(a, r->clip_count, sizeof *clips);
    const char **event_names = take(a, desc->event_count, sizeof *event_names);
    for (uint32_t e = 0; e < desc->event_count; e++) {
        const char *name = copy_string(a, desc->events[e].name);
        if (event_names) event_names[e] = name;
    }
    for (uint32_t c = 0; c < r->clip_count; c++) {
        uint32_t n = 0;
        for (uint32_t e = 0; e < desc->event_count; e++) n += find_clip(r, desc->events[e].clip) == (int32_t)c;
        float *times = take(a, n, sizeof *times);
        uint32_t *index = take(a, n, sizeof *index);
        if (!a->base) continue;
        ossa__graph_clip *gc = &clips[c];
        *gc = (ossa__graph_clip){.source = r->clips[c].source, .motion = r->clips[c].root_motion,
                                 .event_count = n, .event_times = times, .event_index = index};
        if (!!gc->source.clip == !!gc->source.built) continue; /* unused and invalid: never played */
        clip_range(&gc->source, &gc->start, &gc->end);
        gc->joint_count = gc->source.built ? ossa_built_clip_joint_count(gc->source.built) : r->skeleton->joint_count;
        uint32_t k = 0;
        for (uint32_t e = 0; e < desc->event_count; e++) {
            if (find_clip(r, desc->events[e].clip) != (int32_t)c) continue;
            uint32_t at = k++;
            while (at > 0 && times[at - 1] > desc->events[e].time) {
                times[at] = times[at - 1], index[at] = index[at - 1];
                at--;
            }
            times[at] = desc->events[e].time, index[at] = e;
        }
    }
    g->clips = clips, g->event_names = event_names;
}

static void copy_graph(arena *a, const resolver *r, const ossa_graph_desc *desc, ossa_graph *g) {
    copy_parameters(a, g, desc);
    ossa__graph_layer *layers = take(a, desc->layer_count, sizeof *layers);
    for (uint32_t l = 0; l < desc->layer_count; l++) copy_layer(a, r, &desc->layers[l], layers ? &layers[l] : NULL);
    g->layers = layers;
    copy_clips(a, r, desc, g);
}

/* The sampling contexts' capacity (the largest built clip) and one context's bytes. */
static ossa_result measure_contexts(ossa_graph *g) {
    for (uint32_t c = 0; c < g->clip_count; c++) {
        const ossa_built_clip *b = g->clips[c].source.built;
        if (!b || g->clips[c].source.clip) continue;
        if (ossa_built_clip_joint_count(b) > g->context_joints) g->context_joints = ossa_built_clip_joint_count(b);
        if (ossa_built_clip_weight_count(b) > g->context_weights) g->context_weights = ossa_built_clip_weight_count(b);
    }
    if (!g->context_joints) return OSSA_OK;
    ossa_sampling_context *probe;
    ossa_result r = ossa_sampling_context_create(g->context_joints, g->context_weights, &g->allocator, &probe);
    if (r != OSSA_OK) return r;
    g->context_bytes = ossa_sampling_context_size(probe);
    ossa_sampling_context_destroy(probe);
    return OSSA_OK;
}

ossa_result ossa_graph_create(const ossa_graph_desc *desc, const ossa_skeleton *skeleton, const ossa_graph_clip *clips,
                              uint32_t clip_count, const ossa_allocator *allocator, ossa_graph **out,
                              ossa_diagnostic *diag) {
    if (out) *out = NULL;
    if (!desc || !skeleton || !out || (clip_count && !clips))
        return ossa__graph_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "", "NULL description, skeleton, clips or out");
    ossa_result res = ossa_graph_desc_validate(desc, diag);
    if (res != OSSA_OK) return res;
    resolver r = {skeleton, clips, clip_count, diag};
    if ((res = resolve_states(&r, desc)) != OSSA_OK || (res = resolve_events(&r, desc)) != OSSA_OK) return res;

    arena a = {0};
    take(&a, 1, sizeof(ossa_graph));
    ossa_graph probe = {0};
    copy_graph(&a, &r, desc, &probe);
    if (a.layout.overflow) return ossa__graph_fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "", "the graph's size overflows");
    ossa_allocator resolved = ossa__allocator_resolve(allocator);
    char *block = ossa__alloc_array(&resolved, 1, a.layout.size);
    if (!block) return ossa__graph_fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "", "%zu bytes", a.layout.size);
    a = (arena){.base = block};
    ossa_graph *g = take(&a, 1, sizeof *g);
    *g = (ossa_graph){.allocator = resolved, .skeleton = skeleton, .joint_count = skeleton->joint_count,
                      .parameter_count = desc->parameter_count, .layer_count = desc->layer_count,
                      .clip_count = clip_count, .event_count = desc->event_count};
    copy_graph(&a, &r, desc, g);
    for (uint32_t l = 0; l < g->layer_count; l++)
        if (g->layers[l].max_samples > g->max_samples) g->max_samples = g->layers[l].max_samples;
    if ((res = measure_contexts(g)) != OSSA_OK) {
        ossa__free(&resolved, block);
        return ossa__graph_fail(diag, res, "", "a sampling context could not be made");
    }
    g->instance_block = ossa__graph_instance_block(g);
    *out = g;
    return OSSA_OK;
}

void ossa_graph_destroy(ossa_graph *graph) {
    if (!graph) return;
    ossa_allocator a = graph->allocator;
    ossa__free(&a, graph);
}

ossa_result ossa_graph_clips_from_asset(const ossa_asset *asset, bool prefer_built, ossa_graph_clip *out,
                                        uint32_t capacity, uint32_t *count) {
    if (!asset || !count || (capacity && !out)) return OSSA_ERROR_INVALID_ARGUMENT;
    uint32_t n = asset->clip_count ? asset->clip_count : asset->built_clip_count;
    *count = n;
    if (capacity < n) return OSSA_ERROR_BUFFER_TOO_SMALL;
    for (uint32_t i = 0; i < n; i++) {
        const ossa_clip *clip = i < asset->clip_count ? asset->clips[i] : NULL;
        const ossa_built_clip *built = i < asset->built_clip_count ? asset->built_clips[i] : NULL;
        bool use_built = built && (prefer_built || !clip);
        out[i] = (ossa_graph_clip){.name = use_built ? ossa_built_clip_name(built) : clip->name,
                                   .source = use_built ? ossa_source_built(built) : ossa_source_editable(clip)};
    }
    return OSSA_OK;
}
