/* Animation graphs in the ossa tool (docs/graphs.md, "The ossa tool"):
 *   --graph G.json              pose the character with the graph G (ossa/graph.h) instead of a clip
 *   --set NAME=VALUE@TIME       parameter NAME holds VALUE (a number, true or false) from TIME
 *                               seconds on (repeatable; TIME defaults to 0)
 *   --set NAME@TIME             fires the trigger NAME at TIME
 *   --fps N                     simulation rate (`ossa sample`; default 60)
 * The simulation starts at time 0 in the graph's start states and advances by 1/fps; the
 * frames end at k/fps and, in between, at each requested time, so a requested time is
 * simulated exactly and never shifts the grid. Before the update that ends at time t, every
 * --set whose TIME <= t (+1e-6) takes effect (in TIME order, then command-line order): a
 * trigger set at T is therefore seen by the first frame that ends at or after T, not before.
 * Going back in time (a smaller time than the last one) restarts the simulation from 0. */
#ifndef OSSA_TOOL_GRAPH_CLI_H
#define OSSA_TOOL_GRAPH_CLI_H

#include <ossa/graph.h>
#include <ossa/ossa.h>

typedef enum graph_set_kind { GRAPH_SET_TRIGGER, GRAPH_SET_BOOL, GRAPH_SET_NUMBER } graph_set_kind;

/* One --set, as given. */
typedef struct graph_set {
    const char *text;      /* the argument */
    size_t name_length;    /* NAME = text[0, name_length) */
    graph_set_kind kind;   /* by the syntax: no '=' a trigger, true/false a bool, else a number */
    float value;           /* 1 / 0 for a bool */
    double time;           /* seconds >= 0 */
    uint32_t parameter;    /* index in the graph (cli_graph_resolve) */
} graph_set;

/* Parses one --set argument; false after printing "ossa CMD: --set 'TEXT': expected ..." */
bool graph_set_parse(const char *cmd, const char *text, graph_set *set);

#define CLI_GRAPH_EVENTS 64 /* events kept per printed sample (the count is exact) */

typedef struct cli_graph {
    const char *path;         /* --graph, NULL = none */
    graph_set *sets;          /* --set, sorted by time by cli_graph_load (stable) */
    uint32_t set_count;
    bool take_fps;            /* --fps belongs to the graph (ossa sample), not to the caller */
    double fps;               /* simulation rate, > 0 (default 60) */
    /* after cli_graph_load */
    ossa_graph_desc *desc;
    ossa_graph_clip *clips;   /* the asset's clips by name (the graph borrows their sources) */
    ossa_graph *graph;
    ossa_graph_instance *instance;
    ossa_graph_value *values; /* the parameters as the simulation holds them */
    uint32_t parameter_count, joint_count;
    ossa_transform *pose;     /* joint_count: the pose at `clock` */
    double clock;             /* seconds simulated */
    uint32_t next_set;        /* first --set not applied yet */
    bool started;             /* the update at time 0 ran */
    ossa_graph_event events[CLI_GRAPH_EVENTS]; /* of the updates since the last cli_graph_print_json */
    double event_times[CLI_GRAPH_EVENTS];
    uint32_t event_count;     /* may exceed CLI_GRAPH_EVENTS (the first ones kept) */
} cli_graph;

/* Parses argv[*i] when it is a graph option (--graph, --set, and --fps when take_fps),
 * advancing *i past its value: 1 taken, 0 not one, -1 error (printed). */
int cli_graph_arg(cli_graph *g, const char *cmd, int argc, char **argv, int *i);
/* True when --graph was given. */
bool cli_graph_active(const cli_graph *g);
/* After the options: --set without --graph is a usage error; 0 ok, else 2 (printed). */
int cli_graph_check_options(const cli_graph *g, const char *cmd);
/* Loads the description, builds the graph over the asset's clips (built ones where the asset has
 * them), checks every --set against the parameters (name, trigger / bool / number), creates the
 * instance. 0, 1 (the graph or the asset, printed with the JSON path) or 2 (a --set, printed). */
int cli_graph_load(cli_graph *g, const ossa_asset *asset, const char *cmd);
/* Simulates up to time t (>= 0; restarting from 0 when t is before the clock); the pose at t is
 * g->pose. Returns false after printing an update failure. */
bool cli_graph_advance(cli_graph *g, double t, const char *cmd);
/* Prints `"graph": {"states": [...], "transitions": [{"layer", "from", "to", "progress"}],
 * "events": [{"time", "layer", "kind", "name"}]}` for the current clock (events: those of the
 * updates since the last print) and forgets the events. */
void cli_graph_print_json(cli_graph *g);
/* "base: move, upper: none -> punch 40%" (the window title of ossa view); returns out. */
char *cli_graph_describe(const cli_graph *g, char *out, size_t size);
/* Keys 1..9 of `ossa view`: parameter `index` (0-based, description order) is changed by a
 * key press: a bool toggles, a trigger fires, a float steps by +CLI_GRAPH_KEY_STEP
 * (-CLI_GRAPH_KEY_STEP with shift). Writes "speed = 1.5" (etc.) into report; false when the
 * graph has no such parameter. */
#define CLI_GRAPH_KEY_STEP 0.5f
bool cli_graph_key(cli_graph *g, uint32_t index, bool shift, char *report, size_t size);
/* "1 speed (float, +/-0.5), 2 jump (trigger), ..." for the first 9 parameters; returns out. */
char *cli_graph_key_help(const cli_graph *g, char *out, size_t size);
/* "speed 1.5, punch on" (the first 9 parameters' values, triggers left out); returns out. */
char *cli_graph_values(const cli_graph *g, char *out, size_t size);
void cli_graph_free(cli_graph *g);

/* Loads the description at `path` and builds it against the asset's clips (built ones where the
 * asset has them). On failure prints "ossa CMD: PATH: JSON-POINTER: message" and returns NULL
 * (nothing left to free). On success the caller destroys the graph, then frees *clips and
 * destroys *desc. */
ossa_graph *cli_graph_build(const char *path, const ossa_asset *asset, const char *cmd, ossa_graph_desc **desc,
                            ossa_graph_clip **clips);

#endif
