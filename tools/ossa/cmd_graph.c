/* ossa graph check G.json FILE
 * Loads an animation-graph description (ossa/graph_json.h) and builds it against FILE's skeleton
 * and clips (ossa_graph_create): exit 0 with a summary (parameters, layers with their states
 * and transitions, instance bytes), or 1 with the first error and its JSON path. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ossa/graph.h>
#include <ossa/graph_json.h>

#include "cli_common.h"
#include "commands.h"
#include "graph_cli.h"

static int usage(FILE *f) {
    fprintf(f, "usage: ossa graph check G.json FILE\n"
               "  validates the animation graph G.json (docs/graphs.md) against FILE's skeleton and clips:\n"
               "  prints a summary and exits 0, or prints the first error with its JSON path and exits 1\n");
    return f == stdout ? 0 : 2;
}

static const char *parameter_type(ossa_graph_parameter_type t) {
    switch (t) {
    case OSSA_GRAPH_PARAMETER_FLOAT: return "float";
    case OSSA_GRAPH_PARAMETER_BOOL: return "bool";
    case OSSA_GRAPH_PARAMETER_TRIGGER: return "trigger";
    default: return "?";
    }
}

static void print_summary(const char *path, const char *file, const ossa_graph *g) {
    uint32_t layers = ossa_graph_layer_count(g), parameters = ossa_graph_parameter_count(g);
    printf("ossa graph check: %s against %s: ok, %u parameter%s, %u layer%s, instance %zu bytes\n", path, file,
           parameters, parameters == 1 ? "" : "s", layers, layers == 1 ? "" : "s", ossa_graph_instance_size(g));
    printf("  parameters:");
    for (uint32_t p = 0; p < parameters; p++)
        printf(" %s (%s)%s", ossa_graph_parameter_name(g, p), parameter_type(ossa_graph_parameter_type_of(g, p)),
               p + 1 < parameters ? "," : "");
    printf("\n");
    for (uint32_t l = 0; l < layers; l++) {
        uint32_t states = ossa_graph_state_count(g, l), transitions = ossa_graph_transition_count(g, l);
        printf("  layer %u '%s': %u state%s (", l, ossa_graph_layer_name(g, l), states, states == 1 ? "" : "s");
        for (uint32_t s = 0; s < states; s++) printf("%s%s", s ? ", " : "", ossa_graph_state_name(g, l, s));
        printf("), %u transition%s\n", transitions, transitions == 1 ? "" : "s");
    }
}

static int graph_check(const char *path, const char *file) {
    ossa_asset *asset = cli_load_asset("graph check", file);
    if (!asset) return 1;
    ossa_graph_desc *desc = NULL;
    ossa_graph_clip *clips = NULL;
    int rc = 1;
    if (!asset->skeleton) fprintf(stderr, "ossa graph check: %s has no skeleton\n", file);
    else {
        ossa_graph *g = cli_graph_build(path, asset, "graph check", &desc, &clips);
        if (g) {
            print_summary(path, file, g);
            rc = 0;
        }
        ossa_graph_destroy(g);
    }
    free(clips);
    ossa_graph_desc_destroy(desc);
    ossa_asset_destroy(asset);
    return rc;
}

int cmd_graph(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return usage(stdout);
    if (argc < 2 || strcmp(argv[1], "check") != 0) {
        if (argc >= 2) fprintf(stderr, "ossa graph: unknown sub-command '%s'\n", argv[1]);
        return usage(stderr);
    }
    const char *path = NULL, *file = NULL;
    for (int i = 2; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1]) {
            cli_unknown_option("graph check", argv[i], false);
            return usage(stderr);
        }
        if (!path) path = argv[i];
        else if (!file) file = argv[i];
        else {
            fprintf(stderr, "ossa graph check: one G.json and one FILE, got '%s' too\n", argv[i]);
            return usage(stderr);
        }
    }
    if (!path || !file) return usage(stderr);
    return graph_check(path, file);
}
