/* ossa/gl.h: GPU skinning and drawing with OpenGL 3.3 core (library ossa_gl).
 *
 * Works with any current GL context the application made (GLFW, EGL, SDL...);
 * GL entry points are loaded through libepoxy. The core library (ossa) depends
 * on no graphics API; link ossa::ossa_gl for this header.
 * Skinning variants (the seed's): pose + inverse-bind uniform arrays, one
 * pre-multiplied palette uniform array, the palette in an RGBA32F texture (any
 * joint count), and dual quaternions. Joint indices are integer attributes
 * (uvec4 for influences 0-3, a second uvec4/vec4 pair for 4-7). Morph targets
 * (position and normal deltas) are applied in the vertex shader before skinning,
 * from an RGBA32F texture uploaded with the mesh; up to OSSA_GL_MAX_ACTIVE_MORPHS
 * targets may have a non-zero weight per draw.
 * Objects are owned by the caller and must be destroyed with the context current.
 * State: calls leave program 0, VAO 0, GL_ARRAY_BUFFER 0 and texture unit 0 active
 * bound (units 0 and 1 may hold ossa textures; readback unbinds its transform feedback
 * buffers); depth test, polygon mode, pixel store and rasterizer discard are restored.
 * A current context is required by every call.
 * Errors: GL failures return OSSA_ERROR_GL and print a message to stderr. */
#ifndef OSSA_GL_H
#define OSSA_GL_H

#include "material.h"
#include "mesh.h"
#include "skin.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ossa_gl_skinning {
    OSSA_GL_SKIN_DEFAULT = 0,        /* = PALETTE_TEXTURE */
    OSSA_GL_SKIN_NONE,               /* positions drawn as uploaded (CPU-skinned or static) */
    OSSA_GL_SKIN_POSE_AND_IBM,       /* model[] and inverse_bind[] uniform arrays */
    OSSA_GL_SKIN_PALETTE_UNIFORM,    /* palette[] uniform array */
    OSSA_GL_SKIN_PALETTE_TEXTURE,    /* palette in an RGBA32F texture, 4 texels per joint */
    OSSA_GL_SKIN_DUAL_QUAT           /* dual quaternion uniform array */
} ossa_gl_skinning;

#define OSSA_GL_MAX_UNIFORM_JOINTS 128 /* uniform-array variants; the texture variant has no limit */
#define OSSA_GL_MAX_ACTIVE_MORPHS 64   /* morph targets with a non-zero weight in one draw */

typedef struct ossa_gl_mesh ossa_gl_mesh;
typedef struct ossa_gl_renderer ossa_gl_renderer;
typedef struct ossa_gl_texture ossa_gl_texture;

/* A decoded image for a material texture: top-down RGBA8 (width * height * 4 bytes,
 * sRGB-encoded colour as image files store it) and its sampler (material.h values,
 * 0 = glTF defaults: REPEAT, LINEAR, LINEAR_MIPMAP_LINEAR). ossa_gl decodes no file
 * format: the caller decodes PNG/JPEG (the tools use libpng and libjpeg-turbo). */
typedef struct ossa_gl_texture_desc {
    uint32_t width, height;
    const uint8_t *rgba;
    uint32_t wrap_s, wrap_t, min_filter, mag_filter;
} ossa_gl_texture_desc;

/* Uploads an sRGB texture with mipmaps. INVALID_ARGUMENT on a zero size or NULL
 * pixels, LIMIT above GL_MAX_TEXTURE_SIZE; unknown sampler values fall back to the
 * defaults. Needs a current context. */
ossa_result ossa_gl_texture_create(const ossa_gl_texture_desc *desc, ossa_gl_texture **out);
void ossa_gl_texture_destroy(ossa_gl_texture *texture);

/* Uploads a mesh (positions, normals, joints, weights, indices, morph target deltas,
 * uv0/uv1 and COLOR_0) to GL buffers and textures. Needs a current GL 3.3+ core
 * context. Tangents are ignored. LIMIT when the morph deltas exceed the largest texture.
 * A mesh without normals is shaded with flat (per-triangle) normals computed in the
 * fragment shader from the skinned, morphed positions (glTF: "client implementations
 * MUST calculate flat normals"), whichever skinning variant or CPU upload is used. */
ossa_result ossa_gl_mesh_create(const ossa_mesh *mesh, ossa_gl_mesh **out);
void ossa_gl_mesh_destroy(ossa_gl_mesh *mesh);
/* Replaces positions/normals (vertex_count * 3 floats each; normals may be NULL),
 * e.g. with CPU-skinned or morphed results. */
ossa_result ossa_gl_mesh_update(ossa_gl_mesh *mesh, const float *positions, const float *normals);
/* Vertex count of an uploaded mesh (0 for NULL). */
uint32_t ossa_gl_mesh_vertex_count(const ossa_gl_mesh *mesh);

/* Compiles the shader programs of every variant. Needs a current GL 3.3+ core context. */
ossa_result ossa_gl_renderer_create(ossa_gl_renderer **out);
void ossa_gl_renderer_destroy(ossa_gl_renderer *renderer);
/* Largest desc->joint_count a variant accepts in this context: OSSA_GL_MAX_UNIFORM_JOINTS
 * for the uniform variants (fewer where GL_MAX_VERTEX_UNIFORM_COMPONENTS is small, e.g.
 * 122 for POSE_AND_IBM at 4096), 256 * GL_MAX_TEXTURE_SIZE for PALETTE_TEXTURE,
 * UINT32_MAX for NONE; 0 for a NULL renderer or unknown variant. */
uint32_t ossa_gl_renderer_max_joints(const ossa_gl_renderer *renderer, ossa_gl_skinning skinning);

typedef struct ossa_gl_draw_desc {
    ossa_gl_skinning skinning;
    const float *view_proj;          /* 16 floats column-major; required for draw */
    uint32_t joint_count;            /* > every joint index of the mesh; <= ossa_gl_renderer_max_joints */
    const ossa_mat4 *palette;        /* PALETTE_* variants: joint_count (skeleton-indexed) */
    const ossa_mat4 *model;          /* POSE_AND_IBM: joint_count model-space matrices */
    const ossa_mat4 *inverse_bind;   /* POSE_AND_IBM: joint_count (skeleton-indexed) */
    const ossa_dual_quat *dual_quats;/* DUAL_QUAT: joint_count */
    float color[4];                  /* base colour; all zero = light grey */
    float light_dir[3];              /* direction the light travels (model space); zero = from above-front-right */
    bool wireframe;
    /* Morph weights, the mesh's target_count of them, or NULL for none:
     * p = base + Σ wₜ δₜ (normals likewise) before skinning, as ossa_morph_job.
     * More than OSSA_GL_MAX_ACTIVE_MORPHS non-zero weights: UNSUPPORTED. */
    const float *morph_weights;
    /* Material (all zero = untextured, opaque, no culling). Surface colour =
     * color (linear RGBA factor) x vertex COLOR_0 (when the mesh has it) x texture. */
    const ossa_gl_texture *base_color_texture; /* NULL = none */
    uint32_t texcoord;               /* 0 = uv0, 1 = uv1 (a mesh without that set samples (0,0)) */
    ossa_alpha_mode alpha_mode;      /* MASK discards below alpha_cutoff; BLEND blends (caller orders draws) */
    float alpha_cutoff;              /* MASK: alpha < cutoff discarded, used as given (0 keeps all) */
    bool cull_back_faces;            /* a single-sided material (glTF doubleSided false) */
    const float *eye;                /* 3 floats: camera position for the specular highlight; NULL = none */
} ossa_gl_draw_desc;

/* Draws the mesh (model space = world space) into the bound framebuffer, depth test on,
 * lit in linear space by a directional key light (diffuse + a soft Blinn-Phong
 * specular when desc->eye is given) over a hemisphere ambient, written gamma-encoded
 * (1/2.2) for an RGBA8 framebuffer. Blending and culling are restored afterwards. INVALID_ARGUMENT on missing
 * arrays or joint indices >= joint_count; UNSUPPORTED above the variant's joint limit. */
ossa_result ossa_gl_draw(ossa_gl_renderer *renderer, const ossa_gl_mesh *mesh, const ossa_gl_draw_desc *desc);

/* Skins the mesh on the GPU with desc->skinning and reads the result back through
 * transform feedback: vertex_count * 3 floats each, in vertex order (out_normals may
 * be NULL; it needs a mesh with normals). Morphs as ossa_gl_draw; view_proj, color,
 * light_dir and wireframe are ignored; nothing is rasterised (GL_RASTERIZER_DISCARD).
 * For tests and tools that need GPU results on the CPU; it waits for the GPU. */
ossa_result ossa_gl_skin_readback(ossa_gl_renderer *renderer, const ossa_gl_mesh *mesh,
                                  const ossa_gl_draw_desc *desc, float *out_positions, float *out_normals);

/* Draws line segments (pairs of xyz points, point_count even) with one colour, no depth test. */
ossa_result ossa_gl_draw_lines(ossa_gl_renderer *renderer, const float *points, uint32_t point_count,
                               const float *view_proj, const float color[4]);

/* ---- Crowds: many instances of one skinned mesh in one instanced draw ----
 * The palettes of every instance live in one RGBA32F texture owned by the renderer
 * (4 texels per matrix; instance i's joint j at matrix i * joint_count + j), uploaded
 * once per frame with ossa_gl_crowd_upload and shared by every mesh drawn with it.
 * Each instance's placement in the world is part of its palette. */

/* Uploads instance_count * joint_count matrices (instance-major). INVALID_ARGUMENT on
 * NULL/zero counts, LIMIT when they exceed 256 * GL_MAX_TEXTURE_SIZE matrices. */
ossa_result ossa_gl_crowd_upload(ossa_gl_renderer *renderer, const ossa_mat4 *palettes, uint32_t instance_count,
                                 uint32_t joint_count);
/* Draws instances [0, instance_count) of a skinned mesh (influences 4 or 8) with the
 * palettes last uploaded: one glDraw*Instanced call. desc as ossa_gl_draw except:
 * skinning, palette, model, inverse_bind, dual_quats and morph_weights are ignored;
 * joint_count must equal the uploaded joint_count (> every joint index of the mesh),
 * and instance_count must not exceed the uploaded count (INVALID_ARGUMENT). */
ossa_result ossa_gl_crowd_draw(ossa_gl_renderer *renderer, const ossa_gl_mesh *mesh, const ossa_gl_draw_desc *desc,
                               uint32_t instance_count);
/* Instance `instance` of the crowd skinned on the GPU and read back like
 * ossa_gl_skin_readback (vertex_count * 3 floats; out_normals may be NULL). */
ossa_result ossa_gl_crowd_readback(ossa_gl_renderer *renderer, const ossa_gl_mesh *mesh, const ossa_gl_draw_desc *desc,
                                   uint32_t instance, float *out_positions, float *out_normals);

/* ---- Headless contexts (EGL; Mesa surfaceless / any EGL device) ---- */
typedef struct ossa_gl_headless ossa_gl_headless;

/* Creates a GL 3.3+ core context with an offscreen width x height RGBA8 + depth
 * framebuffer bound and made current. Tries Mesa's surfaceless platform, then EGL
 * devices, then the default display (environment OSSA_EGL_PLATFORM = surfaceless,
 * device or default tries only that one). UNSUPPORTED when no EGL display works. The EGL
 * display is process-wide: destroy releases the context but never eglTerminates it. */
ossa_result ossa_gl_headless_create(uint32_t width, uint32_t height, ossa_gl_headless **out);
/* Destroys the context; another context that was current on this thread stays current. */
void ossa_gl_headless_destroy(ossa_gl_headless *ctx);
/* Makes ctx current on the calling thread again, its framebuffer bound and viewport set. */
ossa_result ossa_gl_headless_make_current(ossa_gl_headless *ctx);
/* Reads the framebuffer as top-down RGBA8 into out (width * height * 4 bytes). */
ossa_result ossa_gl_headless_read(ossa_gl_headless *ctx, uint8_t *out);

#ifdef __cplusplus
}
#endif
#endif
