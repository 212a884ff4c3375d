/* Retargeting for the ossa tool (`ossa retarget`, and `--anim SOURCE --retarget` on the commands
 * that load a model): loading the source, the bone maps (automatic, completed by a map file),
 * the rig, and baking the source's clips onto the target (ossa/retarget.h, docs/retargeting.md).
 * Errors are printed on stderr as "ossa CMD: FILE: reason"; functions return false / NULL. */
#ifndef OSSA_TOOL_RETARGET_CLI_H
#define OSSA_TOOL_RETARGET_CLI_H

#include <ossa/ossa.h>
#include <ossa/retarget.h>

typedef struct retarget_cli_options {
    const char *map_file;  /* JSON map file completing / overriding the automatic maps, or NULL */
    bool tpose_fix;        /* ossa_retarget_rig_desc.tpose_fix */
    bool no_contacts;      /* ossa_retarget_bake_options.no_contacts */
    bool rest_reference;   /* both skeletons' rest poses as the references (default: the bind pose
                              of a skinned skeleton, the library's choice) */
} retarget_cli_options;

/* The options `--anim SOURCE --retarget` uses (main.c fills them with the load options). */
extern retarget_cli_options retarget_cli_load;

/* Loads FILE (any format, or "demo" for the built-in character) without the --anim clips. */
ossa_asset *retarget_cli_load_asset(const char *cmd, const char *file);

/* Applies the map file's `side` ("source" / "target") onto map; false after printing
 * "FILE: /side/bone: message". */
bool retarget_cli_apply_map_file(const char *cmd, const char *map_file, const char *side,
                                 const ossa_skeleton *skeleton, ossa_retarget_map *map);

/* Both maps: automatic by name, then the map file's "source" / "target" entries, then validated.
 * Prints the first fault naming the file (the model for an automatic map, the map file with its
 * JSON pointer for an entry) and returns false. */
bool retarget_cli_maps(const char *cmd, const char *source_file, const ossa_skeleton *source,
                       const char *target_file, const ossa_skeleton *target, const char *map_file,
                       ossa_retarget_map *source_map, ossa_retarget_map *target_map);

/* The rig for source -> target with the maps above; NULL after printing why. */
ossa_retarget_rig *retarget_cli_rig(const char *cmd, const char *source_file, const ossa_skeleton *source,
                                    const char *target_file, const ossa_skeleton *target,
                                    const retarget_cli_options *options);

/* Bakes source clip `clip` through rig into *out (named after it); false after printing why. */
bool retarget_cli_bake(const char *cmd, const ossa_retarget_rig *rig, const ossa_clip *clip,
                       const retarget_cli_options *options, ossa_clip **out);

/* `--anim SOURCE --retarget`: bakes every clip of SOURCE onto asset's skeleton (loaded from
 * target_file) with retarget_cli_load's options and puts them BEFORE asset's own clips (as
 * cli_add_clips does for --anim), named after the source clips. */
bool retarget_cli_add_clips(const char *cmd, ossa_asset *asset, const char *target_file, const char *source_file);

#endif
