/* Builds without GL (-DOSSA_BUILD_GL=OFF): the drawing commands and the GL entry points
 * of render_common.c report that the build has no GL (see CLI_REQUIRE_GL). */
#ifndef OSSA_TOOL_GL
#include <string.h>

#include "cli_common.h"
#include "commands.h"
#include "render_common.h"

int cmd_view(int argc, char **argv) {
    (void)argc, (void)argv;
    return cli_no_gl("view");
}

bool scene_gl_create(scene_gl *g, const scene *s, const char *cmd) {
    (void)s;
    memset(g, 0, sizeof *g);
    cli_no_gl(cmd);
    return false;
}

void scene_gl_destroy(scene_gl *g) { (void)g; }

bool scene_gl_draw(scene_gl *g, scene *s, const float view_proj[16], const draw_options *opt, uint32_t width,
                   uint32_t height, const char *cmd) {
    (void)g, (void)s, (void)view_proj, (void)opt, (void)width, (void)height;
    cli_no_gl(cmd);
    return false;
}

bool render_to_file(scene *s, const render_job *job, render_stats *stats, const char *cmd) {
    (void)s, (void)job;
    memset(stats, 0, sizeof *stats);
    cli_no_gl(cmd);
    return false;
}
#else
typedef int ossa_tool_no_gl_unused; /* ISO C: a translation unit is not empty */
#endif
