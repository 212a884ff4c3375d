/* ossa/gltf.h: glTF 2.0 import (.gltf with external or data: buffers, .glb) → ossa_asset.
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

#include "clip.h"
#include "mesh.h"
#include "skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ossa_diagnostic {
    char path[128];     /* JSON pointer of the fault, e.g. "/accessors/3" ("" if none) */
    char message[384];  /* human-readable, starts with the place: "accessors[3]: count 120 exceeds bufferView 1" */
} ossa_diagnostic;

typedef struct ossa_load_options {
    const ossa_allocator *allocator;  /* NULL = malloc/free */
    size_t max_allocation;            /* cap on total bytes allocated during a load; 0 = 1 GiB */
    const char *base_dir;             /* directory for relative buffer URIs when loading from memory; NULL = none */
    float table_rate;                 /* clip frame-index table rate (see ossa_clip_desc); 0 = 60 */
} ossa_load_options;

typedef struct ossa_node_info {
    const char *name;                 /* "" when unnamed */
    int32_t parent;                   /* glTF node index, -1 for roots */
    int32_t mesh;                     /* glTF mesh index or -1 */
    int32_t skin;                     /* glTF skin index or -1 */
    uint32_t joint;                   /* skeleton joint index of this node */
    bool had_matrix;                  /* given as `matrix` in the file */
    bool matrix_not_trs;              /* matrix had shear: `matrix` holds it, rest is the best fit */
    ossa_mat4 matrix;                 /* the node's local matrix as given (TRS → matrix otherwise) */
} ossa_node_info;

typedef struct ossa_mesh_info {
    const char *name;
    uint32_t primitive_count;         /* all primitives, including non-triangle ones */
    uint32_t target_count;
} ossa_mesh_info;

typedef struct ossa_asset {
    ossa_skeleton *skeleton;          /* all nodes; skins inside */
    uint32_t node_count;
    ossa_node_info *nodes;            /* glTF order */
    int32_t scene;                    /* default scene index or -1 */
    uint32_t mesh_info_count;
    ossa_mesh_info *mesh_infos;       /* glTF meshes */
    uint32_t mesh_count;
    ossa_mesh **meshes;               /* one per (mesh node, triangle primitive) */
    uint32_t clip_count;
    ossa_clip **clips;                /* glTF animation order; names from the file ("" if none) */
    uint32_t warning_count;
    char **warnings;                  /* each names its place like diagnostics do */
    ossa_allocator allocator;
} ossa_asset;

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

/* Frees an asset and everything in it with asset->allocator; NULL is a no-op. Any
 * member may be NULL/0, so code that assembles an asset by hand (e.g. a generated
 * character) can free it with this too. */
/* Ownership as the loader builds it: skeleton, meshes[i], clips[i] by their own
 * destroy; nodes, mesh_infos (names stored in the same block), meshes, clips, warnings
 * and each warnings[i] are single allocations; nodes[i].name points into skeleton->names. */
void ossa_asset_destroy(ossa_asset *asset);

/* Index of the first clip named `name`, or -1. */
int32_t ossa_asset_find_clip(const ossa_asset *asset, const char *name);

#ifdef __cplusplus
}
#endif
#endif
