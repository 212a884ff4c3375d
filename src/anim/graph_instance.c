/* Graph instances: per layer, the clocks of the playing states, the transitions and their
 * blends, then the layers composited; all through the jobs (see ossa/graph.h for the
 * semantics). An instance is one block plus its sampling contexts, allocated at creation;
 * ossa_graph_update allocates nothing. */
#include "anim/graph_internal.h"

#include <math.h>
#include <string.h>

#include <ossa/blend.h>
#include <ossa/events.h>
#include <ossa/sample.h>

#include "core/alloc.h"

enum { MIX_NONE, MIX_CROSSFADE, MIX_CROSSFADE_FROZEN, MIX_INERTIALIZE, MIX_DEAD_BLEND };

/* One playing state: its clocks and the last step of each of its clips. */
typedef struct slot {
    uint32_t state;            /* OSSA_GRAPH_NONE: unused */
    float elapsed;             /* seconds since entry */
    double cycles, cycles_before; /* normalised time after and before the last step */
    float phase;               /* synced blend spaces: the shared phase in [0, 1) */
    float *times;              /* max_samples clip times (seconds) */
    float *from, *advance;     /* max_samples: the last step of each clip */
    float *weights;            /* max_samples: the clips' weights this update */
    ossa_sampling_context **contexts; /* max_samples, or NULL without built clips */
} slot;

typedef struct layer_state {
    slot slots[2];
    uint32_t current;          /* slots[current] plays the active state */
    int mix;                   /* MIX_*: the running transition's blend */
    uint32_t transition, from_state;
    float elapsed, duration;
    bool synced_pair;          /* a cross-fade between two synced blend spaces */
    float weight;
    ossa_transform *out, *hist0, *hist1, *frozen; /* joint_count each */
    uint32_t hist_count;
    ossa_inertialize_joint *inertial;
    ossa_dead_blend_joint *dead;
} layer_state;

struct ossa_graph_instance {
    ossa_allocator allocator;
    const ossa_graph *graph;
    layer_state *layers;
    ossa_transform *acc[2];    /* the composite, ping-pong */
    uint32_t acc_current;
    ossa_transform *pose;      /* the last update's pose */
    ossa_transform *scratch[2];/* old / new state poses of a cross-fade */
    ossa_transform **sample_poses; /* max_samples */
    ossa_transform *identity;  /* the identity delta */
    float *mask_in, *mask_out; /* joint_count */
    ossa_blend_layer *blend_layers; /* max_samples */
    uint32_t context_count;
    ossa_graph_output *output; /* during an update */
    ossa_graph_value *parameters;
};

typedef struct carve {
    char *base;
    ossa__layout layout;
} carve;

static void *take(carve *c, size_t count, size_t size) {
    size_t offset = ossa__layout_add(&c->layout, count, size);
    return c->base && !c->layout.overflow ? c->base + offset : NULL;
}

/* The instance's block: measured (base NULL) or carved, by the same code. */
static void layout_instance(carve *c, const ossa_graph *g, ossa_graph_instance *inst) {
    uint32_t n = g->joint_count, m = g->max_samples ? g->max_samples : 1;
    size_t pose = sizeof(ossa_transform);
    take(c, 1, sizeof *inst);
    layer_state *layers = take(c, g->layer_count, sizeof *layers);
    ossa_transform *acc0 = take(c, n, pose), *acc1 = take(c, n, pose), *final = take(c, n, pose);
    ossa_transform *s0 = take(c, n, pose), *s1 = take(c, n, pose), *identity = take(c, n, pose);
    ossa_transform **sample_poses = take(c, m, sizeof *sample_poses);
    for (uint32_t i = 0; i < m; i++) {
        ossa_transform *p = take(c, n, pose);
        if (c->base) sample_poses[i] = p;
    }
    float *mask_in = take(c, n, sizeof(float)), *mask_out = take(c, n, sizeof(float));
    ossa_blend_layer *blend_layers = take(c, m, sizeof *blend_layers);
    for (uint32_t l = 0; l < g->layer_count; l++) {
        layer_state ls = {0};
        for (int k = 0; k < 2; k++) {
            uint32_t lm = g->layers[l].max_samples;
            slot *s = &ls.slots[k];
            s->times = take(c, lm, sizeof(float)), s->from = take(c, lm, sizeof(float));
            s->advance = take(c, lm, sizeof(float)), s->weights = take(c, lm, sizeof(float));
            s->contexts = g->context_joints ? take(c, lm, sizeof *s->contexts) : NULL;
        }
        ls.out = take(c, n, pose), ls.hist0 = take(c, n, pose), ls.hist1 = take(c, n, pose);
        ls.frozen = take(c, n, pose);
        ls.inertial = take(c, n, sizeof *ls.inertial);
        ls.dead = take(c, n, sizeof *ls.dead);
        if (c->base) layers[l] = ls;
    }
    if (!c->base) return;
    inst->layers = layers, inst->acc[0] = acc0, inst->acc[1] = acc1, inst->pose = final;
    inst->scratch[0] = s0, inst->scratch[1] = s1, inst->identity = identity;
    inst->sample_poses = sample_poses, inst->mask_in = mask_in, inst->mask_out = mask_out;
    inst->blend_layers = blend_layers;
}

size_t ossa__graph_instance_block(const ossa_graph *graph) {
    carve c = {0};
    layout_instance(&c, graph, NULL);
    return c.layout.overflow ? SIZE_MAX : c.layout.size;
}

static uint32_t context_count(const ossa_graph *g) {
    if (!g->context_joints) return 0;
    uint32_t n = 0;
    for (uint32_t l = 0; l < g->layer_count; l++) n += 2 * g->layers[l].max_samples;
    return n;
}

size_t ossa_graph_instance_size(const ossa_graph *graph) {
    if (!graph) return 0;
    return graph->instance_block + (size_t)context_count(graph) * graph->context_bytes;
}

const ossa_graph *ossa_graph_instance_graph(const ossa_graph_instance *instance) {
    return instance ? instance->graph : NULL;
}

const ossa_transform *ossa_graph_instance_pose(const ossa_graph_instance *instance) {
    return instance ? instance->pose : NULL;
}

/* ---- clocks ---- */

static float clip_duration(const ossa__graph_clip *c) { return c->end - c->start; }

static const ossa__graph_state *state_of(const ossa_graph *g, uint32_t layer, const slot *s) {
    return &g->layers[layer].states[s->state];
}

/* Enters `state` in slot s at the given phase (synced blend spaces), clocks at the start. */
static void enter_slot(const ossa_graph *g, uint32_t layer, slot *s, uint32_t state, float phase) {
    s->state = state;
    s->elapsed = 0.0f;
    s->cycles = s->cycles_before = 0.0;
    s->phase = phase;
    const ossa__graph_state *st = &g->layers[layer].states[state];
    for (uint32_t i = 0; i < st->sample_count; i++) {
        const ossa__graph_clip *c = &g->clips[st->clips[i]];
        float d = clip_duration(c);
        s->times[i] = st->sync ? c->start + phase * d : st->speed < 0.0f && !st->loop ? c->end : c->start;
        s->from[i] = s->times[i], s->advance[i] = 0.0f;
        s->weights[i] = st->sample_count == 1 ? 1.0f : 0.0f;
    }
}

/* The state's clip weights from the parameters. */
static void slot_weights(const ossa_graph *g, uint32_t layer, slot *s, const ossa_graph_value *params) {
    const ossa__graph_state *st = state_of(g, layer, s);
    if (st->kind == OSSA_GRAPH_STATE_BLEND_1D) {
        if (ossa_blend_space_1d(st->xs, st->sample_count, params[st->parameter_x].number, s->weights) != OSSA_OK)
            for (uint32_t i = 0; i < st->sample_count; i++) s->weights[i] = i == 0 ? 1.0f : 0.0f;
    } else if (st->kind == OSSA_GRAPH_STATE_BLEND_2D) {
        if (ossa_blend_space_2d(st->xs, st->ys, st->sample_count, params[st->parameter_x].number,
                                params[st->parameter_y].number, s->weights) != OSSA_OK)
            for (uint32_t i = 0; i < st->sample_count; i++) s->weights[i] = i == 0 ? 1.0f : 0.0f;
    } else {
        for (uint32_t i = 0; i < st->sample_count; i++) s->weights[i] = 1.0f;
    }
}

/* The weight-averaged cycle of a blend space (or the clip's duration). */
static float slot_cycle(const ossa_graph *g, uint32_t layer, const slot *s) {
    const ossa__graph_state *st = state_of(g, layer, s);
    double num = 0.0, den = 0.0;
    for (uint32_t i = 0; i < st->sample_count; i++) {
        num += (double)s->weights[i] * clip_duration(&g->clips[st->clips[i]]);
        den += s->weights[i];
    }
    return den > 0.0 ? (float)(num / den) : 0.0f;
}

static float wrap_time(const ossa__graph_clip *c, float t) {
    float d = clip_duration(c);
    if (!(d > 0.0f)) return c->start;
    float r = fmodf(t - c->start, d);
    if (r < 0.0f) r += d;
    return c->start + r;
}

/* A one-clip state: the clip's clock, normalised time held in [0, 1] without loop. */
static void advance_clip(const ossa_graph *g, const ossa__graph_state *st, slot *s, float step) {
    const ossa__graph_clip *c = &g->clips[st->clips[0]];
    float d = clip_duration(c), from = s->times[0];
    s->from[0] = from;
    if (st->loop) {
        s->advance[0] = step;
        s->times[0] = wrap_time(c, from + step);
        s->cycles += d > 0.0f ? (double)step / d : (step != 0.0f ? 1.0 : 0.0);
        return;
    }
    float to = fminf(fmaxf(from + step, c->start), c->end);
    s->advance[0] = to - from;
    s->times[0] = to;
    s->cycles = d > 0.0f ? (st->speed < 0.0f ? (c->end - to) / d : (to - c->start) / d) : 1.0;
}

/* A blend space: one phase for every clip (sync, on `cycle` seconds), or a clock each. */
static void advance_blend(const ossa_graph *g, const ossa__graph_state *st, slot *s, float step, float cycle) {
    double dp = cycle > 0.0f ? (double)step / cycle : 0.0;
    s->cycles += dp;
    float phase_from = s->phase;
    if (st->sync) s->phase = ossa_sync_advance(s->phase, step, cycle);
    for (uint32_t i = 0; i < st->sample_count; i++) {
        const ossa__graph_clip *c = &g->clips[st->clips[i]];
        float d = clip_duration(c);
        s->from[i] = s->times[i];
        s->advance[i] = st->sync ? (float)(dp * d) : step;
        s->times[i] = st->sync ? c->start + s->phase * d : wrap_time(c, s->times[i] + step);
        if (st->sync) s->from[i] = c->start + phase_from * d;
    }
}

/* Moves a slot's clocks by dt (cycle: the synced cycle, < 0 = the slot's own). */
static void advance_slot(const ossa_graph *g, uint32_t layer, slot *s, float dt, float cycle) {
    const ossa__graph_state *st = state_of(g, layer, s);
    float step = dt * st->speed;
    s->elapsed += dt;
    s->cycles_before = s->cycles;
    if (st->kind == OSSA_GRAPH_STATE_EMPTY) {
        s->cycles += dt; /* one "cycle" per second: exit times of an empty state are in seconds */
    } else if (st->kind == OSSA_GRAPH_STATE_CLIP || st->kind == OSSA_GRAPH_STATE_ADDITIVE) {
        advance_clip(g, st, s, step);
    } else {
        advance_blend(g, st, s, step, cycle >= 0.0f ? cycle : slot_cycle(g, layer, s));
    }
}

/* ---- poses ---- */

static void sample_clip(const ossa_graph_instance *inst, const ossa__graph_clip *c, float time, bool loop,
                        ossa_sampling_context *context, ossa_transform *out) {
    const ossa_skeleton *sk = inst->graph->skeleton;
    uint32_t n = sk->joint_count;
    if (c->source.built) {
        uint32_t bn = c->joint_count;
        if (bn < n) memcpy(out + bn, sk->rest + bn, (n - bn) * sizeof *out);
        ossa_sample_job job = {.clip = c->source.built, .context = context, .time = time, .loop = loop,
                               .output = out, .output_count = n, .reference = sk->rest, .reference_count = n};
        if (ossa_sample_job_run(&job) != OSSA_OK) memcpy(out, sk->rest, n * sizeof *out);
        return;
    }
    ossa_clip_sample_job job = {.clip = c->source.clip, .time = time, .loop = loop, .reference = sk->rest,
                                .reference_count = n, .output = out, .output_count = n};
    if (ossa_clip_sample_job_run(&job) != OSSA_OK) memcpy(out, sk->rest, n * sizeof *out);
}

/* The pose of the state in slot s; `below` is what an override layer's empty state shows. */
static void evaluate_slot(ossa_graph_instance *inst, uint32_t layer, slot *s, const ossa_transform *below,
                          ossa_transform *out) {
    const ossa_graph *g = inst->graph;
    const ossa__graph_state *st = state_of(g, layer, s);
    uint32_t n = g->joint_count;
    if (st->kind == OSSA_GRAPH_STATE_EMPTY) {
        bool additive = g->layers[layer].mode == OSSA_GRAPH_LAYER_ADDITIVE;
        memcpy(out, additive ? inst->identity : below, n * sizeof *out);
        return;
    }
    uint32_t used = 0, last = 0;
    for (uint32_t i = 0; i < st->sample_count; i++)
        if (s->weights[i] > 0.0f) used++, last = i;
    if (used <= 1) {
        sample_clip(inst, &g->clips[st->clips[last]], s->times[last], st->loop,
                    s->contexts ? s->contexts[last] : NULL, out);
        return;
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < st->sample_count; i++) {
        if (!(s->weights[i] > 0.0f)) continue;
        sample_clip(inst, &g->clips[st->clips[i]], s->times[i], true, s->contexts ? s->contexts[i] : NULL,
                    inst->sample_poses[k]);
        inst->blend_layers[k] = (ossa_blend_layer){.transforms = inst->sample_poses[k], .transform_count = n,
                                                   .weight = s->weights[i]};
        k++;
    }
    ossa_blend_job job = {.layers = inst->blend_layers, .layer_count = k, .rest = g->skeleton->rest,
                          .rest_count = n, .output = out, .output_count = n};
    ossa_blend_job_run(&job);
}

/* The layer's pose under its running transition, into ls->out. */
static void evaluate_layer(ossa_graph_instance *inst, uint32_t layer, const ossa_transform *below) {
    layer_state *ls = &inst->layers[layer];
    uint32_t n = inst->graph->joint_count;
    slot *cur = &ls->slots[ls->current], *old = &ls->slots[ls->current ^ 1u];
    float w = ls->duration > 0.0f ? fminf(ls->elapsed / ls->duration, 1.0f) : 1.0f;
    if (ls->mix == MIX_CROSSFADE || ls->mix == MIX_CROSSFADE_FROZEN) {
        if (ls->mix == MIX_CROSSFADE) evaluate_slot(inst, layer, old, below, inst->scratch[0]);
        evaluate_slot(inst, layer, cur, below, inst->scratch[1]);
        ossa_blend_layer mix[2] = {
            {.transforms = ls->mix == MIX_CROSSFADE ? inst->scratch[0] : ls->frozen, .transform_count = n,
             .weight = 1.0f - w},
            {.transforms = inst->scratch[1], .transform_count = n, .weight = w}};
        ossa_blend_job job = {.layers = mix, .layer_count = 2, .rest = inst->graph->skeleton->rest, .rest_count = n,
                              .output = ls->out, .output_count = n};
        ossa_blend_job_run(&job);
        return;
    }
    evaluate_slot(inst, layer, cur, below, ls->out);
    if (ls->mix == MIX_INERTIALIZE) {
        ossa_inertialize_apply_job job = {.state = ls->inertial, .state_count = n, .target = ls->out,
                                          .target_count = n, .time = ls->elapsed, .output = ls->out,
                                          .output_count = n};
        ossa_inertialize_apply_job_run(&job);
    } else if (ls->mix == MIX_DEAD_BLEND) {
        ossa_dead_blend_apply_job job = {.state = ls->dead, .state_count = n, .target = ls->out, .target_count = n,
                                         .time = ls->elapsed, .duration = ls->duration, .output = ls->out,
                                         .output_count = n};
        ossa_dead_blend_apply_job_run(&job);
    }
}

/* ---- events and root motion ---- */

static void push_event(ossa_graph_instance *inst, ossa_graph_event event) {
    ossa_graph_output *o = inst->output;
    if (o->event_count < o->event_capacity) o->events[o->event_count] = event;
    if (o->event_count < UINT32_MAX) o->event_count++;
}

/* The clip events crossed by slot s's last step, each with the clip's weight times `fade`. */
static void slot_events(ossa_graph_instance *inst, uint32_t layer, const slot *s, float fade) {
    const ossa_graph *g = inst->graph;
    const ossa__graph_state *st = state_of(g, layer, s);
    uint32_t fired[16];
    for (uint32_t i = 0; i < st->sample_count; i++) {
        const ossa__graph_clip *c = &g->clips[st->clips[i]];
        if (!c->event_count || !(s->weights[i] > 0.0f) || s->advance[i] == 0.0f) continue;
        ossa_event_job job = {.times = c->event_times, .time_count = c->event_count, .start = c->start,
                              .end = c->end, .loop = st->loop, .from = s->from[i], .advance = s->advance[i],
                              .fired = fired, .fired_capacity = 16};
        ossa_event_job_run(&job);
        uint32_t count = job.fired_count < 16 ? job.fired_count : 16;
        for (uint32_t k = 0; k < count; k++) {
            uint32_t e = c->event_index[fired[k]];
            push_event(inst, (ossa_graph_event){.kind = OSSA_GRAPH_EVENT_CLIP, .layer = layer, .state = s->state,
                                                .event = e, .transition = OSSA_GRAPH_NONE,
                                                .name = g->event_names[e], .weight = s->weights[i] * fade});
        }
    }
}

typedef struct motion_sum {
    ossa_vec3 translation;
    ossa_quat rotation;
    float weight;
    bool any;
} motion_sum;

/* Adds slot s's clips' root-motion deltas with weight clip weight x fade. */
static void slot_motion(const ossa_graph *g, uint32_t layer, const slot *s, float fade, motion_sum *sum) {
    const ossa__graph_state *st = state_of(g, layer, s);
    for (uint32_t i = 0; i < st->sample_count; i++) {
        float w = s->weights[i] * fade;
        if (!(w > 0.0f)) continue;
        const ossa__graph_clip *c = &g->clips[st->clips[i]];
        ossa_transform d = ossa_transform_identity();
        if (c->motion) {
            ossa_root_motion_job job = {.motion = c->motion, .from = s->from[i], .advance = s->advance[i],
                                        .loop = st->loop, .delta = &d};
            if (ossa_root_motion_job_run(&job) == OSSA_OK) sum->any = true;
        }
        sum->translation = ossa_vec3_add(sum->translation, ossa_vec3_scale(d.translation, w));
        if (ossa_quat_dot(sum->rotation, d.rotation) < 0.0f)
            d.rotation = (ossa_quat){-d.rotation.x, -d.rotation.y, -d.rotation.z, -d.rotation.w};
        sum->rotation = (ossa_quat){sum->rotation.x + w * d.rotation.x, sum->rotation.y + w * d.rotation.y,
                                    sum->rotation.z + w * d.rotation.z, sum->rotation.w + w * d.rotation.w};
        sum->weight += w;
    }
}

static float fade_weight(const layer_state *ls) {
    if (ls->mix != MIX_CROSSFADE && ls->mix != MIX_CROSSFADE_FROZEN) return 1.0f;
    return ls->duration > 0.0f ? fminf(ls->elapsed / ls->duration, 1.0f) : 1.0f;
}

static void layer_outputs(ossa_graph_instance *inst, uint32_t layer) {
    layer_state *ls = &inst->layers[layer];
    float w = fade_weight(ls);
    slot_events(inst, layer, &ls->slots[ls->current], w);
    if (ls->mix == MIX_CROSSFADE) slot_events(inst, layer, &ls->slots[ls->current ^ 1u], 1.0f - w);
    if (layer != 0) return;
    motion_sum sum = {.rotation = {0, 0, 0, 0}};
    slot_motion(inst->graph, layer, &ls->slots[ls->current], w, &sum);
    if (ls->mix == MIX_CROSSFADE) slot_motion(inst->graph, layer, &ls->slots[ls->current ^ 1u], 1.0f - w, &sum);
    ossa_transform d = ossa_transform_identity();
    if (sum.any && sum.weight > 0.0f) {
        d.translation = ossa_vec3_scale(sum.translation, 1.0f / sum.weight);
        d.rotation = ossa_quat_normalize(sum.rotation);
    }
    inst->output->root_delta = d;
}

/* ---- transitions ---- */

static bool compare(ossa_graph_compare op, float a, float b) {
    switch (op) {
    case OSSA_GRAPH_LESS: return a < b;
    case OSSA_GRAPH_LESS_EQUAL: return a <= b;
    case OSSA_GRAPH_GREATER: return a > b;
    case OSSA_GRAPH_GREATER_EQUAL: return a >= b;
    case OSSA_GRAPH_EQUAL: return a == b;
    case OSSA_GRAPH_NOT_EQUAL: return a != b;
    default: return false;
    }
}

/* Runs a condition (checked at creation: the stack fits and ends with one value). */
static bool condition_holds(const ossa__graph_transition *t, const ossa_graph_value *p) {
    if (t->code_count == 0) return true;
    bool stack[OSSA_GRAPH_MAX_STACK];
    uint32_t top = 0;
    for (uint32_t i = 0; i < t->code_count; i++) {
        const ossa_graph_instruction *in = &t->code[i];
        switch (in->op) {
        case OSSA_GRAPH_OP_TRUE: stack[top++] = true; break;
        case OSSA_GRAPH_OP_FALSE: stack[top++] = false; break;
        case OSSA_GRAPH_OP_FLAG: stack[top++] = p[in->parameter].flag; break;
        case OSSA_GRAPH_OP_COMPARE: stack[top++] = compare(in->compare, p[in->parameter].number, in->constant); break;
        case OSSA_GRAPH_OP_COMPARE_PARAMETERS:
            stack[top++] = compare(in->compare, p[in->parameter].number, p[in->other].number);
            break;
        case OSSA_GRAPH_OP_NOT: stack[top - 1] = !stack[top - 1]; break;
        case OSSA_GRAPH_OP_AND: top--, stack[top - 1] = stack[top - 1] && stack[top]; break;
        case OSSA_GRAPH_OP_OR: top--, stack[top - 1] = stack[top - 1] || stack[top]; break;
        default: return false;
        }
    }
    return stack[0];
}

static void consume_triggers(const ossa_graph *g, const ossa__graph_transition *t, ossa_graph_value *p) {
    for (uint32_t i = 0; i < t->code_count; i++)
        if (t->code[i].op == OSSA_GRAPH_OP_FLAG && g->parameter_types[t->code[i].parameter] == OSSA_GRAPH_PARAMETER_TRIGGER)
            p[t->code[i].parameter].flag = false;
}

/* Did the slot's last step cross normalised time e? (Looping: once per cycle.) */
static bool crossed(const ossa__graph_state *st, const slot *s, float e) {
    if (!(s->cycles > s->cycles_before)) return false;
    bool loop = st->kind != OSSA_GRAPH_STATE_EMPTY && st->loop;
    if (!loop) return s->cycles_before < e && e <= s->cycles;
    return floor(s->cycles_before - e) < floor(s->cycles - e);
}

/* The first transition that fires from the layer's active state, or OSSA_GRAPH_NONE. */
static uint32_t find_transition(const ossa_graph *g, uint32_t layer, const layer_state *ls,
                                const ossa_graph_value *p) {
    const ossa__graph_layer *gl = &g->layers[layer];
    const slot *s = &ls->slots[ls->current];
    const ossa__graph_state *st = &gl->states[s->state];
    for (uint32_t i = 0; i < gl->transition_count; i++) {
        const ossa__graph_transition *t = &gl->transitions[i];
        if ((t->from != OSSA_GRAPH_ANY_STATE && t->from != s->state) || t->to == s->state) continue;
        if (t->has_exit_time && !crossed(st, s, t->exit_time)) continue;
        if (condition_holds(t, p)) return i;
    }
    return OSSA_GRAPH_NONE;
}

static bool synced_blend(const ossa__graph_state *st) {
    return (st->kind == OSSA_GRAPH_STATE_BLEND_1D || st->kind == OSSA_GRAPH_STATE_BLEND_2D) && st->sync;
}

/* Records an inertialization or dead blend from the layer's output this update (ls->out, with
 * the previous update's output dt before it) to the new state's first pose. */
static void record_transition(ossa_graph_instance *inst, layer_state *ls, const ossa_transform *target, float dt) {
    uint32_t n = inst->graph->joint_count;
    const ossa_transform *before = ls->hist_count > 0 && dt > 0.0f ? ls->hist0 : NULL;
    if (ls->mix == MIX_INERTIALIZE) {
        ossa_inertialize_record_job job = {.previous = ls->out, .previous_count = n, .before = before,
                                           .before_count = n, .target = target, .target_count = n,
                                           .duration = ls->duration, .dt = dt, .state = ls->inertial,
                                           .state_count = n};
        ossa_inertialize_record_job_run(&job);
    } else {
        ossa_dead_blend_record_job job = {.previous = ls->out, .previous_count = n, .before = before,
                                          .before_count = n, .dt = dt, .state = ls->dead, .state_count = n};
        ossa_dead_blend_record_job_run(&job);
    }
}

/* Fires transition `index`: events, triggers, the new slot, and what the blend needs. */
static void fire(ossa_graph_instance *inst, uint32_t layer, uint32_t index, const ossa_transform *below, float dt) {
    const ossa_graph *g = inst->graph;
    const ossa__graph_layer *gl = &g->layers[layer];
    const ossa__graph_transition *t = &gl->transitions[index];
    layer_state *ls = &inst->layers[layer];
    slot *old = &ls->slots[ls->current];
    uint32_t from = old->state;
    consume_triggers(g, t, inst->parameters);
    push_event(inst, (ossa_graph_event){OSSA_GRAPH_EVENT_STATE_EXIT, layer, from, OSSA_GRAPH_NONE, index,
                                        gl->states[from].name, 1.0f});
    push_event(inst, (ossa_graph_event){OSSA_GRAPH_EVENT_STATE_ENTER, layer, t->to, OSSA_GRAPH_NONE, index,
                                        gl->states[t->to].name, 1.0f});
    bool was_running = ls->mix != MIX_NONE;
    ls->synced_pair = !was_running && t->blend == OSSA_GRAPH_BLEND_CROSSFADE && synced_blend(&gl->states[from]) &&
                      synced_blend(&gl->states[t->to]);
    ls->current ^= 1u;
    slot *fresh = &ls->slots[ls->current];
    enter_slot(g, layer, fresh, t->to, ls->synced_pair ? old->phase : 0.0f);
    slot_weights(g, layer, fresh, inst->parameters);
    ls->transition = index, ls->from_state = from, ls->elapsed = 0.0f, ls->duration = t->duration;
    if (t->duration <= 0.0f) { /* a cut */
        ls->mix = MIX_NONE;
        evaluate_slot(inst, layer, fresh, below, ls->out);
        return;
    }
    if (t->blend == OSSA_GRAPH_BLEND_CROSSFADE) {
        ls->mix = was_running ? MIX_CROSSFADE_FROZEN : MIX_CROSSFADE;
        if (was_running) memcpy(ls->frozen, ls->out, g->joint_count * sizeof *ls->frozen);
        return;
    }
    ls->mix = t->blend == OSSA_GRAPH_BLEND_INERTIALIZE ? MIX_INERTIALIZE : MIX_DEAD_BLEND;
    evaluate_slot(inst, layer, fresh, below, inst->scratch[1]);
    record_transition(inst, ls, inst->scratch[1], dt);
}

/* ---- layers ---- */

/* The layer's weight this update: its parameter or constant, clamped to [0, 1] (override) or
 * [-2, 2] (additive). */
static float layer_weight(const ossa_graph *g, uint32_t layer, const ossa_graph_value *p) {
    const ossa__graph_layer *gl = &g->layers[layer];
    float w = gl->weight_parameter == OSSA_GRAPH_NONE ? gl->weight : p[gl->weight_parameter].number;
    return gl->mode == OSSA_GRAPH_LAYER_OVERRIDE ? fminf(fmaxf(w, 0.0f), 1.0f) : fminf(fmaxf(w, -2.0f), 2.0f);
}

/* Clocks, the pose, events, a transition that fires: ls->out is the layer's pose. */
static void step_layer(ossa_graph_instance *inst, uint32_t layer, float dt, const ossa_transform *below) {
    const ossa_graph *g = inst->graph;
    layer_state *ls = &inst->layers[layer];
    slot *cur = &ls->slots[ls->current], *old = &ls->slots[ls->current ^ 1u];
    ls->weight = layer_weight(g, layer, inst->parameters);
    bool live_old = ls->mix == MIX_CROSSFADE;
    slot_weights(g, layer, cur, inst->parameters);
    if (live_old) slot_weights(g, layer, old, inst->parameters);
    float cycle = -1.0f;
    if (live_old && ls->synced_pair) { /* both on the cycle interpolated by the fade weight */
        float w = fade_weight(ls);
        cycle = (1.0f - w) * slot_cycle(g, layer, old) + w * slot_cycle(g, layer, cur);
    }
    if (ls->mix != MIX_NONE) ls->elapsed += dt;
    advance_slot(g, layer, cur, dt, cycle);
    if (live_old) advance_slot(g, layer, old, dt, cycle);
    evaluate_layer(inst, layer, below);
    layer_outputs(inst, layer);
    if (ls->mix != MIX_NONE && ls->elapsed >= ls->duration) ls->mix = MIX_NONE;
    uint32_t t = find_transition(g, layer, ls, inst->parameters);
    if (t != OSSA_GRAPH_NONE) fire(inst, layer, t, below, dt);
}

/* Composites layer `layer`'s pose over the accumulated pose (override: masked replace;
 * additive: the delta on top). */
static void composite(ossa_graph_instance *inst, uint32_t layer) {
    const ossa_graph *g = inst->graph;
    const ossa__graph_layer *gl = &g->layers[layer];
    layer_state *ls = &inst->layers[layer];
    uint32_t n = g->joint_count;
    ossa_transform *below = inst->acc[inst->acc_current], *out = inst->acc[inst->acc_current ^ 1u];
    float w = ls->weight;
    if (w == 0.0f) return;
    if (gl->mode == OSSA_GRAPH_LAYER_OVERRIDE && w >= 1.0f && !gl->mask) {
        memcpy(below, ls->out, n * sizeof *below);
        return;
    }
    ossa_blend_job job = {.rest = g->skeleton->rest, .rest_count = n, .output = out, .output_count = n};
    ossa_blend_layer layers[2];
    if (gl->mode == OSSA_GRAPH_LAYER_OVERRIDE) {
        for (uint32_t j = 0; j < n; j++) {
            inst->mask_in[j] = w * (gl->mask ? gl->mask[j] : 1.0f);
            inst->mask_out[j] = 1.0f - inst->mask_in[j];
        }
        layers[0] = (ossa_blend_layer){below, n, 1.0f, inst->mask_out, n};
        layers[1] = (ossa_blend_layer){ls->out, n, 1.0f, inst->mask_in, n};
        job.layers = layers, job.layer_count = 2;
    } else {
        layers[0] = (ossa_blend_layer){below, n, 1.0f, NULL, 0};
        layers[1] = (ossa_blend_layer){ls->out, n, w, gl->mask, gl->mask ? n : 0};
        job.layers = layers, job.layer_count = 1;
        job.additive_layers = &layers[1], job.additive_count = 1;
    }
    ossa_blend_job_run(&job);
    inst->acc_current ^= 1u;
}

static void push_history(const ossa_graph *g, layer_state *ls) {
    ossa_transform *oldest = ls->hist1;
    ls->hist1 = ls->hist0;
    ls->hist0 = oldest;
    memcpy(ls->hist0, ls->out, g->joint_count * sizeof *oldest);
    if (ls->hist_count < 2) ls->hist_count++;
}

static ossa_result check_update(const ossa_graph_instance *inst, float dt, const ossa_graph_value *parameters,
                                uint32_t parameter_count, const ossa_graph_output *output) {
    if (!inst || !output || !output->pose || (parameter_count && !parameters)) return OSSA_ERROR_INVALID_ARGUMENT;
    const ossa_graph *g = inst->graph;
    if (!isfinite(dt) || dt < 0.0f || parameter_count < g->parameter_count) return OSSA_ERROR_INVALID_ARGUMENT;
    if (output->pose_count < g->joint_count || (output->event_capacity && !output->events))
        return OSSA_ERROR_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < g->parameter_count; i++)
        if (g->parameter_types[i] == OSSA_GRAPH_PARAMETER_FLOAT && !isfinite(parameters[i].number))
            return OSSA_ERROR_INVALID_ARGUMENT;
    return OSSA_OK;
}

ossa_result ossa_graph_update(ossa_graph_instance *instance, float dt, ossa_graph_value *parameters,
                              uint32_t parameter_count, ossa_graph_output *output) {
    ossa_result r = check_update(instance, dt, parameters, parameter_count, output);
    if (r != OSSA_OK) return r;
    const ossa_graph *g = instance->graph;
    uint32_t n = g->joint_count;
    instance->output = output, instance->parameters = parameters;
    output->event_count = 0, output->events_overflowed = false;
    output->root_delta = ossa_transform_identity();
    instance->acc_current = 0;
    memcpy(instance->acc[0], g->skeleton->rest, n * sizeof(ossa_transform));
    for (uint32_t l = 0; l < g->layer_count; l++) {
        step_layer(instance, l, dt, instance->acc[instance->acc_current]);
        composite(instance, l);
        push_history(g, &instance->layers[l]);
    }
    memcpy(instance->pose, instance->acc[instance->acc_current], n * sizeof(ossa_transform));
    memcpy(output->pose, instance->pose, n * sizeof(ossa_transform));
    instance->output = NULL, instance->parameters = NULL;
    output->events_overflowed = output->events && output->event_count > output->event_capacity;
    return output->events_overflowed ? OSSA_ERROR_BUFFER_TOO_SMALL : OSSA_OK;
}

/* ---- creation, reset, status ---- */

void ossa_graph_instance_reset(ossa_graph_instance *instance) {
    if (!instance) return;
    const ossa_graph *g = instance->graph;
    for (uint32_t l = 0; l < g->layer_count; l++) {
        layer_state *ls = &instance->layers[l];
        ls->current = 0, ls->mix = MIX_NONE, ls->transition = ls->from_state = OSSA_GRAPH_NONE;
        ls->elapsed = ls->duration = 0.0f, ls->synced_pair = false, ls->hist_count = 0;
        ls->weight = g->layers[l].weight_parameter == OSSA_GRAPH_NONE ? g->layers[l].weight : 0.0f;
        if (ls->weight > 1.0f && g->layers[l].mode == OSSA_GRAPH_LAYER_OVERRIDE) ls->weight = 1.0f;
        enter_slot(g, l, &ls->slots[0], g->layers[l].start_state, 0.0f);
        ls->slots[1].state = OSSA_GRAPH_NONE;
    }
    for (uint32_t j = 0; j < g->joint_count; j++) instance->identity[j] = ossa_transform_identity();
    memcpy(instance->pose, g->skeleton->rest, g->joint_count * sizeof(ossa_transform));
}

void ossa_graph_instance_destroy(ossa_graph_instance *instance) {
    if (!instance) return;
    ossa_allocator a = instance->allocator;
    for (uint32_t l = 0; l < instance->graph->layer_count && instance->graph->context_joints; l++)
        for (int k = 0; k < 2; k++)
            for (uint32_t i = 0; i < instance->graph->layers[l].max_samples; i++)
                ossa_sampling_context_destroy(instance->layers[l].slots[k].contexts[i]);
    ossa__free(&a, instance);
}

ossa_result ossa_graph_instance_create(const ossa_graph *graph, const ossa_allocator *allocator,
                                       ossa_graph_instance **out) {
    if (!out) return OSSA_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (!graph || graph->instance_block == SIZE_MAX) return OSSA_ERROR_INVALID_ARGUMENT;
    ossa_allocator resolved = ossa__allocator_resolve(allocator);
    char *block = ossa__alloc_array(&resolved, 1, graph->instance_block);
    if (!block) return OSSA_ERROR_OUT_OF_MEMORY;
    ossa_graph_instance *inst = (ossa_graph_instance *)block;
    carve c = {.base = block};
    layout_instance(&c, graph, inst);
    inst->allocator = resolved, inst->graph = graph; /* contexts are zeroed (NULL) by the allocation */
    for (uint32_t l = 0; l < graph->layer_count && graph->context_joints; l++)
        for (int k = 0; k < 2; k++)
            for (uint32_t i = 0; i < graph->layers[l].max_samples; i++) {
                ossa_result r = ossa_sampling_context_create(graph->context_joints, graph->context_weights,
                                                             &resolved, &inst->layers[l].slots[k].contexts[i]);
                if (r != OSSA_OK) {
                    ossa_graph_instance_destroy(inst);
                    return r;
                }
            }
    ossa_graph_instance_reset(inst);
    *out = inst;
    return OSSA_OK;
}

ossa_result ossa_graph_instance_layer_status(const ossa_graph_instance *instance, uint32_t layer,
                                             ossa_graph_layer_status *out) {
    if (!instance || !out || layer >= instance->graph->layer_count) return OSSA_ERROR_INVALID_ARGUMENT;
    const layer_state *ls = &instance->layers[layer];
    const slot *s = &ls->slots[ls->current];
    bool running = ls->mix != MIX_NONE;
    *out = (ossa_graph_layer_status){
        .state = s->state, .state_name = instance->graph->layers[layer].states[s->state].name,
        .state_time = s->elapsed, .normalized_time = (float)s->cycles, .transitioning = running,
        .transition = running ? ls->transition : OSSA_GRAPH_NONE,
        .from_state = running ? ls->from_state : OSSA_GRAPH_NONE,
        .progress = running && ls->duration > 0.0f ? fminf(ls->elapsed / ls->duration, 1.0f) : 1.0f,
        .weight = ls->weight};
    return OSSA_OK;
}
