/* ossa/mesh.h: skinned meshes (runtime data, input to skinning).
 * Provided by library ossa (runtime; CMake ossa::ossa, pkg-config ossa).
 *
 * One ossa_mesh is one glTF primitive (triangles). Created by ossa_mesh_create
 * (deep copy into one allocation), freed by ossa_mesh_destroy. Streams are
 * tightly packed float arrays, vertex_count elements each. Joint indices are
 * SKELETON joint indices (remapped from the glTF skin's `joints` at import);
 * weights are renormalised to sum 1 (a vertex whose weights are all zero keeps
 * zeros and is left unskinned by the kernels: its bind position is output). */
#ifndef OSSA_MESH_H
#define OSSA_MESH_H

#include "math.h"

#ifdef __cplusplus
extern "C" {
#endif

#define OSSA_MAX_INFLUENCES 8

typedef struct ossa_morph_target {
    float *positions;   /* vertex_count * 3 deltas, or NULL */
    float *normals;     /* vertex_count * 3 deltas, or NULL */
    float *tangents;    /* vertex_count * 3 deltas, or NULL */
} ossa_morph_target;

typedef struct ossa_mesh {
    const char *name;
    uint32_t vertex_count;
    float *positions;          /* 3 per vertex (never NULL when vertex_count > 0) */
    float *normals;            /* 3 per vertex, or NULL */
    float *tangents;           /* 4 per vertex (xyz + handedness w), or NULL */
    float *uv0, *uv1;          /* 2 per vertex, or NULL */
    uint32_t influences;       /* 0 (rigid), 4 or 8 */
    uint16_t *joints;          /* influences per vertex: skeleton joint indices, or NULL */
    float *weights;            /* influences per vertex, sum 1, or NULL */
    uint32_t index_count;      /* 0 = non-indexed (vertices in order) */
    uint32_t *indices;
    uint32_t target_count;
    ossa_morph_target *targets;
    float *default_weights;    /* target_count weights (mesh.weights), or NULL */
    int32_t skin;              /* skeleton skin index, or -1 when not skinned */
    int32_t node;              /* skeleton joint of the node instancing it, or -1 */
    uint32_t source_mesh;      /* glTF mesh index */
    uint32_t source_primitive; /* glTF primitive index within that mesh */
    ossa_allocator allocator;
    int32_t material;          /* index into the asset's materials, -1 or out of range = default material */
    float *colors;             /* COLOR_0 as linear RGBA, 4 per vertex (RGB given: alpha 1), or NULL */
} ossa_mesh;

/* Deep-copies `desc` (its pointers may be NULL as documented above; counts must
 * match) into one allocation. INVALID_ARGUMENT on inconsistent counts. */
ossa_result ossa_mesh_create(const ossa_mesh *desc, const ossa_allocator *allocator, ossa_mesh **out);
/* Frees a mesh from ossa_mesh_create; NULL is a no-op. */
void ossa_mesh_destroy(ossa_mesh *mesh);

/* Rewrites joint indices through old_to_new (count entries). INVALID_DATA if an
 * index is out of range. The seed's RearrangeMesh. */
ossa_result ossa_mesh_remap_joints(ossa_mesh *mesh, const uint32_t *old_to_new, uint32_t count);

/* Axis-aligned bounds of the positions; false for an empty mesh. */
bool ossa_mesh_bounds(const ossa_mesh *mesh, ossa_vec3 *min, ossa_vec3 *max);

#ifdef __cplusplus
}
#endif
#endif
