/* ossa sample FILE [--clip NAME|INDEX] [--time T]... [--vertices N|all] [--loop]
 *
 * Prints the DESIGN.md JSON contract: every glTF node (glTF index order) with its
 * animated local TRS and world matrix, and the first N vertices of every skinned
 * primitive (morph targets applied, then linear blend skinning with the scalar
 * kernel), at each requested time. Times are absolute clip times, clamped to the
 * clip (--loop wraps). Without --clip the rest pose is printed, "clip" is null and
 * the default time list is [0]; with a clip it is [clip start]. "time" echoes the
 * requested time. Non-finite numbers print as null. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ossa/ossa.h>

#include "cli_common.h"
#include "commands.h"
#include "layers_cli.h"

static void put_floats(const float *v, int n) {
    putchar('[');
    for (int i = 0; i < n; i++) {
        if (i) printf(", ");
        json_put_num(v[i]);
    }
    putchar(']');
}

static int usage(void) {
    fprintf(stderr, "usage: ossa sample FILE [--clip NAME|INDEX] [--time T]... [--vertices N|all] [--loop]\n"
                    "       layers: --clip A --clip B [--weights 0.3,0.7] [--sync] [--additive CLIP[:WEIGHT]]\n"
                    "               [--mask JOINT] [--root-motion]   (docs/layers.md)\n");
    return 2;
}

/* World matrices in skeleton order; nodes given as a non-TRS matrix keep it while not animated. */
static void compute_world(const ossa_asset *a, const ossa_transform *locals, const bool *animated, ossa_mat4 *world) {
    const ossa_skeleton *s = a->skeleton;
    ossa_pose_to_model(locals, s->parents, s->joint_count, world);
    bool any = false;
    for (uint32_t i = 0; i < a->node_count; i++)
        if (a->nodes[i].matrix_not_trs && !animated[a->nodes[i].joint]) any = true;
    if (!any) return;
    for (uint32_t j = 0; j < s->joint_count; j++) {
        uint32_t node = s->source_index[j];
        ossa_mat4 local = (a->nodes[node].matrix_not_trs && !animated[j]) ? a->nodes[node].matrix
                                                                          : ossa_transform_to_mat4(locals[j]);
        world[j] = s->parents[j] >= 0 ? ossa_mat4_mul(&world[s->parents[j]], &local) : local;
    }
}

int cmd_sample(int argc, char **argv) {
    const char *file = NULL, *clip_arg = NULL;
    bool loop = false;
    long vertices = 64;
    double *times = calloc((size_t)argc + 1, sizeof *times);
    int time_count = 0;
    cli_layers layers;
    memset(&layers, 0, sizeof layers);
    if (!times) return 1;
    for (int i = 1; i < argc; i++) {
        int taken = cli_layers_arg(&layers, "sample", argc, argv, &i);
        if (taken < 0) {
            cli_layers_free(&layers);
            free(times);
            return 2;
        }
        if (taken) clip_arg = cli_layers_first_clip(&layers);
        else if (!strcmp(argv[i], "--time") && i + 1 < argc) {
            char *end;
            times[time_count++] = strtod(argv[++i], &end);
            if (*end) {
                fprintf(stderr, "ossa sample: bad time '%s'\n", argv[i]);
                free(times);
                cli_layers_free(&layers);
                return 2;
            }
        } else if (!strcmp(argv[i], "--vertices") && i + 1 < argc) {
            i++;
            if (!strcmp(argv[i], "all")) vertices = -1;
            else {
                char *end;
                vertices = strtol(argv[i], &end, 10);
                if (*end || vertices < 0) {
                    free(times);
                    cli_layers_free(&layers);
                    return usage();
                }
            }
        } else if (!strcmp(argv[i], "--loop")) loop = true;
        else if (argv[i][0] == '-' || file) {
            free(times);
            cli_layers_free(&layers);
            return usage();
        } else file = argv[i];
    }
    if (!file) {
        free(times);
        cli_layers_free(&layers);
        return usage();
    }
    ossa_asset *asset = cli_load_asset("sample", file);
    if (!asset) {
        free(times);
        cli_layers_free(&layers);
        return 1;
    }
    int32_t ci = -1;
    if (clip_arg) {
        ci = ossa_asset_find_clip(asset, clip_arg);
        if (ci < 0) {
            char *end;
            long v = strtol(clip_arg, &end, 10);
            if (!*end && v >= 0 && (uint64_t)v < asset->clip_count) ci = (int32_t)v;
        }
        if (ci < 0) {
            fprintf(stderr, "ossa sample: no clip '%s' in %s (%u clips)\n", clip_arg, file, asset->clip_count);
            ossa_asset_destroy(asset);
            free(times);
            cli_layers_free(&layers);
            return 1;
        }
    }
    const ossa_clip *clip = ci >= 0 ? asset->clips[ci] : NULL;
    if (cli_layers_active(&layers) && !cli_layers_resolve(&layers, asset, "sample")) {
        cli_layers_free(&layers);
        ossa_asset_destroy(asset);
        free(times);
        return 1;
    }
    if (!time_count) times[time_count++] = clip ? clip->start : 0.0;

    const ossa_skeleton *sk = asset->skeleton;
    uint32_t jn = sk ? sk->joint_count : 0;
    ossa_transform *pose = calloc(jn ? jn : 1, sizeof *pose);
    ossa_mat4 *world = calloc(jn ? jn : 1, sizeof *world);
    ossa_mat4 *palette = calloc(jn ? jn : 1, sizeof *palette);
    bool *animated = calloc(jn ? jn : 1, sizeof *animated);
    int rc = 0;
    if (!pose || !world || !palette || !animated) rc = 1;
    if (clip)
        for (uint32_t t = 0; t < clip->track_count; t++)
            if (clip->tracks[t].joint < jn) animated[clip->tracks[t].joint] = true;

    printf("{\"file\": ");
    json_put_str(file);
    printf(", \"clip\": ");
    if (clip) {
        printf("{\"name\": ");
        json_put_str(clip->name ? clip->name : "");
        printf(", \"index\": %d, \"start\": ", ci);
        json_put_num(clip->start);
        printf(", \"end\": ");
        json_put_num(clip->end);
        printf("}");
    } else {
        printf("null");
    }
    printf(",\n \"samples\": [");
    for (int ti = 0; ti < time_count && !rc; ti++) {
        float t = (float)times[ti];
        if (jn) {
            if (cli_layers_active(&layers)) cli_layers_pose(&layers, sk, t, loop, pose);
            else if (clip) ossa_clip_sample(clip, t, loop, OSSA_LOOKUP_DEFAULT, NULL, sk->rest, pose, jn);
            else memcpy(pose, sk->rest, jn * sizeof *pose);
            compute_world(asset, pose, animated, world);
        }
        printf("%s{\"time\": ", ti ? ",\n  " : "");
        json_put_num(times[ti]);
        if (cli_layers_active(&layers)) printf(",\n   "), cli_layers_print_json(&layers);
        printf(",\n   \"nodes\": [");
        for (uint32_t i = 0; i < asset->node_count; i++) {
            uint32_t j = asset->nodes[i].joint;
            const ossa_transform *x = &pose[j];
            printf("%s{\"index\": %u, \"name\": ", i ? ",\n     " : "", i);
            json_put_str(asset->nodes[i].name ? asset->nodes[i].name : "");
            printf(", \"translation\": ");
            put_floats(&x->translation.x, 3);
            printf(", \"rotation\": ");
            put_floats(&x->rotation.x, 4);
            printf(", \"scale\": ");
            put_floats(&x->scale.x, 3);
            printf(", \"world\": ");
            put_floats(world[j].m, 16);
            printf("}");
        }
        printf("],\n   \"skinned\": [");
        int printed = 0;
        for (uint32_t m = 0; m < asset->mesh_count && !rc; m++) {
            const ossa_mesh *mesh = asset->meshes[m];
            if (!mesh || mesh->skin < 0 || !mesh->influences || (uint32_t)mesh->skin >= sk->skin_count) continue;
            uint32_t nv = vertices < 0 || (uint64_t)vertices > mesh->vertex_count ? mesh->vertex_count : (uint32_t)vertices;
            float *mp = calloc((size_t)mesh->vertex_count * 3 + 3, sizeof(float));
            float *mn = calloc((size_t)mesh->vertex_count * 3 + 3, sizeof(float));
            float *op = calloc((size_t)nv * 3 + 3, sizeof(float));
            float *on = calloc((size_t)nv * 3 + 3, sizeof(float));
            float *w = calloc((size_t)mesh->target_count + 1, sizeof(float));
            if (!mp || !mn || !op || !on || !w) rc = 1;
            if (!rc) {
                if (mesh->default_weights) memcpy(w, mesh->default_weights, mesh->target_count * sizeof(float));
                if (clip)
                    for (uint32_t k = 0; k < clip->weight_track_count; k++)
                        if ((int32_t)clip->weight_tracks[k].joint == mesh->node &&
                            clip->weight_tracks[k].weights.components == mesh->target_count)
                            ossa_clip_sample_weights(clip, k, t, loop, OSSA_LOOKUP_DEFAULT, NULL, w);
                ossa_morph_apply(mesh, w, 0, nv, mp, mesh->normals ? mn : NULL);
                const ossa_skin *skin = &sk->skins[mesh->skin];
                for (uint32_t j = 0; j < jn; j++) palette[j] = ossa_mat4_identity();
                for (uint32_t k = 0; k < skin->joint_count; k++)
                    palette[skin->joints[k]] = ossa_mat4_mul(&world[skin->joints[k]], &skin->inverse_bind[k]);
                ossa_skin_job job;
                memset(&job, 0, sizeof job);
                job.begin = 0;
                job.end = nv;
                job.influences = mesh->influences;
                job.joints = mesh->joints;
                job.weights = mesh->weights;
                job.palette = palette;
                job.palette_count = jn;
                job.positions = mp;
                job.out_positions = op;
                if (mesh->normals) {
                    job.normals = mn;
                    job.out_normals = on;
                }
                if (nv && ossa_skin_lbs(&job, OSSA_SKIN_KERNEL_SCALAR) != OSSA_OK) {
                    fprintf(stderr, "ossa sample: skinning mesh %u failed\n", m);
                    rc = 1;
                }
            }
            if (!rc) {
                printf("%s{\"node\": %u, \"mesh\": %u, \"primitive\": %u, \"positions\": [", printed++ ? ",\n     " : "",
                       sk->source_index[mesh->node], mesh->source_mesh, mesh->source_primitive);
                for (uint32_t v = 0; v < nv; v++) {
                    if (v) printf(", ");
                    put_floats(op + 3 * v, 3);
                }
                printf("], \"normals\": [");
                for (uint32_t v = 0; v < nv && mesh->normals; v++) {
                    if (v) printf(", ");
                    put_floats(on + 3 * v, 3);
                }
                printf("]}");
            }
            free(mp);
            free(mn);
            free(op);
            free(on);
            free(w);
        }
        printf("]}");
    }
    printf("]}\n");
    free(pose);
    free(world);
    free(palette);
    free(animated);
    free(times);
    cli_layers_free(&layers);
    ossa_asset_destroy(asset);
    return rc;
}
