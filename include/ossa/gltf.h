/* ossa/gltf.h: glTF 2.0 import (.gltf with external or data: buffers, .glb) → ossa_asset.
 * Provided by library ossa_gltf (CMake ossa::ossa_gltf, pkg-config ossa_gltf; links ossa_offline).
 *
 * The loader parses JSON with jsmn, bounds-checks every read, and turns the file
 * into runtime data: a skeleton of ALL nodes (parents-first, map kept to glTF node
 * indices), every skin, one ossa_mesh per triangle primitive of every mesh node,
 * and every animation as an ossa_clip. Untrusted bytes never crash the loader: a
 * malformed file returns an error with a diagnostic naming the JSON place
 * ("/animations/2/samplers/0: output count 30, expected 90 for CUBICSPLINE").
 * Non-fatal oddities (unknown extensions, unsupported primitive modes, ...) are
 * returned as warnings on the asset. An asset is owned by the caller and freed
 * with ossa_asset_destroy. Thread-safety: loads are independent. */
#ifndef OSSA_GLTF_H
#define OSSA_GLTF_H

#include "asset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Loads a .gltf or .glb file (detected by its magic, not its extension). Relative
 * buffer URIs resolve against the file's directory. On failure *out is NULL, diag
 * (optional) says why, and nothing is leaked.
 * Results (docs/hostile-input.md lists every case with its test):
 *   INVALID_ARGUMENT  out, path (or data) NULL, size 0, skeleton NULL for load_clips
 *   IO                file or external buffer missing / unreadable / not a regular file,
 *                     a relative buffer URI while loading from memory without base_dir
 *   PARSE             broken JSON (incl. nesting deeper than 128) or GLB container
 *   INVALID_DATA      a glTF rule broken: index out of range, accessor past its view,
 *                     cycle, two parents, non-finite floats, non-increasing key times, ...
 *   UNSUPPORTED       extensionsRequired, glTF 3+, GLB version != 2, absolute URIs,
 *                     URI schemes other than data:
 *   LIMIT             the load would allocate more than options->max_allocation in total
 *   OUT_OF_MEMORY     the allocator returned NULL */
ossa_result ossa_gltf_load_file(const char *path, const ossa_load_options *options, ossa_asset **out,
                                ossa_diagnostic *diag);
/* Conventions of the loader (beyond the glTF spec's MUSTs): scene = -1 when the file
 * has no `scene`; node.weights override mesh.weights in mesh->default_weights; weight
 * tracks use the skeleton joint of the animated node; see src/import for the rest. */

/* Same from memory (.gltf JSON text or .glb bytes; size in bytes). `data` is not
 * retained. External buffers need options->base_dir. */
ossa_result ossa_gltf_load_memory(const void *data, size_t size, const ossa_load_options *options,
                                  ossa_asset **out, ossa_diagnostic *diag);

/* Loads only the animations of a file and binds them to `skeleton` by joint NAME
 * (the seed's Animation(path, model)). Channels whose node name is not a joint are
 * dropped and reported in warnings (caller frees with ossa_asset_destroy: the
 * returned asset has clips and warnings only, skeleton NULL). */
ossa_result ossa_gltf_load_clips(const char *path, const ossa_skeleton *skeleton, const ossa_load_options *options,
                                 ossa_asset **out, ossa_diagnostic *diag);

#ifdef __cplusplus
}
#endif
#endif
