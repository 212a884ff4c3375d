/* Format-neutral asset assembly (src/import, not installed).
 *
 * Every importer (glTF: asset.c, Assimp: assimp/assimp.c) parses its format into
 * plain node/skin/mesh/clip descriptions and hands them to this builder, which
 * makes the runtime objects of an ossa_asset the same way for all formats:
 *   - the skeleton of ALL nodes, parents first, with the source-index map, and
 *     one ossa_node_info per source node;
 *   - or, for "clips from a separate file", the name binding of source nodes to the
 *     joints of an existing skeleton (first joint with that name; unmatched → -1);
 *   - mesh infos, meshes (joint indices already skeleton joints), clips;
 *   - warnings moved onto the asset (truncated at OSSA__MAX_WARNINGS, "further
 *     warnings suppressed" last).
 * Every byte the asset keeps is reserved against options->max_allocation through
 * the load context (ossa__ctx, context.h): the running total includes temporaries.
 *
 * Material hook: an importer that parses materials fills them on the asset after
 * ossa__builder_begin and before ossa__builder_finish (the builder frees what
 * ossa_asset_destroy frees). */
#ifndef OSSA_IMPORT_ASSET_BUILDER_H
#define OSSA_IMPORT_ASSET_BUILDER_H

#include "build/context.h"

/* One source node (glTF node, aiNode, ...). The importer owns the strings. */
typedef struct ossa__node {
    char *name;              /* NULL = unnamed */
    int32_t parent, mesh, skin;
    bool had_matrix, matrix_not_trs;
    ossa_mat4 matrix;        /* local matrix as given */
    ossa_transform trs;      /* rest pose (best fit when matrix_not_trs) */
    uint32_t weight_count;   /* node morph weights (override mesh weights), glTF only */
    float *weights;
} ossa__node;

/* Allocates the (empty) asset from the budget. */
ossa_result ossa__builder_begin(ossa__ctx *ctx, const ossa_allocator *allocator, int32_t scene, ossa_asset **asset);

/* Builds asset->skeleton from all `node_count` nodes and `skins` (joints are node
 * indices) with the source's declared unit (metres per model unit, 0 = none declared:
 * ossa_skeleton_desc.metres_per_unit), fills asset->nodes, and returns the node → joint map
 * in *joint_of_node (ctx allocation, caller frees with ossa__ctx_free). `path` names the
 * node list in errors ("/nodes"). */
ossa_result ossa__builder_skeleton(ossa__ctx *ctx, ossa_asset *asset, uint32_t node_count, const ossa__node *nodes,
                                   uint32_t skin_count, const ossa_skin_desc *skins, float metres_per_unit,
                                   const char *path, int32_t **joint_of_node);

/* Binds nodes to the joints of `skeleton` by name: *joint_of_node[i] = first joint
 * named like node i, -1 when unnamed or unmatched (ctx allocation). Linear time. */
ossa_result ossa__builder_bind_names(ossa__ctx *ctx, const ossa_skeleton *skeleton, uint32_t node_count,
                                     const ossa__node *nodes, int32_t **joint_of_node);

/* Name → first index with that name (open addressing, linear time to build). */
typedef struct ossa__name_map {
    uint32_t cap;
    int32_t *table;
    const char *const *names;
} ossa__name_map;
ossa_result ossa__name_map_init(ossa__ctx *ctx, ossa__name_map *map, const char *const *names, uint32_t count);
int32_t ossa__name_map_find(const ossa__name_map *map, const char *name); /* -1 when absent */
void ossa__name_map_free(ossa__ctx *ctx, ossa__name_map *map);

/* Copies `count` mesh infos (names included) into one block on the asset. */
ossa_result ossa__builder_mesh_infos(ossa__ctx *ctx, ossa_asset *asset, uint32_t count, const ossa_mesh_info *infos);

/* Allocates room for `total` meshes (64-bit: instance sums can exceed 2^32, LIMIT then). */
ossa_result ossa__builder_reserve_meshes(ossa__ctx *ctx, ossa_asset *asset, uint64_t total, const char *path);

/* Reserves the runtime copy's bytes, builds the mesh from `desc` and appends it
 * (room from ossa__builder_reserve_meshes). `path` names the source in errors. */
ossa_result ossa__builder_add_mesh(ossa__ctx *ctx, ossa_asset *asset, const ossa_mesh *desc, const char *path);

/* Reserves the clip's bytes (keys and frame-index tables at table_rate, 0 = 60 Hz;
 * tables that would take too much fall back to binary search with a warning) and
 * builds it. desc->table_rate is ignored. */
ossa_result ossa__builder_clip(ossa__ctx *ctx, const ossa_allocator *allocator, const char *path,
                               const ossa_clip_desc *desc, float table_rate, ossa_clip **out);

/* Moves the warnings onto the asset and hands it over (*asset = NULL, *out set);
 * on an earlier failure destroys *asset and returns ctx->failed. */
ossa_result ossa__builder_finish(ossa__ctx *ctx, ossa_asset **asset, ossa_asset **out);

/* Renormalises `influences` weights per vertex so they sum to 1 (all-zero stays zero).
 * Returns how many vertices' sums were off 1 by more than OSSA__WEIGHT_SUM_TOLERANCE (one
 * unit of UNSIGNED_BYTE rounding passes) and the largest |sum - 1| of those in *max_off
 * (may be NULL); importers warn with that count. */
#define OSSA__WEIGHT_SUM_TOLERANCE 5e-3
uint32_t ossa__normalize_weights(float *weights, uint32_t vertex_count, uint32_t influences, double *max_off);

#endif
