/* Assimp importer internals (src/import/assimp, not installed): the aiScene →
 * ossa_asset conversion on its own, so tests can feed hand-built (hostile) scenes
 * without a file and without Assimp's post-processing. */
#ifndef OSSA_IMPORT_ASSIMP_INTERNAL_H
#define OSSA_IMPORT_ASSIMP_INTERNAL_H

#include <ossa/assimp.h>

struct aiScene;

/* Converts `scene` (never modified, never released) like ossa_assimp_load_file does
 * after Assimp returned it; bind_to != NULL loads clips only, bound by joint name. */
ossa_result ossa__assimp_scene_load(const struct aiScene *scene, const ossa_load_options *options,
                                    const ossa_skeleton *bind_to, ossa_asset **out, ossa_diagnostic *diag);

#endif
