/* Format-neutral asset assembly: skeleton + node infos, name binding, meshes,
 * clips, warnings, all counted against max_allocation (see asset_builder.h). */
#include "build/asset_builder.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"

#define TABLE_CAP ((size_t)256 << 20) /* frame-index tables beyond this fall back to binary search */

static ossa_result oom(ossa__ctx *ctx) { return ossa__fail(ctx, OSSA_ERROR_OUT_OF_MEMORY, "", "out of memory"); }

ossa_result ossa__builder_begin(ossa__ctx *ctx, const ossa_allocator *allocator, int32_t scene, ossa_asset **asset) {
    *asset = NULL;
    if (!ossa__ctx_reserve(ctx, sizeof **asset)) return ctx->failed;
    ossa_asset *a = ossa__alloc_array(allocator, 1, sizeof *a);
    if (!a) return oom(ctx);
    a->allocator = ossa__allocator_resolve(allocator);
    a->scene = scene;
    *asset = a;
    return OSSA_OK;
}

ossa_result ossa__builder_skeleton(ossa__ctx *ctx, ossa_asset *asset, uint32_t n, const ossa__node *nodes,
                                   uint32_t skin_count, const ossa_skin_desc *skins, float metres_per_unit,
                                   const char *path, int32_t **joint_of_node) {
    *joint_of_node = NULL;
    if (!n) return OSSA_OK;
    const ossa_allocator *al = &asset->allocator;
    int32_t *parents = ossa__ctx_alloc(ctx, n, sizeof *parents);
    ossa_transform *rest = ossa__ctx_alloc(ctx, n, sizeof *rest);
    const char **names = ossa__ctx_alloc(ctx, n, sizeof *names);
    ossa_result r = OSSA_OK;
    if (!parents || !rest || !names) {
        r = ctx->failed;
        goto done;
    }
    for (uint32_t i = 0; i < n; i++) {
        parents[i] = nodes[i].parent;
        rest[i] = nodes[i].trs;
        names[i] = nodes[i].name ? nodes[i].name : "";
    }
    ossa_skeleton_desc sd;
    memset(&sd, 0, sizeof sd);
    sd.joint_count = n;
    sd.parents = parents;
    sd.rest = rest;
    sd.names = names;
    sd.skin_count = skin_count;
    sd.skins = skins;
    sd.metres_per_unit = metres_per_unit;
    size_t bytes = (size_t)n * 256 + (size_t)skin_count * 64;
    for (uint32_t s = 0; s < skin_count; s++) bytes += (size_t)skins[s].joint_count * 72;
    if (!ossa__ctx_reserve(ctx, bytes)) {
        r = ctx->failed;
        goto done;
    }
    ossa_result cr = ossa_skeleton_create(&sd, al, &asset->skeleton);
    if (cr) {
        r = ossa__fail(ctx, cr, path, "cannot build the skeleton (%s)", ossa_result_string(cr));
        goto done;
    }
    /* node infos (names point into the skeleton) */
    if (!ossa__ctx_reserve(ctx, (size_t)n * sizeof *asset->nodes)) {
        r = ctx->failed;
        goto done;
    }
    asset->nodes = ossa__alloc_array(al, n, sizeof *asset->nodes);
    if (!asset->nodes) {
        r = oom(ctx);
        goto done;
    }
    asset->node_count = n;
    for (uint32_t i = 0; i < n; i++) {
        ossa_node_info *ni = &asset->nodes[i];
        uint32_t jnt = asset->skeleton->joint_of_source[i];
        ni->name = asset->skeleton->names[jnt];
        ni->parent = nodes[i].parent;
        ni->mesh = nodes[i].mesh;
        ni->skin = nodes[i].skin;
        ni->joint = jnt;
        ni->had_matrix = nodes[i].had_matrix;
        ni->matrix_not_trs = nodes[i].matrix_not_trs;
        ni->matrix = nodes[i].matrix;
    }
    *joint_of_node = ossa__ctx_alloc(ctx, n, sizeof **joint_of_node);
    if (!*joint_of_node) {
        r = ctx->failed;
        goto done;
    }
    for (uint32_t i = 0; i < n; i++) (*joint_of_node)[i] = (int32_t)asset->skeleton->joint_of_source[i];
done:
    ossa__ctx_free(ctx, parents);
    ossa__ctx_free(ctx, rest);
    ossa__ctx_free(ctx, names);
    return r;
}

static uint32_t name_hash(const char *s) {
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *s; s++) h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

ossa_result ossa__name_map_init(ossa__ctx *ctx, ossa__name_map *map, const char *const *names, uint32_t count) {
    map->cap = 16;
    while (map->cap < 2u * count && map->cap < (1u << 30)) map->cap *= 2;
    map->names = names;
    map->table = ossa__ctx_alloc(ctx, map->cap, sizeof *map->table);
    if (!map->table) return ctx->failed;
    for (uint32_t k = 0; k < map->cap; k++) map->table[k] = -1;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t h = name_hash(names[i]) & (map->cap - 1);
        bool dup = false;
        while (map->table[h] >= 0 && !dup) {
            dup = !strcmp(names[map->table[h]], names[i]);
            if (!dup) h = (h + 1) & (map->cap - 1);
        }
        if (!dup) map->table[h] = (int32_t)i;
    }
    return OSSA_OK;
}

int32_t ossa__name_map_find(const ossa__name_map *map, const char *name) {
    for (uint32_t h = name_hash(name) & (map->cap - 1); map->table[h] >= 0; h = (h + 1) & (map->cap - 1))
        if (!strcmp(map->names[map->table[h]], name)) return map->table[h];
    return -1;
}

void ossa__name_map_free(ossa__ctx *ctx, ossa__name_map *map) {
    ossa__ctx_free(ctx, map->table);
    map->table = NULL;
}

ossa_result ossa__builder_bind_names(ossa__ctx *ctx, const ossa_skeleton *skel, uint32_t n, const ossa__node *nodes,
                                     int32_t **joint_of_node) {
    *joint_of_node = NULL;
    if (!n) return OSSA_OK;
    int32_t *map = ossa__ctx_alloc(ctx, n, sizeof *map);
    if (!map) return ctx->failed;
    ossa__name_map names;
    if (ossa__name_map_init(ctx, &names, skel->names, skel->joint_count)) {
        ossa__ctx_free(ctx, map);
        return ctx->failed;
    }
    for (uint32_t i = 0; i < n; i++)
        map[i] = nodes[i].name && nodes[i].name[0] ? ossa__name_map_find(&names, nodes[i].name) : -1;
    ossa__name_map_free(ctx, &names);
    *joint_of_node = map;
    return OSSA_OK;
}

ossa_result ossa__builder_mesh_infos(ossa__ctx *ctx, ossa_asset *asset, uint32_t count, const ossa_mesh_info *infos) {
    if (!count) return OSSA_OK;
    ossa__layout L = {0, false};
    size_t o_info = ossa__layout_add(&L, count, sizeof(ossa_mesh_info));
    size_t o_names = L.size;
    for (uint32_t m = 0; m < count; m++) L.size += strlen(infos[m].name ? infos[m].name : "") + 1;
    if (!ossa__ctx_reserve(ctx, L.size)) return ctx->failed;
    uint8_t *blk = ossa__alloc(&asset->allocator, L.size);
    if (!blk) return oom(ctx);
    asset->mesh_infos = (ossa_mesh_info *)(void *)(blk + o_info);
    asset->mesh_info_count = count;
    char *p = (char *)blk + o_names;
    for (uint32_t m = 0; m < count; m++) {
        const char *nm = infos[m].name ? infos[m].name : "";
        size_t l = strlen(nm) + 1;
        memcpy(p, nm, l);
        asset->mesh_infos[m] = infos[m];
        asset->mesh_infos[m].name = p;
        p += l;
    }
    return OSSA_OK;
}

ossa_result ossa__builder_reserve_meshes(ossa__ctx *ctx, ossa_asset *asset, uint64_t total, const char *path) {
    if (total > UINT32_MAX)
        return ossa__fail(ctx, OSSA_ERROR_LIMIT, path, "%llu mesh primitive instances (more than 2^32 - 1)",
                          (unsigned long long)total);
    if (!total) return OSSA_OK;
    if (!ossa__ctx_reserve(ctx, (size_t)total * sizeof *asset->meshes)) return ctx->failed;
    asset->meshes = ossa__alloc_array(&asset->allocator, (size_t)total, sizeof *asset->meshes);
    if (!asset->meshes) return oom(ctx);
    return OSSA_OK;
}

ossa_result ossa__builder_add_mesh(ossa__ctx *ctx, ossa_asset *asset, const ossa_mesh *d, const char *path) {
    /* the runtime copy stays allocated: its bytes count towards max_allocation for the rest of the load */
    size_t floats = 3 + (d->normals ? 3u : 0u) + (d->tangents ? 4u : 0u) + (d->uv0 ? 2u : 0u) + (d->uv1 ? 2u : 0u) +
                   (d->colors ? 4u : 0u);
    for (uint32_t k = 0; k < d->target_count; k++)
        floats += (d->targets[k].positions ? 3u : 0u) + (d->targets[k].normals ? 3u : 0u) +
                  (d->targets[k].tangents ? 3u : 0u);
    size_t bytes = (size_t)d->vertex_count * floats * sizeof(float) + (size_t)d->index_count * 4 +
                   (size_t)d->vertex_count * d->influences * 6 + (size_t)d->target_count * (sizeof(ossa_morph_target) + 4) +
                   256;
    if (!ossa__ctx_reserve(ctx, bytes)) return ctx->failed;
    ossa_mesh *mesh = NULL;
    ossa_result cr = ossa_mesh_create(d, &asset->allocator, &mesh);
    if (cr) return ossa__fail(ctx, cr, path, "cannot build the mesh (%s)", ossa_result_string(cr));
    asset->meshes[asset->mesh_count++] = mesh;
    return OSSA_OK;
}

/* Entries of a track's frame-index table as ossa_clip_create lays it out: the bound at `rate`,
 * capped at 4 x keys + 64 (it lowers the rate past that; keys at -3e38 .. 3e38 included). */
static size_t table_entries(const ossa_track *t, float rate) {
    if (t->key_count < 2) return 0;
    size_t bound = ossa_track_table_bound(t, rate), cap = (size_t)t->key_count * 4u + 64u;
    return bound < cap ? bound : cap;
}

ossa_result ossa__builder_clip(ossa__ctx *ctx, const ossa_allocator *allocator, const char *path,
                               const ossa_clip_desc *desc, float table_rate, ossa_clip **out) {
    /* budget: the clip's copy of keys plus its frame-index tables */
    float rate = table_rate == 0.0f ? 60.0f : table_rate;
    size_t keys_bytes = 4096, table_bytes = 0;
    for (uint32_t t = 0; t < desc->track_count; t++) {
        const ossa_track *parts[3] = {&desc->tracks[t].translation, &desc->tracks[t].rotation, &desc->tracks[t].scale};
        for (int k = 0; k < 3; k++) {
            size_t per = parts[k]->interp == OSSA_INTERP_CUBIC ? 3u : 1u;
            keys_bytes += (size_t)parts[k]->key_count * (1 + per * parts[k]->components) * sizeof(float) + 64;
            if (rate > 0) table_bytes += table_entries(parts[k], rate) * 4 + 16;
        }
    }
    for (uint32_t w = 0; w < desc->weight_track_count; w++) {
        const ossa_track *tr = &desc->weight_tracks[w].weights;
        size_t per = tr->interp == OSSA_INTERP_CUBIC ? 3u : 1u;
        keys_bytes += (size_t)tr->key_count * (1 + per * tr->components) * sizeof(float) + 64;
        if (rate > 0) table_bytes += table_entries(tr, rate) * 4 + 16;
    }
    if (rate > 0 && (table_bytes > TABLE_CAP || table_bytes > (ctx->limit - ctx->used) / 2)) {
        ossa__warn(ctx, path, "key times span too long for a %g Hz frame-index table (%zu bytes); binary search used", rate,
                   table_bytes);
        rate = -1.0f;
        table_bytes = 0;
    }
    if (!ossa__ctx_reserve(ctx, keys_bytes + table_bytes)) return ctx->failed;
    ossa_clip_desc cd = *desc;
    cd.table_rate = rate;
    ossa_result cr = ossa_clip_create(&cd, allocator, out); /* stays allocated: its reservation is kept */
    if (cr) return ossa__fail(ctx, cr, path, "cannot build the clip (%s)", ossa_result_string(cr));
    return OSSA_OK;
}

ossa_result ossa__builder_finish(ossa__ctx *ctx, ossa_asset **asset, ossa_asset **out) {
    if (!ctx->failed && ctx->warnings_truncated) {
        ctx->warnings_truncated = false;
        ctx->warning_count--;
        ctx->allocator.free(ctx->warnings[ctx->warning_count], ctx->allocator.user);
        ctx->warnings[ctx->warning_count] = NULL;
        ossa__warn(ctx, "", "further warnings suppressed (more than %d)", OSSA__MAX_WARNINGS - 1);
    }
    if (ctx->failed) { /* e.g. a warning could not be recorded */
        ossa_asset_destroy(*asset);
        *asset = NULL;
        return ctx->failed;
    }
    (*asset)->warning_count = ctx->warning_count;
    (*asset)->warnings = ctx->warnings;
    ctx->warnings = NULL;
    ctx->warning_count = 0;
    *out = *asset;
    *asset = NULL;
    return OSSA_OK;
}

uint32_t ossa__normalize_weights(float *weights, uint32_t vertex_count, uint32_t influences, double *max_off) {
    uint32_t off = 0;
    double worst = 0;
    for (uint32_t v = 0; v < vertex_count; v++) {
        float *w = weights + (size_t)v * influences;
        double sum = 0;
        for (uint32_t k = 0; k < influences; k++) sum += w[k];
        if (!(sum > 0)) continue; /* all zero: kept (the skin job copies such a vertex) */
        if (fabs(sum - 1.0) > OSSA__WEIGHT_SUM_TOLERANCE) {
            off++;
            if (fabs(sum - 1.0) > worst) worst = fabs(sum - 1.0);
        }
        for (uint32_t k = 0; k < influences; k++) w[k] = (float)(w[k] / sum);
    }
    if (max_off) *max_off = worst;
    return off;
}
