#include "test_support.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

const char *ot_asset(const char *relative) {
    static char path[4096];
    const char *root = getenv("OSSA_ASSETS");
    if (!root || !*root) {
        printf("[  SKIP    ] OSSA_ASSETS is not set: shared assets unavailable (%s)\n", relative);
        return NULL;
    }
    snprintf(path, sizeof path, "%s/%s", root, relative);
    if (access(path, R_OK) != 0) {
        printf("[  SKIP    ] shared asset %s not found: skipping the cases that need it\n", path);
        return NULL;
    }
    return path;
}

ossa_asset *ot_load_asset(const char *relative) {
    const char *path = ot_asset(relative);
    if (!path) skip();
    ossa_asset *asset = NULL;
    ossa_diagnostic diag;
    ossa_result r = ossa_gltf_load_file(path, NULL, &asset, &diag);
    if (r != OSSA_OK) fail_msg("%s: %s: %s", relative, ossa_result_string(r), diag.message);
    return asset;
}

const char *ot_tmp(const char *name) {
    static char path[4096];
    const char *root = getenv("OSSA_TMP");
    if (!root || !*root) root = "/tmp";
    mkdir(root, 0777);
    snprintf(path, sizeof path, "%s/%s", root, name);
    return path;
}

const char *ot_tool(void) {
    const char *tool = getenv("OSSA_TOOL");
    return (tool && *tool) ? tool : NULL;
}

const char *ot_gl_tool(void) {
    static bool said;
    if (!ot_tool()) return NULL;
    const char *gl = getenv("OSSA_TOOL_GL");
    if (gl && !strcmp(gl, "1")) return ot_tool();
    if (!said) printf("[  SKIP    ] the ossa tool was built without GL: its drawing commands are not tested\n");
    said = true;
    return NULL;
}

int ot_run(const char *command, char **out) {
    FILE *p = popen(command, "r");
    if (!p) return -1;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    size_t n;
    while ((n = fread(buf + len, 1, cap - len - 1, p)) > 0) {
        len += n;
        if (cap - len < 2) {
            cap *= 2;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
    }
    buf[len] = 0;
    int status = pclose(p);
    if (out) *out = buf;
    else free(buf);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

uint64_t ot_rand_u64(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

float ot_rand_float(uint64_t *state, float lo, float hi) {
    double u = (double)(ot_rand_u64(state) >> 11) * (1.0 / 9007199254740992.0);
    return (float)(lo + (hi - lo) * u);
}

ossa_quat ot_rand_quat(uint64_t *state) {
    for (;;) {
        float x = ot_rand_float(state, -1, 1), y = ot_rand_float(state, -1, 1);
        float z = ot_rand_float(state, -1, 1), w = ot_rand_float(state, -1, 1);
        float l = sqrtf(x * x + y * y + z * z + w * w);
        if (l > 0.1f && l <= 1.0f) {
            ossa_quat q = {x / l, y / l, z / l, w / l};
            return q;
        }
    }
}

void ot_assert_near_impl(double a, double b, double tol, const char *sa, const char *sb, const char *file, int line) {
    if (!(fabs(a - b) <= tol)) {
        fail_msg("%s:%d: %s = %.9g, %s = %.9g, |diff| %.3g > %.3g", file, line, sa, a, sb, b, fabs(a - b), tol);
    }
}

void ot_assert_floats_near(const float *a, const float *b, size_t count, float tol) {
    for (size_t i = 0; i < count; i++)
        if (!(fabsf(a[i] - b[i]) <= tol)) fail_msg("element %zu: %.9g vs %.9g (tol %.3g)", i, a[i], b[i], tol);
}

float ot_clip_sample(const ossa_clip *clip, float t, bool loop, ossa_lookup lookup, uint32_t *cursors,
                     const ossa_transform *reference, ossa_transform *out, uint32_t joint_count) {
    if (lookup == OSSA_LOOKUP_CURSOR && !cursors) lookup = OSSA_LOOKUP_DEFAULT;
    ossa_clip_sample_job job = {.clip = clip, .time = t, .loop = loop, .lookup = lookup, .cursors = cursors,
                                .cursor_count = cursors ? ossa_clip_cursor_count(clip) : 0, .reference = reference,
                                .reference_count = reference ? joint_count : 0, .output = out,
                                .output_count = joint_count};
    assert_int_equal(ossa_clip_sample_job_run(&job), OSSA_OK);
    return job.sampled_time;
}

float ot_clip_sample_weights(const ossa_clip *clip, uint32_t index, float t, bool loop, ossa_lookup lookup,
                             uint32_t *cursors, float *out) {
    if (lookup == OSSA_LOOKUP_CURSOR && !cursors) lookup = OSSA_LOOKUP_DEFAULT;
    assert_true(clip && index < clip->weight_track_count);
    ossa_clip_weights_job job = {.clip = clip, .track = index, .time = t, .loop = loop, .lookup = lookup,
                                 .cursors = cursors, .cursor_count = cursors ? ossa_clip_cursor_count(clip) : 0,
                                 .output = out, .output_count = clip->weight_tracks[index].weights.components};
    assert_int_equal(ossa_clip_weights_job_run(&job), OSSA_OK);
    return job.sampled_time;
}

void ot_local_to_model(const ossa_transform *locals, const int32_t *parents, uint32_t joint_count, ossa_mat4 *out) {
    ossa_local_to_model_job job = {.parents = parents, .parent_count = joint_count, .input = locals,
                                   .input_count = joint_count, .output = out, .output_count = joint_count};
    assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_OK);
}

void ot_palette(const ossa_skeleton *skeleton, uint32_t skin, const ossa_mat4 *model, ossa_mat4 *out) {
    ossa_palette_job job = {.skeleton = skeleton, .skin = skin, .model = model,
                            .model_count = skeleton->joint_count, .output = out,
                            .output_count = skeleton->joint_count};
    assert_int_equal(ossa_palette_job_run(&job), OSSA_OK);
}
