/* Skinned meshes: deep copy into one allocation, joint remapping, bounds (see ossa/mesh.h). */
#include <ossa/mesh.h>

#include <string.h>

#include "core/alloc.h"


/* The streams a description's counts require are there, influences are 0, 4 or 8 and every
 * index names a vertex. */
static bool mesh_desc_valid(const ossa_mesh *desc) {
    size_t nv = desc->vertex_count;
    uint32_t inf = desc->influences;
    if (nv > 0 && !desc->positions) return false;
    if (inf != 0 && inf != 4 && inf != 8) return false;
    if (inf && nv > 0 && (!desc->joints || !desc->weights)) return false;
    if (desc->index_count > 0 && !desc->indices) return false;
    if (desc->target_count > 0 && !desc->targets) return false;
    for (uint32_t i = 0; i < desc->index_count; i++)
        if (desc->indices[i] >= nv) return false;
    return true;
}

/* The morph targets' deltas copied into the block at base, laid out from offset `start` in
 * target order (positions, normals, tangents; as ossa_mesh_create's layout). */
static void copy_targets(ossa_mesh *m, const ossa_mesh *desc, unsigned char *base, size_t start) {
    size_t nv = desc->vertex_count;
    ossa__layout T = {start, false};
    for (uint32_t t = 0; t < desc->target_count; t++) {
        const ossa_morph_target *src = &desc->targets[t];
        ossa_morph_target *dst = &m->targets[t];
        size_t op = ossa__layout_add(&T, src->positions ? nv * 3 : 0, sizeof(float));
        size_t on = ossa__layout_add(&T, src->normals ? nv * 3 : 0, sizeof(float));
        size_t ot = ossa__layout_add(&T, src->tangents ? nv * 3 : 0, sizeof(float));
        dst->positions = (src->positions && nv) ? (float *)(base + op) : NULL;
        dst->normals = (src->normals && nv) ? (float *)(base + on) : NULL;
        dst->tangents = (src->tangents && nv) ? (float *)(base + ot) : NULL;
        if (dst->positions) memcpy(dst->positions, src->positions, nv * 3 * sizeof(float));
        if (dst->normals) memcpy(dst->normals, src->normals, nv * 3 * sizeof(float));
        if (dst->tangents) memcpy(dst->tangents, src->tangents, nv * 3 * sizeof(float));
    }
}

ossa_result ossa_mesh_create(const ossa_mesh *desc, const ossa_allocator *allocator, ossa_mesh **out) {
    if (!out) return OSSA_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (!desc || !mesh_desc_valid(desc)) return OSSA_ERROR_INVALID_ARGUMENT;
    size_t nv = desc->vertex_count;
    uint32_t inf = desc->influences;

    const char *name = desc->name ? desc->name : "";
    size_t name_len = strlen(name) + 1;
    ossa__layout L = {0, false};
    size_t o_mesh = ossa__layout_add(&L, 1, sizeof(ossa_mesh));
    size_t o_name = ossa__layout_add(&L, name_len, 1);
    size_t o_pos = ossa__layout_add(&L, desc->positions ? nv * 3 : 0, sizeof(float));
    size_t o_nrm = ossa__layout_add(&L, desc->normals ? nv * 3 : 0, sizeof(float));
    size_t o_tan = ossa__layout_add(&L, desc->tangents ? nv * 4 : 0, sizeof(float));
    size_t o_uv0 = ossa__layout_add(&L, desc->uv0 ? nv * 2 : 0, sizeof(float));
    size_t o_uv1 = ossa__layout_add(&L, desc->uv1 ? nv * 2 : 0, sizeof(float));
    size_t o_jnt = ossa__layout_add(&L, (inf && desc->joints) ? nv * inf : 0, sizeof(uint16_t));
    size_t o_wgt = ossa__layout_add(&L, (inf && desc->weights) ? nv * inf : 0, sizeof(float));
    size_t o_idx = ossa__layout_add(&L, desc->index_count, sizeof(uint32_t));
    size_t o_tgs = ossa__layout_add(&L, desc->target_count, sizeof(ossa_morph_target));
    size_t o_dw = ossa__layout_add(&L, desc->default_weights ? desc->target_count : 0, sizeof(float));
    size_t o_col = ossa__layout_add(&L, desc->colors ? nv * 4 : 0, sizeof(float));
    size_t o_tstart = L.size;
    for (uint32_t t = 0; t < desc->target_count; t++) {
        const ossa_morph_target *mt = &desc->targets[t];
        ossa__layout_add(&L, mt->positions ? nv * 3 : 0, sizeof(float));
        ossa__layout_add(&L, mt->normals ? nv * 3 : 0, sizeof(float));
        ossa__layout_add(&L, mt->tangents ? nv * 3 : 0, sizeof(float));
    }
    if (L.overflow) return OSSA_ERROR_OUT_OF_MEMORY;
    unsigned char *base = ossa__alloc(allocator, L.size);
    if (!base) return OSSA_ERROR_OUT_OF_MEMORY;
    memset(base, 0, L.size);

    ossa_mesh *m = (ossa_mesh *)(base + o_mesh);
    *m = *desc;
    m->allocator = ossa__allocator_resolve(allocator);
    m->influences = inf;
    memcpy(base + o_name, name, name_len);
    m->name = (const char *)(base + o_name);
#define COPY_STREAM(field, off, count, type)                                           \
    do {                                                                               \
        if (desc->field && (count) > 0) {                                              \
            m->field = (type *)(base + (off));                                         \
            memcpy(m->field, desc->field, (size_t)(count) * sizeof(type));             \
        } else {                                                                       \
            m->field = NULL;                                                           \
        }                                                                              \
    } while (0)
    COPY_STREAM(positions, o_pos, nv * 3, float);
    COPY_STREAM(normals, o_nrm, nv * 3, float);
    COPY_STREAM(tangents, o_tan, nv * 4, float);
    COPY_STREAM(uv0, o_uv0, nv * 2, float);
    COPY_STREAM(uv1, o_uv1, nv * 2, float);
    COPY_STREAM(joints, o_jnt, inf ? nv * inf : 0, uint16_t);
    COPY_STREAM(weights, o_wgt, inf ? nv * inf : 0, float);
    COPY_STREAM(indices, o_idx, desc->index_count, uint32_t);
    COPY_STREAM(default_weights, o_dw, desc->target_count, float);
    COPY_STREAM(colors, o_col, nv * 4, float);
#undef COPY_STREAM
    if (!m->joints || !m->weights) {
        m->joints = NULL;
        m->weights = NULL;
        if (nv > 0) m->influences = 0;
    }
    m->targets = desc->target_count > 0 ? (ossa_morph_target *)(base + o_tgs) : NULL;
    if (m->targets) copy_targets(m, desc, base, o_tstart);
    *out = m;
    return OSSA_OK;
}

void ossa_mesh_destroy(ossa_mesh *mesh) {
    if (!mesh) return;
    ossa_allocator a = mesh->allocator;
    ossa__free(&a, mesh);
}

ossa_result ossa_mesh_remap_joints(ossa_mesh *mesh, const uint32_t *old_to_new, uint32_t count) {
    if (!mesh || (!old_to_new && count)) return OSSA_ERROR_INVALID_ARGUMENT;
    if (!mesh->joints || !mesh->influences) return OSSA_OK;
    size_t n = (size_t)mesh->vertex_count * mesh->influences;
    for (size_t i = 0; i < n; i++) {
        uint16_t j = mesh->joints[i];
        if (j >= count || old_to_new[j] > UINT16_MAX) return OSSA_ERROR_INVALID_DATA;
    }
    for (size_t i = 0; i < n; i++) mesh->joints[i] = (uint16_t)old_to_new[mesh->joints[i]];
    return OSSA_OK;
}

bool ossa_mesh_bounds(const ossa_mesh *mesh, ossa_vec3 *min, ossa_vec3 *max) {
    if (!mesh || mesh->vertex_count == 0 || !mesh->positions) return false;
    const float *p = mesh->positions;
    ossa_vec3 lo = {p[0], p[1], p[2]}, hi = lo;
    for (uint32_t i = 1; i < mesh->vertex_count; i++) {
        const float *v = p + (size_t)i * 3;
        if (v[0] < lo.x) lo.x = v[0];
        if (v[1] < lo.y) lo.y = v[1];
        if (v[2] < lo.z) lo.z = v[2];
        if (v[0] > hi.x) hi.x = v[0];
        if (v[1] > hi.y) hi.y = v[1];
        if (v[2] > hi.z) hi.z = v[2];
    }
    if (min) *min = lo;
    if (max) *max = hi;
    return true;
}
