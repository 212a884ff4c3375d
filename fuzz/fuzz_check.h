/* Invariants of a loaded ossa_asset, shared by the loader fuzz targets (fuzz_load,
 * fuzz_assimp): parents first and inverse maps, indices < vertex count, joints < joint
 * count, weights sum to 0 or ~1, finite positions, strictly increasing finite key times.
 * A violation aborts like a crash would ("silently wrong data"). */
#ifndef OSSA_FUZZ_CHECK_H
#define OSSA_FUZZ_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <ossa/ossa.h>

#define CHECK(cond)                                                                   \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "fuzz: invariant failed: %s (line %d)\n", #cond, __LINE__); \
            abort();                                                                  \
        }                                                                             \
    } while (0)

static void check_track(const ossa_track *t) {
    for (uint32_t k = 0; k < t->key_count; k++) {
        CHECK(isfinite(t->times[k]));
        if (k) CHECK(t->times[k] > t->times[k - 1]);
    }
}

static void check_asset(const ossa_asset *a) {
    uint32_t joints = a->skeleton ? a->skeleton->joint_count : 0;
    CHECK(a->node_count == joints);
    if (a->skeleton) {
        const ossa_skeleton *s = a->skeleton;
        for (uint32_t j = 0; j < joints; j++) {
            CHECK(s->parents[j] < (int32_t)j && s->parents[j] >= -1);
            CHECK(s->source_index[j] < joints);
            CHECK(s->joint_of_source[s->source_index[j]] == j);
            CHECK(s->names[j] != NULL);
        }
        for (uint32_t k = 0; k < s->skin_count; k++)
            for (uint32_t i = 0; i < s->skins[k].joint_count; i++) CHECK(s->skins[k].joints[i] < joints);
    }
    for (uint32_t m = 0; m < a->mesh_count; m++) {
        const ossa_mesh *mesh = a->meshes[m];
        CHECK(mesh != NULL);
        for (uint32_t i = 0; i < mesh->index_count; i++) CHECK(mesh->indices[i] < mesh->vertex_count);
        for (size_t i = 0; i < (size_t)mesh->vertex_count * 3; i++) CHECK(isfinite(mesh->positions[i]));
        if (mesh->influences) {
            CHECK(mesh->influences == 4 || mesh->influences == 8);
            CHECK(mesh->skin >= 0 && a->skeleton && (uint32_t)mesh->skin < a->skeleton->skin_count);
            for (uint32_t v = 0; v < mesh->vertex_count; v++) {
                double sum = 0;
                for (uint32_t k = 0; k < mesh->influences; k++) {
                    CHECK(mesh->joints[(size_t)v * mesh->influences + k] < joints);
                    float w = mesh->weights[(size_t)v * mesh->influences + k];
                    CHECK(w >= 0.0f && isfinite(w));
                    sum += w;
                }
                CHECK(sum == 0.0 || fabs(sum - 1.0) < 1e-3);
            }
        }
    }
    for (uint32_t c = 0; c < a->clip_count; c++) {
        const ossa_clip *clip = a->clips[c];
        CHECK(clip != NULL && clip->name != NULL);
        CHECK(!(clip->start > clip->end));
        for (uint32_t t = 0; t < clip->track_count; t++) {
            CHECK(clip->tracks[t].joint < joints);
            check_track(&clip->tracks[t].translation);
            check_track(&clip->tracks[t].rotation);
            check_track(&clip->tracks[t].scale);
        }
        for (uint32_t t = 0; t < clip->weight_track_count; t++) {
            CHECK(clip->weight_tracks[t].joint < joints);
            check_track(&clip->weight_tracks[t].weights);
        }
    }
    for (uint32_t w = 0; w < a->warning_count; w++) CHECK(a->warnings[w] != NULL);
}

#endif
