/* The packed .ossa writer (see ossa/pack.h, docs/ossa-format.md).
 *
 * Two passes over the same code: the first only measures (section offsets, string
 * table size, file size), the second writes into the caller's zeroed buffer. Strings
 * go last so names can be appended while the sections that name them are written. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "asset/pack_internal.h"

#include <ossa/built_clip.h>

/* Section order in the table (and the file). The clip reports are written only when the asset
 * has them, so a file without reports is byte for byte what the writer made before them. */
static const pk_type ORDER[] = {PK_META,  PK_SKELETON, PK_SKINS,     PK_NODES,  PK_MESH_INFOS, PK_MESHES,
                                PK_CLIPS, PK_WARNINGS, PK_MATERIALS, PK_IMAGES, PK_SURFACES,   PK_CLIP_REPORTS,
                                PK_STRINGS};
#define SECTION_COUNT (sizeof ORDER / sizeof ORDER[0])

typedef struct pw {
    uint8_t *buf;              /* NULL while measuring */
    uint64_t pos;              /* end of what is laid out so far */
    uint64_t strings_base;     /* file offset of the string table (known in the write pass) */
    uint64_t strings_size;
    uint32_t section;          /* index of the section being written */
    uint64_t section_start;
} pw;

static void put(pw *w, uint64_t at, const void *src, size_t n) {
    if (w->buf && n) memcpy(w->buf + at, src, n);
}
static void put_u32(pw *w, uint64_t at, uint32_t v) { put(w, at, &v, 4); }
static void put_i32(pw *w, uint64_t at, int32_t v) { put(w, at, &v, 4); }
static void put_u64(pw *w, uint64_t at, uint64_t v) { put(w, at, &v, 8); }

/* Appends a string to the table and returns its offset in the table. */
static uint32_t str(pw *w, const char *s) {
    if (!s) s = "";
    size_t n = strlen(s) + 1;
    uint64_t at = w->strings_size;
    put(w, w->strings_base + at, s, n);
    w->strings_size += n;
    return (uint32_t)at; /* the size check in pack_size keeps the table below 4 GiB */
}

/* Reserves n bytes (16-byte aligned) in the current section; returns the file offset. */
static uint64_t take(pw *w, uint64_t n) {
    uint64_t at = pk_align16(w->pos);
    w->pos = at + n;
    return at;
}

static void section_begin(pw *w) {
    w->pos = pk_align16(w->pos);
    w->section_start = w->pos;
}

static void section_end(pw *w, pk_type type, uint64_t count) {
    uint64_t entry = OSSA_PACK_HEADER_SIZE + (uint64_t)w->section * PK_SECTION_ENTRY;
    put_u32(w, entry + PKS_TYPE, (uint32_t)type);
    put_u32(w, entry + PKS_COUNT, (uint32_t)count);
    put_u64(w, entry + PKS_OFFSET, w->section_start);
    put_u64(w, entry + PKS_SIZE, w->pos - w->section_start);
    w->section++;
}

/* A stream of n bytes from src inside the current section; returns its offset relative
 * to the section, 0 when absent. */
static uint64_t stream(pw *w, const void *src, uint64_t n) {
    if (!src || !n) return 0;
    uint64_t at = take(w, n);
    put(w, at, src, (size_t)n);
    return at - w->section_start;
}

/* The asset's default scene and its skeleton's declared unit (0 = none). */
static void write_meta(pw *w, const ossa_asset *a) {
    uint64_t at = take(w, PK_META_SIZE);
    float metres = a->skeleton ? a->skeleton->metres_per_unit : 0.0f;
    if (!(metres >= 0.0f) || !isfinite(metres)) metres = 0.0f; /* changed after creation: "not declared" */
    put_i32(w, at, a->scene);
    put(w, at + 4, &metres, 4);
}

static void write_skeleton(pw *w, const ossa_skeleton *s) {
    uint32_t n = s ? s->joint_count : 0;
    pk_skeleton_layout l = pk_skeleton_layout_of(n);
    uint64_t base = take(w, l.size);
    for (uint32_t j = 0; j < n; j++) {
        put_i32(w, base + l.parents + 4 * j, s->parents[j]);
        put_u32(w, base + l.source_index + 4 * j, s->source_index[j]);
        put_u32(w, base + l.names + 4 * j, str(w, s->names[j]));
    }
    if (n) {
        put(w, base + l.rest, s->rest, (size_t)n * sizeof(ossa_transform));
        put(w, base + l.bind, s->bind, (size_t)n * sizeof(ossa_transform));
    }
}

static void write_skins(pw *w, const ossa_skeleton *s) {
    uint32_t count = s ? s->skin_count : 0;
    uint64_t total = 0;
    for (uint32_t k = 0; k < count; k++) total += s->skins[k].joint_count;
    pk_skins_layout l = pk_skins_layout_of(count, total);
    uint64_t base = take(w, l.size), first = 0;
    for (uint32_t k = 0; k < count; k++) {
        const ossa_skin *sk = &s->skins[k];
        uint64_t r = base + (uint64_t)k * PK_SKIN_RECORD;
        put_u32(w, r, str(w, sk->name));
        put_u32(w, r + 4, sk->joint_count);
        put_i32(w, r + 8, sk->root);
        put(w, base + l.joints + 4 * first, sk->joints, (size_t)sk->joint_count * 4);
        put(w, base + l.inverse_bind + 64 * first, sk->inverse_bind, (size_t)sk->joint_count * 64);
        first += sk->joint_count;
    }
}

static void write_nodes(pw *w, const ossa_asset *a) {
    uint64_t base = take(w, (uint64_t)a->node_count * PK_NODE_RECORD);
    for (uint32_t i = 0; i < a->node_count; i++) {
        const ossa_node_info *n = &a->nodes[i];
        uint64_t r = base + (uint64_t)i * PK_NODE_RECORD;
        put_i32(w, r, n->mesh);
        put_i32(w, r + 4, n->skin);
        put_u32(w, r + 8, (n->had_matrix ? PK_NODE_HAD_MATRIX : 0u) | (n->matrix_not_trs ? PK_NODE_MATRIX_NOT_TRS : 0u));
        put(w, r + 16, n->matrix.m, 64);
    }
}

static void write_mesh_infos(pw *w, const ossa_asset *a) {
    uint64_t base = take(w, (uint64_t)a->mesh_info_count * PK_MESH_INFO_RECORD);
    for (uint32_t i = 0; i < a->mesh_info_count; i++) {
        uint64_t r = base + (uint64_t)i * PK_MESH_INFO_RECORD;
        put_u32(w, r, str(w, a->mesh_infos[i].name));
        put_u32(w, r + 4, a->mesh_infos[i].primitive_count);
        put_u32(w, r + 8, a->mesh_infos[i].target_count);
    }
}

static void write_meshes(pw *w, const ossa_asset *a) {
    uint64_t table = take(w, (uint64_t)a->mesh_count * PK_MESH_RECORD);
    for (uint32_t i = 0; i < a->mesh_count; i++) {
        const ossa_mesh *m = a->meshes[i];
        uint64_t r = table + (uint64_t)i * PK_MESH_RECORD, nv = m->vertex_count, inf = m->influences;
        put_u32(w, r + PKM_NAME, str(w, m->name));
        put_u32(w, r + PKM_VERTEX_COUNT, m->vertex_count);
        put_u32(w, r + PKM_INFLUENCES, (m->joints && m->weights) ? m->influences : 0);
        put_u32(w, r + PKM_INDEX_COUNT, m->index_count);
        put_u32(w, r + PKM_TARGET_COUNT, m->target_count);
        put_i32(w, r + PKM_SKIN, m->skin);
        put_i32(w, r + PKM_NODE, m->node);
        put_u32(w, r + PKM_SOURCE_MESH, m->source_mesh);
        put_u32(w, r + PKM_SOURCE_PRIMITIVE, m->source_primitive);
        uint64_t o[PKST_COUNT] = {0};
        o[PKST_POSITIONS] = stream(w, m->positions, nv * 12);
        o[PKST_NORMALS] = stream(w, m->normals, nv * 12);
        o[PKST_TANGENTS] = stream(w, m->tangents, nv * 16);
        o[PKST_UV0] = stream(w, m->uv0, nv * 8);
        o[PKST_UV1] = stream(w, m->uv1, nv * 8);
        if (m->joints && m->weights) {
            o[PKST_JOINTS] = stream(w, m->joints, nv * inf * 2);
            o[PKST_WEIGHTS] = stream(w, m->weights, nv * inf * 4);
        }
        o[PKST_INDICES] = stream(w, m->indices, (uint64_t)m->index_count * 4);
        o[PKST_DEFAULT_WEIGHTS] = stream(w, m->default_weights, (uint64_t)m->target_count * 4);
        if (m->target_count) {
            uint64_t tt = take(w, (uint64_t)m->target_count * PK_TARGET_RECORD);
            o[PKST_TARGETS] = tt - w->section_start;
            for (uint32_t t = 0; t < m->target_count; t++) {
                const ossa_morph_target *mt = &m->targets[t];
                put_u64(w, tt + 24 * t, stream(w, mt->positions, nv * 12));
                put_u64(w, tt + 24 * t + 8, stream(w, mt->normals, nv * 12));
                put_u64(w, tt + 24 * t + 16, stream(w, mt->tangents, nv * 12));
            }
        }
        for (int k = 0; k < PKST_COUNT; k++) put_u64(w, r + PKM_STREAMS + 8 * (uint64_t)k, o[k]);
    }
}

static void write_clips(pw *w, const ossa_asset *a) {
    uint64_t table = take(w, (uint64_t)a->built_clip_count * PK_CLIP_RECORD);
    for (uint32_t c = 0; c < a->built_clip_count; c++) {
        size_t n = 0;
        const void *block = ossa_built_clip_data(a->built_clips[c], &n);
        put_u64(w, table + (uint64_t)c * PK_CLIP_RECORD, stream(w, block, n));
        put_u64(w, table + (uint64_t)c * PK_CLIP_RECORD + 8, n);
    }
}

static void write_warnings(pw *w, const ossa_asset *a, uint32_t count) {
    uint64_t base = take(w, (uint64_t)count * 4);
    for (uint32_t i = 0; i < count; i++) put_u32(w, base + 4 * i, str(w, a->warnings[i]));
}

static void write_materials(pw *w, const ossa_asset *a) {
    uint64_t base = take(w, (uint64_t)a->material_count * PK_MATERIAL_RECORD);
    for (uint32_t i = 0; i < a->material_count; i++) {
        const ossa_material *m = &a->materials[i];
        const ossa_texture_ref *t = &m->base_color_texture;
        uint64_t r = base + (uint64_t)i * PK_MATERIAL_RECORD;
        put_u32(w, r + PKMA_NAME, str(w, m->name));
        put(w, r + PKMA_BASE_COLOR, m->base_color, 16);
        put_i32(w, r + PKMA_IMAGE, t->image);
        put_u32(w, r + PKMA_TEXCOORD, t->texcoord);
        put_u32(w, r + PKMA_WRAP_S, t->wrap_s);
        put_u32(w, r + PKMA_WRAP_T, t->wrap_t);
        put_u32(w, r + PKMA_MAG_FILTER, t->mag_filter);
        put_u32(w, r + PKMA_MIN_FILTER, t->min_filter);
        put_u32(w, r + PKMA_ALPHA_MODE, (uint32_t)m->alpha_mode);
        put(w, r + PKMA_ALPHA_CUTOFF, &m->alpha_cutoff, 4);
        put_u32(w, r + PKMA_FLAGS, m->double_sided ? PK_MATERIAL_DOUBLE_SIDED : 0u);
    }
}

static void write_images(pw *w, const ossa_asset *a) {
    uint64_t base = take(w, (uint64_t)a->image_count * PK_IMAGE_RECORD);
    for (uint32_t i = 0; i < a->image_count; i++) {
        const ossa_image *im = &a->images[i];
        uint64_t r = base + (uint64_t)i * PK_IMAGE_RECORD;
        put_u32(w, r + PKI_NAME, str(w, im->name));
        put_u32(w, r + PKI_URI, str(w, im->uri));
        put_u32(w, r + PKI_MIME, str(w, im->mime_type));
        put_u32(w, r + PKI_FLAGS, im->data ? PK_IMAGE_HAS_DATA : 0u);
        put_u64(w, r + PKI_OFFSET, stream(w, im->data, im->data ? im->size : 0));
        put_u64(w, r + PKI_SIZE, im->data ? im->size : 0);
    }
}

/* Per mesh: its material (out of range written as -1, the same default material) and COLOR_0. */
static void write_surfaces(pw *w, const ossa_asset *a) {
    uint64_t base = take(w, (uint64_t)a->mesh_count * PK_SURFACE_RECORD);
    for (uint32_t i = 0; i < a->mesh_count; i++) {
        const ossa_mesh *m = a->meshes[i];
        uint64_t r = base + (uint64_t)i * PK_SURFACE_RECORD;
        bool valid = m->material >= 0 && (uint32_t)m->material < a->material_count;
        put_i32(w, r + PKSU_MATERIAL, valid ? m->material : -1);
        put_u64(w, r + PKSU_COLORS, stream(w, m->colors, (uint64_t)m->vertex_count * 16));
    }
}

static void write_clip_reports(pw *w, const ossa_asset *a) {
    uint64_t base = take(w, (uint64_t)a->clip_report_count * PK_CLIP_REPORT_RECORD);
    for (uint32_t c = 0; c < a->clip_report_count; c++) {
        const ossa_clip_report *cr = &a->clip_reports[c];
        uint64_t r = base + (uint64_t)c * PK_CLIP_REPORT_RECORD;
        put(w, r + PKCR_PRECISION, &cr->precision, 4);
        put(w, r + PKCR_HEIGHT, &cr->character_height, 4);
        put_u32(w, r + PKCR_VERTEX_MESHES, cr->vertex_meshes);
        put(w, r + PKCR_MAX_VERTEX_ERROR, &cr->max_vertex_error, 4);
        put_u32(w, r + PKCR_WORST_MESH, cr->worst_mesh);
        put_u32(w, r + PKCR_WORST_VERTEX, cr->worst_vertex);
        put_u32(w, r + PKCR_WORST_JOINT, cr->worst_vertex_joint);
        put(w, r + PKCR_WORST_TIME, &cr->worst_vertex_time, 4);
        put_u32(w, r + PKCR_VERTEX_TIMES, cr->vertex_times);
        put_u32(w, r + PKCR_VERTEX_TIMES_UNCHECKED, cr->vertex_times_unchecked);
    }
}

static uint32_t section_count(const ossa_asset *a) {
    return (uint32_t)SECTION_COUNT - (a->clip_report_count ? 0u : 1u);
}

static void emit(pw *w, const ossa_asset *a, uint32_t warning_count) {
    const ossa_skeleton *s = a->skeleton;
    w->pos = OSSA_PACK_HEADER_SIZE + (uint64_t)section_count(a) * PK_SECTION_ENTRY;
    w->section = 0;
    w->strings_size = 0;
    str(w, ""); /* offset 0 is always "", and the table is never empty */
    for (size_t k = 0; k < SECTION_COUNT; k++) {
        if (ORDER[k] == PK_CLIP_REPORTS && !a->clip_report_count) continue;
        section_begin(w);
        uint64_t count = 0;
        switch (ORDER[k]) {
        case PK_META: write_meta(w, a); count = 1; break;
        case PK_SKELETON: write_skeleton(w, s); count = s ? s->joint_count : 0; break;
        case PK_SKINS: write_skins(w, s); count = s ? s->skin_count : 0; break;
        case PK_NODES: write_nodes(w, a); count = a->node_count; break;
        case PK_MESH_INFOS: write_mesh_infos(w, a); count = a->mesh_info_count; break;
        case PK_MESHES: write_meshes(w, a); count = a->mesh_count; break;
        case PK_CLIPS: write_clips(w, a); count = a->built_clip_count; break;
        case PK_WARNINGS: write_warnings(w, a, warning_count); count = warning_count; break;
        case PK_MATERIALS: write_materials(w, a); count = a->material_count; break;
        case PK_IMAGES: write_images(w, a); count = a->image_count; break;
        case PK_SURFACES: write_surfaces(w, a); count = a->mesh_count; break;
        case PK_CLIP_REPORTS: write_clip_reports(w, a); count = a->clip_report_count; break;
        case PK_STRINGS:
            /* the table was filled while the sections before it were written */
            if (!w->buf) w->strings_base = w->pos; /* measuring: this is where it goes */
            else if (w->pos != w->strings_base) abort(); /* both passes lay out alike */
            w->pos = w->strings_base + w->strings_size;
            break;
        default: break;
        }
        section_end(w, ORDER[k], count);
    }
    w->pos = pk_align16(w->pos); /* the file ends 16-byte aligned (zero padding) */
}

static bool finite_nonnegative(float v) { return isfinite(v) && v >= 0.0f; }

/* A clip report the loader accepts (docs/ossa-format.md, "clip reports"). */
static bool clip_report_valid(const ossa_asset *a, const ossa_clip_report *cr) {
    uint32_t joints = a->skeleton ? a->skeleton->joint_count : 0;
    if (!finite_nonnegative(cr->precision) || !finite_nonnegative(cr->character_height) ||
        !finite_nonnegative(cr->max_vertex_error) || !isfinite(cr->worst_vertex_time) ||
        cr->vertex_meshes > a->mesh_count)
        return false;
    if (!cr->vertex_meshes || cr->max_vertex_error == 0.0f) /* "none": the worst place is all zero */
        return !cr->worst_mesh && !cr->worst_vertex && !cr->worst_vertex_joint && cr->worst_vertex_time == 0.0f &&
               (cr->vertex_meshes || (cr->max_vertex_error == 0.0f && !cr->vertex_times && !cr->vertex_times_unchecked));
    return cr->worst_mesh < a->mesh_count && a->meshes[cr->worst_mesh] &&
           cr->worst_vertex < a->meshes[cr->worst_mesh]->vertex_count && cr->worst_vertex_joint < joints;
}

/* The structural rules the loader enforces, checked up front so a write never makes a
 * file its own loader refuses for a reason the caller could have been told. */
static ossa_result check_asset(const ossa_asset *a) {
    const ossa_skeleton *s = a->skeleton;
    uint32_t joints = s ? s->joint_count : 0;
    if (a->node_count && (a->node_count != joints || !a->nodes)) return OSSA_ERROR_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < a->node_count; i++)
        if (s->joint_of_source[i] != a->nodes[i].joint) return OSSA_ERROR_INVALID_ARGUMENT;
    if ((a->mesh_count && !a->meshes) || (a->mesh_info_count && !a->mesh_infos) ||
        (a->warning_count && !a->warnings) || (a->built_clip_count && !a->built_clips) ||
        (a->material_count && !a->materials) || (a->image_count && !a->images) ||
        (a->clip_report_count && (!a->clip_reports || a->clip_report_count != a->built_clip_count)))
        return OSSA_ERROR_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < a->material_count; i++) {
        const ossa_material *m = &a->materials[i];
        const ossa_texture_ref *t = &m->base_color_texture;
        if (t->image < -1 || (t->image >= 0 && (uint32_t)t->image >= a->image_count) || t->texcoord > 1 ||
            t->wrap_s > PK_SAMPLER_MAX || t->wrap_t > PK_SAMPLER_MAX || t->mag_filter > PK_SAMPLER_MAX ||
            t->min_filter > PK_SAMPLER_MAX || (uint32_t)m->alpha_mode > OSSA_ALPHA_MODE_BLEND ||
            !isfinite(m->alpha_cutoff) || !isfinite(m->base_color[0]) || !isfinite(m->base_color[1]) ||
            !isfinite(m->base_color[2]) || !isfinite(m->base_color[3]))
            return OSSA_ERROR_INVALID_ARGUMENT;
    }

    for (uint32_t i = 0; i < a->mesh_count; i++) {
        const ossa_mesh *m = a->meshes[i];
        if (!m) return OSSA_ERROR_INVALID_ARGUMENT;
        if (m->skin >= 0 && (!s || (uint32_t)m->skin >= s->skin_count)) return OSSA_ERROR_INVALID_ARGUMENT;
        if (m->node >= 0 && (uint32_t)m->node >= joints) return OSSA_ERROR_INVALID_ARGUMENT;
    }
    for (uint32_t c = 0; c < a->built_clip_count; c++) {
        const ossa_built_clip *b = a->built_clips[c];
        size_t n = 0;
        if (!b || !ossa_built_clip_data(b, &n) || !n || ossa_built_clip_joint_count(b) != joints)
            return OSSA_ERROR_INVALID_ARGUMENT;
    }
    for (uint32_t c = 0; c < a->clip_report_count; c++)
        if (!clip_report_valid(a, &a->clip_reports[c])) return OSSA_ERROR_INVALID_ARGUMENT;
    return OSSA_OK;
}

ossa_result ossa_pack_write(const ossa_asset *asset, const ossa_pack_options *options, void *buffer,
                            size_t capacity, size_t *size) {
    if (size) *size = 0;
    if (!asset || !size) return OSSA_ERROR_INVALID_ARGUMENT;
    if (!pk_host_little_endian()) return OSSA_ERROR_UNSUPPORTED;
    ossa_result r = check_asset(asset);
    if (r) return r;
    uint32_t warnings = (options && options->strip_warnings) ? 0 : asset->warning_count;
    pw w;
    memset(&w, 0, sizeof w);
    emit(&w, asset, warnings);
    if (w.strings_size > UINT32_MAX || w.pos > SIZE_MAX) return OSSA_ERROR_LIMIT;
    *size = (size_t)w.pos;
    if (!buffer) return capacity ? OSSA_ERROR_INVALID_ARGUMENT : OSSA_OK;
    if (capacity < *size) return OSSA_ERROR_BUFFER_TOO_SMALL;
    memset(buffer, 0, *size);
    uint64_t strings_base = w.strings_base;
    memset(&w, 0, sizeof w);
    w.buf = buffer;
    w.strings_base = strings_base;
    emit(&w, asset, warnings);
    uint8_t *b = buffer;
    memcpy(b + PKH_MAGIC, PK_MAGIC, PK_MAGIC_SIZE);
    put_u32(&w, PKH_VERSION, OSSA_PACK_VERSION);
    put_u32(&w, PKH_ENDIAN, PK_ENDIAN_MARKER);
    put_u64(&w, PKH_FILE_SIZE, (uint64_t)*size);
    put_u32(&w, PKH_HEADER_SIZE, OSSA_PACK_HEADER_SIZE);
    put_u32(&w, PKH_SECTION_COUNT, section_count(asset));
    put_u64(&w, PKH_CHECKSUM, ossa_pack_checksum(b, *size));
    return OSSA_OK;
}

ossa_result ossa_pack_write_file(const ossa_asset *asset, const ossa_pack_options *options, const char *path) {
    if (!path) return OSSA_ERROR_INVALID_ARGUMENT;
    size_t size = 0;
    ossa_result r = ossa_pack_write(asset, options, NULL, 0, &size);
    if (r) return r;
    void *bytes = ossa__alloc(NULL, size);
    if (!bytes) return OSSA_ERROR_OUT_OF_MEMORY;
    r = ossa_pack_write(asset, options, bytes, size, &size);
    if (!r) {
        FILE *f = fopen(path, "wb");
        if (!f) r = OSSA_ERROR_IO;
        else {
            if (fwrite(bytes, 1, size, f) != size) r = OSSA_ERROR_IO;
            if (fclose(f) != 0) r = OSSA_ERROR_IO;
        }
    }
    ossa__free(NULL, bytes);
    return r;
}
