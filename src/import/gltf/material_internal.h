/* glTF materials for the asset builder (src/import/material.c, not installed). */
#ifndef OSSA_IMPORT_MATERIAL_INTERNAL_H
#define OSSA_IMPORT_MATERIAL_INTERNAL_H

#include <ossa/asset.h>

#include "import/gltf/gltf_internal.h"

/* Fills asset->materials and asset->images from the document (buffers and views
 * already parsed). Faults are located warnings with a fallback; only allocation
 * failures (budget, memory) fail. */
ossa_result ossa__materials_load(ossa__ctx *ctx, const ossa_allocator *allocator, ossa_asset *asset);
/* The primitive's `material` index, or -1 (absent or invalid: warned). */
int32_t ossa__primitive_material(ossa__ctx *ctx, int32_t prim, const char *path, uint32_t material_count);
/* COLOR_0 of attrs as vertex_count RGBA floats from the ctx budget (*out NULL when
 * absent or unusable: warned). */
ossa_result ossa__read_colors(ossa__ctx *ctx, int32_t attrs, const char *apath, uint32_t vertex_count, float **out);

#endif
