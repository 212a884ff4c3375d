/* Shared by `ossa info` and `ossa sample`: loading a glTF file with its
 * diagnostics, and JSON scalars on stdout. */
#ifndef OSSA_TOOL_CLI_COMMON_H
#define OSSA_TOOL_CLI_COMMON_H

#include <ossa/ossa.h>

/* Loads a .gltf/.glb; on failure prints "ossa CMD: FILE: message (result)" on
 * stderr and returns NULL. */
ossa_asset *cli_load_asset(const char *cmd, const char *file);

/* A JSON string (NULL prints ""), and a number (non-finite prints null). */
void json_put_str(const char *s);
void json_put_num(double v);

/* Builds without GL (-DOSSA_BUILD_GL=OFF; OSSA_TOOL_GL undefined): every command that
 * draws starts with CLI_REQUIRE_GL("name"), which prints that the build has no GL and
 * returns 1. tools/ossa/no_gl.c stubs the GL entry points the other files reference. */
int cli_no_gl(const char *cmd);
#ifdef OSSA_TOOL_GL
#define CLI_REQUIRE_GL(cmd) ((void)0)
#else
#define CLI_REQUIRE_GL(cmd) return cli_no_gl(cmd)
#endif

#endif
