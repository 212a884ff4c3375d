/* Skinned mesh upload: one buffer per stream, one VAO (ossa_gl_mesh). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

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
    GLuint buffers[5] = {m->positions, m->normals, m->joints, m->weights, m->indices};
    glDeleteBuffers(5, buffers); /* zeros are ignored */
    if (m->vao) glDeleteVertexArrays(1, &m->vao);
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
