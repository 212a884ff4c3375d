/* glTF document model between the accessor layer and the runtime objects
 * (src/import, not installed): nodes with their hierarchy, meshes' shape, skins. */
#ifndef OSSA_IMPORT_DOCUMENT_H
#define OSSA_IMPORT_DOCUMENT_H

#include "build/asset_builder.h"
#include "import/gltf/gltf_internal.h"

typedef struct ossa__mesh_doc {
    char *name;
    int32_t tok;
    uint32_t primitive_count;
    int32_t *primitives;     /* primitive object tokens */
    uint32_t target_count;
    uint32_t weight_count;
    float *weights;          /* mesh.weights */
} ossa__mesh_doc;

typedef struct ossa__skin_doc {
    char *name;
    uint32_t joint_count;
    uint32_t *joints;        /* glTF node indices */
    float *ibm;              /* joint_count * 16, or NULL = identity */
    int32_t root;            /* node or -1 */
} ossa__skin_doc;

typedef struct ossa__doc {
    uint32_t node_count;
    ossa__node *nodes;
    uint32_t mesh_count;
    ossa__mesh_doc *meshes;
    uint32_t skin_count;
    ossa__skin_doc *skins;
    int32_t scene;
} ossa__doc;

/* Animations → clips. joint_of_node maps glTF nodes to skeleton joints (-1 = not
 * bound: the channel is dropped with a warning); joint_count bounds the joints. */
ossa_result ossa__animations_load(ossa__ctx *ctx, const ossa__doc *doc, const int32_t *joint_of_node,
                                  uint32_t joint_count, float table_rate, const ossa_allocator *allocator,
                                  uint32_t *clip_count, ossa_clip ***clips);

#endif
