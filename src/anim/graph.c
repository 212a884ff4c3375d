/* Animation graphs: the description's checks, the graph built from it (one allocation) and
 * its queries (see ossa/graph.h). The instance and the update are in graph_instance.c. */
#include "anim/graph_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* JSON pointers are cut at the diagnostic's size on purpose. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

#include "core/alloc.h"

/* ---- diagnostics ---- */

ossa_result ossa__graph_fail(ossa_diagnostic *diag, ossa_result result, const char *path, const char *fmt, ...) {
    if (!diag) return result;
    snprintf(diag->path, sizeof diag->path, "%s", path);
    char message[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    snprintf(diag->message, sizeof diag->message, "%s: %s", path, message);
    return result;
}

/* "/layers/<l>/states/<name>" (the state's index when it has no name). */
static void state_path(char *out, size_t size, uint32_t layer, const ossa_graph_state_desc *state, uint32_t index) {
    if (state->name) snprintf(out, size, "/layers/%u/states/%s", layer, state->name);
    else snprintf(out, size, "/layers/%u/states/%u", layer, index);
}

/* ---- the description alone ---- */

static bool is_float_parameter(const ossa_graph_desc *desc, uint32_t p) {
    return p < desc->parameter_count && desc->parameters[p].type == OSSA_GRAPH_PARAMETER_FLOAT;
}

static ossa_result check_parameters(const ossa_graph_desc *desc, ossa_diagnostic *diag) {
    if (desc->parameter_count > OSSA_GRAPH_MAX_PARAMETERS)
        return ossa__graph_fail(diag, OSSA_ERROR_LIMIT, "/parameters",
                                "%u parameters (at most %u)", desc->parameter_count,
                    OSSA_GRAPH_MAX_PARAMETERS);
    if (desc->parameter_count && !desc->parameters)
        return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, "/parameters",
                                "NULL with a count of %u", desc->parameter_count);
    char path[128];
    for (uint32_t i = 0; i < desc->parameter_count; i++) {
        const ossa_graph_parameter_desc *p = &desc->parameters[i];
        if (!p->name || !p->name[0]) {
            snprintf(path, sizeof path, "/parameters/%u", i);
            return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, path, "no name");
        }
        snprintf(path, sizeof path, "/parameters/%s", p->name);
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(desc->parameters[j].name, p->name) == 0)
                return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, path,
                                        "a second parameter named \"%s\"", p->name);
        if (p->type < OSSA_GRAPH_PARAMETER_FLOAT || p->type > OSSA_GRAPH_PARAMETER_TRIGGER)
            return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, path, "unknown type %d", (int)p->type);
        if (p->type == OSSA_GRAPH_PARAMETER_FLOAT && !isfinite(p->initial.number))
            return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, path, "initial value is not finite");
    }
    return OSSA_OK;
}

/* One instruction's operands; *depth is the stack depth before it, updated. */
static ossa_result check_instruction(const ossa_graph_desc *desc, const ossa_graph_instruction *in, uint32_t *depth,
                                     const char *path, ossa_diagnostic *diag) {
    uint32_t pops = 0, pushes = 1;
    switch (in->op) {
    case OSSA_GRAPH_OP_TRUE:
    case OSSA_GRAPH_OP_FALSE: break;
    case OSSA_GRAPH_OP_FLAG:
        if (in->parameter >= desc->parameter_count ||
            desc->parameters[in->parameter].type == OSSA_GRAPH_PARAMETER_FLOAT)
            return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, path,
                                    "FLAG reads parameter %u, not a bool or trigger",
                        in->parameter);
        break;
    case OSSA_GRAPH_OP_COMPARE_PARAMETERS:
        if (!is_float_parameter(desc, in->other))
            return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, path,
                                    "compares with parameter %u, not a float", in->other);
        /* fall through */
    case OSSA_GRAPH_OP_COMPARE:
        if (!is_float_parameter(desc, in->parameter))
            return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, path,
                                    "compares parameter %u, not a float", in->parameter);
        if (in->compare < OSSA_GRAPH_LESS || in->compare > OSSA_GRAPH_NOT_EQUAL)
            return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, path, "unknown comparison %d", (int)in->compare);
        if (in->op == OSSA_GRAPH_OP_COMPARE && !isfinite(in->constant))
            return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, path, "constant is not finite");
        break;
    case OSSA_GRAPH_OP_NOT: pops = 1; break;
    case OSSA_GRAPH_OP_AND:
    case OSSA_GRAPH_OP_OR: pops = 2; break;
    default: return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, path, "unknown operation %d", (int)in->op);
    }
    if (*depth < pops) return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, path, "the stack underflows");
    *depth = *depth - pops + pushes;
    if (*depth > OSSA_GRAPH_MAX_STACK)
        return ossa__graph_fail(diag, OSSA_ERROR_LIMIT, path, "deeper than %u values", OSSA_GRAPH_MAX_STACK);
    return OSSA_OK;
}

static ossa_result check_condition(const ossa_graph_desc *desc, const ossa_graph_transition_desc *t,
                                   const char *base, ossa_diagnostic *diag) {
    char path[128];
    snprintf(path, sizeof path, "%s/when", base);
    if (t->condition_count > OSSA_GRAPH_MAX_INSTRUCTIONS)
        return ossa__graph_fail(diag, OSSA_ERROR_LIMIT, path, "%u instructions (at most %u)", t->condition_count,
                    OSSA_GRAPH_MAX_INSTRUCTIONS);
    if (t->condition_count && !t->condition)
        return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, path, "NULL with a count of %u", t->condition_count);
    uint32_t depth = 0;
    for (uint32_t i = 0; i < t->condition_count; i++) {
        ossa_result r = check_instruction(desc, &t->condition[i], &depth, path, diag);
        if (r != OSSA_OK) return r;
    }
    if (t->condition_count && depth != 1)
        return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, path, "leaves %u values (one expected)", depth);
    return OSSA_OK;
}

static ossa_result check_transition(const ossa_graph_desc *desc, uint32_t l, uint32_t i, ossa_diagnostic *diag) {
    const ossa_graph_layer_desc *layer = &desc->layers[l];
    const ossa_graph_transition_desc *t = &layer->transitions[i];
    char base[96], path[128];
    snprintf(base, sizeof base, "/layers/%u/transitions/%u", l, i);
    if (t->from != OSSA_GRAPH_ANY_STATE && t->from >= layer->state_count) {
        snprintf(path, sizeof path, "%s/from", base);
        return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, path, "state %u out of range (%u states)", t->from,
                    layer->state_count);
    }
    snprintf(path, sizeof path, "%s/to", base);
    if (t->to >= layer->state_count)
        return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, path,
                                "state %u out of range (%u states)", t->to, layer->state_count);
    if (t->to == t->from) return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, path, "the same state as from");
    ossa_result r = check_condition(desc, t, base, diag);
    if (r != OSSA_OK) return r;
    if (t->has_exit_time && !(isfinite(t->exit_time) && t->exit_time >= 0.0f)) {
        snprintf(path, sizeof path, "%s/exit_time", base);
        return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, path, "must be >= 0 and finite");
    }
    if (!t->has_exit_time && t->condition_count == 0)
        return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, base, "neither a condition (when) nor an exit_time");
    if (!(isfinite(t->duration) && t->duration >= 0.0f)) {
        snprintf(path, sizeof path, "%s/duration", base);
        return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, path, "must be >= 0 and finite");
    }
    if (t->blend > OSSA_GRAPH_BLEND_DEAD_BLEND) {
        snprintf(path, sizeof path, "%s/blend", base);
        return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, path, "unknown blend %d", (int)t->blend);
    }
    return OSSA_OK;
}

static ossa_result check_samples(const ossa_graph_desc *desc, const ossa_graph_state_desc *s, const char *base,
                                 ossa_diagnostic *diag) {
    char path[160];
    bool two = s->kind == OSSA_GRAPH_STATE_BLEND_2D;
    snprintf(path, sizeof path, "%s/%s/clips", base, two ? "blend2d" : "blend1d");
    if (s->sample_count == 0 || s->sample_count > OSSA_GRAPH_MAX_SAMPLES || !s->samples)
        return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, path,
                                "%u clips (1 to %u)", s->sample_count, OSSA_GRAPH_MAX_SAMPLES);
    for (uint32_t i = 0; i < s->sample_count; i++) {
        const ossa_graph_blend_sample *a = &s->samples[i];
        snprintf(path, sizeof path, "%s/%s/clips/%u", base, two ? "blend2d" : "blend1d", i);
        if (!a->clip) return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, path, "no clip name");
        if (!isfinite(a->x) || !isfinite(a->y)) return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, path,
                                                                        "position not finite");
        for (uint32_t j = 0; j < i; j++) {
            const ossa_graph_blend_sample *b = &s->samples[j];
            if (!two && !(b->x < a->x))
                return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, path,
                                        "positions must increase (%g after %g)", (double)a->x,
                            (double)b->x);
            if (two && a->x == b->x && a->y == b->y)
                return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, path, "the same point as clip %u", j);
        }
    }
    snprintf(path, sizeof path, "%s/%s/parameter%s", base, two ? "blend2d" : "blend1d", two ? "s" : "");
    if (!is_float_parameter(desc, s->parameter_x) || (two && !is_float_parameter(desc, s->parameter_y)))
        return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, path, "not a float parameter");
    return OSSA_OK;
}

static ossa_result check_state(const ossa_graph_desc *desc, uint32_t l, uint32_t i, ossa_diagnostic *diag) {
    const ossa_graph_layer_desc *layer = &desc->layers[l];
    const ossa_graph_state_desc *s = &layer->states[i];
    char base[160], path[192];
    state_path(base, sizeof base, l, s, i);
    if (!s->name || !s->name[0]) return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, base, "no name");
    for (uint32_t j = 0; j < i; j++)
        if (layer->states[j].name && strcmp(layer->states[j].name, s->name) == 0)
            return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, base, "a second state named \"%s\"", s->name);
    if (s->kind < OSSA_GRAPH_STATE_EMPTY || s->kind > OSSA_GRAPH_STATE_ADDITIVE)
        return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, base, "unknown kind %d", (int)s->kind);
    bool additive_layer = layer->mode == OSSA_GRAPH_LAYER_ADDITIVE;
    if (s->kind != OSSA_GRAPH_STATE_EMPTY && additive_layer != (s->kind == OSSA_GRAPH_STATE_ADDITIVE))
        return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, base, "%s",
                    additive_layer ? "an additive layer plays additive (delta) clips or nothing"
                                   : "an additive clip needs an additive layer");
    if (!isfinite(s->speed)) {
        snprintf(path, sizeof path, "%s/speed", base);
        return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, path, "not finite");
    }
    if ((s->kind == OSSA_GRAPH_STATE_CLIP || s->kind == OSSA_GRAPH_STATE_ADDITIVE) && !s->clip) {
        snprintf(path, sizeof path, "%s/%s", base, s->kind == OSSA_GRAPH_STATE_CLIP ? "clip" : "additive");
        return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, path, "no clip name");
    }
    if (s->kind == OSSA_GRAPH_STATE_BLEND_1D || s->kind == OSSA_GRAPH_STATE_BLEND_2D)
        return check_samples(desc, s, base, diag);
    return OSSA_OK;
}

static ossa_result check_layer_header(const ossa_graph_desc *desc, uint32_t l, ossa_diagnostic *diag) {
    const ossa_graph_layer_desc *layer = &desc->layers[l];
    char path[96];
    snprintf(path, sizeof path, "/layers/%u", l);
    if (!layer->name || !layer->name[0]) return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, path, "no name");
    for (uint32_t j = 0; j < l; j++)
        if (strcmp(desc->layers[j].name, layer->name) == 0)
            return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, path, "a second layer named \"%s\"", layer->name);
    if (layer->mode != OSSA_GRAPH_LAYER_OVERRIDE && layer->mode != OSSA_GRAPH_LAYER_ADDITIVE)
        return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, path, "unknown mode %d", (int)layer->mode);
    if (l == 0 && layer->mode != OSSA_GRAPH_LAYER_OVERRIDE)
        return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, path, "the first layer must be an override layer");
    snprintf(path, sizeof path, "/layers/%u/weight", l);
    if (layer->weight_parameter == OSSA_GRAPH_NONE) {
        if (!isfinite(layer->weight) || (layer->mode == OSSA_GRAPH_LAYER_OVERRIDE && layer->weight < 0.0f))
            return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, path,
                                    "must be finite (and >= 0 for an override layer)");
    } else if (!is_float_parameter(desc, layer->weight_parameter)) {
        return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, path, "parameter %u is not a float parameter",
                    layer->weight_parameter);
    }
    snprintf(path, sizeof path, "/layers/%u/states", l);
    if (layer->state_count == 0 || layer->state_count > OSSA_GRAPH_MAX_STATES || !layer->states)
        return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, path,
                                "%u states (1 to %u)", layer->state_count, OSSA_GRAPH_MAX_STATES);
    snprintf(path, sizeof path, "/layers/%u/start", l);
    if (layer->start_state >= layer->state_count)
        return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, path, "state %u out of range", layer->start_state);
    snprintf(path, sizeof path, "/layers/%u/transitions", l);
    if (layer->transition_count > OSSA_GRAPH_MAX_TRANSITIONS || (layer->transition_count && !layer->transitions))
        return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, path, "%u transitions (at most %u, not NULL)",
                    layer->transition_count, OSSA_GRAPH_MAX_TRANSITIONS);
    return OSSA_OK;
}

static ossa_result check_events(const ossa_graph_desc *desc, ossa_diagnostic *diag) {
    if (desc->event_count > OSSA_GRAPH_MAX_EVENTS || (desc->event_count && !desc->events))
        return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, "/events",
                                "%u events (at most %u, not NULL)", desc->event_count,
                    OSSA_GRAPH_MAX_EVENTS);
    char path[64];
    for (uint32_t i = 0; i < desc->event_count; i++) {
        const ossa_graph_event_desc *e = &desc->events[i];
        snprintf(path, sizeof path, "/events/%u", i);
        if (!e->clip || !e->name || !isfinite(e->time))
            return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, path, "needs a clip, a name and a finite time");
    }
    return OSSA_OK;
}

ossa_result ossa_graph_desc_validate(const ossa_graph_desc *desc, ossa_diagnostic *diag) {
    if (!desc) return ossa__graph_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "", "NULL description");
    ossa_result r = check_parameters(desc, diag);
    if (r != OSSA_OK) return r;
    if (desc->layer_count == 0 || desc->layer_count > OSSA_GRAPH_MAX_LAYERS || !desc->layers)
        return ossa__graph_fail(diag, OSSA_ERROR_INVALID_DATA, "/layers", "%u layers (1 to %u)", desc->layer_count,
                    OSSA_GRAPH_MAX_LAYERS);
    for (uint32_t l = 0; l < desc->layer_count && r == OSSA_OK; l++) {
        r = check_layer_header(desc, l, diag);
        for (uint32_t i = 0; i < desc->layers[l].state_count && r == OSSA_OK; i++) r = check_state(desc, l, i, diag);
        for (uint32_t i = 0; i < desc->layers[l].transition_count && r == OSSA_OK; i++)
            r = check_transition(desc, l, i, diag);
    }
    return r != OSSA_OK ? r : check_events(desc, diag);
}

/* ---- queries ---- */

const ossa_skeleton *ossa_graph_skeleton(const ossa_graph *graph) { return graph ? graph->skeleton : NULL; }
uint32_t ossa_graph_joint_count(const ossa_graph *graph) { return graph ? graph->joint_count : 0; }
uint32_t ossa_graph_parameter_count(const ossa_graph *graph) { return graph ? graph->parameter_count : 0; }
const char *ossa_graph_parameter_name(const ossa_graph *graph, uint32_t parameter) {
    return graph && parameter < graph->parameter_count ? graph->parameter_names[parameter] : NULL;
}
ossa_graph_parameter_type ossa_graph_parameter_type_of(const ossa_graph *graph, uint32_t parameter) {
    return graph && parameter < graph->parameter_count ? graph->parameter_types[parameter]
                                                       : OSSA_GRAPH_PARAMETER_INVALID;
}
int32_t ossa_graph_find_parameter(const ossa_graph *graph, const char *name) {
    if (!graph || !name) return -1;
    for (uint32_t i = 0; i < graph->parameter_count; i++)
        if (strcmp(graph->parameter_names[i], name) == 0) return (int32_t)i;
    return -1;
}
uint32_t ossa_graph_layer_count(const ossa_graph *graph) { return graph ? graph->layer_count : 0; }
const char *ossa_graph_layer_name(const ossa_graph *graph, uint32_t layer) {
    return graph && layer < graph->layer_count ? graph->layers[layer].name : NULL;
}
uint32_t ossa_graph_state_count(const ossa_graph *graph, uint32_t layer) {
    return graph && layer < graph->layer_count ? graph->layers[layer].state_count : 0;
}
const char *ossa_graph_state_name(const ossa_graph *graph, uint32_t layer, uint32_t state) {
    return state < ossa_graph_state_count(graph, layer) ? graph->layers[layer].states[state].name : NULL;
}
int32_t ossa_graph_find_state(const ossa_graph *graph, uint32_t layer, const char *name) {
    uint32_t n = ossa_graph_state_count(graph, layer);
    for (uint32_t i = 0; name && i < n; i++)
        if (strcmp(graph->layers[layer].states[i].name, name) == 0) return (int32_t)i;
    return -1;
}
uint32_t ossa_graph_transition_count(const ossa_graph *graph, uint32_t layer) {
    return graph && layer < graph->layer_count ? graph->layers[layer].transition_count : 0;
}
bool ossa_graph_transition_states(const ossa_graph *graph, uint32_t layer, uint32_t transition, uint32_t *from,
                                  uint32_t *to) {
    if (transition >= ossa_graph_transition_count(graph, layer)) return false;
    const ossa__graph_transition *t = &graph->layers[layer].transitions[transition];
    if (from) *from = t->from;
    if (to) *to = t->to;
    return true;
}
ossa_result ossa_graph_parameters_init(const ossa_graph *graph, ossa_graph_value *values, uint32_t value_count) {
    if (!graph || (!values && graph->parameter_count)) return OSSA_ERROR_INVALID_ARGUMENT;
    if (value_count < graph->parameter_count) return OSSA_ERROR_BUFFER_TOO_SMALL;
    for (uint32_t i = 0; i < graph->parameter_count; i++) values[i] = graph->parameter_initial[i];
    return OSSA_OK;
}
