#include "test_support.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- skip log ---- */

static char pending_reason[1024]; /* for the next skip(); empty when none */
static char printed_reason[1024]; /* the last one printed */

void ot_skip_reason(const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(pending_reason, sizeof pending_reason, format, args);
    va_end(args);
    size_t n = strlen(pending_reason);
    while (n > 0 && (pending_reason[n - 1] == '\n' || pending_reason[n - 1] == ' ')) pending_reason[--n] = 0;
    for (size_t i = 0; i < n; i++) /* one log line per skip */
        if (pending_reason[i] == '\n' || pending_reason[i] == '\r') pending_reason[i] = ';';
    if (strcmp(pending_reason, printed_reason) != 0) {
        printf("[  SKIP    ] %s\n", pending_reason);
        memcpy(printed_reason, pending_reason, sizeof printed_reason);
    }
}

/* OSSA_TEST_NAME, else the executable's name (Linux), else "?". */
static const char *test_name(void) {
    static char comm[64];
    const char *name = getenv("OSSA_TEST_NAME");
    if (name && *name) return name;
    if (!comm[0]) {
        FILE *f = fopen("/proc/self/comm", "r");
        if (!f || !fgets(comm, sizeof comm, f)) snprintf(comm, sizeof comm, "?");
        if (f) fclose(f);
        comm[strcspn(comm, "\n")] = 0;
    }
    return comm;
}

/* Appends "<test>: <case>: <what><reason>\n" to OSSA_SKIP_LOG with one write (O_APPEND), so
 * tests running in parallel never interleave within a line. */
static void log_skip(const char *case_name, const char *what, const char *reason) {
    const char *log = getenv("OSSA_SKIP_LOG");
    if (!log || !*log) return;
    char line[1536];
    int n = snprintf(line, sizeof line, "%s: %s: %s%s\n", test_name(), case_name, what, reason);
    if (n <= 0) return;
    size_t len = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
    if (len == sizeof line - 1) line[len - 1] = '\n';
    int fd = open(log, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd < 0) {
        printf("[  WARN    ] cannot append to OSSA_SKIP_LOG %s: %s\n", log, strerror(errno));
        return;
    }
    if (write(fd, line, len) != (ssize_t)len) printf("[  WARN    ] short write to OSSA_SKIP_LOG %s\n", log);
    close(fd);
}

void ot_skip_case(const char *case_name, const char *file, int line) {
    char reason[sizeof pending_reason];
    if (pending_reason[0]) snprintf(reason, sizeof reason, "%s", pending_reason);
    else snprintf(reason, sizeof reason, "no reason given (skip() at %s:%d)", file, line);
    pending_reason[0] = 0;
    log_skip(case_name, "", reason);
    _skip(file, line);
}

void ot_skip_part_in(const char *case_name, const char *format, ...) {
    char reason[sizeof pending_reason];
    va_list args;
    va_start(args, format);
    vsnprintf(reason, sizeof reason, format, args);
    va_end(args);
    printf("[  SKIP    ] (part of %s) %s\n", case_name, reason);
    log_skip(case_name, "part not tried: ", reason);
}

/* ---- environment ---- */

const char *ot_asset(const char *relative) {
    static char path[4096];
    const char *root = getenv("OSSA_ASSETS");
    if (!root || !*root) {
        ot_skip_reason("OSSA_ASSETS is not set: shared assets unavailable");
        return NULL;
    }
    if (access(root, R_OK) != 0) {
        ot_skip_reason("shared assets folder %s not found (OSSA_ASSETS)", root);
        return NULL;
    }
    snprintf(path, sizeof path, "%s/%s", root, relative);
    if (access(path, R_OK) != 0) {
        ot_skip_reason("shared asset %s not found under %s", relative, root);
        return NULL;
    }
    return path;
}

const char *ot_assimp_model(const char *relative) {
    static char path[4096];
    snprintf(path, sizeof path, "/usr/share/assimp/models/%s", relative);
    if (access(path, R_OK) != 0) {
        ot_skip_reason("%s absent (Debian package assimp-testmodels not installed)", path);
        return NULL;
    }
    return path;
}

ossa_asset *ot_load_asset_in(const char *case_name, const char *relative) {
    const char *path = ot_asset(relative);
    if (!path) { /* "helper(file)": helpers that load for several cases log one line per case */
        char label[512];
        snprintf(label, sizeof label, "%s(%s)", case_name, relative);
        ot_skip_case(label, __FILE__, __LINE__);
    }
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
    if (tool && *tool) return tool;
    ot_skip_reason("OSSA_TOOL is not set: the ossa tool was not built");
    return NULL;
}

const char *ot_gl_tool(void) {
    if (!ot_tool()) return NULL;
    const char *gl = getenv("OSSA_TOOL_GL");
    if (gl && !strcmp(gl, "1")) return ot_tool();
    ot_skip_reason("the ossa tool was built without GL: its drawing commands are not tested");
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

bool ot_under_valgrind(void) {
    const char *v = getenv("OSSA_UNDER_VALGRIND");
    return v && *v == '1';
}

int ot_tool_run(const char *args, char **out) {
    char cmd[10240];
    int n = snprintf(cmd, sizeof cmd, "\"%s\" %s 2>&1", ot_tool(), args);
    if (n < 0 || (size_t)n >= sizeof cmd) return -1;
    return ot_run(cmd, out);
}

/* Each block carries its size in a 16-byte header (keeps malloc's alignment). */
static void *counting_alloc(size_t size, void *user) {
    ot_counting *c = user;
    size_t *p = malloc(size + 16);
    if (!p) return NULL;
    p[0] = size;
    c->live += size;
    if (c->live > c->peak) c->peak = c->live;
    c->allocs++;
    return (char *)p + 16;
}

static void counting_free(void *ptr, void *user) {
    ot_counting *c = user;
    if (!ptr) return;
    size_t *p = (size_t *)(void *)((char *)ptr - 16);
    c->live -= p[0];
    c->frees++;
    free(p);
}

ossa_allocator ot_counting_allocator(ot_counting *counting) {
    ossa_allocator a = {counting_alloc, counting_free, counting};
    return a;
}
