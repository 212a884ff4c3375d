/* Internal pieces of ossa_gl shared by its files (not installed). */
#ifndef OSSA_GL_INTERNAL_H
#define OSSA_GL_INTERNAL_H

#include <epoxy/gl.h>
#include <ossa/gl.h>

/* Vertex attribute locations (fixed in the GLSL with layout(location)). */
enum {
    OSSA__GL_ATTR_POSITION = 0,
    OSSA__GL_ATTR_NORMAL = 1,
    OSSA__GL_ATTR_JOINTS0 = 2,
    OSSA__GL_ATTR_WEIGHTS0 = 3,
    OSSA__GL_ATTR_JOINTS1 = 4,
    OSSA__GL_ATTR_WEIGHTS1 = 5,
    OSSA__GL_ATTR_COLOR = 6,
    OSSA__GL_ATTR_UV0 = 7,
    OSSA__GL_ATTR_UV1 = 8
};

/* Palette texture layout: rows of OSSA__GL_PALETTE_ROW_TEXELS RGBA32F texels, 4 per
 * joint (the matrix columns), so a row holds OSSA__GL_PALETTE_ROW_JOINTS joints and a
 * contiguous ossa_mat4 array uploads row by row without repacking. */
#define OSSA__GL_PALETTE_ROW_TEXELS 1024
#define OSSA__GL_PALETTE_ROW_JOINTS (OSSA__GL_PALETTE_ROW_TEXELS / 4)

/* Morph texture layout: texel (t * vertex_count + v) * 2 holds target t's position
 * delta of vertex v (xyz, w unused), the next texel its normal delta; rows of
 * OSSA__GL_MORPH_ROW_TEXELS texels. */
#define OSSA__GL_MORPH_ROW_TEXELS 1024

struct ossa_gl_mesh {
    GLuint vao;
    GLuint positions, normals, joints, weights, indices; /* buffer objects (0 = absent) */
    GLuint colors, uv0, uv1;
    GLuint morph_tex;     /* RGBA32F deltas, 0 without targets */
    uint32_t vertex_count, index_count, influences;
    uint32_t joint_limit; /* 1 + largest joint index (0 when rigid) */
    uint32_t target_count;
};

/* GLSL sources (src/gl/shaders.c). The skinning vertex shader is compiled once per
 * variant with "#define OSSA_SKIN <n>" and "#define OSSA_MAX_JOINTS <n>" after #version;
 * its source is two strings, ossa__gl_skin_vs then ossa__gl_skin_vs_main. */
extern const char ossa__gl_skin_vs[];
extern const char ossa__gl_skin_vs_main[];
extern const char ossa__gl_lit_fs[];
extern const char ossa__gl_lines_vs[];
extern const char ossa__gl_lines_fs[];

/* Shader variant numbers used by OSSA_SKIN in the GLSL. */
enum { OSSA__GL_SKIN_NONE = 0, OSSA__GL_SKIN_POSE_IBM = 1, OSSA__GL_SKIN_PALETTE = 2,
       OSSA__GL_SKIN_TEXTURE = 3, OSSA__GL_SKIN_DQ = 4, OSSA__GL_SKIN_CROWD = 5 };

struct ossa_gl_texture {
    GLuint id;
};

/* Sets default pixel-unpack state (no PBO, no row length or skips) for a tightly packed
 * upload, remembering the application's; ossa__gl_unpack_restore puts it back. */
typedef struct ossa__gl_unpack { GLint row_length, skip_rows, skip_pixels, buffer; } ossa__gl_unpack;
ossa__gl_unpack ossa__gl_unpack_defaults(void);
void ossa__gl_unpack_restore(const ossa__gl_unpack *saved);

/* Prints "ossa_gl: <message>" to stderr. */
void ossa__gl_log(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Drains glGetError; returns OSSA_ERROR_GL (logged with `what`) if any error was pending. */
ossa_result ossa__gl_check(const char *what);

#endif
