/* The asset object (ossa/asset.h): freeing it and finding a clip. Format-neutral and part
 * of the runtime library (ossa): every importer, the packed-file loader and the asset
 * builder free assets through here. */
#include <ossa/asset.h>

#include <string.h>

#include <ossa/built_clip.h>

#include "core/alloc.h"

void ossa_asset_destroy(ossa_asset *asset) {
    if (!asset) return;
    const ossa_allocator *al = &asset->allocator;
    for (uint32_t i = 0; i < asset->mesh_count; i++)
        if (asset->meshes) ossa_mesh_destroy(asset->meshes[i]);
    for (uint32_t i = 0; i < asset->clip_count; i++)
        if (asset->clips) ossa_clip_destroy(asset->clips[i]);
    for (uint32_t i = 0; i < asset->built_clip_count; i++)
        if (asset->built_clips) ossa_built_clip_destroy(asset->built_clips[i]);
    for (uint32_t i = 0; i < asset->warning_count; i++)
        if (asset->warnings) ossa__free(al, asset->warnings[i]);
    ossa__free(al, asset->meshes);
    ossa__free(al, asset->clips);
    ossa__free(al, asset->built_clips);
    ossa__free(al, asset->clip_reports);
    ossa__free(al, asset->warnings);
    ossa__free(al, asset->mesh_infos);
    ossa__free(al, asset->nodes);
    ossa__free(al, asset->materials);
    ossa__free(al, asset->images);
    ossa_skeleton_destroy(asset->skeleton);
    ossa_allocator a = *al;
    ossa__free(&a, asset);
}

int32_t ossa_asset_find_clip(const ossa_asset *asset, const char *name) {
    if (!asset || !name) return -1;
    for (uint32_t i = 0; i < asset->clip_count; i++)
        if (asset->clips[i] && asset->clips[i]->name && !strcmp(asset->clips[i]->name, name)) return (int32_t)i;
    return -1;
}
