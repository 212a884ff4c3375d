/* Morph targets (src/skin/morph.c): ossa_morph_job against base + Σ wᵢ·deltaᵢ
 * computed independently, on random meshes and on AnimatedMorphCube read by hand. */
#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SENTINEL 777.0f

static float *random_floats(uint64_t *rng, size_t n) {
    float *f = malloc(sizeof(float) * n);
    assert_non_null(f);
    for (size_t i = 0; i < n; i++) f[i] = ot_rand_float(rng, -1, 1);
    return f;
}

static void expected_sum(const ossa_mesh *m, const float *w, uint32_t v, bool normals, double out[3]) {
    const float *base = normals ? m->normals : m->positions;
    for (uint32_t c = 0; c < 3; c++) {
        out[c] = base[v * 3 + c];
        for (uint32_t t = 0; t < m->target_count; t++) {
            const float *d = normals ? m->targets[t].normals : m->targets[t].positions;
            if (d) out[c] += (double)w[t] * d[v * 3 + c];
        }
    }
}

static void check_range(const ossa_mesh *m, const float *w, uint32_t begin, uint32_t end, const float *op,
                        const float *on, float tol) {
    for (uint32_t v = 0; v < m->vertex_count; v++) {
        double e[3];
        for (int pass = 0; pass < 2; pass++) {
            const float *o = pass ? on : op;
            if (!o) continue;
            if (v < begin || v >= end) {
                for (uint32_t c = 0; c < 3; c++) assert_true(o[v * 3 + c] == SENTINEL);
                continue;
            }
            expected_sum(m, w, v, pass == 1, e);
            for (uint32_t c = 0; c < 3; c++) ot_assert_near(o[v * 3 + c], e[c], tol);
        }
    }
}

/* ossa_morph_job over [begin, end) of m into op / on (both m->vertex_count long; on may
 * be NULL), with weights of m->target_count entries. */
static ossa_result morph(const ossa_mesh *m, const float *weights, uint32_t begin, uint32_t end, float *op, float *on) {
    uint32_t n = m ? m->vertex_count : 0;
    ossa_morph_job job = {.mesh = m, .weights = weights, .weight_count = m ? m->target_count : 0, .begin = begin,
                          .end = end, .out_positions = op, .out_positions_count = n, .out_normals = on,
                          .out_normals_count = on ? n : 0};
    return ossa_morph_job_run(&job);
}

/* Validation fails with `expected`, naming `field`; _run fails alike. */
static void expect_invalid(ossa_morph_job job, ossa_result expected, const char *field) {
    ossa_diagnostic diag;
    memset(&diag, 0, sizeof diag);
    assert_int_equal(ossa_morph_job_validate(&job, &diag), expected);
    assert_string_equal(diag.path, field);
    assert_true(strncmp(diag.message, field, strlen(field)) == 0 && diag.message[strlen(field)] == ':');
    assert_int_equal(ossa_morph_job_run(&job), expected);
}

/* ozz-style: the zeroed job fails; each required field added in turn names the next one
 * missing, until the job validates; then each wrong field is named. Nothing is written by a
 * job that fails. */
static void job_validation(void **state) {
    (void)state;
    float base[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0}, delta[9] = {1, 1, 1, 2, 2, 2, 3, 3, 3}, nrm[9] = {0};
    ossa_morph_target target = {delta, NULL, NULL};
    ossa_mesh mesh = {0};
    mesh.vertex_count = 3, mesh.positions = base, mesh.target_count = 1, mesh.targets = &target;
    float w = 0.5f, op[9], on[9];
    for (int i = 0; i < 9; i++) op[i] = on[i] = SENTINEL;
    ossa_diagnostic diag;
    assert_int_equal(ossa_morph_job_validate(NULL, &diag), OSSA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(diag.path, "job");
    assert_int_equal(ossa_morph_job_run(NULL), OSSA_ERROR_INVALID_ARGUMENT);

    ossa_morph_job job = {0};
    expect_invalid(job, OSSA_ERROR_INVALID_ARGUMENT, "mesh");
    job.mesh = &mesh;
    expect_invalid(job, OSSA_ERROR_INVALID_ARGUMENT, "weights");
    job.weights = &w;
    expect_invalid(job, OSSA_ERROR_BUFFER_TOO_SMALL, "weights"); /* weight_count 0 < 1 target */
    job.weight_count = 1;
    expect_invalid(job, OSSA_ERROR_INVALID_ARGUMENT, "out_positions");
    job.out_positions = op;
    assert_int_equal(ossa_morph_job_validate(&job, &diag), OSSA_OK); /* empty range */
    job.end = 3;
    expect_invalid(job, OSSA_ERROR_BUFFER_TOO_SMALL, "out_positions"); /* out_positions_count 0 */
    job.out_positions_count = 3;
    assert_int_equal(ossa_morph_job_validate(&job, &diag), OSSA_OK);
    for (int i = 0; i < 9; i++) assert_true(op[i] == SENTINEL); /* the failed runs wrote nothing */
    job.begin = 1;
    assert_int_equal(ossa_morph_job_run(&job), OSSA_OK);
    const float expected[9] = {SENTINEL, SENTINEL, SENTINEL, 2, 1, 1, 1.5f, 2.5f, 1.5f}; /* base + 0.5 · delta */
    assert_memory_equal(op, expected, sizeof expected);

    ossa_morph_job bad = job;
    bad.begin = 3, bad.end = 2;
    expect_invalid(bad, OSSA_ERROR_INVALID_ARGUMENT, "begin");
    bad = job, bad.end = 4;
    expect_invalid(bad, OSSA_ERROR_INVALID_ARGUMENT, "end"); /* past the mesh's vertices */
    bad = job, bad.out_positions_count = 2;
    expect_invalid(bad, OSSA_ERROR_BUFFER_TOO_SMALL, "out_positions");
    bad = job, bad.out_normals = on; /* the mesh has no normals */
    expect_invalid(bad, OSSA_ERROR_INVALID_ARGUMENT, "out_normals");
    ossa_mesh with_normals = mesh;
    with_normals.normals = nrm;
    bad.mesh = &with_normals, bad.out_normals_count = 2;
    expect_invalid(bad, OSSA_ERROR_BUFFER_TOO_SMALL, "out_normals");
    ossa_mesh broken = mesh;
    broken.targets = NULL;
    bad = job, bad.mesh = &broken;
    expect_invalid(bad, OSSA_ERROR_INVALID_ARGUMENT, "mesh.targets");
    broken = mesh, broken.positions = NULL;
    bad.mesh = &broken;
    expect_invalid(bad, OSSA_ERROR_INVALID_ARGUMENT, "mesh.positions");
    for (int i = 0; i < 9; i++) assert_true(on[i] == SENTINEL);
    /* no targets: weights may be NULL */
    broken = mesh, broken.target_count = 0;
    bad = job, bad.mesh = &broken, bad.weights = NULL, bad.weight_count = 0;
    assert_int_equal(ossa_morph_job_run(&bad), OSSA_OK);
    assert_memory_equal(op + 3, base + 3, 24);
}

static void random_targets(void **state) {
    (void)state;
    uint64_t rng = 12;
    enum { N = 3001, T = 4 };
    ossa_morph_target targets[T];
    for (int t = 0; t < T; t++) {
        targets[t].positions = t == 2 ? NULL : random_floats(&rng, 3 * N);
        targets[t].normals = t == 1 ? NULL : random_floats(&rng, 3 * N);
        targets[t].tangents = NULL;
    }
    ossa_mesh m = {0};
    m.vertex_count = N, m.positions = random_floats(&rng, 3 * N), m.normals = random_floats(&rng, 3 * N);
    m.target_count = T, m.targets = targets;
    const float weight_sets[][T] = {{0, 0, 0, 0}, {1, 0, 0, 0}, {0.25f, -0.5f, 2, 0.75f}, {0.1f, 0.2f, 0.3f, 0.4f}};
    const uint32_t ranges[][2] = {{0, N}, {1, N - 1}, {1023, 2049}, {5, 5}, {N - 1, N}};
    float *op = malloc(12 * N), *on = malloc(12 * N);
    assert_true(op && on);
    for (size_t s = 0; s < 4; s++)
        for (size_t r = 0; r < 5; r++) {
            for (size_t i = 0; i < 3 * N; i++) op[i] = on[i] = SENTINEL;
            assert_int_equal(morph(&m, weight_sets[s], ranges[r][0], ranges[r][1], op, on), OSSA_OK);
            check_range(&m, weight_sets[s], ranges[r][0], ranges[r][1], op, on, 1e-5f);
        }
    /* positions only */
    for (size_t i = 0; i < 3 * N; i++) op[i] = on[i] = SENTINEL;
    assert_int_equal(morph(&m, weight_sets[2], 0, N, op, NULL), OSSA_OK);
    check_range(&m, weight_sets[2], 0, N, op, NULL, 1e-5f);
    /* errors */
    assert_int_equal(morph(NULL, weight_sets[0], 0, 1, op, on), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(morph(&m, NULL, 0, 1, op, on), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(morph(&m, weight_sets[0], 0, N + 1, op, on), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(morph(&m, weight_sets[0], 2, 1, op, on), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(morph(&m, weight_sets[0], 0, 1, NULL, on), OSSA_ERROR_INVALID_ARGUMENT);
    /* no targets: a copy */
    m.target_count = 0;
    assert_int_equal(morph(&m, NULL, 0, N, op, on), OSSA_OK);
    assert_memory_equal(op, m.positions, 12 * N);
    assert_memory_equal(on, m.normals, 12 * N);
    free(op), free(on), free(m.positions), free(m.normals);
    for (int t = 0; t < T; t++) free(targets[t].positions), free(targets[t].normals);
}

/* ---- a minimal JSON reader: just enough for AnimatedMorphCube's offsets ---- */
typedef struct jnode {
    char type; /* o a s n l (literal) */
    double num;
    const char *str, *key;
    int len, klen, first, next;
} jnode;
typedef struct jdoc {
    jnode nodes[4096];
    int count;
    const char *p;
} jdoc;

static void jws(jdoc *d) {
    while (*d->p == ' ' || *d->p == '\n' || *d->p == '\r' || *d->p == '\t') d->p++;
}

static int jstring(jdoc *d, const char **s) {
    const char *start = ++d->p;
    while (*d->p && *d->p != '"') d->p += (*d->p == '\\') ? 2 : 1;
    *s = start;
    return (int)(d->p++ - start);
}

static int jparse(jdoc *d) {
    jws(d);
    if (d->count >= 4096) return -1;
    int id = d->count++;
    jnode *n = &d->nodes[id];
    memset(n, 0, sizeof *n);
    n->first = n->next = -1;
    char c = *d->p;
    if (c == '{' || c == '[') {
        n->type = c == '{' ? 'o' : 'a';
        d->p++;
        int last = -1;
        for (;;) {
            jws(d);
            if (*d->p == '}' || *d->p == ']') {
                d->p++;
                break;
            }
            if (*d->p == ',') {
                d->p++;
                continue;
            }
            const char *key = NULL;
            int klen = 0;
            if (n->type == 'o') {
                klen = jstring(d, &key);
                jws(d);
                d->p++; /* ':' */
            }
            int child = jparse(d);
            if (child < 0) return -1;
            d->nodes[child].key = key, d->nodes[child].klen = klen;
            if (last < 0) d->nodes[id].first = child;
            else d->nodes[last].next = child;
            last = child;
        }
    } else if (c == '"') {
        n->type = 's';
        n->len = jstring(d, &n->str);
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        char *end;
        n->type = 'n';
        n->num = strtod(d->p, &end);
        d->p = end;
    } else {
        n->type = 'l';
        while (*d->p >= 'a' && *d->p <= 'z') d->p++;
    }
    return id;
}

static int jget(const jdoc *d, int obj, const char *key) {
    if (obj < 0) return -1;
    for (int c = d->nodes[obj].first; c >= 0; c = d->nodes[c].next)
        if (d->nodes[c].klen == (int)strlen(key) && !strncmp(d->nodes[c].key, key, strlen(key))) return c;
    return -1;
}

static int jat(const jdoc *d, int arr, int index) {
    if (arr < 0) return -1;
    int c = d->nodes[arr].first;
    while (c >= 0 && index-- > 0) c = d->nodes[c].next;
    return c;
}

static int jint(const jdoc *d, int node) {
    assert_true(node >= 0 && d->nodes[node].type == 'n');
    return (int)d->nodes[node].num;
}

static char *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = 0;
    fclose(f);
    if (size) *size = (size_t)n;
    return buf;
}

/* Float accessor data (tightly packed views only, as in this file), copied out. */
static float *accessor_floats(const jdoc *d, const char *bin, size_t bin_size, int accessor, int comps, int *count) {
    int a = jat(d, jget(d, 0, "accessors"), accessor);
    assert_int_equal(jint(d, jget(d, a, "componentType")), 5126);
    int bv = jat(d, jget(d, 0, "bufferViews"), jint(d, jget(d, a, "bufferView")));
    assert_int_equal(jget(d, bv, "byteStride"), -1);
    size_t off = (size_t)(jget(d, bv, "byteOffset") >= 0 ? jint(d, jget(d, bv, "byteOffset")) : 0);
    if (jget(d, a, "byteOffset") >= 0) off += (size_t)jint(d, jget(d, a, "byteOffset"));
    *count = jint(d, jget(d, a, "count"));
    size_t bytes = (size_t)*count * (size_t)comps * 4;
    assert_true(off + bytes <= bin_size);
    float *f = malloc(bytes);
    assert_non_null(f);
    memcpy(f, bin + off, bytes);
    return f;
}

typedef struct cube {
    jdoc *doc;
    char *json, *bin;
    ossa_mesh mesh;
    ossa_morph_target targets[2];
    float *times, *values;
    int key_count;
} cube;

static bool load_cube(cube *c) {
    const char *path = ot_asset("AnimatedMorphCube/AnimatedMorphCube.gltf");
    if (!path) return false;
    memset(c, 0, sizeof *c);
    c->json = read_file(path, NULL);
    const char *bpath = ot_asset("AnimatedMorphCube/AnimatedMorphCube.bin");
    assert_non_null(bpath);
    size_t bin_size;
    c->bin = read_file(bpath, &bin_size);
    c->doc = calloc(1, sizeof *c->doc);
    assert_non_null(c->doc);
    c->doc->p = c->json;
    assert_int_equal(jparse(c->doc), 0);
    const jdoc *d = c->doc;
    int prim = jat(d, jget(d, jat(d, jget(d, 0, "meshes"), 0), "primitives"), 0);
    int attrs = jget(d, prim, "attributes"), targets = jget(d, prim, "targets");
    int n;
    c->mesh.positions = accessor_floats(d, c->bin, bin_size, jint(d, jget(d, attrs, "POSITION")), 3, &n);
    c->mesh.vertex_count = (uint32_t)n;
    c->mesh.normals = accessor_floats(d, c->bin, bin_size, jint(d, jget(d, attrs, "NORMAL")), 3, &n);
    assert_int_equal(n, (int)c->mesh.vertex_count);
    for (int t = 0; t < 2; t++) {
        int tg = jat(d, targets, t);
        c->targets[t].positions = accessor_floats(d, c->bin, bin_size, jint(d, jget(d, tg, "POSITION")), 3, &n);
        c->targets[t].normals = accessor_floats(d, c->bin, bin_size, jint(d, jget(d, tg, "NORMAL")), 3, &n);
    }
    assert_int_equal(jat(d, targets, 2), -1);
    c->mesh.target_count = 2, c->mesh.targets = c->targets;
    int sampler = jat(d, jget(d, jat(d, jget(d, 0, "animations"), 0), "samplers"), 0);
    assert_int_equal(strncmp(d->nodes[jget(d, sampler, "interpolation")].str, "LINEAR", 6), 0);
    c->times = accessor_floats(d, c->bin, bin_size, jint(d, jget(d, sampler, "input")), 1, &c->key_count);
    c->values = accessor_floats(d, c->bin, bin_size, jint(d, jget(d, sampler, "output")), 1, &n);
    assert_int_equal(n, 2 * c->key_count);
    return true;
}

static void free_cube(cube *c) {
    free(c->mesh.positions), free(c->mesh.normals);
    for (int t = 0; t < 2; t++) free(c->targets[t].positions), free(c->targets[t].normals);
    free(c->times), free(c->values), free(c->json), free(c->bin), free(c->doc);
}

/* glTF LINEAR weights at time t (clamped to the first/last key). */
static void cube_weights(const cube *c, float t, float w[2]) {
    int k = 0;
    if (t <= c->times[0]) k = -1;
    else if (t >= c->times[c->key_count - 1]) k = c->key_count - 1;
    else
        while (!(t >= c->times[k] && t < c->times[k + 1])) k++;
    if (k < 0 || k == c->key_count - 1) {
        int i = k < 0 ? 0 : k;
        w[0] = c->values[2 * i], w[1] = c->values[2 * i + 1];
        return;
    }
    float u = (t - c->times[k]) / (c->times[k + 1] - c->times[k]);
    for (int i = 0; i < 2; i++) w[i] = c->values[2 * k + i] + (c->values[2 * (k + 1) + i] - c->values[2 * k + i]) * u;
}

static const float cube_times[] = {-1.0f, 0.0f, 0.3f, 1.234f, 2.0f, 2.5f, 3.77f, 4.19999743f, 10.0f};

static void animated_morph_cube_by_hand(void **state) {
    (void)state;
    cube c;
    if (!load_cube(&c)) skip();
    float *op = malloc(12 * c.mesh.vertex_count), *on = malloc(12 * c.mesh.vertex_count);
    float wmax = 0;
    for (size_t i = 0; i < sizeof cube_times / sizeof cube_times[0]; i++) {
        float w[2];
        cube_weights(&c, cube_times[i], w);
        wmax = fmaxf(wmax, fmaxf(w[0], w[1]));
        for (uint32_t v = 0; v < 3 * c.mesh.vertex_count; v++) op[v] = on[v] = SENTINEL;
        assert_int_equal(morph(&c.mesh, w, 0, c.mesh.vertex_count, op, on), OSSA_OK);
        check_range(&c.mesh, w, 0, c.mesh.vertex_count, op, on, 1e-6f);
    }
    assert_true(wmax > 0.5f); /* the animation really moves the targets */
    free(op), free(on);
    free_cube(&c);
}

/* The same file through the importer: the weights sampling job + ossa_morph_job on
 * the loaded mesh against the hand-read data and hand-interpolated weights. */
static void animated_morph_cube_through_loader(void **state) {
    (void)state;
    cube c;
    if (!load_cube(&c)) skip();
    ossa_asset *asset = NULL;
    ossa_diagnostic diag;
    ossa_result r = ossa_gltf_load_file(ot_asset("AnimatedMorphCube/AnimatedMorphCube.gltf"), NULL, &asset, &diag);
    if (r != OSSA_OK) fail_msg("load: %s %s", ossa_result_string(r), diag.message);
    assert_int_equal(asset->mesh_count, 1);
    const ossa_mesh *m = asset->meshes[0];
    assert_int_equal(m->vertex_count, c.mesh.vertex_count);
    assert_int_equal(m->target_count, 2);
    assert_int_equal(asset->clip_count, 1);
    const ossa_clip *clip = asset->clips[0];
    assert_int_equal(clip->weight_track_count, 1);
    uint32_t n = m->vertex_count;
    float *op = malloc(12 * n), *on = malloc(12 * n);
    for (size_t i = 0; i < sizeof cube_times / sizeof cube_times[0]; i++) {
        float mine[2], sampled[2] = {-1, -1};
        cube_weights(&c, cube_times[i], mine);
        ot_clip_sample_weights(clip, 0, cube_times[i], false, OSSA_LOOKUP_DEFAULT, NULL, sampled);
        ot_assert_near(sampled[0], mine[0], 1e-6), ot_assert_near(sampled[1], mine[1], 1e-6);
        for (uint32_t v = 0; v < 3 * n; v++) op[v] = on[v] = SENTINEL;
        assert_int_equal(morph(m, sampled, 0, n, op, on), OSSA_OK);
        check_range(&c.mesh, mine, 0, n, op, on, 1e-6f); /* expected from the hand-read buffers */
    }
    free(op), free(on);
    ossa_asset_destroy(asset);
    free_cube(&c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(job_validation),
        cmocka_unit_test(random_targets),
        cmocka_unit_test(animated_morph_cube_by_hand),
        cmocka_unit_test(animated_morph_cube_through_loader),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
