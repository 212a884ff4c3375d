/* --graph / --set / --fps of `ossa sample`, `render` and `view` (graph_cli.h, docs/graphs.md). */
#include "graph_cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ossa/graph.h>
#include <ossa/graph_json.h>

#include "cli_common.h"

#define CLOCK_EPSILON 1e-6 /* seconds: a --set at TIME is due for the frame ending at TIME - this */

/* ------------------------------------------------------------------ options --- */

static int take_set(cli_graph *g, const char *cmd, const char *text) {
    graph_set set;
    if (!graph_set_parse(cmd, text, &set)) return -1;
    graph_set *grown = realloc(g->sets, sizeof *grown * (g->set_count + 1u));
    if (!grown) {
        fprintf(stderr, "ossa %s: out of memory\n", cmd);
        return -1;
    }
    g->sets = grown;
    g->sets[g->set_count++] = set;
    return 1;
}

int cli_graph_arg(cli_graph *g, const char *cmd, int argc, char **argv, int *i) {
    const char *a = argv[*i];
    bool more = *i + 1 < argc;
    if (!strcmp(a, "--graph") && more) {
        g->path = argv[++*i];
        return 1;
    }
    if (!strcmp(a, "--set") && more) return take_set(g, cmd, argv[++*i]);
    if (g->take_fps && !strcmp(a, "--fps") && more) {
        char *end = NULL;
        g->fps = strtod(argv[++*i], &end);
        if (end == argv[*i] || *end || !(g->fps >= 1.0 && g->fps <= 10000.0)) {
            fprintf(stderr, "ossa %s: --fps expects a rate between 1 and 10000 frames per second, got '%s'\n", cmd,
                    argv[*i]);
            return -1;
        }
        return 1;
    }
    return 0;
}

bool cli_graph_active(const cli_graph *g) { return g->path != NULL; }

int cli_graph_check_options(const cli_graph *g, const char *cmd) {
    if (!g->path && g->set_count) {
        fprintf(stderr, "ossa %s: --set '%s' needs --graph G.json\n", cmd, g->sets[0].text);
        return 2;
    }
    if (!g->path && g->take_fps && g->fps > 0) {
        fprintf(stderr, "ossa %s: --fps is the simulation rate of --graph: it needs --graph G.json\n", cmd);
        return 2;
    }
    return 0;
}

/* ------------------------------------------------------------------ loading --- */

/* "ossa CMD: G.json: /json/pointer: message (RESULT)": the message starts with the pointer when
 * the library put it there (a message without a place may start with ": "). */
static void print_diagnostic(const char *cmd, const char *path, const ossa_diagnostic *d, ossa_result r) {
    const char *message = d->message;
    if (!d->path[0] && !strncmp(message, ": ", 2)) message += 2;
    if (d->path[0] && strncmp(message, d->path, strlen(d->path)) != 0)
        fprintf(stderr, "ossa %s: %s: %s: %s (%s)\n", cmd, path, d->path, message, ossa_result_string(r));
    else
        fprintf(stderr, "ossa %s: %s: %s (%s)\n", cmd, path, message[0] ? message : "invalid graph",
                ossa_result_string(r));
}

ossa_graph *cli_graph_build(const char *path, const ossa_asset *asset, const char *cmd, ossa_graph_desc **desc,
                            ossa_graph_clip **clips) {
    ossa_diagnostic d;
    memset(&d, 0, sizeof d);
    *desc = NULL;
    *clips = NULL;
    ossa_result r = ossa_graph_desc_load_file(path, NULL, desc, &d);
    if (r != OSSA_OK) {
        print_diagnostic(cmd, path, &d, r);
        return NULL;
    }
    uint32_t count = asset->clip_count > asset->built_clip_count ? asset->clip_count : asset->built_clip_count;
    *clips = calloc(count ? count : 1, sizeof **clips);
    ossa_graph *graph = NULL;
    if (!*clips) r = OSSA_ERROR_OUT_OF_MEMORY;
    else r = ossa_graph_clips_from_asset(asset, true, *clips, count, &count);
    if (r == OSSA_OK) r = ossa_graph_create(*desc, asset->skeleton, *clips, count, NULL, &graph, &d);
    if (r != OSSA_OK) {
        print_diagnostic(cmd, path, &d, r);
        free(*clips);
        ossa_graph_desc_destroy(*desc);
        *clips = NULL;
        *desc = NULL;
        return NULL;
    }
    return graph;
}

/* Checks one --set against the graph's parameter of its name; false after printing. */
static bool resolve_set(const cli_graph *g, graph_set *set, const char *cmd) {
    char name[256];
    size_t n = set->name_length < sizeof name - 1 ? set->name_length : sizeof name - 1;
    memcpy(name, set->text, n);
    name[n] = '\0';
    int32_t p = ossa_graph_find_parameter(g->graph, name);
    const char *problem = NULL;
    ossa_graph_parameter_type type = p >= 0 ? ossa_graph_parameter_type_of(g->graph, (uint32_t)p)
                                            : OSSA_GRAPH_PARAMETER_INVALID;
    if (p < 0) problem = "no parameter of that name in the graph";
    else if (type == OSSA_GRAPH_PARAMETER_TRIGGER && set->kind != GRAPH_SET_TRIGGER)
        problem = "a trigger takes no value: NAME@TIME fires it";
    else if (type == OSSA_GRAPH_PARAMETER_BOOL && set->kind != GRAPH_SET_BOOL)
        problem = "a bool parameter takes true or false";
    else if (type == OSSA_GRAPH_PARAMETER_FLOAT && set->kind != GRAPH_SET_NUMBER)
        problem = "a float parameter takes a number value: NAME=VALUE@TIME";
    if (problem) {
        fprintf(stderr, "ossa %s: --set '%s': %s (parameter '%s')\n", cmd, set->text, problem, name);
        return false;
    }
    set->parameter = (uint32_t)p;
    return true;
}

/* Stable sort of the --set list by time (insertion: the list is short). */
static void sort_sets(cli_graph *g) {
    for (uint32_t i = 1; i < g->set_count; i++) {
        graph_set s = g->sets[i];
        uint32_t j = i;
        for (; j > 0 && g->sets[j - 1].time > s.time; j--) g->sets[j] = g->sets[j - 1];
        g->sets[j] = s;
    }
}

int cli_graph_load(cli_graph *g, const ossa_asset *asset, const char *cmd) {
    if (!(g->fps > 0)) g->fps = 60.0;
    if (!asset->skeleton) {
        fprintf(stderr, "ossa %s: --graph: the file has no skeleton to animate\n", cmd);
        return 1;
    }
    g->graph = cli_graph_build(g->path, asset, cmd, &g->desc, &g->clips);
    if (!g->graph) return 1;
    for (uint32_t i = 0; i < g->set_count; i++)
        if (!resolve_set(g, &g->sets[i], cmd)) return 2;
    sort_sets(g);
    g->parameter_count = ossa_graph_parameter_count(g->graph);
    g->joint_count = ossa_graph_joint_count(g->graph);
    g->values = calloc(g->parameter_count ? g->parameter_count : 1, sizeof *g->values);
    g->pose = calloc(g->joint_count ? g->joint_count : 1, sizeof *g->pose);
    ossa_result r = g->values && g->pose ? ossa_graph_instance_create(g->graph, NULL, &g->instance)
                                         : OSSA_ERROR_OUT_OF_MEMORY;
    if (r != OSSA_OK) {
        fprintf(stderr, "ossa %s: cannot create a graph instance: %s\n", cmd, ossa_result_string(r));
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------ simulation --- */

/* Applies every --set due by the frame that ends at `end`. */
static void apply_sets(cli_graph *g, double end) {
    for (; g->next_set < g->set_count && g->sets[g->next_set].time <= end + CLOCK_EPSILON; g->next_set++) {
        const graph_set *s = &g->sets[g->next_set];
        if (s->kind == GRAPH_SET_NUMBER) g->values[s->parameter].number = s->value;
        else g->values[s->parameter].flag = s->kind == GRAPH_SET_TRIGGER || s->value != 0.0f;
    }
}

/* One update of dt seconds ending at `end`, its events kept with that time. */
static bool step(cli_graph *g, double end, float dt, const char *cmd) {
    apply_sets(g, end);
    ossa_graph_event events[CLI_GRAPH_EVENTS];
    ossa_graph_output out = {.pose = g->pose, .pose_count = g->joint_count, .events = events,
                             .event_capacity = CLI_GRAPH_EVENTS};
    ossa_result r = ossa_graph_update(g->instance, dt, g->values, g->parameter_count, &out);
    if (r != OSSA_OK && r != OSSA_ERROR_BUFFER_TOO_SMALL) {
        fprintf(stderr, "ossa %s: graph update at %.4f s failed: %s\n", cmd, end, ossa_result_string(r));
        return false;
    }
    uint32_t kept = out.event_count < CLI_GRAPH_EVENTS ? out.event_count : CLI_GRAPH_EVENTS;
    for (uint32_t k = 0; k < kept; k++) {
        if (g->event_count + k < CLI_GRAPH_EVENTS) {
            g->events[g->event_count + k] = events[k];
            g->event_times[g->event_count + k] = end;
        }
    }
    g->event_count += out.event_count;
    g->clock = end;
    return true;
}

/* Back to time 0: start states, initial parameters, no --set applied, then the update at 0. */
static bool restart(cli_graph *g, const char *cmd) {
    ossa_graph_instance_reset(g->instance);
    ossa_graph_parameters_init(g->graph, g->values, g->parameter_count);
    g->next_set = 0;
    g->event_count = 0;
    g->started = true;
    return step(g, 0.0, 0.0f, cmd);
}

bool cli_graph_advance(cli_graph *g, double t, const char *cmd) {
    if (!g->started || t < g->clock - CLOCK_EPSILON) {
        if (!restart(g, cmd)) return false;
    }
    while (g->clock < t - CLOCK_EPSILON) {
        double grid = (floor(g->clock * g->fps + 1e-6) + 1.0) / g->fps; /* the next frame end k / fps */
        double end = grid < t ? grid : t;
        if (!step(g, end, (float)(end - g->clock), cmd)) return false;
    }
    return true;
}

/* ------------------------------------------------------------------ output --- */

static const char *state_name(const cli_graph *g, uint32_t layer, uint32_t state) {
    const char *n = ossa_graph_state_name(g->graph, layer, state);
    return n ? n : "";
}

static const char *event_kind(ossa_graph_event_kind kind) {
    switch (kind) {
    case OSSA_GRAPH_EVENT_CLIP: return "clip";
    case OSSA_GRAPH_EVENT_STATE_EXIT: return "exit";
    case OSSA_GRAPH_EVENT_STATE_ENTER: return "enter";
    default: return "?";
    }
}

void cli_graph_print_json(cli_graph *g) {
    uint32_t layers = ossa_graph_layer_count(g->graph);
    ossa_graph_layer_status st;
    printf("\"graph\": {\"states\": [");
    for (uint32_t l = 0; l < layers; l++) {
        if (ossa_graph_instance_layer_status(g->instance, l, &st) != OSSA_OK) memset(&st, 0, sizeof st);
        printf("%s", l ? ", " : "");
        json_put_str(st.state_name ? st.state_name : "");
    }
    printf("], \"transitions\": [");
    bool first = true;
    for (uint32_t l = 0; l < layers; l++) {
        if (ossa_graph_instance_layer_status(g->instance, l, &st) != OSSA_OK || !st.transitioning) continue;
        printf("%s{\"layer\": ", first ? "" : ", ");
        first = false;
        json_put_str(ossa_graph_layer_name(g->graph, l));
        printf(", \"from\": ");
        json_put_str(st.from_state == OSSA_GRAPH_NONE ? "" : state_name(g, l, st.from_state));
        printf(", \"to\": ");
        json_put_str(state_name(g, l, st.state));
        printf(", \"index\": %u, \"progress\": ", st.transition);
        json_put_num(st.progress);
        printf("}");
    }
    printf("], \"events\": [");
    uint32_t kept = g->event_count < CLI_GRAPH_EVENTS ? g->event_count : CLI_GRAPH_EVENTS;
    for (uint32_t k = 0; k < kept; k++) {
        const ossa_graph_event *e = &g->events[k];
        printf("%s{\"time\": ", k ? ", " : "");
        json_put_num(g->event_times[k]);
        printf(", \"layer\": ");
        json_put_str(ossa_graph_layer_name(g->graph, e->layer));
        printf(", \"kind\": \"%s\", \"name\": ", event_kind(e->kind));
        json_put_str(e->name);
        printf("}");
    }
    printf("], \"event_count\": %u}", g->event_count);
    g->event_count = 0;
}

char *cli_graph_describe(const cli_graph *g, char *out, size_t size) {
    size_t used = 0;
    out[0] = '\0';
    uint32_t layers = ossa_graph_layer_count(g->graph);
    for (uint32_t l = 0; l < layers && used < size; l++) {
        ossa_graph_layer_status st;
        if (ossa_graph_instance_layer_status(g->instance, l, &st) != OSSA_OK) continue;
        int n;
        if (st.transitioning && st.from_state != OSSA_GRAPH_NONE)
            n = snprintf(out + used, size - used, "%s%s: %s -> %s %.0f%%", l ? ", " : "",
                         ossa_graph_layer_name(g->graph, l), state_name(g, l, st.from_state),
                         st.state_name ? st.state_name : "", (double)st.progress * 100.0);
        else
            n = snprintf(out + used, size - used, "%s%s: %s", l ? ", " : "", ossa_graph_layer_name(g->graph, l),
                         st.state_name ? st.state_name : "");
        if (n < 0) break;
        used += (size_t)n;
    }
    return out;
}

void cli_graph_free(cli_graph *g) {
    ossa_graph_instance_destroy(g->instance);
    ossa_graph_destroy(g->graph);
    ossa_graph_desc_destroy(g->desc);
    free(g->clips);
    free(g->values);
    free(g->pose);
    free(g->sets);
    memset(g, 0, sizeof *g);
}

/* ------------------------------------------------------------------ view keys --- */

bool cli_graph_key(cli_graph *g, uint32_t index, bool shift, char *report, size_t size) {
    if (index >= g->parameter_count || index >= 9) return false;
    const char *name = ossa_graph_parameter_name(g->graph, index);
    ossa_graph_value *v = &g->values[index];
    switch (ossa_graph_parameter_type_of(g->graph, index)) {
    case OSSA_GRAPH_PARAMETER_FLOAT:
        v->number += shift ? -CLI_GRAPH_KEY_STEP : CLI_GRAPH_KEY_STEP;
        snprintf(report, size, "%s = %g", name, (double)v->number);
        break;
    case OSSA_GRAPH_PARAMETER_BOOL:
        v->flag = !v->flag;
        snprintf(report, size, "%s = %s", name, v->flag ? "true" : "false");
        break;
    case OSSA_GRAPH_PARAMETER_TRIGGER:
        v->flag = true;
        snprintf(report, size, "%s fired", name);
        break;
    default: return false;
    }
    return true;
}

/* Appends text, never past size. */
static void append(char *out, size_t size, size_t *used, const char *text) {
    if (*used + 1 >= size) return;
    int n = snprintf(out + *used, size - *used, "%s", text);
    if (n > 0) *used += (size_t)n < size - *used ? (size_t)n : size - *used - 1;
}

char *cli_graph_key_help(const cli_graph *g, char *out, size_t size) {
    size_t used = 0;
    out[0] = '\0';
    for (uint32_t p = 0; p < g->parameter_count && p < 9; p++) {
        char item[320];
        const char *name = ossa_graph_parameter_name(g->graph, p);
        ossa_graph_parameter_type t = ossa_graph_parameter_type_of(g->graph, p);
        if (t == OSSA_GRAPH_PARAMETER_FLOAT)
            snprintf(item, sizeof item, "%s%u %s (float: +%g, shift -)", p ? ", " : "", p + 1, name,
                     (double)CLI_GRAPH_KEY_STEP);
        else
            snprintf(item, sizeof item, "%s%u %s (%s)", p ? ", " : "", p + 1, name,
                     t == OSSA_GRAPH_PARAMETER_BOOL ? "bool: toggles" : "trigger: fires");
        append(out, size, &used, item);
    }
    return out;
}

char *cli_graph_values(const cli_graph *g, char *out, size_t size) {
    size_t used = 0;
    out[0] = '\0';
    for (uint32_t p = 0; p < g->parameter_count && p < 9; p++) {
        char item[320];
        const char *name = ossa_graph_parameter_name(g->graph, p), *sep = used ? ", " : "";
        ossa_graph_parameter_type t = ossa_graph_parameter_type_of(g->graph, p);
        if (t == OSSA_GRAPH_PARAMETER_FLOAT) snprintf(item, sizeof item, "%s%s %g", sep, name, (double)g->values[p].number);
        else if (t == OSSA_GRAPH_PARAMETER_BOOL) snprintf(item, sizeof item, "%s%s %s", sep, name, g->values[p].flag ? "on" : "off");
        else continue; /* triggers: nothing to show */
        append(out, size, &used, item);
    }
    return out;
}
