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

/* One run of the command, in the order its phases fill it: the command line (parse_args), the
 * file and the clip it plays (open_file), the per-sample buffers (alloc_buffers). */
typedef struct sample_run {
    const char *file, *clip_arg;
    bool loop, use_built;              /* use_built: sample built clips (--precision, --lossless, .ossa) */
    long vertices;                     /* skinned vertices per primitive; -1: all */
    double *times;                     /* argc + 1 entries, time_count used */
    int time_count;
    ossa_clip_build_options build;
    ik_pass ik;
    cli_layers *layers;
    cli_graph *graph;
    ossa_asset *asset;
    int32_t ci;                        /* the clip's index, -1: none (the rest pose) */
    const ossa_built_clip *bclip;      /* the built clip sampled, when use_built */
    const ossa_clip *clip;             /* the editable clip, also for a built one when the file has it */
    ossa_transform *pose;              /* joint_count each: */
    ossa_mat4 *world, *palette;
    bool *animated;                    /* joints some played clip drives */
    ossa_quat *previous;               /* the last sample's rotations (keep_hemisphere) */
    cli_built_sampler bs;
} sample_run;

static int parse_time(sample_run *r, const char *arg) {
    char *end;
    r->times[r->time_count++] = strtod(arg, &end);
    if (!*end && !isnan(r->times[r->time_count - 1])) return CLI_GO_ON;
    fprintf(stderr, "ossa sample: --time '%s' is not a number\n", arg);
    return 2;
}

static int parse_vertices(sample_run *r, const char *arg) {
    if (!strcmp(arg, "all")) {
        r->vertices = -1;
        return CLI_GO_ON;
    }
    char *end;
    r->vertices = strtol(arg, &end, 10);
    if (!*end && r->vertices >= 0) return CLI_GO_ON;
    fprintf(stderr, "ossa sample: --vertices expects a count >= 0 or all, got '%s'\n", arg);
    return usage(stderr);
}

static int parse_precision(sample_run *r, const char *arg) {
    char *end;
    r->build.precision = strtof(arg, &end);
    r->use_built = true;
    if (!*end && r->build.precision > 0) return CLI_GO_ON;
    fprintf(stderr, "ossa sample: --precision expects a positive number of model units, got '%s'\n", arg);
    return usage(stderr);
}

/* argv[*i] and the values it takes (*i moves past them). */
static int parse_arg(sample_run *r, int argc, char **argv, int *i) {
    const char *a = argv[*i];
    bool value = *i + 1 < argc;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) return usage(stdout);
    int taken = ik_pass_arg(&r->ik, "sample", argc, argv, i);
    if (taken > 0) return CLI_GO_ON;
    if (taken == 0 && (taken = cli_graph_arg(r->graph, "sample", argc, argv, i)) > 0) return CLI_GO_ON;
    if (taken == 0) taken = cli_layers_arg(r->layers, "sample", argc, argv, i);
    if (taken < 0) return 2;
    if (taken) r->clip_arg = cli_layers_first_clip(r->layers);
    else if (!strcmp(a, "--time") && value) return parse_time(r, argv[++*i]);
    else if (!strcmp(a, "--vertices") && value) return parse_vertices(r, argv[++*i]);
    else if (!strcmp(a, "--loop")) r->loop = true;
    else if (!strcmp(a, "--lossless")) r->use_built = r->build.lossless = true;
    else if (!strcmp(a, "--precision") && value) return parse_precision(r, argv[++*i]);
    else if ((a[0] == '-' && a[1]) || r->file) {
        if (r->file && a[0] != '-') fprintf(stderr, "ossa sample: more than one FILE: %s\n", a);
        else cli_unknown_option("sample", a, !value);
        return usage(stderr);
    } else r->file = a;
    return CLI_GO_ON;
}

/* --graph goes with --time, --vertices, --ik, --precision / --lossless and the load options:
 * not with clips or layers. */
static int check_graph_options(const sample_run *r) {
    int rc = cli_graph_check_options(r->graph, "sample");
    if (rc || !cli_graph_active(r->graph)) return rc ? rc : CLI_GO_ON;
    if (r->clip_arg || r->layers->count) {
        fprintf(stderr, "ossa sample: --graph poses the character itself: it takes no --clip or layer flags\n");
        return 2;
    }
    for (int i = 0; i < r->time_count; i++)
        if (r->times[i] < 0.0 || r->times[i] > 1.0e5) {
            fprintf(stderr, "ossa sample: --graph: --time %g is outside the simulated range [0, 100000] s\n", r->times[i]);
            return 2;
        }
    return CLI_GO_ON;
}

static int parse_args(sample_run *r, int argc, char **argv) {
    r->vertices = 64;
    r->times = calloc((size_t)argc + 1, sizeof *r->times);
    if (!r->times) return 1;
    for (int i = 1; i < argc; i++) {
        int rc = parse_arg(r, argc, argv, &i);
        if (rc != CLI_GO_ON) return rc;
    }
    if (!r->file) return usage(stderr);
    if (r->build.lossless && r->build.precision > 0) {
        fprintf(stderr, "ossa sample: --precision and --lossless exclude each other (lossless keeps every key)\n");
        return 2;
    }
    return check_graph_options(r);
}

/* The clip --clip names (a name, or an index of the editable clips), into r->ci. */
static int find_clip(sample_run *r) {
    const ossa_asset *a = r->asset;
    r->ci = -1;
    if (!r->clip_arg) return CLI_GO_ON;
    r->ci = r->use_built ? cli_find_built_clip(a, r->clip_arg) : ossa_asset_find_clip(a, r->clip_arg);
    if (r->ci < 0 && !r->use_built) {
        char *end;
        long v = strtol(r->clip_arg, &end, 10);
        if (!*end && v >= 0 && (uint64_t)v < a->clip_count) r->ci = (int32_t)v;
    }
    if (r->ci >= 0) return CLI_GO_ON;
    fprintf(stderr, "ossa sample: no clip '%s' in %s (%u clips)\n", r->clip_arg, r->file,
            r->use_built ? a->built_clip_count : a->clip_count);
    return 1;
}

/* Loads the file, builds its clips when asked (a packed file has built clips only), finds the
 * clip and resolves the layers, IK chains and graph against the skeleton. */
static int open_file(sample_run *r) {
    r->asset = cli_load_asset("sample", r->file);
    if (!r->asset) return 1;
    if (!r->asset->clip_count && r->asset->built_clip_count) r->use_built = true;
    if (r->use_built && cli_build_clips(r->asset, &r->build, "sample", false)) return 1;
    int rc = find_clip(r);
    if (rc != CLI_GO_ON) return rc;
    if (r->use_built && r->ci >= 0) r->bclip = r->asset->built_clips[r->ci];
    if (r->ci >= 0 && (uint32_t)r->ci < r->asset->clip_count) r->clip = r->asset->clips[r->ci];
    if ((cli_layers_active(r->layers) && !cli_layers_resolve(r->layers, r->asset, r->use_built ? &r->build : NULL, "sample")) ||
        !ik_pass_resolve(&r->ik, r->asset->skeleton, "sample"))
        return 1;
    if (cli_graph_active(r->graph) && (rc = cli_graph_load(r->graph, r->asset, "sample")) != 0) return rc;
    if (!r->time_count) r->times[r->time_count++] = r->bclip ? ossa_built_clip_start(r->bclip) : r->clip ? r->clip->start : 0.0;
    return CLI_GO_ON;
}

static uint32_t joint_count(const sample_run *r) { return r->asset->skeleton ? r->asset->skeleton->joint_count : 0; }

/* The per-sample buffers, and which joints the played clips drive (the graph plays any clip). */
static int alloc_buffers(sample_run *r) {
    uint32_t jn = joint_count(r), n = jn ? jn : 1;
    r->pose = calloc(n, sizeof *r->pose);
    r->world = calloc(n, sizeof *r->world);
    r->palette = calloc(n, sizeof *r->palette);
    r->animated = calloc(n, sizeof *r->animated);
    r->previous = calloc(n, sizeof *r->previous);
    if (!r->pose || !r->world || !r->palette || !r->animated || !r->previous) return 1;
    if (cli_built_sampler_init(&r->bs, r->bclip, r->asset->skeleton)) return 1;
    const ossa_asset *a = r->asset;
    for (uint32_t c = 0; c < a->clip_count; c++)
        if (a->clips[c] == r->clip || (cli_graph_active(r->graph) && a->clips[c]))
            for (uint32_t t = 0; t < a->clips[c]->track_count; t++)
                if (a->clips[c]->tracks[t].joint < jn) r->animated[a->clips[c]->tracks[t].joint] = true;
    return CLI_GO_ON;
}

static void free_run(sample_run *r) {
    free(r->pose);
    free(r->world);
    free(r->palette);
    free(r->animated);
    free(r->previous);
    free(r->times);
    cli_built_sampler_free(&r->bs);
    ossa_asset_destroy(r->asset);
}

/* {"file", "clip" (null for the rest pose) and, with --graph, "graph". */
static void print_header(const sample_run *r) {
    printf("{\"file\": ");
    json_put_str(r->file);
    printf(", \"clip\": ");
    if (r->clip || r->bclip) {
        printf("{\"name\": ");
        json_put_str(r->bclip ? ossa_built_clip_name(r->bclip) : r->clip->name ? r->clip->name : "");
        printf(", \"index\": %d, \"start\": ", r->ci);
        json_put_num(r->bclip ? ossa_built_clip_start(r->bclip) : r->clip->start);
        printf(", \"end\": ");
        json_put_num(r->bclip ? ossa_built_clip_end(r->bclip) : r->clip->end);
        printf("}");
    } else {
        printf("null");
    }
    if (cli_graph_active(r->graph)) {
        printf(", \"graph\": {\"file\": ");
        json_put_str(r->graph->path);
        printf(", \"fps\": ");
        json_put_num(r->graph->fps);
        printf("}");
    }
}

/* The pose and world matrices at sample ti (time t): from the graph, the layers, the built or
 * editable clip, or the rest pose. 0, or 1 after printing an error. */
static int pose_at(sample_run *r, int ti, float t) {
    const ossa_skeleton *sk = r->asset->skeleton;
    uint32_t jn = joint_count(r);
    int rc = 0;
    if (!jn) return 0;
    if (r->bclip && cli_built_sampler_run(&r->bs, t, r->loop, r->pose)) rc = 1; /* also its time and weights with layers */
    if (cli_graph_active(r->graph)) {
        if (cli_graph_advance(r->graph, r->times[ti], "sample")) memcpy(r->pose, r->graph->pose, jn * sizeof *r->pose);
        else rc = 1;
    } else if (cli_layers_active(r->layers)) {
        cli_layers_pose(r->layers, sk, t, r->loop, r->pose);
    } else if (!r->bclip && r->clip) {
        ossa_clip_sample_job sj = {.clip = r->clip, .time = t, .loop = r->loop, .reference = sk->rest,
                                   .reference_count = jn, .output = r->pose, .output_count = jn};
        ossa_clip_sample_job_run(&sj);
    } else if (!r->bclip) {
        memcpy(r->pose, sk->rest, jn * sizeof *r->pose);
    }
    if (r->bclip && !r->clip) /* a packed file: joints whose pose differs from rest count as animated */
        for (uint32_t j = 0; j < jn; j++) r->animated[j] = memcmp(&r->pose[j], &sk->rest[j], sizeof *r->pose) != 0;
    compute_world(r->asset, r->pose, r->animated, r->world);
    keep_hemisphere(r->pose, r->previous, jn, ti > 0);
    return rc;
}

/* "nodes": every glTF node's local TRS, world matrix and morph weights. */
static void print_nodes(const sample_run *r, float t) {
    const ossa_asset *a = r->asset;
    printf(",\n   \"nodes\": [");
    for (uint32_t i = 0; i < a->node_count; i++) {
        uint32_t j = a->nodes[i].joint;
        const ossa_transform *x = &r->pose[j];
        printf("%s{\"index\": %u, \"name\": ", i ? ",\n     " : "", i);
        json_put_str(a->nodes[i].name ? a->nodes[i].name : "");
        printf(", \"translation\": ");
        put_floats(&x->translation.x, 3);
        printf(", \"rotation\": ");
        put_floats(&x->rotation.x, 4);
        printf(", \"scale\": ");
        put_floats(&x->scale.x, 3);
        printf(", \"world\": ");
        put_floats(r->world[j].m, 16);
        put_node_weights(a, i, r->clip, &r->bs, t, r->loop);
        printf("}");
    }
    printf("]");
}

/* The first nv vertices of mesh m at time t: morphed (the mesh's weights at t), then skinned
 * by the scalar kernel with its skin's palette, into op / on (nv * 3 floats each; mp / mn the
 * morphed vertices, vertex_count * 3 each, w target_count weights). 0, or 1 after printing. */
static int skin_mesh(sample_run *r, uint32_t m, uint32_t nv, float t, float *mp, float *mn, float *op, float *on, float *w) {
    const ossa_mesh *mesh = r->asset->meshes[m];
    uint32_t jn = joint_count(r);
    morph_weights(r->clip, &r->bs, (uint32_t)mesh->node, mesh->target_count, mesh->default_weights, t, r->loop, w);
    ossa_morph_job mj = {.mesh = mesh, .weights = w, .weight_count = mesh->target_count, .end = nv,
                         .out_positions = mp, .out_positions_count = mesh->vertex_count,
                         .out_normals = mesh->normals ? mn : NULL, .out_normals_count = mesh->vertex_count};
    if (ossa_morph_job_run(&mj) != OSSA_OK) {
        fprintf(stderr, "ossa sample: morphing mesh %u failed\n", m);
        return 1;
    }
    ossa_palette_job pj = {.skeleton = r->asset->skeleton, .skin = (uint32_t)mesh->skin, .model = r->world,
                           .model_count = jn, .output = r->palette, .output_count = jn};
    ossa_palette_job_run(&pj);
    ossa_skin_job job = {.begin = 0, .end = nv, .vertex_count = nv, .influences = mesh->influences,
                         .joints = mesh->joints, .weights = mesh->weights, .kernel = OSSA_SKIN_KERNEL_SCALAR,
                         .palette = r->palette, .palette_count = jn, .positions = mp, .out_positions = op,
                         .normals = mesh->normals ? mn : NULL, .out_normals = mesh->normals ? on : NULL};
    if (nv && ossa_skin_job_run(&job) != OSSA_OK) {
        fprintf(stderr, "ossa sample: skinning mesh %u failed\n", m);
        return 1;
    }
    return 0;
}

static void print_skinned_mesh(const sample_run *r, const ossa_mesh *mesh, uint32_t nv, const float *op,
                               const float *on, bool first) {
    printf("%s{\"node\": %u, \"mesh\": %u, \"primitive\": %u, \"positions\": [", first ? "" : ",\n     ",
           r->asset->skeleton->source_index[mesh->node], mesh->source_mesh, mesh->source_primitive);
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

/* "skinned": the first --vertices vertices of every skinned primitive. 0, or 1 after printing
 * an error (the array then ends at the mesh that failed). */
static int print_skinned(sample_run *r, float t) {
    const ossa_asset *a = r->asset;
    const ossa_skeleton *sk = a->skeleton;
    int rc = 0, printed = 0;
    printf(",\n   \"skinned\": [");
    for (uint32_t m = 0; m < a->mesh_count && !rc; m++) {
        const ossa_mesh *mesh = a->meshes[m];
        if (!mesh || mesh->skin < 0 || !mesh->influences || (uint32_t)mesh->skin >= sk->skin_count) continue;
        uint32_t nv = r->vertices < 0 || (uint64_t)r->vertices > mesh->vertex_count ? mesh->vertex_count
                                                                                     : (uint32_t)r->vertices;
        float *mp = calloc((size_t)mesh->vertex_count * 3 + 3, sizeof(float));
        float *mn = calloc((size_t)mesh->vertex_count * 3 + 3, sizeof(float));
        float *op = calloc((size_t)nv * 3 + 3, sizeof(float));
        float *on = calloc((size_t)nv * 3 + 3, sizeof(float));
        float *w = calloc((size_t)mesh->target_count + 1, sizeof(float));
        rc = !mp || !mn || !op || !on || !w ? 1 : skin_mesh(r, m, nv, t, mp, mn, op, on, w);
        if (!rc) print_skinned_mesh(r, mesh, nv, op, on, !printed++);
        free(mp);
        free(mn);
        free(op);
        free(on);
        free(w);
    }
    printf("]");
    return rc;
}

/* Sample ti: {"time", the layers', graph's and IK's reports, "nodes", "skinned"}. */
static int print_sample(sample_run *r, int ti) {
    float t = (float)r->times[ti];
    int rc = pose_at(r, ti, t);
    uint32_t reached_before[IK_PASS_MAX];
    for (uint32_t k = 0; k < r->ik.count; k++) reached_before[k] = r->ik.chains[k].reached;
    if (joint_count(r) && r->ik.count) ik_pass_run(&r->ik, r->asset->skeleton, r->pose, r->world, true);
    printf("%s{\"time\": ", ti ? ",\n  " : "");
    json_put_num(r->bclip ? r->bs.sampled_time : r->clip ? ossa_clip_adjust_time(r->clip, t, r->loop) : r->times[ti]);
    if (cli_layers_active(r->layers)) printf(",\n   "), cli_layers_print_json(r->layers);
    if (cli_graph_active(r->graph)) printf(",\n   "), cli_graph_print_json(r->graph);
    if (r->ik.count) put_ik(&r->ik, r->asset->skeleton, reached_before);
    print_nodes(r, t);
    if (!rc) rc = print_skinned(r, t);
    else printf(",\n   \"skinned\": []");
    printf("}");
    return rc;
}

int cmd_sample(int argc, char **argv) {
    cli_layers layers;
    memset(&layers, 0, sizeof layers);
    cli_graph graph;
    memset(&graph, 0, sizeof graph);
    graph.take_fps = true;
    sample_run r;
    memset(&r, 0, sizeof r);
    r.layers = &layers;
    r.graph = &graph;
    int rc = parse_args(&r, argc, argv);
    if (rc == CLI_GO_ON) rc = open_file(&r);
    if (rc == CLI_GO_ON) rc = alloc_buffers(&r);
    if (rc == CLI_GO_ON) {
        print_header(&r);
        printf(",\n \"samples\": [");
        rc = 0;
        for (int ti = 0; ti < r.time_count && !rc; ti++) rc = print_sample(&r, ti);
        printf("]}\n");
    }
    free_run(&r);
    cli_layers_free(&layers);
    cli_graph_free(&graph);
    return rc;
}
