/* libFuzzer target: load, then run the whole runtime pipeline on what loaded.
 *
 * Input layout: the glTF/GLB file followed by PARAM_BYTES parameter bytes (inputs
 * shorter than that are taken as parameters only, with an empty file). The
 * parameters choose sampling times (raw float bits, so NaN, ±Inf, negative, huge
 * and denormal times all occur), a playback dt, and morph weights.
 *
 * For every clip, every time and loop mode, every lookup strategy (DEFAULT,
 * LINEAR, BINARY, TABLE, CURSOR) is sampled and the results must agree bit for bit
 * (track.h promises one key index for all strategies). Then the model-space
 * matrices, the skin palettes, morph targets (ossa_morph_job) and CPU skinning
 * (ossa_skin_job: LBS with every kernel, DQS) run on every mesh.
 * A player plays and cross-fades the clips. Data that loads but is nonsense (huge
 * or zero-length quaternions, IBMs that do not invert, degenerate keys) therefore
 * reaches every stage; only crashes, sanitizer reports and strategy disagreements
 * are failures here, not NaN outputs. Inputs that do not load and do not look like
 * a file (first byte neither '{' nor 'g') run the raw mode below instead: their bytes
 * become clip keys handed straight to ossa_clip_create. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ossa/ossa.h>

#define PARAM_BYTES 32
#define MAX_JOINTS 4096
#define MAX_VERTS 65536

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "fuzz_sample: invariant failed: %s (line %d)\n", #cond, __LINE__); \
            abort();                                                                       \
        }                                                                                  \
    } while (0)

static float param_float(const uint8_t *p) {
    float f;
    memcpy(&f, p, sizeof f);
    return f;
}

static ossa_transform g_ref[MAX_JOINTS], g_pose[MAX_JOINTS], g_pose2[MAX_JOINTS];
static ossa_mat4 g_model[MAX_JOINTS], g_palette[MAX_JOINTS], g_skin_palette[MAX_JOINTS];
static ossa_dual_quat g_dq[MAX_JOINTS];
enum { BATCH_POSES = 17 }; /* one pass of the widest (16-lane) batch kernel and one pose after it */
static ossa_mat4 g_batch[BATCH_POSES][MAX_JOINTS];
static float g_batch_scratch[192 * MAX_JOINTS];
static float g_morph_pos[MAX_VERTS * 3], g_morph_nrm[MAX_VERTS * 3];
static float g_out_pos[MAX_VERTS * 3], g_out_nrm[MAX_VERTS * 3], g_out_tan[MAX_VERTS * 4];

static void sample_clip(const ossa_clip *clip, const ossa_skeleton *sk, const float *times, uint32_t time_count,
                        uint32_t *cursors, uint32_t cursor_count, float *w1, float *w2) {
    uint32_t n = sk ? sk->joint_count : 0;
    for (uint32_t ti = 0; ti < time_count; ti++) {
        for (int loop = 0; loop < 2; loop++) {
            float t = times[ti];
            ossa_clip_sample_job ref = {.clip = clip, .time = t, .loop = loop, .lookup = OSSA_LOOKUP_LINEAR,
                                        .reference = g_ref, .reference_count = n, .output = g_pose,
                                        .output_count = MAX_JOINTS};
            CHECK(ossa_clip_sample_job_run(&ref) == OSSA_OK);
            for (int lk = OSSA_LOOKUP_DEFAULT; lk <= OSSA_LOOKUP_CURSOR; lk++) {
                ossa_clip_sample_job job = ref;
                job.lookup = (ossa_lookup)lk, job.cursors = cursors, job.cursor_count = cursor_count;
                job.output = g_pose2;
                CHECK(ossa_clip_sample_job_run(&job) == OSSA_OK);
                CHECK(memcmp(&job.sampled_time, &ref.sampled_time, sizeof ref.sampled_time) == 0);
                CHECK(memcmp(g_pose, g_pose2, n * sizeof *g_pose) == 0);
            }
            for (uint32_t w = 0; w < clip->weight_track_count; w++) {
                uint32_t comps = clip->weight_tracks[w].weights.components;
                CHECK(comps <= OSSA_MAX_COMPONENTS);
                ossa_clip_weights_job wref = {.clip = clip, .track = w, .time = t, .loop = loop,
                                              .lookup = OSSA_LOOKUP_LINEAR, .output = w1,
                                              .output_count = OSSA_MAX_COMPONENTS};
                CHECK(ossa_clip_weights_job_run(&wref) == OSSA_OK);
                for (int lk = OSSA_LOOKUP_DEFAULT; lk <= OSSA_LOOKUP_CURSOR; lk++) {
                    ossa_clip_weights_job wj = wref;
                    wj.lookup = (ossa_lookup)lk, wj.cursors = cursors, wj.cursor_count = cursor_count, wj.output = w2;
                    CHECK(ossa_clip_weights_job_run(&wj) == OSSA_OK);
                    CHECK(memcmp(w1, w2, comps * sizeof *w1) == 0);
                }
            }
        }
    }
}

static void skin_meshes(const ossa_asset *a, const ossa_clip *clip, float t, float fuzz_weight) {
    const ossa_skeleton *sk = a->skeleton;
    uint32_t n = sk ? sk->joint_count : 0;
    if (!sk) return;
    ossa_local_to_model_job lm = {.skeleton = sk, .input = g_pose, .input_count = n, .output = g_model,
                                  .output_count = MAX_JOINTS};
    CHECK(ossa_local_to_model_job_run(&lm) == OSSA_OK);
    float weights[OSSA_MAX_COMPONENTS];
    for (uint32_t m = 0; m < a->mesh_count; m++) {
        const ossa_mesh *mesh = a->meshes[m];
        if (mesh->vertex_count > MAX_VERTS) continue;
        /* morph weights: the clip's track for this node, else defaults, else the fuzzer's */
        for (uint32_t k = 0; k < mesh->target_count; k++)
            weights[k] = mesh->default_weights ? mesh->default_weights[k] : fuzz_weight;
        if (clip)
            for (uint32_t w = 0; w < clip->weight_track_count; w++)
                if ((int32_t)clip->weight_tracks[w].joint == mesh->node &&
                    clip->weight_tracks[w].weights.components == mesh->target_count) {
                    ossa_clip_weights_job wj = {.clip = clip, .track = w, .time = t, .lookup = OSSA_LOOKUP_BINARY,
                                                .output = weights, .output_count = OSSA_MAX_COMPONENTS};
                    CHECK(ossa_clip_weights_job_run(&wj) == OSSA_OK);
                }
        ossa_morph_job mj = {.mesh = mesh, .weights = weights, .weight_count = OSSA_MAX_COMPONENTS,
                             .end = mesh->vertex_count, .out_positions = g_morph_pos, .out_positions_count = MAX_VERTS,
                             .out_normals = mesh->normals ? g_morph_nrm : NULL, .out_normals_count = MAX_VERTS};
        CHECK(ossa_morph_job_run(&mj) == OSSA_OK);
        if (!mesh->influences || mesh->skin < 0) continue;
        /* skeleton-indexed palette for this mesh's skin */
        const ossa_skin *skin = &sk->skins[mesh->skin];
        ossa_palette_job pj = {.skeleton = sk, .skin = (uint32_t)mesh->skin, .model = g_model,
                               .model_count = MAX_JOINTS, .output = g_palette, .output_count = MAX_JOINTS};
        CHECK(ossa_palette_job_run(&pj) == OSSA_OK);
        /* the compact (skin-indexed) layout agrees entry for entry; a skin too long for the
         * buffer is BUFFER_TOO_SMALL, not an overflow */
        pj.layout = OSSA_PALETTE_LAYOUT_SKIN, pj.output = g_skin_palette;
        ossa_result pr = ossa_palette_job_run(&pj);
        CHECK(pr == (skin->joint_count <= MAX_JOINTS ? OSSA_OK : OSSA_ERROR_BUFFER_TOO_SMALL));
        if (pr == OSSA_OK) { /* a joint listed twice: the skeleton layout keeps its last entry */
            static uint8_t seen[MAX_JOINTS];
            memset(seen, 0, n);
            for (uint32_t i = skin->joint_count; i-- > 0;) {
                uint32_t j = skin->joints[i];
                if (!seen[j]) CHECK(memcmp(&g_skin_palette[i], &g_palette[j], sizeof(ossa_mat4)) == 0);
                seen[j] = 1;
            }
        }
        /* the palette batch job over copies of the pose (every lane kernel the level has, and a
         * pose by pose): each palette the palette job's values wherever both are finite (a SIMD
         * local-to-model multiplies a root by the identity, so an infinite local may come out
         * NaN there) */
        const ossa_transform *poses[BATCH_POSES];
        ossa_mat4 *batch[BATCH_POSES];
        for (uint32_t k = 0; k < BATCH_POSES; k++) poses[k] = g_pose, batch[k] = g_batch[k];
        ossa_palette_batch_job bj = {.skeleton = sk, .skin = (uint32_t)mesh->skin, .locals = poses, .outputs = batch,
                                     .pose_count = BATCH_POSES, .output_count = MAX_JOINTS, .scratch = g_batch_scratch,
                                     .scratch_count = 192 * MAX_JOINTS};
        CHECK(ossa_palette_batch_job_run(&bj) == OSSA_OK); /* n <= MAX_JOINTS: the local-to-model job ran */
        for (uint32_t k = 0; k < BATCH_POSES; k++)
            for (uint32_t j = 0; j < n; j++)
                for (int e = 0; e < 16; e++) {
                    float a = g_batch[k][j].m[e], b = g_palette[j].m[e];
                    CHECK(!(isfinite(a) && isfinite(b)) || a == b);
                }
        ossa_skin_job job;
        memset(&job, 0, sizeof job);
        job.begin = 0;
        job.end = mesh->vertex_count;
        job.vertex_count = mesh->vertex_count;
        job.influences = mesh->influences;
        job.joints = mesh->joints;
        job.weights = mesh->weights;
        job.palette = g_palette;
        job.palette_count = n;
        job.positions = g_morph_pos;
        job.normals = mesh->normals ? g_morph_nrm : NULL;
        job.tangents = mesh->tangents;
        job.out_positions = g_out_pos;
        job.out_normals = mesh->normals ? g_out_nrm : NULL;
        job.out_tangents = mesh->tangents ? g_out_tan : NULL;
        for (int k = OSSA_SKIN_KERNEL_AUTO; k <= OSSA_SKIN_KERNEL_AVX512; k++) {
            job.kernel = (ossa_skin_kernel)k;
            ossa_result r = ossa_skin_job_run(&job);
            if (ossa_skin_kernel_available((ossa_skin_kernel)k) || k == OSSA_SKIN_KERNEL_AUTO) CHECK(r == OSSA_OK);
            else CHECK(r == OSSA_ERROR_UNSUPPORTED);
        }
        ossa_dual_quat_job dj = {.palette = g_palette, .palette_count = n, .output = g_dq, .output_count = MAX_JOINTS};
        CHECK(ossa_dual_quat_job_run(&dj) == OSSA_OK);
        job.method = OSSA_SKIN_DQS, job.kernel = OSSA_SKIN_KERNEL_AUTO, job.dual_quats = g_dq;
        CHECK(ossa_skin_job_run(&job) == OSSA_OK);
    }
}

static void run(const ossa_asset *a, const uint8_t *p) {
    const ossa_skeleton *sk = a->skeleton;
    uint32_t n = sk ? sk->joint_count : 0;
    if (n > MAX_JOINTS) return;
    for (uint32_t j = 0; j < n; j++) g_ref[j] = sk->rest[j];
    float times[12];
    uint32_t tc = 0;
    for (int i = 0; i < 5; i++) times[tc++] = param_float(p + 4 * i);
    times[tc++] = NAN;
    times[tc++] = INFINITY;
    times[tc++] = -INFINITY;
    times[tc++] = -1e30f;
    times[tc++] = 3.0e38f;
    float dt = param_float(p + 20);
    float fuzz_weight = param_float(p + 24);
    uint32_t flags = p[28];

    static float w1[OSSA_MAX_COMPONENTS], w2[OSSA_MAX_COMPONENTS];
    static uint32_t cursors[1u << 16];
    /* rest pose through the pipeline first */
    for (uint32_t j = 0; j < n; j++) g_pose[j] = sk->rest[j];
    skin_meshes(a, NULL, 0, fuzz_weight);
    for (uint32_t c = 0; c < a->clip_count; c++) {
        const ossa_clip *clip = a->clips[c];
        uint32_t cc = ossa_clip_cursor_count(clip);
        if (cc > sizeof cursors / sizeof cursors[0]) continue;
        for (uint32_t i = 0; i < cc; i++) cursors[i] = flags & 1 ? 0xFFFFFFFFu : i * 7919u;
        times[tc] = clip->start;
        times[tc + 1] = clip->end;
        sample_clip(clip, sk, times, tc + 2, cursors, cc, w1, w2);
        /* the pose at times[0] goes through skinning */
        ossa_clip_sample_job sj = {.clip = clip, .time = times[0], .loop = flags & 2, .reference = g_ref,
                                   .reference_count = n, .output = g_pose, .output_count = MAX_JOINTS};
        CHECK(ossa_clip_sample_job_run(&sj) == OSSA_OK);
        skin_meshes(a, clip, times[0], fuzz_weight);
    }
    if (sk && a->clip_count) {
        ossa_player *player = NULL;
        if (ossa_player_create(sk, NULL, &player) == OSSA_OK) {
            CHECK(ossa_player_play(player, ossa_source_editable(a->clips[0]), times[1], flags & 4) == OSSA_OK);
            for (int s = 0; s < 4; s++) ossa_player_update(player, dt);
            ossa_clip_source last = ossa_source_editable(a->clips[a->clip_count - 1]);
            CHECK(ossa_player_crossfade(player, last, times[2], times[3], flags & 8) == OSSA_OK);
            for (int s = 0; s < 4; s++) ossa_player_update(player, dt);
            CHECK(ossa_player_model(player, g_model, MAX_JOINTS) == OSSA_OK);
            for (uint32_t k = 0; k < sk->skin_count; k++)
                CHECK(ossa_player_palette(player, k, g_palette, MAX_JOINTS) == OSSA_OK);
            ossa_player_destroy(player);
        }
    }
}

/* Raw mode, for bytes that are not a loadable file: the bytes become the keys of a
 * clip built through the public API (any float bit pattern: NaN, ±Inf, denormals,
 * unsorted times, zero or huge quaternions). ossa_clip_create must refuse what
 * ossa_track_validate refuses and everything else must sample like a loaded clip. */
static void run_raw(const uint8_t *data, size_t size, const uint8_t *p) {
    static float f[4096];
    if (size < 8) return;
    uint32_t n = 1u + data[0] % 12u, comps = 1u + data[2] % 4u;
    ossa_interp interp = (ossa_interp)(data[1] % 4u);
    uint32_t mult = interp == OSSA_INTERP_CUBIC ? 3u : 1u;
    size_t floats = (size - 4) / 4;
    if (floats > sizeof f / sizeof f[0]) floats = sizeof f / sizeof f[0];
    memcpy(f, data + 4, floats * 4);
    /* times, translation (3), rotation (4), weights (comps) */
    size_t need = n + (size_t)n * mult * (3 + 4 + comps);
    if (floats < need) return;
    const float *times = f, *tv = f + n, *rv = tv + (size_t)n * mult * 3, *wv = rv + (size_t)n * mult * 4;
    ossa_transform_track tt;
    memset(&tt, 0, sizeof tt);
    tt.joint = data[3] % 3u; /* joint 2 is past the 2-joint pose: must be skipped */
    ossa_track *tr[2] = {&tt.translation, &tt.rotation};
    const float *vals[2] = {tv, rv};
    for (int i = 0; i < 2; i++) {
        tr[i]->kind = i ? OSSA_TRACK_ROTATION : OSSA_TRACK_VECTOR;
        tr[i]->interp = interp;
        tr[i]->components = i ? 4 : 3;
        tr[i]->key_count = n;
        tr[i]->times = times;
        tr[i]->values = vals[i];
    }
    tt.scale.components = 3;
    ossa_weight_track wt;
    memset(&wt, 0, sizeof wt);
    wt.weights = tt.translation;
    wt.weights.components = comps;
    wt.weights.values = wv;
    ossa_clip_desc d;
    memset(&d, 0, sizeof d);
    d.track_count = 1;
    d.tracks = &tt;
    d.weight_track_count = 1;
    d.weight_tracks = &wt;
    d.table_rate = param_float(p + 24);
    ossa_result valid = ossa_track_validate(&tt.translation);
    ossa_clip *clip = NULL;
    ossa_result r = ossa_clip_create(&d, NULL, &clip);
    if (isnan(d.table_rate)) {
        CHECK(r == OSSA_ERROR_INVALID_ARGUMENT);
        return;
    }
    CHECK((r == OSSA_OK) == (valid == OSSA_OK));
    if (r != OSSA_OK) {
        CHECK(clip == NULL);
        return;
    }
    static const int32_t parents[2] = {-1, 0};
    g_ref[0] = g_ref[1] = ossa_transform_identity();
    float ts[8] = {param_float(p), param_float(p + 4), param_float(p + 8), NAN, INFINITY, -INFINITY, clip->start,
                   clip->end};
    static uint32_t cursors[8];
    static float w1[OSSA_MAX_COMPONENTS], w2[OSSA_MAX_COMPONENTS];
    memset(cursors, p[28], sizeof cursors);
    CHECK(ossa_clip_cursor_count(clip) <= 8);
    ossa_skeleton sk;
    memset(&sk, 0, sizeof sk);
    sk.joint_count = 2;
    sk.parents = (int32_t *)(uintptr_t)parents;
    sk.rest = g_ref;
    sample_clip(clip, &sk, ts, 8, cursors, 8, w1, w2);
    ossa_local_to_model_job lm = {.parents = parents, .parent_count = 2, .input = g_pose, .input_count = 2,
                                  .output = g_model, .output_count = 2};
    CHECK(ossa_local_to_model_job_run(&lm) == OSSA_OK);
    ossa_dual_quat_job dj = {.palette = g_model, .palette_count = 2, .output = g_dq, .output_count = MAX_JOINTS};
    CHECK(ossa_dual_quat_job_run(&dj) == OSSA_OK);
    ossa_clip_destroy(clip);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t params[PARAM_BYTES];
    memset(params, 0, sizeof params);
    size_t doc = size > PARAM_BYTES ? size - PARAM_BYTES : 0;
    memcpy(params, data + doc, size - doc);
    if (!doc) return 0;
    ossa_load_options options;
    memset(&options, 0, sizeof options);
    options.max_allocation = (size_t)64 << 20;
    options.table_rate = params[29] & 1 ? -1.0f : (float)params[30];
    ossa_asset *asset = NULL;
    if (ossa_gltf_load_memory(data, doc, &options, &asset, NULL) != OSSA_OK) {
        if (doc && data[0] != '{' && data[0] != 'g') run_raw(data, doc, params);
        return 0;
    }
    run(asset, params);
    ossa_asset_destroy(asset);
    return 0;
}
