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

#endif
