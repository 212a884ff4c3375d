/* libFuzzer target: the animation-graph JSON loader, then the graph built from what it loaded
 * and run.
 *
 * The input is a graph description (JSON). A load must either fail with a result code and a
 * NUL-terminated diagnostic whose path is empty or a JSON pointer ("/..."), or succeed with a
 * description that ossa_graph_desc_validate accepts. A loaded description is then built
 * against a 3-joint skeleton ("Hips", "Spine", "Arm") and five small clips ("Idle", "Walk",
 * "Run", "Jump", "Punch"); when that succeeds, an instance runs 40 updates with parameters
 * driven by the input's bytes (triggers fired, floats swept, including large values) and
 * every pose must be finite with unit-length rotations. max_bytes is the loader's default.
 *
 * Build: cmake -DOSSA_BUILD_FUZZ=ON -DOSSA_SANITIZE=ON with CC=clang (scripts/fuzz.sh).
 * Seeds: fuzz/corpus/fuzz_graph (hand-written descriptions). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ossa/ossa.h>

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "fuzz_graph: invariant failed: %s (line %d)\n", #cond, __LINE__); \
            abort();                                                                       \
        }                                                                                  \
    } while (0)

#define NJ 3
#define NC 5

static ossa_skeleton *skeleton;
static ossa_clip *clips[NC];
static ossa_graph_clip graph_clips[NC];

static ossa_clip *make_clip(const char *name, float duration, float speed) {
    static float times[NC][NJ][2], values[NC][NJ][6], rotations[NC][NJ][8];
    static int made;
    ossa_transform_track tracks[NJ];
    for (uint32_t j = 0; j < NJ; j++) {
        float *t = times[made][j], *v = values[made][j], *r = rotations[made][j];
        t[0] = 0, t[1] = duration;
        v[0] = 0, v[1] = 1, v[2] = 0, v[3] = speed * duration, v[4] = 1, v[5] = 0;
        float a = 0.3f * speed;
        r[0] = 0, r[1] = 0, r[2] = 0, r[3] = 1, r[4] = 0, r[5] = sinf(a), r[6] = 0, r[7] = cosf(a);
        tracks[j] = (ossa_transform_track){.joint = j,
                                           .translation = {OSSA_TRACK_VECTOR, OSSA_INTERP_LINEAR, 3, 2, t, v, {0}},
                                           .rotation = {OSSA_TRACK_ROTATION, OSSA_INTERP_LINEAR, 4, 2, t, r, {0}}};
    }
    made++;
    ossa_clip_desc d = {.name = name, .looping = true, .track_count = NJ, .tracks = tracks};
    ossa_clip *clip = NULL;
    CHECK(ossa_clip_create(&d, NULL, &clip) == OSSA_OK);
    return clip;
}

static void init(void) {
    if (skeleton) return;
    int32_t parents[NJ] = {-1, 0, 1};
    const char *names[NJ] = {"Hips", "Spine", "Arm"};
    ossa_skeleton_desc d = {.joint_count = NJ, .parents = parents, .names = names};
    CHECK(ossa_skeleton_create(&d, NULL, &skeleton) == OSSA_OK);
    const char *clip_names[NC] = {"Idle", "Walk", "Run", "Jump", "Punch"};
    for (int i = 0; i < NC; i++) {
        clips[i] = make_clip(clip_names[i], 0.5f + 0.4f * (float)i, (float)i - 1.0f);
        graph_clips[i] = (ossa_graph_clip){clip_names[i], ossa_source_editable(clips[i]), NULL};
    }
}

static void check_diagnostic(const ossa_diagnostic *diag) {
    CHECK(memchr(diag->path, 0, sizeof diag->path) != NULL);
    CHECK(memchr(diag->message, 0, sizeof diag->message) != NULL);
    CHECK(diag->path[0] == '\0' || diag->path[0] == '/');
}

static void run(const ossa_graph *graph, const uint8_t *data, size_t size) {
    ossa_graph_instance *inst = NULL;
    if (ossa_graph_instance_create(graph, NULL, &inst) != OSSA_OK) return;
    uint32_t n = ossa_graph_parameter_count(graph);
    ossa_graph_value *p = calloc(n ? n : 1, sizeof *p);
    CHECK(p && ossa_graph_parameters_init(graph, p, n) == OSSA_OK);
    ossa_transform pose[NJ];
    ossa_graph_event events[4];
    for (uint32_t frame = 0; frame < 40; frame++) {
        for (uint32_t i = 0; i < n; i++) {
            uint8_t b = size ? data[(frame * 7u + i * 13u) % size] : 0;
            if (ossa_graph_parameter_type_of(graph, i) == OSSA_GRAPH_PARAMETER_FLOAT)
                p[i].number = b == 255 ? 1e30f : ((float)b - 64.0f) * 0.05f;
            else
                p[i].flag = (b & 3u) == 0;
        }
        ossa_graph_output out = {.pose = pose, .pose_count = NJ, .events = events, .event_capacity = 4};
        ossa_result r = ossa_graph_update(inst, frame % 5 == 4 ? 0.0f : 1.0f / 30, p, n, &out);
        CHECK(r == OSSA_OK || r == OSSA_ERROR_BUFFER_TOO_SMALL);
        for (uint32_t j = 0; j < NJ; j++) {
            CHECK(isfinite(pose[j].translation.x) && isfinite(pose[j].translation.y) && isfinite(pose[j].scale.z));
            ossa_quat q = pose[j].rotation;
            CHECK(fabsf(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w - 1.0f) < 1e-3f);
        }
        for (uint32_t l = 0; l < ossa_graph_layer_count(graph); l++) {
            ossa_graph_layer_status s;
            CHECK(ossa_graph_instance_layer_status(inst, l, &s) == OSSA_OK);
            CHECK(s.state < ossa_graph_state_count(graph, l) && s.progress >= 0.0f && s.progress <= 1.0f);
        }
    }
    free(p);
    ossa_graph_instance_destroy(inst);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    init();
    ossa_graph_desc *desc = NULL;
    ossa_diagnostic diag = {{0}, {0}};
    ossa_result r = ossa_graph_desc_load_memory(data, size, NULL, &desc, &diag);
    if (r != OSSA_OK) {
        CHECK(desc == NULL);
        check_diagnostic(&diag);
        return 0;
    }
    CHECK(ossa_graph_desc_validate(desc, NULL) == OSSA_OK);
    ossa_graph *graph = NULL;
    memset(&diag, 0, sizeof diag);
    r = ossa_graph_create(desc, skeleton, graph_clips, NC, NULL, &graph, &diag);
    if (r == OSSA_OK) {
        run(graph, data, size);
        ossa_graph_destroy(graph);
    } else {
        CHECK(graph == NULL);
        check_diagnostic(&diag);
    }
    ossa_graph_desc_destroy(desc);
    return 0;
}
