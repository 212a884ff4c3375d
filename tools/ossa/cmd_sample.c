/* ossa sample FILE [--clip NAME|INDEX] [--time T]... [--vertices N|all] [--loop]
 *
 * Prints the JSON contract of docs/architecture.md: every glTF node (glTF index order) with its
 * animated local TRS and world matrix, and the first N vertices of every skinned
 * primitive (morph targets applied, then linear blend skinning with the scalar
 * kernel), at each requested time. Times are absolute clip times, clamped to the
 * clip (--loop wraps). Without --clip the rest pose is printed, "clip" is null and
 * the default time list is [0]; with a clip it is [clip start]. "time" is the time
 * actually sampled (clamped or wrapped); a NaN --time is an error. Nodes whose mesh has
 * morph targets carry "weights" (sampled when the clip drives them, else the defaults).
 * With --ik (ik_pass.h, as `ossa render --ik`), each sample's pose goes through the IK pass
 * before its world matrices and skinning are printed, and the sample carries
 * "ik": [{"joint", "target", "pole", "reached"}] (model space; reached: the two-bone job's flag).
 * With --graph G.json (graph_cli.h), the pose comes from the animation graph simulated from time 0
 * at --fps with the --set changes, every time is a simulated time (not clamped: >= 0, default 0),
 * and every sample carries "graph": {"states", "transitions", "events"}.
 * Non-finite numbers print as null. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ossa/ossa.h>

#include "cli_common.h"
#include "commands.h"
#include "graph_cli.h"
#include "ik_pass.h"
#include "layers_cli.h"

static void put_floats(const float *v, int n) {
    putchar('[');
    for (int i = 0; i < n; i++) {
        if (i) printf(", ");
        json_put_num(v[i]);
    }
    putchar(']');
}

static int usage(FILE *f) {
    fprintf(f, "usage: ossa sample FILE [--clip NAME|INDEX] [--time T]... [--vertices N|all] [--loop]\n"
               "                   [--precision P | --lossless]\n"
               "  prints every node's local TRS, world matrix and morph weights, and the first N\n"
               "  skinned vertices of every skinned primitive, as JSON (docs/architecture.md)\n"
               "  --clip      clip name or index (default: none, the rest pose)\n"
               "  --time T    absolute clip time in seconds, repeatable (default: the clip start, or 0);\n"
               "              clamped into the clip, \"time\" prints the time actually sampled\n"
               "  --loop      wrap times into the clip instead of clamping\n"
               "  --vertices  skinned vertices per primitive: N or all (default 64)\n"
               "  layers (docs/layers.md): --clip A --clip B [--weights 0.3,0.7] [--sync]\n"
               "              [--additive CLIP[:WEIGHT]] [--mask JOINT] [--root-motion]\n"
               "  --precision P  sample through clips built at precision P (model units; ossa pack)\n"
               "  --lossless  sample through lossless built clips (same output to float rounding)\n"
               IK_PASS_USAGE
               "  graphs (docs/graphs.md): --graph G.json [--set NAME=VALUE@TIME]... [--set TRIGGER@TIME]...\n"
               "              [--fps N]  simulate the graph from time 0 at N frames/s (default 60); --time T\n"
               "              is a simulated time; each sample adds \"graph\": active states, transitions\n"
               "  FILE may be .gltf, .glb or a packed .ossa (whose built clips are sampled)\n");
    return f == stdout ? 0 : 2;
}

/* Morph weights of the mesh on skeleton joint `joint` (count targets): the clip's weight
 * track for that joint when it has one, else `defaults` (NULL = zeros). */
static void morph_weights(const ossa_clip *clip, const cli_built_sampler *bs, uint32_t joint, uint32_t count,
                          const float *defaults, float t, bool loop, float *out) {
    if (defaults) memcpy(out, defaults, count * sizeof(float));
    else memset(out, 0, count * sizeof(float));
    if (bs->clip) { /* built: the weights of the last sampling run */
        cli_built_sampler_weights(bs, joint, count, out);
        return;
    }
    for (uint32_t k = 0; clip && k < clip->weight_track_count; k++)
        if (clip->weight_tracks[k].joint == joint && clip->weight_tracks[k].weights.components == count) {
            ossa_clip_weights_job wj = {.clip = clip, .track = k, .time = t, .loop = loop, .output = out,
                                        .output_count = count};
            ossa_clip_weights_job_run(&wj);
        }
}

/* "weights" of node i when its mesh has morph targets (defaults from the node's first primitive). */
static void put_node_weights(const ossa_asset *a, uint32_t i, const ossa_clip *clip, const cli_built_sampler *bs,
                             float t, bool loop) {
    int32_t mi = a->nodes[i].mesh;
    if (mi < 0 || (uint32_t)mi >= a->mesh_info_count || !a->mesh_infos[mi].target_count) return;
    uint32_t count = a->mesh_infos[mi].target_count, joint = a->nodes[i].joint;
    const float *defaults = NULL;
    for (uint32_t m = 0; m < a->mesh_count && !defaults; m++)
        if (a->meshes[m]->node == (int32_t)joint && a->meshes[m]->target_count == count)
            defaults = a->meshes[m]->default_weights;
    float *w = calloc(count, sizeof(float));
    if (!w) return;
    morph_weights(clip, bs, joint, count, defaults, t, loop, w);
    printf(", \"weights\": ");
    put_floats(w, (int)count);
    free(w);
}

/* World matrices in skeleton order; nodes given as a non-TRS matrix keep it while not animated. */
static void compute_world(const ossa_asset *a, const ossa_transform *locals, const bool *animated, ossa_mat4 *world) {
    const ossa_skeleton *s = a->skeleton;
    ossa_local_to_model_job lm = {.skeleton = s, .input = locals, .input_count = s->joint_count, .output = world,
                                  .output_count = s->joint_count};
    ossa_local_to_model_job_run(&lm);
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

/* "ik": the chains and whether this sample's solve reached each target (runs_before: each
 * chain's statistics before the solve). */
static void put_ik(const ik_pass *ik, const ossa_skeleton *sk, const uint32_t *reached_before) {
    printf(",\n   \"ik\": [");
    for (uint32_t i = 0; i < ik->count; i++) {
        const ik_chain *c = &ik->chains[i];
        printf("%s{\"joint\": ", i ? ", " : "");
        json_put_str(sk->names[c->joints[2]]);
        printf(", \"target\": ");
        put_floats(&c->target.x, 3);
        printf(", \"pole\": ");
        put_floats(&c->pole.x, 3);
        printf(", \"reached\": %s}", c->reached > reached_before[i] ? "true" : "false");
    }
    printf("]");
}

static int sample_main(int argc, char **argv, cli_layers *layers, cli_graph *graph);

/* Along the --time sequence each joint's rotation keeps the previous sample's sign (q and -q
 * are one rotation; consecutive samples get a dot product >= 0), so a reader comparing
 * components sees no jump. `previous` holds the last sample's rotations. */
static void keep_hemisphere(ossa_transform *pose, ossa_quat *previous, uint32_t n, bool follow) {
    for (uint32_t j = 0; j < n; j++) {
        ossa_quat *q = &pose[j].rotation;
        if (follow && ossa_quat_dot(*q, previous[j]) < 0.0f) *q = (ossa_quat){-q->x, -q->y, -q->z, -q->w};
        previous[j] = *q;
    }
}

int cmd_sample(int argc, char **argv) {
    cli_layers layers;
    memset(&layers, 0, sizeof layers);
    cli_graph graph;
    memset(&graph, 0, sizeof graph);
    graph.take_fps = true;
    int rc = sample_main(argc, argv, &layers, &graph);
    cli_layers_free(&layers);
    cli_graph_free(&graph);
    return rc;
}

/* --graph goes with --time, --vertices, --ik, --precision / --lossless and the load options:
 * not with clips or layers. 0, or 2 after printing. */
static int check_graph_options(const cli_graph *graph, const cli_layers *layers, const char *clip_arg,
                               const double *times, int time_count) {
    int rc = cli_graph_check_options(graph, "sample");
    if (rc || !cli_graph_active(graph)) return rc;
    if (clip_arg || layers->count) {
        fprintf(stderr, "ossa sample: --graph poses the character itself: it takes no --clip or layer flags\n");
        return 2;
    }
    for (int i = 0; i < time_count; i++)
        if (times[i] < 0.0 || times[i] > 1.0e5) {
            fprintf(stderr, "ossa sample: --graph: --time %g is outside the simulated range [0, 100000] s\n", times[i]);
            return 2;
        }
    return 0;
}

static int sample_main(int argc, char **argv, cli_layers *layers, cli_graph *graph) {
    const char *file = NULL, *clip_arg = NULL;
    bool loop = false;
    long vertices = 64;
    double *times = calloc((size_t)argc + 1, sizeof *times);
    int time_count = 0;
    ossa_clip_build_options build; /* --precision / --lossless: sample through built clips */
    memset(&build, 0, sizeof build);
    bool use_built = false;
    ik_pass ik;
    memset(&ik, 0, sizeof ik);
    if (!times) return 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            free(times);
            return usage(stdout);
        }
        int taken = ik_pass_arg(&ik, "sample", argc, argv, &i);
        if (taken > 0) continue;
        if (taken == 0 && (taken = cli_graph_arg(graph, "sample", argc, argv, &i)) > 0) continue;
        if (taken == 0) taken = cli_layers_arg(layers, "sample", argc, argv, &i);
        if (taken < 0) {
            free(times);
            return 2;
        }
        if (taken) clip_arg = cli_layers_first_clip(layers);
        else if (!strcmp(argv[i], "--time") && i + 1 < argc) {
            char *end;
            times[time_count++] = strtod(argv[++i], &end);
            if (*end || isnan(times[time_count - 1])) {
                fprintf(stderr, "ossa sample: --time '%s' is not a number\n", argv[i]);
                free(times);
                return 2;
            }
        } else if (!strcmp(argv[i], "--vertices") && i + 1 < argc) {
            i++;
            if (!strcmp(argv[i], "all")) vertices = -1;
            else {
                char *end;
                vertices = strtol(argv[i], &end, 10);
                if (*end || vertices < 0) {
                    fprintf(stderr, "ossa sample: --vertices expects a count >= 0 or all, got '%s'\n", argv[i]);
                    free(times);
                    return usage(stderr);
                }
            }
        } else if (!strcmp(argv[i], "--loop")) loop = true;
        else if (!strcmp(argv[i], "--lossless")) use_built = build.lossless = true;
        else if (!strcmp(argv[i], "--precision") && i + 1 < argc) {
            char *end;
            build.precision = strtof(argv[++i], &end);
            use_built = true;
            if (*end || !(build.precision > 0)) {
                fprintf(stderr, "ossa sample: --precision expects a positive number of model units, got '%s'\n", argv[i]);
                free(times);
                return usage(stderr);
            }
        }
        else if ((argv[i][0] == '-' && argv[i][1]) || file) {
            if (file && argv[i][0] != '-') fprintf(stderr, "ossa sample: more than one FILE: %s\n", argv[i]);
            else cli_unknown_option("sample", argv[i], i + 1 >= argc);
            free(times);
            return usage(stderr);
        } else file = argv[i];
    }
    if (!file) {
        free(times);
        return usage(stderr);
    }
    if (build.lossless && build.precision > 0) {
        fprintf(stderr, "ossa sample: --precision and --lossless exclude each other (lossless keeps every key)\n");
        free(times);
        return 2;
    }
    int graph_rc = check_graph_options(graph, layers, clip_arg, times, time_count);
    if (graph_rc) {
        free(times);
        return graph_rc;
    }
    ossa_asset *asset = cli_load_asset("sample", file);
    if (!asset) {
        free(times);
        return 1;
    }
    /* packed files have built clips only; --precision / --lossless build them here */
    if (!asset->clip_count && asset->built_clip_count) use_built = true;
    if (use_built && cli_build_clips(asset, &build, "sample", false)) {
        ossa_asset_destroy(asset);
        free(times);
        return 1;
    }
    int32_t ci = -1;
    if (clip_arg) {
        if (use_built) ci = cli_find_built_clip(asset, clip_arg);
        else ci = ossa_asset_find_clip(asset, clip_arg);
        if (ci < 0 && !use_built) {
            char *end;
            long v = strtol(clip_arg, &end, 10);
            if (!*end && v >= 0 && (uint64_t)v < asset->clip_count) ci = (int32_t)v;
        }
        if (ci < 0) {
            fprintf(stderr, "ossa sample: no clip '%s' in %s (%u clips)\n", clip_arg, file,
                    use_built ? asset->built_clip_count : asset->clip_count);
            ossa_asset_destroy(asset);
            free(times);
            return 1;
        }
    }
    const ossa_built_clip *bclip = use_built && ci >= 0 ? asset->built_clips[ci] : NULL;
    /* the editable clip, also for a built one when the file has it (which joints it animates) */
    const ossa_clip *clip = ci >= 0 && (uint32_t)ci < asset->clip_count ? asset->clips[ci] : NULL;
    if ((cli_layers_active(layers) && !cli_layers_resolve(layers, asset, use_built ? &build : NULL, "sample")) ||
        !ik_pass_resolve(&ik, asset->skeleton, "sample")) {
        ossa_asset_destroy(asset);
        free(times);
        return 1;
    }
    if (cli_graph_active(graph) && (graph_rc = cli_graph_load(graph, asset, "sample")) != 0) {
        ossa_asset_destroy(asset);
        free(times);
        return graph_rc;
    }
    if (!time_count) times[time_count++] = bclip ? ossa_built_clip_start(bclip) : clip ? clip->start : 0.0;

    const ossa_skeleton *sk = asset->skeleton;
    uint32_t jn = sk ? sk->joint_count : 0;
    ossa_transform *pose = calloc(jn ? jn : 1, sizeof *pose);
    ossa_mat4 *world = calloc(jn ? jn : 1, sizeof *world);
    ossa_mat4 *palette = calloc(jn ? jn : 1, sizeof *palette);
    bool *animated = calloc(jn ? jn : 1, sizeof *animated);
    ossa_quat *previous = calloc(jn ? jn : 1, sizeof *previous); /* the last sample's rotations */
    int rc = 0;
    if (!pose || !world || !palette || !animated || !previous) rc = 1;
    cli_built_sampler bs;
    memset(&bs, 0, sizeof bs);
    if (!rc && cli_built_sampler_init(&bs, bclip, sk)) rc = 1;
    for (uint32_t c = 0; c < asset->clip_count; c++) /* the graph plays any clip; else the one */
        if (asset->clips[c] == clip || (cli_graph_active(graph) && asset->clips[c]))
            for (uint32_t t = 0; t < asset->clips[c]->track_count; t++)
                if (asset->clips[c]->tracks[t].joint < jn) animated[asset->clips[c]->tracks[t].joint] = true;

    printf("{\"file\": ");
    json_put_str(file);
    printf(", \"clip\": ");
    if (clip || bclip) {
        printf("{\"name\": ");
        json_put_str(bclip ? ossa_built_clip_name(bclip) : clip->name ? clip->name : "");
        printf(", \"index\": %d, \"start\": ", ci);
        json_put_num(bclip ? ossa_built_clip_start(bclip) : clip->start);
        printf(", \"end\": ");
        json_put_num(bclip ? ossa_built_clip_end(bclip) : clip->end);
        printf("}");
    } else {
        printf("null");
    }
    if (cli_graph_active(graph)) {
        printf(", \"graph\": {\"file\": ");
        json_put_str(graph->path);
        printf(", \"fps\": ");
        json_put_num(graph->fps);
        printf("}");
    }
    printf(",\n \"samples\": [");
    for (int ti = 0; ti < time_count && !rc; ti++) {
        float t = (float)times[ti];
        if (jn) {
            ossa_clip_sample_job sj = {.clip = clip, .time = t, .loop = loop, .reference = sk->rest,
                                       .reference_count = jn, .output = pose, .output_count = jn};
            if (bclip && cli_built_sampler_run(&bs, t, loop, pose)) rc = 1; /* also its time and weights with layers */
            if (cli_graph_active(graph)) {
                if (cli_graph_advance(graph, times[ti], "sample")) memcpy(pose, graph->pose, jn * sizeof *pose);
                else rc = 1;
            } else if (cli_layers_active(layers)) cli_layers_pose(layers, sk, t, loop, pose);
            else if (!bclip && clip) ossa_clip_sample_job_run(&sj);
            else if (!bclip) memcpy(pose, sk->rest, jn * sizeof *pose);
            if (bclip && !clip) /* a packed file: joints whose pose differs from rest count as animated */
                for (uint32_t j = 0; j < jn; j++) animated[j] = memcmp(&pose[j], &sk->rest[j], sizeof *pose) != 0;
            compute_world(asset, pose, animated, world);
            keep_hemisphere(pose, previous, jn, ti > 0);
        }
        uint32_t reached_before[IK_PASS_MAX];
        for (uint32_t k = 0; k < ik.count; k++) reached_before[k] = ik.chains[k].reached;
        if (jn && ik.count) ik_pass_run(&ik, sk, pose, world, true);
        printf("%s{\"time\": ", ti ? ",\n  " : "");
        json_put_num(bclip ? bs.sampled_time : clip ? ossa_clip_adjust_time(clip, t, loop) : times[ti]);
        if (cli_layers_active(layers)) printf(",\n   "), cli_layers_print_json(layers);
        if (cli_graph_active(graph)) printf(",\n   "), cli_graph_print_json(graph);
        if (ik.count) put_ik(&ik, sk, reached_before);
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
            put_node_weights(asset, i, clip, &bs, t, loop);
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
                morph_weights(clip, &bs, (uint32_t)mesh->node, mesh->target_count, mesh->default_weights, t, loop, w);
                ossa_morph_job mj = {.mesh = mesh, .weights = w, .weight_count = mesh->target_count, .end = nv,
                                     .out_positions = mp, .out_positions_count = mesh->vertex_count,
                                     .out_normals = mesh->normals ? mn : NULL, .out_normals_count = mesh->vertex_count};
                if (ossa_morph_job_run(&mj) != OSSA_OK) {
                    fprintf(stderr, "ossa sample: morphing mesh %u failed\n", m);
                    rc = 1;
                }
                ossa_palette_job pj = {.skeleton = sk, .skin = (uint32_t)mesh->skin, .model = world,
                                       .model_count = jn, .output = palette, .output_count = jn};
                ossa_palette_job_run(&pj);
                ossa_skin_job job;
                memset(&job, 0, sizeof job);
                job.begin = 0;
                job.end = nv;
                job.vertex_count = nv;
                job.influences = mesh->influences;
                job.joints = mesh->joints;
                job.weights = mesh->weights;
                job.kernel = OSSA_SKIN_KERNEL_SCALAR;
                job.palette = palette;
                job.palette_count = jn;
                job.positions = mp;
                job.out_positions = op;
                if (mesh->normals) {
                    job.normals = mn;
                    job.out_normals = on;
                }
                if (!rc && nv && ossa_skin_job_run(&job) != OSSA_OK) {
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
    free(previous);
    free(times);
    cli_built_sampler_free(&bs);
    ossa_asset_destroy(asset);
    return rc;
}
