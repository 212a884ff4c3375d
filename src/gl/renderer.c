/* Shader programs for every skinning variant, drawing, bone lines, and transform
 * feedback readback (ossa_gl_renderer). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gl_internal.h"

#define VARIANTS (OSSA_GL_SKIN_DUAL_QUAT + 1)

static const float identity16[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

typedef struct program {
    GLuint id;
    GLint view_proj, color, light_dir;
    GLint model, inverse_bind, palette, palette_tex, dual_quats;
    GLint morph_tex, morph_count, morph_vertex_count, morph_targets, morph_weights;
    GLint texcoord, eye, has_eye, flat, has_texture, base_tex, alpha_mode, alpha_cutoff;
    GLint joint_count, instance_base; /* crowd */
    uint32_t max_joints;
} program;

struct ossa_gl_renderer {
    program programs[VARIANTS]; /* indexed by ossa_gl_skinning; [DEFAULT] unused */
    program crowd;              /* instanced, palettes of every instance in crowd_tex */
    GLuint crowd_tex;
    uint32_t crowd_rows, crowd_instances, crowd_joints;
    GLuint palette_tex;
    uint32_t palette_rows;      /* allocated texture height */
    GLint max_texture_size;
    GLuint lines_program, lines_vao, lines_vbo;
    GLint lines_view_proj, lines_color;
    size_t lines_capacity;      /* bytes */
    GLuint feedback[2];         /* positions, normals */
    size_t feedback_capacity;   /* bytes each */
    GLuint feedback_query;
};

static GLuint compile(GLenum type, const char *const *sources, GLsizei count, const char *what) {
    GLuint s = glCreateShader(type);
    glShaderSource(s, count, sources, NULL);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[2048] = {0};
        glGetShaderInfoLog(s, (GLsizei)sizeof log, NULL, log);
        ossa__gl_log("compiling %s failed: %s", what, log);
        glDeleteShader(s);
        return 0;
    }
    return s;
}

/* Links vs + fs; feedback = capture v_position / v_normal into separate buffers. */
static GLuint link(GLuint vs, GLuint fs, bool feedback, const char *what) {
    if (!vs || !fs) {
        if (vs) glDeleteShader(vs);
        if (fs) glDeleteShader(fs);
        return 0;
    }
    GLuint p = glCreateProgram();
    glAttachShader(p, vs);
    glAttachShader(p, fs);
    if (feedback) {
        const char *varyings[2] = {"v_position", "v_normal"};
        glTransformFeedbackVaryings(p, 2, varyings, GL_SEPARATE_ATTRIBS);
    }
    glLinkProgram(p);
    glDeleteShader(vs);
    glDeleteShader(fs);
    GLint ok = 0;
    glGetProgramiv(p, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[2048] = {0};
        glGetProgramInfoLog(p, (GLsizei)sizeof log, NULL, log);
        ossa__gl_log("linking %s failed: %s", what, log);
        glDeleteProgram(p);
        return 0;
    }
    return p;
}

static const int variant_define[VARIANTS] = {
    [OSSA_GL_SKIN_NONE] = OSSA__GL_SKIN_NONE,
    [OSSA_GL_SKIN_POSE_AND_IBM] = OSSA__GL_SKIN_POSE_IBM,
    [OSSA_GL_SKIN_PALETTE_UNIFORM] = OSSA__GL_SKIN_PALETTE,
    [OSSA_GL_SKIN_PALETTE_TEXTURE] = OSSA__GL_SKIN_TEXTURE,
    [OSSA_GL_SKIN_DUAL_QUAT] = OSSA__GL_SKIN_DQ,
};

/* Builds program v: a skinning variant (v < VARIANTS) or, for v == VARIANTS, the crowd's. */
static ossa_result build_variant(ossa_gl_renderer *r, int v, GLint max_vec4) {
    program *p = v < VARIANTS ? &r->programs[v] : &r->crowd;
    uint32_t max_joints = OSSA_GL_MAX_UNIFORM_JOINTS;
    /* Room for the arrays next to view_proj and a few driver-internal uniforms. */
    uint32_t per_joint = v == OSSA_GL_SKIN_POSE_AND_IBM ? 8u : v == OSSA_GL_SKIN_PALETTE_UNIFORM ? 4u : 2u;
    /* vec4 slots besides the joint arrays: view_proj, morph arrays, scalars, driver use. */
    uint32_t other = 4u + 2u * (OSSA_GL_MAX_ACTIVE_MORPHS / 4u) + 12u;
    uint32_t room = max_vec4 > (GLint)other ? ((uint32_t)max_vec4 - other) / per_joint : 1u;
    if (room < max_joints) max_joints = room;
    char defines[256];
    snprintf(defines, sizeof defines,
             "#define OSSA_SKIN %d\n#define OSSA_MAX_JOINTS %u\n#define OSSA_ROW_TEXELS %d\n"
             "#define OSSA_MAX_MORPHS %d\n#define OSSA_MORPH_ROW_TEXELS %d\n",
             v < VARIANTS ? variant_define[v] : OSSA__GL_SKIN_CROWD, (unsigned)max_joints, OSSA__GL_PALETTE_ROW_TEXELS,
             OSSA_GL_MAX_ACTIVE_MORPHS, OSSA__GL_MORPH_ROW_TEXELS);
    const char *vs_src[4] = {"#version 330 core\n", defines, ossa__gl_skin_vs, ossa__gl_skin_vs_main};
    const char *fs_src[1] = {ossa__gl_lit_fs};
    char what[64];
    snprintf(what, sizeof what, "skinning shader variant %d", v);
    p->id = link(compile(GL_VERTEX_SHADER, vs_src, 4, what), compile(GL_FRAGMENT_SHADER, fs_src, 1, "lit fragment shader"),
                 true, what);
    if (!p->id) return OSSA_ERROR_GL;
    p->view_proj = glGetUniformLocation(p->id, "u_view_proj");
    p->color = glGetUniformLocation(p->id, "u_color");
    p->light_dir = glGetUniformLocation(p->id, "u_light_dir");
    p->model = glGetUniformLocation(p->id, "u_model");
    p->inverse_bind = glGetUniformLocation(p->id, "u_inverse_bind");
    p->palette = glGetUniformLocation(p->id, "u_palette");
    p->palette_tex = glGetUniformLocation(p->id, "u_palette_tex");
    p->dual_quats = glGetUniformLocation(p->id, "u_dual_quats");
    p->morph_tex = glGetUniformLocation(p->id, "u_morph_tex");
    p->morph_count = glGetUniformLocation(p->id, "u_morph_count");
    p->morph_vertex_count = glGetUniformLocation(p->id, "u_morph_vertex_count");
    p->morph_targets = glGetUniformLocation(p->id, "u_morph_targets");
    p->morph_weights = glGetUniformLocation(p->id, "u_morph_weights");
    p->texcoord = glGetUniformLocation(p->id, "u_texcoord");
    p->eye = glGetUniformLocation(p->id, "u_eye");
    p->has_eye = glGetUniformLocation(p->id, "u_has_eye");
    p->flat = glGetUniformLocation(p->id, "u_flat");
    p->has_texture = glGetUniformLocation(p->id, "u_has_texture");
    p->base_tex = glGetUniformLocation(p->id, "u_base_tex");
    p->alpha_mode = glGetUniformLocation(p->id, "u_alpha_mode");
    p->alpha_cutoff = glGetUniformLocation(p->id, "u_alpha_cutoff");
    p->joint_count = glGetUniformLocation(p->id, "u_joint_count");
    p->instance_base = glGetUniformLocation(p->id, "u_instance_base");
    if (v == OSSA_GL_SKIN_NONE) max_joints = UINT32_MAX;
    if (v == OSSA_GL_SKIN_PALETTE_TEXTURE || v == VARIANTS)
        max_joints = (uint32_t)r->max_texture_size * OSSA__GL_PALETTE_ROW_JOINTS;
    p->max_joints = max_joints;
    glUseProgram(p->id);
    if (p->palette_tex >= 0) glUniform1i(p->palette_tex, 0);
    if (p->morph_tex >= 0) glUniform1i(p->morph_tex, 1);
    if (p->base_tex >= 0) glUniform1i(p->base_tex, 2);
    glUseProgram(0);
    return OSSA_OK;
}

ossa_result ossa_gl_renderer_create(ossa_gl_renderer **out) {
    if (!out) return OSSA_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (epoxy_gl_version() < 33) {
        ossa__gl_log("needs OpenGL 3.3 core, the current context has %d.%d", epoxy_gl_version() / 10,
                     epoxy_gl_version() % 10);
        return OSSA_ERROR_UNSUPPORTED;
    }
    ossa_gl_renderer *r = calloc(1, sizeof *r);
    if (!r) return OSSA_ERROR_OUT_OF_MEMORY;
    GLint max_components = 0;
    glGetIntegerv(GL_MAX_VERTEX_UNIFORM_COMPONENTS, &max_components);
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &r->max_texture_size);
    if (r->max_texture_size < OSSA__GL_PALETTE_ROW_TEXELS) r->max_texture_size = 0;
    ossa_result res = OSSA_OK;
    for (int v = OSSA_GL_SKIN_NONE; v <= VARIANTS && res == OSSA_OK; v++) res = build_variant(r, v, max_components / 4);
    if (res == OSSA_OK) {
        const char *vs[1] = {ossa__gl_lines_vs}, *fs[1] = {ossa__gl_lines_fs};
        r->lines_program = link(compile(GL_VERTEX_SHADER, vs, 1, "lines vertex shader"),
                                compile(GL_FRAGMENT_SHADER, fs, 1, "lines fragment shader"), false, "lines program");
        if (!r->lines_program) res = OSSA_ERROR_GL;
    }
    if (res == OSSA_OK) {
        r->lines_view_proj = glGetUniformLocation(r->lines_program, "u_view_proj");
        r->lines_color = glGetUniformLocation(r->lines_program, "u_color");
        glGenVertexArrays(1, &r->lines_vao);
        glGenBuffers(1, &r->lines_vbo);
        glBindVertexArray(r->lines_vao);
        glBindBuffer(GL_ARRAY_BUFFER, r->lines_vbo);
        glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 12, (const void *)0);
        glEnableVertexAttribArray(0);
        glBindVertexArray(0);
        glBindBuffer(GL_ARRAY_BUFFER, 0);
        glGenTextures(1, &r->palette_tex);
        glGenTextures(1, &r->crowd_tex);
        glGenBuffers(2, r->feedback);
        glGenQueries(1, &r->feedback_query);
        res = ossa__gl_check("ossa_gl_renderer_create");
    }
    if (res != OSSA_OK) {
        ossa_gl_renderer_destroy(r);
        return res;
    }
    *out = r;
    return OSSA_OK;
}

void ossa_gl_renderer_destroy(ossa_gl_renderer *r) {
    if (!r) return;
    for (int v = 0; v < VARIANTS; v++)
        if (r->programs[v].id) glDeleteProgram(r->programs[v].id);
    if (r->crowd.id) glDeleteProgram(r->crowd.id);
    if (r->crowd_tex) glDeleteTextures(1, &r->crowd_tex);
    if (r->lines_program) glDeleteProgram(r->lines_program);
    if (r->lines_vao) glDeleteVertexArrays(1, &r->lines_vao);
    if (r->lines_vbo) glDeleteBuffers(1, &r->lines_vbo);
    if (r->palette_tex) glDeleteTextures(1, &r->palette_tex);
    glDeleteBuffers(2, r->feedback);
    if (r->feedback_query) glDeleteQueries(1, &r->feedback_query);
    free(r);
}

uint32_t ossa_gl_renderer_max_joints(const ossa_gl_renderer *r, ossa_gl_skinning skinning) {
    if (!r) return 0;
    if (skinning == OSSA_GL_SKIN_DEFAULT) skinning = OSSA_GL_SKIN_PALETTE_TEXTURE;
    if ((int)skinning <= 0 || (int)skinning >= VARIANTS) return 0;
    return r->programs[skinning].max_joints;
}

/* Uploads count matrices into rows of an RGBA32F texture (4 texels each, layout in
 * gl_internal.h), growing it (*rows) when needed; leaves it bound to unit 0. */
static void upload_matrices(GLuint tex, uint32_t *allocated_rows, const ossa_mat4 *m, size_t count) {
    uint32_t rows = (uint32_t)((count + OSSA__GL_PALETTE_ROW_JOINTS - 1) / OSSA__GL_PALETTE_ROW_JOINTS);
    if (rows == 0) rows = 1;
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, tex);
    if (rows > *allocated_rows) { /* grows only: no reallocation in steady state */
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA32F, OSSA__GL_PALETTE_ROW_TEXELS, (GLsizei)rows, 0, GL_RGBA, GL_FLOAT,
                     NULL);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0);
        *allocated_rows = rows;
    }
    ossa__gl_unpack saved = ossa__gl_unpack_defaults();
    size_t full = count / OSSA__GL_PALETTE_ROW_JOINTS, rest = count % OSSA__GL_PALETTE_ROW_JOINTS;
    if (full)
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, OSSA__GL_PALETTE_ROW_TEXELS, (GLsizei)full, GL_RGBA, GL_FLOAT, m[0].m);
    if (rest)
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, (GLint)full, (GLsizei)(rest * 4), 1, GL_RGBA, GL_FLOAT,
                        m[full * OSSA__GL_PALETTE_ROW_JOINTS].m);
    ossa__gl_unpack_restore(&saved);
}

/* Generic values of a mesh's absent streams (context state, not VAO state): no second
 * influence set, no skinning, zero normal (flat shading takes over), white colour, uv 0. */
static void set_absent_streams(const ossa_gl_mesh *m) {
    if (m->influences < 8) {
        glVertexAttribI4ui(OSSA__GL_ATTR_JOINTS1, 0, 0, 0, 0);
        glVertexAttrib4f(OSSA__GL_ATTR_WEIGHTS1, 0, 0, 0, 0);
    }
    if (m->influences == 0) {
        glVertexAttribI4ui(OSSA__GL_ATTR_JOINTS0, 0, 0, 0, 0);
        glVertexAttrib4f(OSSA__GL_ATTR_WEIGHTS0, 0, 0, 0, 0);
    }
    if (!m->normals) glVertexAttrib3f(OSSA__GL_ATTR_NORMAL, 0, 0, 0);
    if (!m->colors) glVertexAttrib4f(OSSA__GL_ATTR_COLOR, 1, 1, 1, 1);
    if (!m->uv0) glVertexAttrib2f(OSSA__GL_ATTR_UV0, 0, 0);
    if (!m->uv1) glVertexAttrib2f(OSSA__GL_ATTR_UV1, 0, 0);
}

/* Validates desc against the mesh, binds the variant's program and sets its skinning
 * uniforms and the mesh's constant attributes. Returns the program or NULL. */
static ossa_result bind_skinning(ossa_gl_renderer *r, const ossa_gl_mesh *m, const ossa_gl_draw_desc *d,
                                 const program **out) {
    ossa_gl_skinning s = d->skinning == OSSA_GL_SKIN_DEFAULT ? OSSA_GL_SKIN_PALETTE_TEXTURE : d->skinning;
    if ((int)s <= 0 || (int)s >= VARIANTS) return OSSA_ERROR_INVALID_ARGUMENT;
    const program *p = &r->programs[s];
    if (s != OSSA_GL_SKIN_NONE && m->influences) {
        if (m->joint_limit > d->joint_count) return OSSA_ERROR_INVALID_ARGUMENT;
        if (d->joint_count > p->max_joints) return OSSA_ERROR_UNSUPPORTED;
        bool have = s == OSSA_GL_SKIN_POSE_AND_IBM ? d->model && d->inverse_bind
                  : s == OSSA_GL_SKIN_DUAL_QUAT    ? d->dual_quats != NULL
                                                   : d->palette != NULL;
        if (!have) return OSSA_ERROR_INVALID_ARGUMENT;
    }
    /* Active morph targets (non-zero weights), padded to whole vec4s. */
    GLint morph_targets[OSSA_GL_MAX_ACTIVE_MORPHS] = {0};
    GLfloat morph_weights[OSSA_GL_MAX_ACTIVE_MORPHS] = {0};
    GLint morph_count = 0;
    if (d->morph_weights && m->target_count) {
        for (uint32_t t = 0; t < m->target_count; t++) {
            if (d->morph_weights[t] == 0.0f) continue;
            if (morph_count == OSSA_GL_MAX_ACTIVE_MORPHS) return OSSA_ERROR_UNSUPPORTED;
            morph_targets[morph_count] = (GLint)t;
            morph_weights[morph_count++] = d->morph_weights[t];
        }
    }
    glUseProgram(p->id);
    glUniform1i(p->morph_count, morph_count);
    if (morph_count) {
        glUniform1i(p->morph_vertex_count, (GLint)m->vertex_count);
        glUniform4iv(p->morph_targets, (morph_count + 3) / 4, morph_targets);
        glUniform4fv(p->morph_weights, (morph_count + 3) / 4, morph_weights);
        glActiveTexture(GL_TEXTURE1);
        glBindTexture(GL_TEXTURE_2D, m->morph_tex);
        glActiveTexture(GL_TEXTURE0);
    }
    GLsizei n = (GLsizei)d->joint_count;
    if (s != OSSA_GL_SKIN_NONE && m->influences && n > 0) {
        switch (s) {
        case OSSA_GL_SKIN_POSE_AND_IBM:
            glUniformMatrix4fv(p->model, n, GL_FALSE, d->model[0].m);
            glUniformMatrix4fv(p->inverse_bind, n, GL_FALSE, d->inverse_bind[0].m);
            break;
        case OSSA_GL_SKIN_PALETTE_UNIFORM: glUniformMatrix4fv(p->palette, n, GL_FALSE, d->palette[0].m); break;
        case OSSA_GL_SKIN_PALETTE_TEXTURE:
            upload_matrices(r->palette_tex, &r->palette_rows, d->palette, d->joint_count);
            break;
        case OSSA_GL_SKIN_DUAL_QUAT: glUniform4fv(p->dual_quats, 2 * n, &d->dual_quats[0].real.x); break;
        default: break;
        }
    }
    glActiveTexture(GL_TEXTURE0);
    set_absent_streams(m);
    glUniform1i(p->texcoord, d->texcoord == 1 ? 1 : 0);
    *out = p;
    return OSSA_OK;
}

/* Surface uniforms (colour, light, eye, material) of program p, bound. */
static void set_surface(const program *p, const ossa_gl_mesh *m, const ossa_gl_draw_desc *d) {
    static const float grey[4] = {0.6f, 0.6f, 0.6f, 1.0f};
    const float *c = (d->color[0] == 0 && d->color[1] == 0 && d->color[2] == 0 && d->color[3] == 0) ? grey : d->color;
    glUniformMatrix4fv(p->view_proj, 1, GL_FALSE, d->view_proj);
    glUniform4fv(p->color, 1, c);
    float lx = d->light_dir[0], ly = d->light_dir[1], lz = d->light_dir[2];
    float ll = sqrtf(lx * lx + ly * ly + lz * lz);
    if (!(ll > 1e-12f) || !isfinite(ll)) lx = -0.36f, ly = -0.80f, lz = -0.48f, ll = 1.0f; /* from upper right front */
    glUniform3f(p->light_dir, lx / ll, ly / ll, lz / ll);
    glUniform1i(p->has_eye, d->eye != NULL);
    if (d->eye) glUniform3f(p->eye, d->eye[0], d->eye[1], d->eye[2]);
    glUniform1i(p->flat, m->normals == 0);
    glUniform1i(p->has_texture, d->base_color_texture != NULL);
    if (d->base_color_texture) {
        glActiveTexture(GL_TEXTURE2);
        glBindTexture(GL_TEXTURE_2D, d->base_color_texture->id);
        glActiveTexture(GL_TEXTURE0);
    }
    int mode = d->alpha_mode == OSSA_ALPHA_MODE_MASK ? 1 : d->alpha_mode == OSSA_ALPHA_MODE_BLEND ? 2 : 0;
    glUniform1i(p->alpha_mode, mode);
    glUniform1f(p->alpha_cutoff, d->alpha_cutoff); /* glTF alphaCutoff as is: 0 discards nothing */
}

/* Rasterises the bound program over the mesh (instances > 1: instanced) with the
 * desc's depth, polygon, cull and blend state, restoring the application's. */
static void rasterise(const ossa_gl_mesh *m, const ossa_gl_draw_desc *d, GLsizei instances) {
    GLboolean depth = glIsEnabled(GL_DEPTH_TEST), cull = glIsEnabled(GL_CULL_FACE), blend = glIsEnabled(GL_BLEND);
    if (!depth) glEnable(GL_DEPTH_TEST);
    GLint polygon_mode[2] = {GL_FILL, GL_FILL}, cull_mode = GL_BACK, src_rgb = GL_ONE, dst_rgb = GL_ZERO,
          src_a = GL_ONE, dst_a = GL_ZERO;
    GLboolean depth_write = GL_TRUE;
    if (d->wireframe) {
        glGetIntegerv(GL_POLYGON_MODE, polygon_mode);
        glPolygonMode(GL_FRONT_AND_BACK, GL_LINE);
    }
    if (d->cull_back_faces) {
        glGetIntegerv(GL_CULL_FACE_MODE, &cull_mode);
        glCullFace(GL_BACK);
        if (!cull) glEnable(GL_CULL_FACE);
    } else if (cull) {
        glDisable(GL_CULL_FACE);
    }
    bool blending = d->alpha_mode == OSSA_ALPHA_MODE_BLEND;
    if (blending) {
        glGetIntegerv(GL_BLEND_SRC_RGB, &src_rgb);
        glGetIntegerv(GL_BLEND_DST_RGB, &dst_rgb);
        glGetIntegerv(GL_BLEND_SRC_ALPHA, &src_a);
        glGetIntegerv(GL_BLEND_DST_ALPHA, &dst_a);
        glGetBooleanv(GL_DEPTH_WRITEMASK, &depth_write);
        glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
        if (!blend) glEnable(GL_BLEND);
        glDepthMask(GL_FALSE); /* see-through surfaces do not hide what is drawn after them */
    } else if (blend) {
        glDisable(GL_BLEND);
    }
    glBindVertexArray(m->vao);
    if (m->index_count)
        glDrawElementsInstanced(GL_TRIANGLES, (GLsizei)m->index_count, GL_UNSIGNED_INT, (const void *)0, instances);
    else
        glDrawArraysInstanced(GL_TRIANGLES, 0, (GLsizei)m->vertex_count, instances);
    glBindVertexArray(0);
    if (d->wireframe) glPolygonMode(GL_FRONT_AND_BACK, (GLenum)polygon_mode[0]);
    if (d->cull_back_faces) {
        glCullFace((GLenum)cull_mode);
        if (!cull) glDisable(GL_CULL_FACE);
    } else if (cull) {
        glEnable(GL_CULL_FACE);
    }
    if (blending) {
        glBlendFuncSeparate((GLenum)src_rgb, (GLenum)dst_rgb, (GLenum)src_a, (GLenum)dst_a);
        glDepthMask(depth_write);
        if (!blend) glDisable(GL_BLEND);
    } else if (blend) {
        glEnable(GL_BLEND);
    }
    if (!depth) glDisable(GL_DEPTH_TEST);
    if (d->base_color_texture) {
        glActiveTexture(GL_TEXTURE2);
        glBindTexture(GL_TEXTURE_2D, 0);
        glActiveTexture(GL_TEXTURE0);
    }
    glUseProgram(0);
}

ossa_result ossa_gl_draw(ossa_gl_renderer *r, const ossa_gl_mesh *m, const ossa_gl_draw_desc *d) {
    if (!r || !m || !d || !d->view_proj) return OSSA_ERROR_INVALID_ARGUMENT;
    const program *p = NULL;
    ossa_result res = bind_skinning(r, m, d, &p);
    if (res != OSSA_OK) return res;
    set_surface(p, m, d);
    rasterise(m, d, 1);
    return OSSA_OK;
}

/* Transform feedback of program p (bound, uniforms set) over the mesh's vertices,
 * instance `instance` only (crowd) or the mesh itself. */
static ossa_result feedback(ossa_gl_renderer *r, const program *p, const ossa_gl_mesh *m, float *out_positions,
                            float *out_normals) {
    glUniformMatrix4fv(p->view_proj, 1, GL_FALSE, identity16);
    size_t bytes = (size_t)m->vertex_count * 12;
    if (bytes > r->feedback_capacity) {
        for (int i = 0; i < 2; i++) {
            glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, r->feedback[i]);
            glBufferData(GL_TRANSFORM_FEEDBACK_BUFFER, (GLsizeiptr)bytes, NULL, GL_STREAM_READ);
        }
        r->feedback_capacity = bytes;
    }
    glBindBufferRange(GL_TRANSFORM_FEEDBACK_BUFFER, 0, r->feedback[0], 0, (GLsizeiptr)bytes);
    glBindBufferRange(GL_TRANSFORM_FEEDBACK_BUFFER, 1, r->feedback[1], 0, (GLsizeiptr)bytes);
    glEnable(GL_RASTERIZER_DISCARD);
    glBindVertexArray(m->vao);
    glBeginQuery(GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN, r->feedback_query);
    glBeginTransformFeedback(GL_POINTS);
    glDrawArrays(GL_POINTS, 0, (GLsizei)m->vertex_count);
    glEndTransformFeedback();
    glEndQuery(GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN);
    glBindVertexArray(0);
    glDisable(GL_RASTERIZER_DISCARD);
    glUseProgram(0);
    GLuint written = 0;
    glGetQueryObjectuiv(r->feedback_query, GL_QUERY_RESULT, &written);
    glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, r->feedback[0]);
    glGetBufferSubData(GL_TRANSFORM_FEEDBACK_BUFFER, 0, (GLsizeiptr)bytes, out_positions);
    if (out_normals) {
        glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, r->feedback[1]);
        glGetBufferSubData(GL_TRANSFORM_FEEDBACK_BUFFER, 0, (GLsizeiptr)bytes, out_normals);
    }
    glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, 0);
    glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 1, 0);
    glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, 0);
    ossa_result res = ossa__gl_check("ossa_gl_skin_readback");
    if (res == OSSA_OK && written != m->vertex_count) {
        ossa__gl_log("ossa_gl_skin_readback: transform feedback wrote %u of %u vertices", (unsigned)written,
                     (unsigned)m->vertex_count);
        res = OSSA_ERROR_GL;
    }
    return res;
}

ossa_result ossa_gl_skin_readback(ossa_gl_renderer *r, const ossa_gl_mesh *m, const ossa_gl_draw_desc *d,
                                  float *out_positions, float *out_normals) {
    if (!r || !m || !d || !out_positions) return OSSA_ERROR_INVALID_ARGUMENT;
    if (out_normals && !m->normals) return OSSA_ERROR_INVALID_ARGUMENT;
    const program *p = NULL;
    ossa_result res = bind_skinning(r, m, d, &p);
    if (res != OSSA_OK) return res;
    return feedback(r, p, m, out_positions, out_normals);
}

/* ---------------------------------------------------------------- crowds */

ossa_result ossa_gl_crowd_upload(ossa_gl_renderer *r, const ossa_mat4 *palettes, uint32_t instance_count,
                                 uint32_t joint_count) {
    if (!r || !palettes || !instance_count || !joint_count) return OSSA_ERROR_INVALID_ARGUMENT;
    uint64_t count = (uint64_t)instance_count * joint_count;
    if (count > (uint64_t)r->max_texture_size * OSSA__GL_PALETTE_ROW_JOINTS) return OSSA_ERROR_LIMIT;
    upload_matrices(r->crowd_tex, &r->crowd_rows, palettes, (size_t)count);
    glBindTexture(GL_TEXTURE_2D, 0);
    r->crowd_instances = instance_count;
    r->crowd_joints = joint_count;
    return ossa__gl_check("ossa_gl_crowd_upload");
}

/* Checks a crowd draw and binds the crowd program with its uniforms. */
static ossa_result bind_crowd(ossa_gl_renderer *r, const ossa_gl_mesh *m, const ossa_gl_draw_desc *d,
                              uint32_t instance_end, int32_t base) {
    if (!r || !m || !d) return OSSA_ERROR_INVALID_ARGUMENT;
    if (!m->influences || !r->crowd_instances || d->joint_count != r->crowd_joints || m->joint_limit > d->joint_count ||
        instance_end > r->crowd_instances)
        return OSSA_ERROR_INVALID_ARGUMENT;
    const program *p = &r->crowd;
    glUseProgram(p->id);
    glUniform1i(p->morph_count, 0);
    glUniform1i(p->joint_count, (GLint)d->joint_count);
    glUniform1i(p->instance_base, base);
    glUniform1i(p->texcoord, d->texcoord == 1 ? 1 : 0);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, r->crowd_tex);
    set_absent_streams(m);
    return OSSA_OK;
}

ossa_result ossa_gl_crowd_draw(ossa_gl_renderer *r, const ossa_gl_mesh *m, const ossa_gl_draw_desc *d,
                               uint32_t instance_count) {
    if (!d || !d->view_proj) return OSSA_ERROR_INVALID_ARGUMENT;
    if (instance_count == 0) return OSSA_OK;
    ossa_result res = bind_crowd(r, m, d, instance_count, 0);
    if (res != OSSA_OK) return res;
    set_surface(&r->crowd, m, d);
    rasterise(m, d, (GLsizei)instance_count);
    return OSSA_OK;
}

ossa_result ossa_gl_crowd_readback(ossa_gl_renderer *r, const ossa_gl_mesh *m, const ossa_gl_draw_desc *d,
                                   uint32_t instance, float *out_positions, float *out_normals) {
    if (!out_positions || !m || (out_normals && !m->normals) || instance >= (uint32_t)INT32_MAX)
        return OSSA_ERROR_INVALID_ARGUMENT;
    ossa_result res = bind_crowd(r, m, d, instance + 1, (int32_t)instance);
    if (res != OSSA_OK) return res;
    return feedback(r, &r->crowd, m, out_positions, out_normals);
}

ossa_result ossa_gl_draw_lines(ossa_gl_renderer *r, const float *points, uint32_t point_count,
                               const float *view_proj, const float color[4]) {
    if (!r || !view_proj || !color || (point_count && !points) || (point_count & 1u)) return OSSA_ERROR_INVALID_ARGUMENT;
    if (point_count == 0) return OSSA_OK;
    if (point_count > (uint32_t)INT32_MAX / 12u) return OSSA_ERROR_LIMIT;
    size_t bytes = (size_t)point_count * 12;
    glBindBuffer(GL_ARRAY_BUFFER, r->lines_vbo);
    if (bytes > r->lines_capacity) {
        size_t cap = r->lines_capacity ? r->lines_capacity : 4096;
        while (cap < bytes) cap *= 2;
        glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)cap, NULL, GL_STREAM_DRAW);
        r->lines_capacity = cap;
    }
    glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)bytes, points);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    glUseProgram(r->lines_program);
    glUniformMatrix4fv(r->lines_view_proj, 1, GL_FALSE, view_proj);
    glUniform4fv(r->lines_color, 1, color);
    GLboolean depth = glIsEnabled(GL_DEPTH_TEST);
    if (depth) glDisable(GL_DEPTH_TEST);
    glBindVertexArray(r->lines_vao);
    glDrawArrays(GL_LINES, 0, (GLsizei)point_count);
    glBindVertexArray(0);
    if (depth) glEnable(GL_DEPTH_TEST);
    glUseProgram(0);
    return OSSA_OK;
}
