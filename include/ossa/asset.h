/* ossa/asset.h: the format-neutral asset every importer produces (import → build).
 * Provided by library ossa (runtime; CMake ossa::ossa, pkg-config ossa).
 *
 * An asset is what one model file holds, whatever its format: a skeleton of all
 * nodes (parents first, with the map to the source's node order), every skin,
 * one ossa_mesh per (mesh node, triangle primitive), the editable clips, and,
 * when the asset came from a packed .ossa file (or the caller built them), the
 * built clips. Importers (gltf.h, and later assimp.h, pack.h) fill it; tools read
 * it. Owned by the caller, freed with ossa_asset_destroy.
 * Thread-safety: an asset is immutable once returned; loads are independent. */
#ifndef OSSA_ASSET_H
#define OSSA_ASSET_H

#include "clip.h"
#include "material.h"
#include "mesh.h"
#include "skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ossa_built_clip ossa_built_clip; /* built_clip.h */

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

/* What the build measured on one built clip (ossa_clip_build_stats' final check on the skinned
 * vertices, and the precision used), as `ossa pack` keeps it in a packed file (docs/ossa-format.md,
 * "clip reports"). Model units and seconds. With vertex_meshes 0 (no mesh checked) or
 * max_vertex_error 0 the worst_* fields and worst_vertex_time are 0 ("none"). */
typedef struct ossa_clip_report {
    float precision;                 /* model units the clip was built to; 0 = lossless */
    float character_height;          /* skeleton bind-pose height, model units (> 0) */
    uint32_t vertex_meshes;          /* skinned meshes the final check used; 0 = no mesh checked */
    float max_vertex_error;          /* largest skinned-vertex distance built vs exact, model units */
    uint32_t worst_mesh;             /* index into ossa_asset.meshes */
    uint32_t worst_vertex;           /* vertex of that mesh */
    uint32_t worst_vertex_joint;     /* skeleton joint: that vertex's influence with the largest error share */
    float worst_vertex_time;         /* clip time, seconds */
    uint32_t vertex_times;           /* grid times whose vertices were skinned */
    uint32_t vertex_times_unchecked; /* grid times the budget skipped */
} ossa_clip_report;

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
    /* Built (runtime) clips. built_clips[i] is clips[i] built when both exist; an asset
     * loaded from a packed .ossa file has built clips only (clip_count == 0). */
    uint32_t built_clip_count;
    ossa_built_clip **built_clips;
    ossa_allocator allocator;
    /* Materials (meshes[i]->material indexes them) and the images their textures use,
     * encoded (material.h). One allocation each array; names, uris, MIME types and
     * image bytes are owned by the asset too. */
    uint32_t material_count;
    ossa_material *materials;
    uint32_t image_count;
    ossa_image *images;
    /* Optional build reports, one per built clip (clip_reports[i] for built_clips[i]): NULL and 0,
     * or clip_report_count == built_clip_count. `ossa pack` fills them from ossa_clip_build's
     * stats; the packed writer stores them and the loader gives them back (NULL/0 for a file
     * without them, e.g. one written before they existed). One allocation, asset->allocator. */
    uint32_t clip_report_count;
    ossa_clip_report *clip_reports;
} ossa_asset;

/* Frees an asset and everything in it with asset->allocator; NULL is a no-op. Any
 * member may be NULL/0, so code that assembles an asset by hand (e.g. a generated
 * character) can free it with this too. */
/* Ownership as the loader builds it: skeleton, meshes[i], clips[i], built_clips[i] by their own
 * destroy; nodes, mesh_infos (names stored in the same block), meshes, clips, built_clips, clip_reports, warnings
 * and each warnings[i] are single allocations; nodes[i].name points into skeleton->names. */
void ossa_asset_destroy(ossa_asset *asset);

/* Index of the first clip named `name`, or -1. */
int32_t ossa_asset_find_clip(const ossa_asset *asset, const char *name);

#ifdef __cplusplus
}
#endif
#endif
