/* ossa/graph.h: animation graphs: layers of state machines (clips, blend spaces) with
 * transitions (cross-fade, inertialization, dead blending), run as the existing jobs.
 * Provided by library ossa (runtime; CMake ossa::ossa, pkg-config ossa). The JSON loader of
 * descriptions is in graph_json.h (library ossa_gltf, the JSON layer).
 *
 * Data flow: parameters + dt ─► GRAPH INSTANCE (per layer: transitions, state clocks) ─►
 *   sampling jobs (built clips: per-instance contexts; editable clips: the clip sampling job)
 *   ─► blend job (blend spaces, cross-fades, layers with masks, additive layers)
 *   ─► inertialization / dead-blending apply jobs (inertialize.h) ─► local pose,
 *   beside it: event jobs (clip events, state enter / exit) and root-motion jobs.
 *
 * Three objects:
 *   - a DESCRIPTION (ossa_graph_desc): plain data a program fills by hand or graph_json.h loads;
 *     names for clips and the mask joint, indices for parameters, states and transitions;
 *     conditions as a small postfix bytecode. It is only read by ossa_graph_create.
 *   - a GRAPH (ossa_graph): the description checked against a skeleton and an asset's clips,
 *     copied into one allocation; immutable and shareable between characters and threads.
 *   - an INSTANCE (ossa_graph_instance): one character's state: the active state of every layer,
 *     clocks, transitions in progress, sampling contexts and pose buffers. Fixed size
 *     (ossa_graph_instance_size), allocated once by ossa_graph_instance_create;
 *     ossa_graph_update allocates nothing. Not thread-safe per instance; distinct instances of
 *     one graph may update on distinct threads.
 *
 * Semantics of one update (docs/graphs.md has the full text):
 *   1. Per layer, in order: the current state's clock advances by dt (times its speed).
 *      Blend spaces: weights from the parameters; synced ones share one normalised phase.
 *   2. Transitions whose `from` is the current state (or ANY, when `to` is not the current
 *      state) are tried in description order; the first whose condition holds and whose exit
 *      time (if any) was crossed by this update's step of the current state fires: one
 *      transition per layer per update. The triggers its condition reads are consumed (set to
 *      false in the caller's parameter array). A transition may fire while another runs
 *      (an interruption): the layer's last output is what the new transition leaves from,
 *      so nothing pops (a cross-fade then fades from that output frozen; inertialization and
 *      dead blending record it with its velocity).
 *   3. The layer's pose: the current state, or the transition's mix:
 *        crossfade:   blend job (old, new) at weights (1 - w, w), w = elapsed / duration;
 *                     when both states are synced blend spaces, the new one starts at the
 *                     old one's phase and both advance on the weight-interpolated cycle;
 *        inertialize: only the new state is sampled; the inertialization apply job adds
 *                     the recorded offset, decayed by Bollo's quintic;
 *        dead_blend:  the old pose extrapolated with its decaying velocity, blended out
 *                     (ossa_dead_blend_apply_job).
 *   4. Layers composite in order over the rest pose: an OVERRIDE layer with per-joint weight
 *      a_j = weight * mask_j replaces (1 - a_j) of what lies below by its pose (blend job with
 *      masks: a_j = 1 copies the layer exactly); an ADDITIVE layer adds its delta pose (the
 *      blend job's additive step) with weight a_j. An EMPTY state contributes nothing: its
 *      pose is what lies below (override) or the identity delta (additive), so a transition
 *      into or out of it fades the layer in or out.
 *   5. Outputs: the local pose, the events (clip events crossed by playing clips, state exits
 *      then enters), the root-motion delta of layer 0's playing clips, and the status.
 *
 * Paths in diagnostics (ossa_graph_desc_validate, ossa_graph_create) are JSON pointers into
 * the JSON form of the description (graph_json.h), states by name:
 *   "/layers/0/transitions/2/to", "/layers/1/states/punch/clip", "/parameters/speed". */
#ifndef OSSA_GRAPH_H
#define OSSA_GRAPH_H

#include "asset.h"
#include "inertialize.h"
#include "player.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * The description (plain data, borrowed by ossa_graph_create, which copies what it keeps)
 * ------------------------------------------------------------------------------------------- */

#define OSSA_GRAPH_NONE UINT32_MAX      /* "no index": no weight parameter */
#define OSSA_GRAPH_ANY_STATE UINT32_MAX /* a transition's `from`: any state except its `to` */
#define OSSA_GRAPH_MAX_LAYERS 32
#define OSSA_GRAPH_MAX_STATES 1024        /* per layer */
#define OSSA_GRAPH_MAX_TRANSITIONS 4096   /* per layer */
#define OSSA_GRAPH_MAX_PARAMETERS 1024
#define OSSA_GRAPH_MAX_SAMPLES 64         /* clips in one blend space */
#define OSSA_GRAPH_MAX_INSTRUCTIONS 256   /* one condition */
#define OSSA_GRAPH_MAX_STACK 32           /* a condition's evaluation depth */
#define OSSA_GRAPH_MAX_EVENTS 65536

typedef enum ossa_graph_parameter_type {
    OSSA_GRAPH_PARAMETER_INVALID = 0,
    OSSA_GRAPH_PARAMETER_FLOAT,   /* value.number: compared, drives blend spaces and layer weights */
    OSSA_GRAPH_PARAMETER_BOOL,    /* value.flag: held until the caller changes it */
    OSSA_GRAPH_PARAMETER_TRIGGER  /* value.flag: set by the caller, cleared by the update when a
                                     transition whose condition reads it fires */
} ossa_graph_parameter_type;

/* One parameter's value. The caller's parameter array has one per parameter, in the
 * description's order (ossa_graph_find_parameter maps a name to its index). */
typedef union ossa_graph_value {
    float number; /* FLOAT parameters: finite */
    bool flag;    /* BOOL and TRIGGER parameters */
} ossa_graph_value;

typedef struct ossa_graph_parameter_desc {
    const char *name;               /* required, unique among the parameters */
    ossa_graph_parameter_type type; /* required */
    ossa_graph_value initial;       /* value given by ossa_graph_parameters_init (finite) */
} ossa_graph_parameter_desc;

/* Conditions: a postfix program over a stack of booleans (at most OSSA_GRAPH_MAX_STACK deep);
 * it must leave exactly one value. "speed > 0.1 && !armed" is
 *   COMPARE(speed, GREATER, 0.1)  FLAG(armed)  NOT  AND. */
typedef enum ossa_graph_op {
    OSSA_GRAPH_OP_INVALID = 0,
    OSSA_GRAPH_OP_TRUE,               /* push true */
    OSSA_GRAPH_OP_FALSE,              /* push false */
    OSSA_GRAPH_OP_FLAG,               /* push parameters[parameter].flag (a BOOL or TRIGGER parameter) */
    OSSA_GRAPH_OP_COMPARE,            /* push parameters[parameter].number <compare> constant (FLOAT) */
    OSSA_GRAPH_OP_COMPARE_PARAMETERS, /* push parameters[parameter].number <compare> parameters[other].number */
    OSSA_GRAPH_OP_NOT,                /* pop a, push !a */
    OSSA_GRAPH_OP_AND,                /* pop b, pop a, push a && b */
    OSSA_GRAPH_OP_OR                  /* pop b, pop a, push a || b */
} ossa_graph_op;

typedef enum ossa_graph_compare {
    OSSA_GRAPH_COMPARE_INVALID = 0,
    OSSA_GRAPH_LESS,          /* <  */
    OSSA_GRAPH_LESS_EQUAL,    /* <= */
    OSSA_GRAPH_GREATER,       /* >  */
    OSSA_GRAPH_GREATER_EQUAL, /* >= */
    OSSA_GRAPH_EQUAL,         /* == */
    OSSA_GRAPH_NOT_EQUAL      /* != */
} ossa_graph_compare;

typedef struct ossa_graph_instruction {
    ossa_graph_op op;
    ossa_graph_compare compare; /* COMPARE, COMPARE_PARAMETERS */
    uint32_t parameter;         /* FLAG, COMPARE, COMPARE_PARAMETERS: parameter index */
    uint32_t other;             /* COMPARE_PARAMETERS: the right-hand FLOAT parameter */
    float constant;             /* COMPARE: the right-hand value (finite) */
} ossa_graph_instruction;

typedef enum ossa_graph_state_kind {
    OSSA_GRAPH_STATE_INVALID = 0,
    OSSA_GRAPH_STATE_EMPTY,    /* no pose: see the semantics above */
    OSSA_GRAPH_STATE_CLIP,     /* one clip: clip, loop, speed */
    OSSA_GRAPH_STATE_BLEND_1D, /* clips at positions samples[i].x along parameter_x */
    OSSA_GRAPH_STATE_BLEND_2D, /* clips at (x, y) in the plane of (parameter_x, parameter_y):
                                  freeform directional (gradient bands in polar space) */
    OSSA_GRAPH_STATE_ADDITIVE  /* one delta clip (ossa_clip_make_additive): additive layers only */
} ossa_graph_state_kind;

/* A clip of a blend space and where it sits. 1-D: x strictly increasing along the samples.
 * 2-D: no two samples at the same point; (0, 0) is the idle point, the others are directions
 * (their angle) and magnitudes (e.g. velocity x / z in m/s). */
typedef struct ossa_graph_blend_sample {
    const char *clip; /* required: a clip name given to ossa_graph_create */
    float x, y;       /* finite */
} ossa_graph_blend_sample;

typedef struct ossa_graph_state_desc {
    const char *name;           /* required, unique in its layer */
    ossa_graph_state_kind kind; /* required */
    const char *clip;           /* CLIP, ADDITIVE: the clip's name */
    bool loop;                  /* CLIP, ADDITIVE: wrap, else hold at the end (blend spaces always loop) */
    float speed;                /* playback rate, finite; 0 = 1 (any sign otherwise) */
    const ossa_graph_blend_sample *samples; /* BLEND_1D, BLEND_2D: 1..OSSA_GRAPH_MAX_SAMPLES */
    uint32_t sample_count;
    uint32_t parameter_x;       /* BLEND_1D, BLEND_2D: a FLOAT parameter */
    uint32_t parameter_y;       /* BLEND_2D: a FLOAT parameter */
    bool sync;                  /* blend spaces: every clip at one normalised phase whose cycle is the
                                   weight-averaged duration (ossa_sync_duration); else each clip runs
                                   its own clock from the state's entry */
} ossa_graph_state_desc;

typedef enum ossa_graph_blend_mode {
    OSSA_GRAPH_BLEND_CROSSFADE = 0, /* default */
    OSSA_GRAPH_BLEND_INERTIALIZE,
    OSSA_GRAPH_BLEND_DEAD_BLEND
} ossa_graph_blend_mode;

/* A transition fires when its condition holds (no condition: always) and, with has_exit_time,
 * the source state's normalised time crossed exit_time during this update's step (first frame
 * with n_before < exit_time <= n_after; looping states cross it once per cycle). One of
 * condition and exit time is required. */
typedef struct ossa_graph_transition_desc {
    uint32_t from;                              /* state index in the layer, or OSSA_GRAPH_ANY_STATE */
    uint32_t to;                                /* state index in the layer (!= from) */
    const ossa_graph_instruction *condition;    /* postfix program, or NULL with condition_count 0 */
    uint32_t condition_count;                   /* <= OSSA_GRAPH_MAX_INSTRUCTIONS */
    bool has_exit_time;
    float exit_time;                            /* normalised (0..1 for one cycle; finite, >= 0) */
    float duration;                             /* seconds, finite, >= 0 (0 = a cut) */
    ossa_graph_blend_mode blend;
} ossa_graph_transition_desc;

typedef enum ossa_graph_layer_mode {
    OSSA_GRAPH_LAYER_OVERRIDE = 0, /* default */
    OSSA_GRAPH_LAYER_ADDITIVE
} ossa_graph_layer_mode;

typedef struct ossa_graph_layer_desc {
    const char *name;              /* required, unique among the layers */
    ossa_graph_layer_mode mode;
    const char *mask_joint;        /* the subtree of this joint (by name); NULL = every joint */
    float weight;                  /* constant weight, finite, >= 0 for override layers */
    uint32_t weight_parameter;     /* a FLOAT parameter read each update instead of `weight`, or
                                      OSSA_GRAPH_NONE. Either is clamped to [0, 1] for override
                                      layers and [-2, 2] for additive ones.
                                      A zeroed desc has index 0: set OSSA_GRAPH_NONE for a constant */
    uint32_t start_state;          /* the state an instance starts in */
    const ossa_graph_state_desc *states;           /* 1..OSSA_GRAPH_MAX_STATES */
    uint32_t state_count;
    const ossa_graph_transition_desc *transitions; /* tried in this order */
    uint32_t transition_count;
} ossa_graph_layer_desc;

/* An event on a clip's timeline (clip seconds, in [start, end]); reported whenever a playing
 * clip's step crosses it (events.h's crossing rule), whatever state plays the clip. */
typedef struct ossa_graph_event_desc {
    const char *clip; /* required: a clip name given to ossa_graph_create */
    float time;       /* clip seconds */
    const char *name; /* required */
} ossa_graph_event_desc;

typedef struct ossa_graph_desc {
    const ossa_graph_parameter_desc *parameters;
    uint32_t parameter_count;
    const ossa_graph_layer_desc *layers; /* 1..OSSA_GRAPH_MAX_LAYERS; layer 0 must be OVERRIDE */
    uint32_t layer_count;
    const ossa_graph_event_desc *events;
    uint32_t event_count;
} ossa_graph_desc;

/* Checks the description alone (no clips, no skeleton): counts and limits, names present and
 * unique, indices in range, parameter types (FLAG reads BOOL / TRIGGER, COMPARE reads FLOAT,
 * blend spaces and layer weights read FLOAT), conditions well formed (stack never underflows,
 * never exceeds OSSA_GRAPH_MAX_STACK, ends with one value), finite numbers, 1-D positions
 * strictly increasing, 2-D points distinct, ADDITIVE states only in additive layers, a
 * transition with neither condition nor exit time. OK or INVALID_DATA (INVALID_ARGUMENT for a
 * NULL desc); diag (may be NULL) names the first fault as a JSON pointer with a message:
 * "/layers/0/transitions/2/to: state 7 out of range (2 states)". O(size of the desc). */
ossa_result ossa_graph_desc_validate(const ossa_graph_desc *desc, ossa_diagnostic *diag);

/* ---------------------------------------------------------------------------------------------
 * The graph (immutable, shareable)
 * ------------------------------------------------------------------------------------------- */

typedef struct ossa_graph ossa_graph;
typedef struct ossa_graph_instance ossa_graph_instance;

/* A clip the description may name, and what plays it. The source is borrowed (it and the
 * root motion must outlive the graph). Built clips must match the skeleton
 * (ossa_built_clip_matches with its rest pose). */
typedef struct ossa_graph_clip {
    const char *name;                   /* required; the first of equal names wins */
    ossa_clip_source source;            /* exactly one of editable / built */
    const ossa_root_motion *root_motion; /* optional: the clip's extracted motion (root_motion.h) */
} ossa_graph_clip;

/* Fills out[0, n) with the asset's clips by name (n = asset->clip_count, or its built-clip
 * count for an asset with built clips only): the built clip when prefer_built and it exists,
 * else the editable one; no root motion. *count = n. INVALID_ARGUMENT for NULLs;
 * BUFFER_TOO_SMALL when capacity < n (nothing written, *count = n). Names are the asset's. */
ossa_result ossa_graph_clips_from_asset(const ossa_asset *asset, bool prefer_built, ossa_graph_clip *out,
                                        uint32_t capacity, uint32_t *count);

/* Builds a graph: ossa_graph_desc_validate, then every clip name resolved among `clips`
 * ("/layers/0/states/jump/clip: no clip \"Jmp\""), the mask joints among the skeleton's joint
 * names ("/layers/1/mask: no joint \"Spin\""), built clips checked against the skeleton's rest
 * pose. Copies everything it keeps (names included) into one allocation; keeps pointers to
 * the skeleton, the clip sources and root motions (borrowed). OK, INVALID_ARGUMENT (NULLs,
 * clip_count > 0 with NULL clips, a source with no clip or two), INVALID_DATA (the desc, a name
 * that does not resolve, a mismatched built clip), OUT_OF_MEMORY. *out is NULL on failure.
 * diag may be NULL. */
ossa_result ossa_graph_create(const ossa_graph_desc *desc, const ossa_skeleton *skeleton, const ossa_graph_clip *clips,
                              uint32_t clip_count, const ossa_allocator *allocator, ossa_graph **out,
                              ossa_diagnostic *diag);
/* Frees a graph (after its instances); NULL is a no-op. */
void ossa_graph_destroy(ossa_graph *graph);

/* Queries (a NULL graph or an index out of range gives 0 / NULL / -1). Names are the graph's
 * copies, valid while it lives. */
const ossa_skeleton *ossa_graph_skeleton(const ossa_graph *graph);
uint32_t ossa_graph_joint_count(const ossa_graph *graph);
uint32_t ossa_graph_parameter_count(const ossa_graph *graph);
const char *ossa_graph_parameter_name(const ossa_graph *graph, uint32_t parameter);
ossa_graph_parameter_type ossa_graph_parameter_type_of(const ossa_graph *graph, uint32_t parameter);
int32_t ossa_graph_find_parameter(const ossa_graph *graph, const char *name);
uint32_t ossa_graph_layer_count(const ossa_graph *graph);
const char *ossa_graph_layer_name(const ossa_graph *graph, uint32_t layer);
uint32_t ossa_graph_state_count(const ossa_graph *graph, uint32_t layer);
const char *ossa_graph_state_name(const ossa_graph *graph, uint32_t layer, uint32_t state);
int32_t ossa_graph_find_state(const ossa_graph *graph, uint32_t layer, const char *name);
uint32_t ossa_graph_transition_count(const ossa_graph *graph, uint32_t layer);
/* The transition's endpoints (from may be OSSA_GRAPH_ANY_STATE); false when out of range. */
bool ossa_graph_transition_states(const ossa_graph *graph, uint32_t layer, uint32_t transition, uint32_t *from,
                                  uint32_t *to);

/* Writes every parameter's initial value into values[0, parameter_count). INVALID_ARGUMENT for
 * NULLs; BUFFER_TOO_SMALL when value_count < parameter_count (nothing written). */
ossa_result ossa_graph_parameters_init(const ossa_graph *graph, ossa_graph_value *values, uint32_t value_count);

/* ---------------------------------------------------------------------------------------------
 * Instances (one per character)
 * ------------------------------------------------------------------------------------------- */

/* Bytes one instance of this graph allocates (its block and its sampling contexts): what
 * ossa_graph_instance_create will take, fixed for the graph. 0 for a NULL graph. */
size_t ossa_graph_instance_size(const ossa_graph *graph);
/* Creates an instance in every layer's start state at time 0 (the only allocation an instance
 * ever makes). The graph must outlive it. INVALID_ARGUMENT, OUT_OF_MEMORY; *out NULL on failure. */
ossa_result ossa_graph_instance_create(const ossa_graph *graph, const ossa_allocator *allocator,
                                       ossa_graph_instance **out);
/* Frees an instance; NULL is a no-op. */
void ossa_graph_instance_destroy(ossa_graph_instance *instance);
/* Back to the start states at time 0, no transition running, root delta identity. */
void ossa_graph_instance_reset(ossa_graph_instance *instance);
const ossa_graph *ossa_graph_instance_graph(const ossa_graph_instance *instance);

typedef enum ossa_graph_event_kind {
    OSSA_GRAPH_EVENT_INVALID = 0,
    OSSA_GRAPH_EVENT_CLIP,        /* a clip event (ossa_graph_event_desc) crossed by a playing clip */
    OSSA_GRAPH_EVENT_STATE_EXIT,  /* a layer left `state` (a transition fired) */
    OSSA_GRAPH_EVENT_STATE_ENTER  /* a layer entered `state` */
} ossa_graph_event_kind;

typedef struct ossa_graph_event {
    ossa_graph_event_kind kind;
    uint32_t layer;
    uint32_t state;      /* the state entered / left, or the state playing the clip */
    uint32_t event;      /* CLIP: index into the description's events; else OSSA_GRAPH_NONE */
    uint32_t transition; /* STATE_EXIT / STATE_ENTER: the transition that fired; else OSSA_GRAPH_NONE */
    const char *name;    /* the event's or the state's name (the graph's copy) */
    float weight;        /* CLIP: the clip's weight in the layer's pose when crossed (0..1); else 1 */
} ossa_graph_event;

/* What one update writes. The caller owns every span. */
typedef struct ossa_graph_output {
    ossa_transform *pose;        /* required: the local pose, pose_count >= ossa_graph_joint_count */
    uint32_t pose_count;
    ossa_graph_event *events;    /* optional (NULL with event_capacity 0: count only, never an overflow) */
    uint32_t event_capacity;
    uint32_t event_count;        /* out: events of this update (may exceed event_capacity) */
    bool events_overflowed;      /* out: event_count > event_capacity (the first capacity kept) */
    ossa_transform root_delta;   /* out: the root-motion delta of this update (identity if none) */
} ossa_graph_output;

/* Advances the instance by dt seconds (finite, >= 0; 0 re-evaluates without moving clocks,
 * transitions may still fire) with the given parameters (parameter_count >= the graph's, FLOAT
 * values finite), and writes the outputs: the semantics at the top of this header. Consumed
 * triggers are cleared in `parameters`. Allocates nothing.
 * OK; BUFFER_TOO_SMALL when the events overflowed (everything else is written and the
 * instance advanced); INVALID_ARGUMENT (nothing changes, nothing written) for NULLs, a bad dt,
 * parameter_count or pose_count too small, a non-finite FLOAT parameter, events NULL with a
 * capacity. O(joints x (layers + sampled clips)). */
ossa_result ossa_graph_update(ossa_graph_instance *instance, float dt, ossa_graph_value *parameters,
                              uint32_t parameter_count, ossa_graph_output *output);

/* The last update's local pose (ossa_graph_joint_count transforms, owned by the instance, the
 * rest pose before the first update). */
const ossa_transform *ossa_graph_instance_pose(const ossa_graph_instance *instance);

typedef struct ossa_graph_layer_status {
    uint32_t state;            /* the active state (the target while a transition runs) */
    const char *state_name;
    float state_time;          /* seconds since the active state was entered (scaled by nothing) */
    float normalized_time;     /* the active state's normalised time (cycles since entry; clips:
                                  (time - start) / duration, held at 1 at the end without loop) */
    bool transitioning;        /* a transition is running */
    uint32_t transition;       /* its index in the layer's transitions, else OSSA_GRAPH_NONE */
    uint32_t from_state;       /* the state it left, else OSSA_GRAPH_NONE */
    float progress;            /* elapsed / duration in [0, 1]; 1 when none runs */
    float weight;              /* the layer's weight this update (constant or its parameter) */
} ossa_graph_layer_status;

/* The layer's status after the last update (or creation). INVALID_ARGUMENT for NULLs or a
 * layer out of range. */
ossa_result ossa_graph_instance_layer_status(const ossa_graph_instance *instance, uint32_t layer,
                                             ossa_graph_layer_status *out);

/* ---------------------------------------------------------------------------------------------
 * Blend-space weights (used by the graph; usable alone)
 * ------------------------------------------------------------------------------------------- */

/* Freeform directional 2-D weights (gradient band interpolation in polar space: R. Johansen,
 * "Automated Semi-Procedural Animation for Character Locomotion", 2009; the scheme of Unity's
 * "2D Freeform Directional"). For the point p = (x, y) and samples s_i = (xs[i], ys[i]):
 *   h_i(p) = max(0, min over j != i of (1 - <p_ij, v_ij> / <v_ij, v_ij>)),  w_i = h_i / sum_k h_k,
 * with the polar vectors (m = (|s_i| + |s_j|) / 2, A(a, b) the signed angle from a to b):
 *   v_ij = ((|s_j| - |s_i|) / m, 2 A(s_i, s_j)),   p_ij = ((|p| - |s_i|) / m, 2 A(s_i, p));
 * when s_i or s_j is the origin the angle terms are 0 (the magnitude alone decides).
 * Guarantees: every weight >= 0, they sum to 1, and at a sample point that sample's weight is 1
 * exactly (the others 0). Where every h_i is 0 the nearest sample gets 1. INVALID_ARGUMENT for
 * NULLs, count 0 or above OSSA_GRAPH_MAX_SAMPLES, non-finite values or two samples at one point.
 * O(count^2). */
ossa_result ossa_blend_space_2d(const float *xs, const float *ys, uint32_t count, float x, float y, float *weights);

/* ---------------------------------------------------------------------------------------------
 * Dead blending as a job (usable without graphs)
 * ------------------------------------------------------------------------------------------- */
/* Dead blending (D. Holden, "Dead Blending", 2023; the transition of "Inertialization" done by
 * extrapolation): at a transition the old pose x0 and its velocity v0 are recorded; afterwards
 * the old pose is extrapolated with a velocity decaying exponentially at rate
 * lambda = ln 2 / halflife,
 *   e(t) = x0 + v0 (1 - exp(-lambda t)) / lambda      (rotation: exp(that angular term) * q0),
 * and blended out against the new state's pose with the smooth weight
 *   alpha(t) = s(t / T), s(u) = 3u^2 - 2u^3 (0 at u = 0, 1 at u >= 1, zero slope at both ends):
 *   output(t) = blend(e(t), new(t), alpha(t))  (translation and scale lerp, rotation nlerp on the
 *   short arc). At t = 0 the output is the old pose and its velocity the old velocity; at t >= T
 * it is the new pose exactly. docs/graphs.md has the derivation. Per joint 9 velocity channels as
 * the inertialization jobs: translation (units/s), angular (rotation vector, rad/s, taken as
 * log(q0 * conj(q_before)) / dt on the short arc), scale (units/s). */

typedef struct ossa_dead_blend_joint {
    ossa_transform pose;                      /* x0: the old pose at the transition */
    float velocity[OSSA_INERTIALIZE_CHANNELS]; /* v0 */
} ossa_dead_blend_joint;

/* Records a transition. joint count n = previous_count. */
typedef struct ossa_dead_blend_record_job {
    const ossa_transform *previous; /* required: the old pose at the transition (the last one shown) */
    uint32_t previous_count;        /* the joint count */
    const ossa_transform *before;   /* optional: the old pose dt seconds before `previous`; NULL: v0 = 0 */
    uint32_t before_count;          /* >= previous_count when before is given */
    float dt;                       /* seconds between before and previous; > 0 finite when before is given */
    ossa_dead_blend_joint *state;   /* output: one record per joint, owned by the caller */
    uint32_t state_count;           /* >= previous_count */
} ossa_dead_blend_record_job;

/* OK, INVALID_ARGUMENT (NULL previous / state, dt not > 0 or not finite while before is given)
 * or BUFFER_TOO_SMALL (before_count, state_count below previous_count). diag (may be NULL) names
 * the field: "previous", "state", "dt", "before_count", "state_count". O(1). */
ossa_result ossa_dead_blend_record_job_validate(const ossa_dead_blend_record_job *job, ossa_diagnostic *diag);
ossa_result ossa_dead_blend_record_job_run(ossa_dead_blend_record_job *job);

/* Applies a recorded transition at one time. joint count n = target_count. */
typedef struct ossa_dead_blend_apply_job {
    const ossa_dead_blend_joint *state; /* required: from the record job */
    uint32_t state_count;               /* >= target_count */
    const ossa_transform *target;       /* required: the new state's current pose */
    uint32_t target_count;              /* the joint count */
    float time;                         /* seconds since the transition; >= 0 and finite */
    float duration;                     /* T: blend-out seconds; > 0 and finite */
    float halflife;                     /* velocity half-life, seconds; > 0 finite; 0 = T / 4 */
    ossa_transform *output;             /* output_count >= target_count; may be `target` itself */
    uint32_t output_count;
} ossa_dead_blend_apply_job;

/* OK, INVALID_ARGUMENT (NULL state / target / output, a bad time, duration or halflife) or
 * BUFFER_TOO_SMALL (state_count, output_count). diag names "state", "target", "output", "time",
 * "duration", "halflife", "state_count", "output_count". O(1). */
ossa_result ossa_dead_blend_apply_job_validate(const ossa_dead_blend_apply_job *job, ossa_diagnostic *diag);
/* Validates, then writes output[j] for j < target_count (the formula above); for time >= duration
 * the target bit for bit. O(joint count). */
ossa_result ossa_dead_blend_apply_job_run(ossa_dead_blend_apply_job *job);

#ifdef __cplusplus
}
#endif
#endif
