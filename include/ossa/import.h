/* ossa/import.h: any model file → ossa_asset, whichever importer reads it.
 *
 * Library ossa_import (CMake target ossa::ossa_import, pkg-config ossa_import). It links
 * the glTF importer (ossa_gltf, gltf.h), the packed-file loader (ossa, pack.h) and, when
 * the build has Assimp (CMake option OSSA_WITH_ASSIMP and libassimp-dev), ossa_assimp
 * (assimp.h). These functions exist in every build: without Assimp a file that only
 * Assimp reads gives OSSA_ERROR_UNSUPPORTED with a diagnostic naming the detected format
 * and the build option. A game that ships .ossa files needs none of this: it links ossa
 * and calls ossa_pack_load_file.
 * Thread-safety: as the importer chosen (loads are independent). */
#ifndef OSSA_IMPORT_H
#define OSSA_IMPORT_H

#include "asset.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ossa_importer {
    OSSA_IMPORTER_AUTO = 0, /* by the file's first bytes: .ossa → pack, glTF/GLB → glTF, else → Assimp */
    OSSA_IMPORTER_GLTF,     /* ossa_gltf_load_file / ossa_gltf_load_clips */
    OSSA_IMPORTER_ASSIMP,   /* ossa_assimp_load_file / ossa_assimp_load_clips (UNSUPPORTED without Assimp) */
    OSSA_IMPORTER_PACK      /* ossa_pack_load_file (a packed .ossa file) */
} ossa_importer;

/* Loads a model with `importer` (AUTO: detected from the first 512 bytes; a file whose
 * format is not recognised is given to Assimp when the build has it). Results as the
 * chosen loader's, plus:
 *   INVALID_ARGUMENT  path or out NULL, importer not an ossa_importer value
 *   IO                the file cannot be read (AUTO reads its first bytes)
 *   UNSUPPORTED       the file needs Assimp and the build has none (diag says which format
 *                     and that OSSA_WITH_ASSIMP / libassimp-dev enable it)
 * On failure *out is NULL. The asset is freed with ossa_asset_destroy. */
ossa_result ossa_import_file(const char *path, ossa_importer importer, const ossa_load_options *options,
                             ossa_asset **out, ossa_diagnostic *diag);

/* Loads the clips of a separately stored animation of any format onto `skeleton` (by
 * joint name; ossa_gltf_load_clips or ossa_assimp_load_clips). Results as
 * ossa_import_file; a packed .ossa file is UNSUPPORTED here (it holds built clips only,
 * made for its own skeleton: load it with ossa_import_file). */
ossa_result ossa_import_clips(const char *path, ossa_importer importer, const ossa_skeleton *skeleton,
                              const ossa_load_options *options, ossa_asset **out, ossa_diagnostic *diag);

#ifdef __cplusplus
}
#endif
#endif
