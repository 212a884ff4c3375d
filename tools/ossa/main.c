/* ossa: inspect, sample, render, benchmark and view skeletal animation. */
#include <stdio.h>
#include <string.h>

#include <ossa/common.h>

#include "cli_common.h"
#include "commands.h"

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *usage;
} command;

static const command COMMANDS[] = {
    {"demo", cmd_demo, "demo [--out out/demo.gif] [--size WxH] [--fps N] [--frame N]\n"
                       "                                       the built-in character walking, then waving (GIF)"},
    {"info", cmd_info, "info FILE [--json]                   node tree, skins, meshes, clips, warnings"},
    {"sample", cmd_sample, "sample FILE [--clip NAME|INDEX] [--time T]... [--vertices N|all] [--loop]\n"
                           "       [--graph G.json [--set NAME=VALUE@TIME]... [--fps N]]\n"
                           "                                       animated nodes and skinned vertices as JSON"},
    {"render", cmd_render, "render [FILE] [--clip NAME] [--from T --to T --fps N] [--size WxH]\n"
                           "       [--out anim.gif|frame.png] [--bones] [--cpu|--gpu] [--rest] [--graph G.json --set ...]\n"
                           "                                       headless render"},
    {"bench", cmd_bench, "bench [FILE] [--clip NAME] [--rounds N] [--threads N] [--crowd N]\n"
                         "                                       sampling, palette and skinning medians"},
    {"plot", cmd_plot, "plot [FILE|demo] [--clip NAME] [--node NAME] [--out curves.png]   a node's curves"},
    {"crowd", cmd_crowd, "crowd [FILE] [--count N] [--clips A,B] [--out crowd.png|gif] [--threads N]\n"
                         "                                       many instances, one instanced draw per mesh"},
    {"graph", cmd_graph, "graph check G.json FILE            validate an animation graph against FILE's clips"},
    {"pack", cmd_pack, "pack IN OUT.ossa [--precision P] [--lossless]   build the clips, write one packed file"},
    {"retarget", cmd_retarget, "retarget SOURCE --to TARGET [--clip NAME]... [--map MAP.json] [--tpose-fix]\n"
                               "       [--no-contacts] --out OUT.ossa [--report] [--json REPORT.json]\n"
                               "                                       SOURCE's clips on TARGET's humanoid skeleton\n"
                               "  ossa retarget --print-map SOURCE [TARGET]   the bone maps (profile bone -> joint)"},
    {"view", cmd_view, "view [FILE] [--clip NAME] [--frames N --screenshot PNG] [--graph G.json]\n"
                     "                                       interactive viewer (GLFW)"},
};
#define COMMAND_COUNT (sizeof(COMMANDS) / sizeof(COMMANDS[0]))

/* --retarget needs --anim; --map, --tpose-fix, --no-contacts and --rest-reference need --retarget (or `ossa retarget`). */
static bool retarget_options_fit(const char *cmd) {
    bool is_retarget = !strcmp(cmd, "retarget");
    if (cli_load.retarget && !cli_load.anim && !is_retarget) {
        fprintf(stderr, "ossa %s: --retarget needs --anim SOURCE (the clips to retarget onto the model)\n", cmd);
        return false;
    }
    if (cli_load.retarget_options && !cli_load.retarget && !is_retarget) {
        fprintf(stderr, "ossa %s: --map, --tpose-fix, --no-contacts and --rest-reference go with --anim SOURCE --retarget\n", cmd);
        return false;
    }
    return true;
}

static void usage(FILE *f) {
    fprintf(f, "ossa %s: skeletal animation tool (glTF 2.0)\n\nusage: ossa <command> [options]\n\n", ossa_version());
    for (size_t i = 0; i < COMMAND_COUNT; i++) fprintf(f, "  ossa %s\n", COMMANDS[i].usage);
    fprintf(f, "\n  every command that loads FILE also takes: --importer gltf|assimp (default: by detected format),\n"
               "  --max-memory SIZE (cap on the load, Assimp's memory included; e.g. 4G; default 1G),\n"
               "  --anim FILE (clips from a separate file, bound by joint name; they come first:\n"
               "  --clip 0 is the --anim file's first clip),\n"
               "  --retarget (with --anim: its clips retargeted onto the model, a humanoid, instead of bound by\n"
               "  joint name; takes --map MAP.json, --tpose-fix, --no-contacts, --rest-reference as `ossa retarget`)\n"
               "  every command that builds clips (pack; sample and render with --precision/--lossless;\n"
               "  render, view) also takes: --max-build-scratch SIZE (the clip builder's scratch cap;\n"
               "  default: half the memory, at least 1G), --progress (build progress on stderr even\n"
               "  when it is not a terminal)\n");
    fprintf(f, "  formats: glTF 2.0 (.gltf/.glb)%s\n", cli_have_assimp() ? "; FBX, COLLADA, OBJ and the rest via Assimp"
                                                                     : "; built without Assimp (no FBX/COLLADA/OBJ)");
    fprintf(f, "\n  ossa --help | --version\n");
}

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("ossa %s\n", ossa_version());
        return 0;
    }
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        if (!strcmp(argv[1], COMMANDS[i].name)) {
            int n = cli_take_load_options(argc - 1, argv + 1); /* --importer, --max-memory, --anim, --retarget */
            if (n >= 0 && !retarget_options_fit(COMMANDS[i].name)) n = -1;
            return n < 0 ? 2 : COMMANDS[i].run(n, argv + 1);
        }
    fprintf(stderr, "ossa: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return 2;
}
