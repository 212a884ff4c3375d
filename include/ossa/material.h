/* ossa/material.h: surface materials and their images (import → tools/GL).
 * Provided by library ossa (runtime; CMake ossa::ossa, pkg-config ossa) (data only).
 *
 * Format-neutral: what a renderer needs to colour a mesh the way its file says,
 * the glTF metallic-roughness subset ossa draws: base colour factor and texture
 * (with its texture-coordinate set and sampler), alpha mode and cutoff, and
 * double-sidedness. Vertex colours (COLOR_0) live on the mesh (mesh.h: colors).
 * Images keep their ENCODED bytes and MIME type: the core library decodes no
 * image format (it links no libpng/libjpeg); tools and ossa_gl users decode
 * (see support/image_decode.h in the source tree for PNG and JPEG).
 * Owned by the asset (asset.h: materials, images), freed by ossa_asset_destroy.
 * Thread-safety: immutable once loaded. */
#ifndef OSSA_MATERIAL_H
#define OSSA_MATERIAL_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ossa_alpha_mode {
    OSSA_ALPHA_MODE_OPAQUE = 0,  /* default: alpha ignored, rendered fully opaque */
    OSSA_ALPHA_MODE_MASK,        /* alpha < alpha_cutoff discarded, the rest opaque */
    OSSA_ALPHA_MODE_BLEND        /* alpha-blended over what is behind */
} ossa_alpha_mode;

/* Sampler values are the OpenGL enums glTF uses; 0 = unset (renderer's default:
 * LINEAR_MIPMAP_LINEAR / LINEAR, and wrap REPEAT as glTF says). */
#define OSSA_WRAP_REPEAT 10497u
#define OSSA_WRAP_CLAMP_TO_EDGE 33071u
#define OSSA_WRAP_MIRRORED_REPEAT 33648u
#define OSSA_FILTER_NEAREST 9728u
#define OSSA_FILTER_LINEAR 9729u

typedef struct ossa_texture_ref {
    int32_t image;               /* index into asset->images, or -1 = no texture */
    uint32_t texcoord;           /* TEXCOORD_n set: 0 or 1 (mesh uv0 / uv1) */
    uint32_t wrap_s, wrap_t;     /* OSSA_WRAP_* or 0 (= REPEAT) */
    uint32_t mag_filter;         /* OSSA_FILTER_NEAREST / LINEAR or 0 */
    uint32_t min_filter;         /* GL min filter enum (mipmap ones included) or 0 */
} ossa_texture_ref;

typedef struct ossa_material {
    const char *name;            /* "" when unnamed */
    float base_color[4];         /* linear RGBA factor; default 1 1 1 1 */
    ossa_texture_ref base_color_texture; /* sRGB; multiplied by base_color */
    ossa_alpha_mode alpha_mode;
    float alpha_cutoff;          /* MASK threshold; default 0.5 */
    bool double_sided;           /* false: back faces are culled */
} ossa_material;

typedef struct ossa_image {
    const char *name;            /* "" when unnamed */
    const char *uri;             /* the file's uri for external images (for messages), else "" */
    const char *mime_type;       /* "image/png", "image/jpeg", or "" when unknown */
    const uint8_t *data;         /* encoded bytes, or NULL when the image could not be read (warned) */
    size_t size;
} ossa_image;

#ifdef __cplusplus
}
#endif
#endif
