/* The ossa tool's sub-commands: one file each, argv[0] is the sub-command name.
 * Each returns the process exit code (0 ok, 1 failure, 2 usage error). */
#ifndef OSSA_TOOL_COMMANDS_H
#define OSSA_TOOL_COMMANDS_H

#include <stdbool.h>
#include <stdint.h>

int cmd_info(int argc, char **argv);
int cmd_sample(int argc, char **argv);
int cmd_render(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_view(int argc, char **argv);
int cmd_crowd(int argc, char **argv);
/* `ossa bench --crowd N` (cmd_crowd.c): crowd CPU/GPU ms per frame; frames = medians' sample count;
 * json: one JSON object (the built clips' CPU figures) instead of the text. */
int crowd_bench(const char *file, uint32_t count, uint32_t threads, uint32_t frames, bool json);
int cmd_pack(int argc, char **argv);
int cmd_retarget(int argc, char **argv);
/* ossa graph check G.json FILE (cmd_graph.c). */
int cmd_graph(int argc, char **argv);

#endif
