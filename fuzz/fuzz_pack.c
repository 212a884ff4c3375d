/* libFuzzer target: the packed .ossa loader from memory.
 *
 * The input is a packed file. It is loaded twice: as given (the header and checksum
 * checks), and with the checksum repaired, so mutations reach the section validation
 * instead of dying at the checksum. A load must either fail with a result code and a
 * NUL-terminated diagnostic, or succeed with an asset whose invariants hold (checked
 * here, so "silently wrong data" aborts like a crash would):
 *   - the skeleton is parents-first, its maps are inverse permutations, names non-NULL;
 *   - skin joints < joint count; node infos agree with the skeleton;
 *   - mesh indices < vertex_count, joint indices < joint count, weights finite >= 0;
 *   - mesh materials -1 or < material count, colours finite, material images -1 or
 *     < image count, image bytes present when their size is not 0;
 *   - every built clip has the skeleton's joint count and samples at clamped and
 *     looping times inside and outside its range;
 *   - packing the loaded asset again and loading that gives the same bytes again.
 * max_allocation is capped at 64 MiB.
 *
 * Build: cmake -DOSSA_BUILD_FUZZ=ON -DOSSA_SANITIZE=ON with CC=clang (scripts/fuzz.sh).
 * Seeds: fuzz/corpus/fuzz_pack (scripts/gen_pack_seeds.sh). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ossa/ossa.h>

#define CHECK(cond)                                                                       \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "fuzz_pack: invariant failed: %s (line %d)\n", #cond, __LINE__); \
            abort();                                                                      \
        }                                                                                 \
    } while (0)

static void check_asset(const ossa_asset *a) {
    const ossa_skeleton *s = a->skeleton;
    uint32_t joints = s ? s->joint_count : 0;
    CHECK(a->node_count == 0 || a->node_count == joints);
    CHECK(a->clip_count == 0);
    for (uint32_t j = 0; j < joints; j++) {
        CHECK(s->parents[j] < (int32_t)j && s->parents[j] >= -1);
        CHECK(s->source_index[j] < joints);
        CHECK(s->joint_of_source[s->source_index[j]] == j);
        CHECK(s->names[j] != NULL);
        CHECK(isfinite(s->rest[j].rotation.w) && isfinite(s->bind[j].scale.z));
    }
    for (uint32_t k = 0; s && k < s->skin_count; k++) {
        CHECK(s->skins[k].name != NULL);
        CHECK(s->skins[k].root >= -1 && s->skins[k].root < (int32_t)joints);
        for (uint32_t i = 0; i < s->skins[k].joint_count; i++) CHECK(s->skins[k].joints[i] < joints);
    }
    for (uint32_t i = 0; i < a->node_count; i++) {
        const ossa_node_info *n = &a->nodes[i];
        CHECK(n->joint < joints && s->source_index[n->joint] == i);
        CHECK(n->parent >= -1 && n->parent < (int32_t)a->node_count);
        CHECK(n->mesh >= -1 && n->mesh < (int32_t)a->mesh_info_count);
    }
    for (uint32_t m = 0; m < a->mesh_count; m++) {
        const ossa_mesh *mesh = a->meshes[m];
        CHECK(mesh != NULL && mesh->name != NULL);
        for (uint32_t i = 0; i < mesh->index_count; i++) CHECK(mesh->indices[i] < mesh->vertex_count);
        for (size_t i = 0; i < (size_t)mesh->vertex_count * 3; i++) CHECK(isfinite(mesh->positions[i]));
        if (mesh->influences) {
            CHECK(mesh->influences == 4 || mesh->influences == 8);
            CHECK(mesh->skin >= 0 && s && (uint32_t)mesh->skin < s->skin_count);
            for (size_t i = 0; i < (size_t)mesh->vertex_count * mesh->influences; i++) {
                CHECK(mesh->joints[i] < joints);
                CHECK(isfinite(mesh->weights[i]) && mesh->weights[i] >= 0.0f);
            }
        }
    }
    for (uint32_t m = 0; m < a->mesh_count; m++) {
        const ossa_mesh *mesh = a->meshes[m];
        CHECK(mesh->material >= -1 && mesh->material < (int32_t)a->material_count);
        for (size_t i = 0; mesh->colors && i < (size_t)mesh->vertex_count * 4; i++) CHECK(isfinite(mesh->colors[i]));
    }
    for (uint32_t i = 0; i < a->material_count; i++) {
        const ossa_material *mat = &a->materials[i];
        CHECK(mat->name != NULL && isfinite(mat->base_color[3]) && isfinite(mat->alpha_cutoff));
        CHECK(mat->base_color_texture.image >= -1 && mat->base_color_texture.image < (int32_t)a->image_count);
    }
    for (uint32_t i = 0; i < a->image_count; i++) {
        const ossa_image *im = &a->images[i];
        CHECK(im->name && im->uri && im->mime_type);
        CHECK(im->data || im->size == 0);
    }
    for (uint32_t w = 0; w < a->warning_count; w++) CHECK(a->warnings[w] != NULL);
    /* clip reports: none, or one per built clip pointing inside the asset */
    CHECK(a->clip_report_count == 0 || (a->clip_report_count == a->built_clip_count && a->clip_reports));
    for (uint32_t c = 0; c < a->clip_report_count; c++) {
        const ossa_clip_report *r = &a->clip_reports[c];
        CHECK(r->vertex_meshes <= a->mesh_count);
        CHECK(!r->vertex_meshes || r->max_vertex_error == 0.0f ||
              (r->worst_mesh < a->mesh_count && r->worst_vertex < a->meshes[r->worst_mesh]->vertex_count &&
               r->worst_vertex_joint < joints));
    }
    /* built clips: made for this skeleton, and they sample (clamped and looping) */
    for (uint32_t c = 0; c < a->built_clip_count; c++) {
        const ossa_built_clip *clip = a->built_clips[c];
        CHECK(ossa_built_clip_joint_count(clip) == joints);
        uint32_t nw = ossa_built_clip_weight_count(clip);
        ossa_sampling_context *ctx = NULL;
        if (ossa_sampling_context_create(joints, nw, NULL, &ctx) != OSSA_OK) continue;
        ossa_transform *pose = calloc((size_t)joints + 1, sizeof *pose);
        float *w = calloc((size_t)nw + 1, sizeof *w);
        float start = ossa_built_clip_start(clip), end = ossa_built_clip_end(clip);
        const float times[] = {start - 1, start, 0.5f * (start + end), end, end + 3, 0.3f * start + 0.7f * end};
        for (size_t i = 0; pose && w && i < sizeof times / sizeof times[0]; i++) {
            ossa_sample_job job = {clip, ctx, times[i], (i & 1) != 0, pose, joints, w, nw, s ? s->rest : pose, joints, 0};
            CHECK(ossa_sample_job_run(&job) == OSSA_OK);
            for (uint32_t j = 0; j < joints; j++) /* the loader's checks keep every pose finite */
                for (int k = 0; k < 10; k++) CHECK(isfinite((&pose[j].translation.x)[k]));
            for (uint32_t k = 0; k < nw; k++) CHECK(isfinite(w[k]));
        }
        free(pose);
        free(w);
        ossa_sampling_context_destroy(ctx);
    }
}

/* Packs `a`, loads the result, packs that: both packs must be byte-identical. */
static void check_repack(const ossa_asset *a) {
    size_t size = 0;
    CHECK(ossa_pack_write(a, NULL, NULL, 0, &size) == OSSA_OK);
    uint8_t *b = malloc(size);
    CHECK(b != NULL);
    CHECK(ossa_pack_write(a, NULL, b, size, &size) == OSSA_OK);
    ossa_asset *again = NULL;
    ossa_diagnostic diag;
    ossa_result r = ossa_pack_load_memory(b, size, NULL, &again, &diag);
    if (r) fprintf(stderr, "fuzz_pack: repacked file refused: %s\n", diag.message);
    CHECK(r == OSSA_OK);
    size_t size2 = 0;
    CHECK(ossa_pack_write(again, NULL, NULL, 0, &size2) == OSSA_OK && size2 == size);
    uint8_t *b2 = malloc(size2);
    CHECK(b2 != NULL);
    CHECK(ossa_pack_write(again, NULL, b2, size2, &size2) == OSSA_OK);
    CHECK(memcmp(b, b2, size) == 0);
    free(b2);
    ossa_asset_destroy(again);
    free(b);
}

static void load_one(const uint8_t *data, size_t size) {
    ossa_load_options options;
    memset(&options, 0, sizeof options);
    options.max_allocation = (size_t)64 << 20;
    ossa_asset *asset = NULL;
    ossa_diagnostic diag;
    ossa_result r = ossa_pack_load_memory(data, size, &options, &asset, &diag);
    if (r == OSSA_OK) {
        CHECK(asset != NULL);
        check_asset(asset);
        check_repack(asset);
        ossa_asset_destroy(asset);
    } else {
        CHECK(asset == NULL);
        CHECK(r > OSSA_OK && r < OSSA_RESULT_COUNT);
        CHECK(memchr(diag.message, 0, sizeof diag.message) != NULL && diag.message[0]);
        CHECK(memchr(diag.path, 0, sizeof diag.path) != NULL);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    load_one(data, size);
    if (size > OSSA_PACK_HEADER_SIZE) {
        uint8_t *copy = malloc(size);
        if (!copy) return 0;
        memcpy(copy, data, size);
        uint64_t sum = ossa_pack_checksum(copy, size);
        memcpy(copy + 24, &sum, 8); /* the header's checksum field */
        load_one(copy, size);
        free(copy);
    }
    return 0;
}
