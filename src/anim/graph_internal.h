/* Internal layout of a graph and its instances (src/anim, not installed). graph.c builds the
 * graph (description checks, name resolution, one allocation); graph_instance.c runs it. */
#ifndef OSSA_ANIM_GRAPH_INTERNAL_H
#define OSSA_ANIM_GRAPH_INTERNAL_H

#include <ossa/graph.h>

/* A clip the graph uses, resolved once: what plays it and its events. */
typedef struct ossa__graph_clip {
    ossa_clip_source source;
    const ossa_root_motion *motion;
    float start, end;
    uint32_t joint_count;      /* joints the clip's pose has (built: its joint count) */
    uint32_t event_count;      /* events on this clip, sorted by time: */
    float *event_times;
    uint32_t *event_index;     /* index into the description's events */
} ossa__graph_clip;

typedef struct ossa__graph_state {
    const char *name;
    ossa_graph_state_kind kind;
    bool loop, sync;
    float speed;
    uint32_t sample_count;     /* CLIP / ADDITIVE: 1 */
    uint32_t *clips;           /* sample_count indices into graph->clips */
    float *xs, *ys;            /* sample_count positions (blend spaces) */
    uint32_t parameter_x, parameter_y;
} ossa__graph_state;

typedef struct ossa__graph_transition {
    uint32_t from, to;
    ossa_graph_instruction *code;
    uint32_t code_count;
    bool has_exit_time;
    float exit_time, duration;
    ossa_graph_blend_mode blend;
} ossa__graph_transition;

typedef struct ossa__graph_layer {
    const char *name;
    ossa_graph_layer_mode mode;
    float *mask;               /* joint_count subtree weights, or NULL (every joint 1) */
    float weight;
    uint32_t weight_parameter;
    uint32_t start_state;
    uint32_t state_count, transition_count;
    ossa__graph_state *states;
    ossa__graph_transition *transitions;
    uint32_t max_samples;      /* most clips one of its states plays */
} ossa__graph_layer;

struct ossa_graph {
    ossa_allocator allocator;
    const ossa_skeleton *skeleton;
    uint32_t joint_count;
    uint32_t parameter_count, layer_count, clip_count, event_count;
    const char **parameter_names;
    ossa_graph_parameter_type *parameter_types;
    ossa_graph_value *parameter_initial;
    ossa__graph_layer *layers;
    ossa__graph_clip *clips;
    const char **event_names;
    uint32_t max_samples;          /* over every layer */
    uint32_t context_joints, context_weights; /* capacity of the sampling contexts (0: no built clip) */
    size_t context_bytes;          /* one sampling context */
    size_t instance_block;         /* bytes of an instance's block */
};

/* Bytes of an instance's block for `graph` (graph_instance.c). */
size_t ossa__graph_instance_block(const ossa_graph *graph);

/* Fills diag (may be NULL): path, and "path: <printf message>"; returns result (graph.c). */
ossa_result ossa__graph_fail(ossa_diagnostic *diag, ossa_result result, const char *path, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

#endif
