/* Skinned mesh upload: one buffer per stream, one VAO (ossa_gl_mesh). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gl_internal.h"

void ossa__gl_log(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("ossa_gl: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

ossa_result ossa__gl_check(const char *what) {
    GLenum first = glGetError();
    if (first == GL_NO_ERROR) return OSSA_OK;
    for (int i = 0; i < 32 && glGetError() != GL_NO_ERROR; i++) {}
    ossa__gl_log("%s: GL error 0x%04x", what, (unsigned)first);
    return OSSA_ERROR_GL;
}

ossa__gl_unpack ossa__gl_unpack_defaults(void) {
    ossa__gl_unpack u;
    glGetIntegerv(GL_UNPACK_ROW_LENGTH, &u.row_length);
    glGetIntegerv(GL_UNPACK_SKIP_ROWS, &u.skip_rows);
    glGetIntegerv(GL_UNPACK_SKIP_PIXELS, &u.skip_pixels);
    glGetIntegerv(GL_PIXEL_UNPACK_BUFFER_BINDING, &u.buffer);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    glPixelStorei(GL_UNPACK_SKIP_ROWS, 0);
    glPixelStorei(GL_UNPACK_SKIP_PIXELS, 0);
    if (u.buffer) glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    return u;
}

void ossa__gl_unpack_restore(const ossa__gl_unpack *u) {
    glPixelStorei(GL_UNPACK_ROW_LENGTH, u->row_length);
    glPixelStorei(GL_UNPACK_SKIP_ROWS, u->skip_rows);
    glPixelStorei(GL_UNPACK_SKIP_PIXELS, u->skip_pixels);
    if (u->buffer) glBindBuffer(GL_PIXEL_UNPACK_BUFFER, (GLuint)u->buffer);
}

static GLuint make_buffer(GLenum target, size_t bytes, const void *data, GLenum usage) {
    GLuint b = 0;
    glGenBuffers(1, &b);
    glBindBuffer(target, b);
    glBufferData(target, (GLsizeiptr)bytes, data, usage);
    return b;
}

static void attach_normals(ossa_gl_mesh *m) {
    glBindBuffer(GL_ARRAY_BUFFER, m->normals);
    glVertexAttribPointer(OSSA__GL_ATTR_NORMAL, 3, GL_FLOAT, GL_FALSE, 12, (const void *)0);
    glEnableVertexAttribArray(OSSA__GL_ATTR_NORMAL);
}

/* Packs the morph deltas into an RGBA32F texture (layout in gl_internal.h). */
static ossa_result upload_morphs(ossa_gl_mesh *m, const ossa_mesh *mesh) {
    if (!mesh->targets) return OSSA_ERROR_INVALID_ARGUMENT;
    GLint max_size = 0;
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_size);
    size_t texels = (size_t)mesh->target_count * mesh->vertex_count * 2;
    size_t rows = (texels + OSSA__GL_MORPH_ROW_TEXELS - 1) / OSSA__GL_MORPH_ROW_TEXELS;
    if (max_size < OSSA__GL_MORPH_ROW_TEXELS || rows > (size_t)max_size || texels > (size_t)INT32_MAX) {
        ossa__gl_log("ossa_gl_mesh_create: %u morph targets x %u vertices exceed the largest texture",
                     (unsigned)mesh->target_count, (unsigned)mesh->vertex_count);
        return OSSA_ERROR_LIMIT;
    }
    float *data = calloc(rows * OSSA__GL_MORPH_ROW_TEXELS, 4 * sizeof(float));
    if (!data) return OSSA_ERROR_OUT_OF_MEMORY;
    for (uint32_t t = 0; t < mesh->target_count; t++) {
        const ossa_morph_target *mt = &mesh->targets[t];
        for (uint32_t v = 0; v < mesh->vertex_count; v++) {
            float *texel = data + (((size_t)t * mesh->vertex_count + v) * 2) * 4;
            if (mt->positions) memcpy(texel, mt->positions + (size_t)v * 3, 12);
            if (mt->normals && mesh->normals) memcpy(texel + 4, mt->normals + (size_t)v * 3, 12);
        }
    }
    glGenTextures(1, &m->morph_tex);
    glBindTexture(GL_TEXTURE_2D, m->morph_tex);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0);
    ossa__gl_unpack saved = ossa__gl_unpack_defaults();
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA32F, OSSA__GL_MORPH_ROW_TEXELS, (GLsizei)rows, 0, GL_RGBA, GL_FLOAT, data);
    ossa__gl_unpack_restore(&saved);
    glBindTexture(GL_TEXTURE_2D, 0);
    free(data);
    m->target_count = mesh->target_count;
    return OSSA_OK;
}

ossa_result ossa_gl_mesh_create(const ossa_mesh *mesh, ossa_gl_mesh **out) {
    if (!out) return OSSA_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (!mesh || mesh->vertex_count == 0 || !mesh->positions) return OSSA_ERROR_INVALID_ARGUMENT;
    if (mesh->influences != 0 && mesh->influences != 4 && mesh->influences != 8) return OSSA_ERROR_INVALID_ARGUMENT;
    if (mesh->influences && (!mesh->joints || !mesh->weights)) return OSSA_ERROR_INVALID_ARGUMENT;
    if (mesh->index_count && !mesh->indices) return OSSA_ERROR_INVALID_ARGUMENT;
    if (mesh->vertex_count > (uint32_t)INT32_MAX / 32u || mesh->index_count > (uint32_t)INT32_MAX / 4u)
        return OSSA_ERROR_LIMIT;
    for (uint32_t i = 0; i < mesh->index_count; i++)
        if (mesh->indices[i] >= mesh->vertex_count) return OSSA_ERROR_INVALID_ARGUMENT;

    ossa_gl_mesh *m = calloc(1, sizeof *m);
    if (!m) return OSSA_ERROR_OUT_OF_MEMORY;
    m->vertex_count = mesh->vertex_count;
    m->index_count = mesh->index_count;
    m->influences = mesh->influences;
    size_t n = mesh->vertex_count;
    for (size_t i = 0; i < n * mesh->influences; i++)
        if ((uint32_t)mesh->joints[i] + 1u > m->joint_limit) m->joint_limit = (uint32_t)mesh->joints[i] + 1u;

    glGenVertexArrays(1, &m->vao);
    glBindVertexArray(m->vao);
    m->positions = make_buffer(GL_ARRAY_BUFFER, n * 12, mesh->positions, GL_DYNAMIC_DRAW);
    glVertexAttribPointer(OSSA__GL_ATTR_POSITION, 3, GL_FLOAT, GL_FALSE, 12, (const void *)0);
    glEnableVertexAttribArray(OSSA__GL_ATTR_POSITION);
    if (mesh->normals) {
        m->normals = make_buffer(GL_ARRAY_BUFFER, n * 12, mesh->normals, GL_DYNAMIC_DRAW);
        attach_normals(m);
    }
    if (mesh->influences) {
        GLsizei k = (GLsizei)mesh->influences;
        m->joints = make_buffer(GL_ARRAY_BUFFER, n * (size_t)k * 2, mesh->joints, GL_STATIC_DRAW);
        glVertexAttribIPointer(OSSA__GL_ATTR_JOINTS0, 4, GL_UNSIGNED_SHORT, k * 2, (const void *)0);
        glEnableVertexAttribArray(OSSA__GL_ATTR_JOINTS0);
        if (k == 8) {
            glVertexAttribIPointer(OSSA__GL_ATTR_JOINTS1, 4, GL_UNSIGNED_SHORT, k * 2, (const void *)8);
            glEnableVertexAttribArray(OSSA__GL_ATTR_JOINTS1);
        }
        m->weights = make_buffer(GL_ARRAY_BUFFER, n * (size_t)k * 4, mesh->weights, GL_STATIC_DRAW);
        glVertexAttribPointer(OSSA__GL_ATTR_WEIGHTS0, 4, GL_FLOAT, GL_FALSE, k * 4, (const void *)0);
        glEnableVertexAttribArray(OSSA__GL_ATTR_WEIGHTS0);
        if (k == 8) {
            glVertexAttribPointer(OSSA__GL_ATTR_WEIGHTS1, 4, GL_FLOAT, GL_FALSE, k * 4, (const void *)16);
            glEnableVertexAttribArray(OSSA__GL_ATTR_WEIGHTS1);
        }
    }
    if (mesh->colors) {
        m->colors = make_buffer(GL_ARRAY_BUFFER, n * 16, mesh->colors, GL_STATIC_DRAW);
        glVertexAttribPointer(OSSA__GL_ATTR_COLOR, 4, GL_FLOAT, GL_FALSE, 16, (const void *)0);
        glEnableVertexAttribArray(OSSA__GL_ATTR_COLOR);
    }
    if (mesh->uv0) {
        m->uv0 = make_buffer(GL_ARRAY_BUFFER, n * 8, mesh->uv0, GL_STATIC_DRAW);
        glVertexAttribPointer(OSSA__GL_ATTR_UV0, 2, GL_FLOAT, GL_FALSE, 8, (const void *)0);
        glEnableVertexAttribArray(OSSA__GL_ATTR_UV0);
    }
    if (mesh->uv1) {
        m->uv1 = make_buffer(GL_ARRAY_BUFFER, n * 8, mesh->uv1, GL_STATIC_DRAW);
        glVertexAttribPointer(OSSA__GL_ATTR_UV1, 2, GL_FLOAT, GL_FALSE, 8, (const void *)0);
        glEnableVertexAttribArray(OSSA__GL_ATTR_UV1);
    }
    if (mesh->target_count) {
        ossa_result mr = upload_morphs(m, mesh);
        if (mr != OSSA_OK) {
            glBindVertexArray(0);
            ossa_gl_mesh_destroy(m);
            return mr;
        }
    }
    if (mesh->index_count)
        m->indices = make_buffer(GL_ELEMENT_ARRAY_BUFFER, (size_t)mesh->index_count * 4, mesh->indices,
                                 GL_STATIC_DRAW);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    ossa_result r = ossa__gl_check("ossa_gl_mesh_create");
    if (r != OSSA_OK) {
        ossa_gl_mesh_destroy(m);
        return r;
    }
    *out = m;
    return OSSA_OK;
}

void ossa_gl_mesh_destroy(ossa_gl_mesh *m) {
    if (!m) return;
    GLuint buffers[8] = {m->positions, m->normals, m->joints, m->weights, m->indices, m->colors, m->uv0, m->uv1};
    glDeleteBuffers(8, buffers); /* zeros are ignored */
    if (m->vao) glDeleteVertexArrays(1, &m->vao);
    if (m->morph_tex) glDeleteTextures(1, &m->morph_tex);
    free(m);
}

ossa_result ossa_gl_mesh_update(ossa_gl_mesh *m, const float *positions, const float *normals) {
    if (!m || !positions) return OSSA_ERROR_INVALID_ARGUMENT;
    GLsizeiptr bytes = (GLsizeiptr)m->vertex_count * 12;
    glBindBuffer(GL_ARRAY_BUFFER, m->positions);
    glBufferSubData(GL_ARRAY_BUFFER, 0, bytes, positions);
    if (normals) {
        if (!m->normals) { /* first normals for a mesh uploaded without them */
            glBindVertexArray(m->vao);
            m->normals = make_buffer(GL_ARRAY_BUFFER, (size_t)bytes, normals, GL_DYNAMIC_DRAW);
            attach_normals(m);
            glBindVertexArray(0);
        } else {
            glBindBuffer(GL_ARRAY_BUFFER, m->normals);
            glBufferSubData(GL_ARRAY_BUFFER, 0, bytes, normals);
        }
    }
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    return OSSA_OK;
}

uint32_t ossa_gl_mesh_vertex_count(const ossa_gl_mesh *m) { return m ? m->vertex_count : 0; }

static GLint wrap_mode(uint32_t w) {
    if (w == OSSA_WRAP_CLAMP_TO_EDGE) return GL_CLAMP_TO_EDGE;
    return w == OSSA_WRAP_MIRRORED_REPEAT ? GL_MIRRORED_REPEAT : GL_REPEAT;
}

ossa_result ossa_gl_texture_create(const ossa_gl_texture_desc *d, ossa_gl_texture **out) {
    if (!out) return OSSA_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (!d || !d->rgba || !d->width || !d->height) return OSSA_ERROR_INVALID_ARGUMENT;
    GLint max_size = 0;
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_size);
    if (d->width > (uint32_t)max_size || d->height > (uint32_t)max_size) return OSSA_ERROR_LIMIT;
    ossa_gl_texture *t = calloc(1, sizeof *t);
    if (!t) return OSSA_ERROR_OUT_OF_MEMORY;
    static const GLint mins[] = {GL_NEAREST, GL_LINEAR, GL_NEAREST_MIPMAP_NEAREST, GL_LINEAR_MIPMAP_NEAREST,
                                 GL_NEAREST_MIPMAP_LINEAR, GL_LINEAR_MIPMAP_LINEAR};
    GLint min = GL_LINEAR_MIPMAP_LINEAR;
    for (size_t i = 0; i < sizeof mins / sizeof mins[0]; i++)
        if (d->min_filter == (uint32_t)mins[i]) min = mins[i];
    GLint mag = d->mag_filter == OSSA_FILTER_NEAREST ? GL_NEAREST : GL_LINEAR;
    glGenTextures(1, &t->id);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, t->id);
    ossa__gl_unpack saved = ossa__gl_unpack_defaults();
    GLint align = 4;
    glGetIntegerv(GL_UNPACK_ALIGNMENT, &align);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_SRGB8_ALPHA8, (GLsizei)d->width, (GLsizei)d->height, 0, GL_RGBA,
                 GL_UNSIGNED_BYTE, d->rgba);
    glPixelStorei(GL_UNPACK_ALIGNMENT, align);
    ossa__gl_unpack_restore(&saved);
    glGenerateMipmap(GL_TEXTURE_2D);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, wrap_mode(d->wrap_s));
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, wrap_mode(d->wrap_t));
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, min);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, mag);
    glBindTexture(GL_TEXTURE_2D, 0);
    ossa_result r = ossa__gl_check("ossa_gl_texture_create");
    if (r != OSSA_OK) {
        ossa_gl_texture_destroy(t);
        return r;
    }
    *out = t;
    return OSSA_OK;
}

void ossa_gl_texture_destroy(ossa_gl_texture *t) {
    if (!t) return;
    if (t->id) glDeleteTextures(1, &t->id);
    free(t);
}
