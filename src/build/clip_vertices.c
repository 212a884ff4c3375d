/* The clip builder's shells and its final check on real vertices (docs/built-clips.md, "The
 * guarantee"): each joint's shell in model units at the bind pose (the farthest vertex it moves,
 * or the default), the scale-aware defaults, and the skinning of the meshes through the built and
 * the exact clip. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ossa/pose.h>

#include "build/clip_build_internal.h"
#include "core/alloc.h"

float ossa_skeleton_bind_height(const ossa_skeleton *skeleton) {
    if (!skeleton) return 0.0f;
    uint32_t J = skeleton->joint_count;
    ossa_mat4 *model = J ? ossa__alloc_array(NULL, J, sizeof(ossa_mat4)) : NULL;
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    if (model) {
        ossa__bind_model(skeleton, model);
        for (uint32_t j = 0; j < J; j++)
            for (int r = 0; r < 3; r++) {
                float v = model[j].m[12 + r];
                if (!isfinite(v)) continue;
                lo[r] = v < lo[r] ? v : lo[r];
                hi[r] = v > hi[r] ? v : hi[r];
            }
        ossa__free(NULL, model);
    }
    float h = 0.0f;
    for (int r = 0; r < 3; r++)
        if (hi[r] - lo[r] > h) h = hi[r] - lo[r];
    return h > 0.0f && isfinite(h) ? h : 1.8f;
}

/* 1e-4 of the height / 1.8 (0.1 mm on a 1.8 m character, in its own units). Where the source
 * declares its unit, also no looser than 0.1 mm, but no tighter than 1e-5 of the height: about a
 * hundred float roundings of the largest bind-pose coordinate, below which even the exact keys
 * could measure over the precision (a LIMIT build). */
float ossa__default_precision(float height, float metres_per_unit) {
    float relative = 1e-4f * height / 1.8f;
    if (!(metres_per_unit > 0.0f)) return relative;
    float tenth_of_mm = 1e-4f / metres_per_unit, rounding_floor = 1e-5f * height;
    float p = tenth_of_mm < relative ? tenth_of_mm : relative;
    return p > rounding_floor ? p : rounding_floor;
}

float ossa_clip_build_default_precision(const ossa_skeleton *skeleton) {
    return skeleton ? ossa__default_precision(ossa_skeleton_bind_height(skeleton), skeleton->metres_per_unit) : 0.0f;
}

/* Whether mesh m can be skinned on B's skeleton: positions, 4 or 8 influences, a skin. */
static bool mesh_skinned(const builder *B, const ossa_mesh *m) {
    return m && m->vertex_count && m->positions && m->joints && m->weights &&
           (m->influences == 4 || m->influences == 8) && m->skin >= 0 &&
           (uint32_t)m->skin < B->skeleton->skin_count;
}

/* The 3 x 3 part of m inverted (column-major into out[9]: out[c * 3 + r]); zeros when singular. */
static void invert_linear(const ossa_mat4 *m, float *out) {
    double a[3][3]; /* a[r][c] */
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) a[r][c] = m->m[c * 4 + r];
    double adj[3][3]; /* adj[r][c] = cofactor[c][r] */
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            int r1 = (c + 1) % 3, r2 = (c + 2) % 3, c1 = (r + 1) % 3, c2 = (r + 2) % 3;
            adj[r][c] = a[r1][c1] * a[r2][c2] - a[r1][c2] * a[r2][c1];
        }
    double det = a[0][0] * adj[0][0] + a[0][1] * adj[1][0] + a[0][2] * adj[2][0];
    memset(out, 0, 9 * sizeof(float));
    if (!(fabs(det) > 1e-30) || !isfinite(det)) return;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) out[c * 3 + r] = (float)(adj[r][c] / det);
}

/* Each joint's list of the vertices it moves (B->joint_vertex_start, joint_vertices; a vertex
 * listed once per joint even when two of its influences name it), numbered over all skinned
 * meshes (B->mesh_vertex_base). */
static ossa_result vertex_lists(builder *B) {
    uint32_t J = B->joint_count, M = B->options.meshes ? B->options.mesh_count : 0;
    B->mesh_vertex_base = ossa__alloc_array(B->allocator, (size_t)M + 1, sizeof(uint32_t));
    B->joint_vertex_start = ossa__alloc_array(B->allocator, (size_t)J + 2, sizeof(uint32_t));
    if (!B->mesh_vertex_base || !B->joint_vertex_start) return OSSA_ERROR_OUT_OF_MEMORY;
    uint64_t total = 0, pairs = 0;
    uint32_t *start = B->joint_vertex_start;
    memset(start, 0, ((size_t)J + 2) * sizeof(uint32_t));
    for (uint32_t i = 0; i < M; i++) {
        B->mesh_vertex_base[i] = (uint32_t)total;
        const ossa_mesh *m = B->options.meshes[i];
        if (!mesh_skinned(B, m)) continue;
        total += m->vertex_count;
        for (uint64_t k = 0; k < (uint64_t)m->vertex_count * m->influences; k++)
            if (m->joints[k] < J && m->weights[k] > 0.0f) start[m->joints[k] + 1]++, pairs++;
    }
    B->mesh_vertex_base[M] = (uint32_t)total;
    if (total > UINT32_MAX / 2 || pairs > UINT32_MAX / 2) return OSSA_ERROR_LIMIT;
    for (uint32_t j = 0; j < J; j++) start[j + 1] += start[j];
    B->joint_vertices = ossa__alloc_array(B->allocator, (size_t)pairs + 1, sizeof(uint32_t));
    uint32_t *fill = ossa__alloc_array(B->allocator, (size_t)J + 1, sizeof(uint32_t));
    if (!B->joint_vertices || !fill) {
        ossa__free(B->allocator, fill);
        return OSSA_ERROR_OUT_OF_MEMORY;
    }
    memcpy(fill, start, (size_t)J * sizeof(uint32_t));
    for (uint32_t i = 0; i < M; i++) {
        const ossa_mesh *m = B->options.meshes[i];
        if (!mesh_skinned(B, m)) continue;
        for (uint32_t v = 0; v < m->vertex_count; v++)
            for (uint32_t k = 0; k < m->influences; k++) {
                uint32_t j = m->joints[(size_t)v * m->influences + k];
                if (j >= J || !(m->weights[(size_t)v * m->influences + k] > 0.0f)) continue;
                bool seen = false; /* the same joint twice in one vertex: listed once */
                for (uint32_t q = 0; q < k; q++)
                    seen |= m->joints[(size_t)v * m->influences + q] == j && m->weights[(size_t)v * m->influences + q] > 0.0f;
                if (!seen) B->joint_vertices[fill[j]++] = B->mesh_vertex_base[i] + v;
            }
    }
    /* duplicates skipped above leave the end of a joint's range unused: close the gaps */
    uint32_t out = 0;
    for (uint32_t j = 0; j < J; j++) {
        uint32_t begin = start[j], end = fill[j];
        start[j] = out;
        for (uint32_t q = begin; q < end; q++) B->joint_vertices[out++] = B->joint_vertices[q];
    }
    start[J] = out;
    ossa__free(B->allocator, fill);
    return OSSA_OK;
}

/* The final check's early exit (check_time): per skinned mesh, each joint's center (the mean of
 * the mesh-space positions of the vertices it moves) into B->joint_center, and each influence's
 * distance from its joint's center, rounded up, into B->influence_distance. */
static ossa_result influence_distances(builder *B) {
    uint32_t J = B->joint_count, M = B->options.meshes ? B->options.mesh_count : 0, V = B->mesh_vertex_base[M];
    B->joint_center = ossa__alloc_array(B->allocator, ((size_t)M + 1) * J * 3 + 1, sizeof(double));
    B->influence_distance = ossa__alloc_array(B->allocator, (size_t)V * 8 + 1, sizeof(float));
    if (!B->joint_center || !B->influence_distance) return OSSA_ERROR_OUT_OF_MEMORY;
    double *count = B->joint_center + (size_t)M * J * 3; /* J: influences per joint in one mesh */
    for (uint32_t i = 0; i < M; i++) {
        const ossa_mesh *m = B->options.meshes[i];
        if (!mesh_skinned(B, m)) continue;
        double *c = B->joint_center + (size_t)i * J * 3;
        memset(c, 0, (size_t)J * 3 * sizeof(double));
        memset(count, 0, (size_t)J * sizeof(double));
        uint32_t n = m->influences;
        for (uint32_t v = 0; v < m->vertex_count; v++)
            for (uint32_t k = 0; k < n; k++) {
                uint32_t j = m->joints[(size_t)v * n + k];
                if (j >= J || !(m->weights[(size_t)v * n + k] > 0.0f)) continue;
                for (int r = 0; r < 3; r++) c[(size_t)j * 3 + (size_t)r] += m->positions[(size_t)v * 3 + (size_t)r];
                count[j] += 1.0;
            }
        for (uint32_t j = 0; j < J; j++)
            for (int r = 0; count[j] > 0.0 && r < 3; r++) c[(size_t)j * 3 + (size_t)r] /= count[j];
        for (uint32_t v = 0; v < m->vertex_count; v++) {
            float *dist = B->influence_distance + ((size_t)B->mesh_vertex_base[i] + v) * 8;
            const float *p = m->positions + (size_t)v * 3;
            for (uint32_t k = 0; k < n; k++) {
                uint32_t j = m->joints[(size_t)v * n + k];
                if (j >= J) { /* no such joint: the check skips the influence */
                    dist[k] = 0.0f;
                    continue;
                }
                const double *o = c + (size_t)j * 3;
                double dx = p[0] - o[0], dy = p[1] - o[1], dz = p[2] - o[2], d = sqrt(dx * dx + dy * dy + dz * dz);
                float f = (float)d;
                dist[k] = (double)f < d ? nextafterf(f, INFINITY) : f;
            }
        }
    }
    return OSSA_OK;
}

ossa_result ossa__build_shells(builder *B) {
    uint32_t J = B->joint_count;
    B->bind_model = ossa__alloc_array(B->allocator, (size_t)J + 1, sizeof(ossa_mat4));
    B->joint_shell = ossa__alloc_array(B->allocator, (size_t)J * 13 + 1, sizeof(float));
    B->moves_vertex = ossa__alloc_array(B->allocator, (size_t)J + 1, 1);
    if (!B->bind_model || !B->joint_shell || !B->moves_vertex) return OSSA_ERROR_OUT_OF_MEMORY;
    B->axis_shell = B->joint_shell + J;
    B->bind_inverse = B->axis_shell + (size_t)J * 3;
    ossa__bind_model(B->skeleton, B->bind_model);
    memset(B->moves_vertex, 0, J);
    for (uint32_t j = 0; j < J; j++) {
        B->joint_shell[j] = 0.0f;
        invert_linear(&B->bind_model[j], B->bind_inverse + (size_t)j * 9);
    }
    for (uint32_t i = 0; i < B->options.mesh_count && B->options.meshes; i++) {
        const ossa_mesh *m = B->options.meshes[i];
        if (!mesh_skinned(B, m)) continue;
        for (uint32_t v = 0; v < m->vertex_count; v++) {
            const float *p = m->positions + (size_t)v * 3;
            for (uint32_t k = 0; k < m->influences; k++) {
                uint32_t j = m->joints[(size_t)v * m->influences + k];
                if (j >= J || !(m->weights[(size_t)v * m->influences + k] > 0.0f)) continue;
                const float *o = B->bind_model[j].m + 12;
                double dx = (double)p[0] - o[0], dy = (double)p[1] - o[1], dz = (double)p[2] - o[2];
                float d = (float)sqrt(dx * dx + dy * dy + dz * dz);
                B->moves_vertex[j] = 1;
                if (d > B->joint_shell[j] && isfinite(d)) B->joint_shell[j] = d;
            }
        }
    }
    ossa_result r = vertex_lists(B);
    if (r == OSSA_OK) r = influence_distances(B);
    if (r != OSSA_OK) return r;
    for (uint32_t j = 0; j < J; j++) {
        if (!B->moves_vertex[j]) B->joint_shell[j] = B->options.shell_distance;
        /* a vertex on the joint itself: keep the axes measurable (an error of the origin and
         * of a rotation times the precision is all such a shell adds) */
        if (B->moves_vertex[j] && B->joint_shell[j] < B->options.precision) B->joint_shell[j] = B->options.precision;
    }
    ossa__axis_shells(B->bind_model, B->joint_shell, J, B->axis_shell);
    return OSSA_OK;
}

void ossa__build_free_shells(builder *B) {
    ossa__free(B->allocator, B->bind_model);
    ossa__free(B->allocator, B->joint_shell);
    ossa__free(B->allocator, B->moves_vertex);
    ossa__free(B->allocator, B->joint_vertex_start);
    ossa__free(B->allocator, B->joint_vertices);
    ossa__free(B->allocator, B->mesh_vertex_base);
    ossa__free(B->allocator, B->joint_center);
    ossa__free(B->allocator, B->influence_distance);
}

/* ---------------------------------------------------------------- the final check */

typedef struct vertex_scratch {
    double *delta;        /* mesh_count x J x 12: built minus exact palette (columns 0..3, rows 0..2) */
    double *slope, *offset; /* mesh_count x J each: a joint's |delta (p, 1)| <= offset + slope |p - center| */
    ossa_transform *got;  /* J: the built pose */
    ossa_mat4 *exact, *built; /* J each: model matrices */
    ossa_mat4 *palettes;  /* mesh_count x 2 x J: each skinned mesh's exact, then built palette */
    float *bound;         /* G: the largest per-joint bound at each grid time */
    struct timed_bound { float bound; uint32_t g; } *order; /* G: grid times by bound, largest first */
    uint32_t *stamp;      /* per vertex (mesh_vertex_base numbering): the last check that skinned it */
    float *fail_error;    /* J: the largest failing vertex error each joint dominates */
} vertex_scratch;

static void model_of(const builder *B, const ossa_transform *locals, ossa_mat4 *out) {
    ossa_local_to_model_job job = {0};
    job.parents = B->skeleton->parents;
    job.parent_count = B->joint_count;
    job.input = locals;
    job.input_count = B->joint_count;
    job.output = out;
    job.output_count = B->joint_count;
    ossa_local_to_model_job_run(&job);
}

/* The exact and built model matrices at grid time g into S->exact, S->built. */
static ossa_result poses_at(const builder *B, const ossa_built_clip *bc, ossa_sampling_context *ctx, uint32_t g,
                            vertex_scratch *S) {
    uint32_t J = B->joint_count;
    ossa_sample_job job = {.clip = bc, .context = ctx, .time = B->grid_times[g], .output = S->got, .output_count = J,
                           .reference = B->skeleton->rest, .reference_count = J};
    ossa_result r = ossa_sample_job_run(&job);
    if (r != OSSA_OK) return r;
    model_of(B, B->exact_pose + (size_t)g * J, S->exact);
    model_of(B, S->got, S->built);
    return OSSA_OK;
}

/* Joint j's bound on any vertex within its shell: the built frame minus the exact one is
 * D(u) = dt + dL u in joint-local u; a vertex v = o + r (|r| <= shell, model units at the bind
 * pose) has u = bind_inverse r, so |D| <= |dt| + ||dL bind_inverse||_F x shell. */
static float joint_bound(const builder *B, const vertex_scratch *S, uint32_t j) {
    const float *e = S->exact[j].m, *b = S->built[j].m, *inv = B->bind_inverse + (size_t)j * 9;
    double t2 = 0.0, f2 = 0.0;
    for (int r = 0; r < 3; r++) {
        double dt = (double)b[12 + r] - e[12 + r];
        t2 += dt * dt;
        for (int c = 0; c < 3; c++) {
            double x = 0.0;
            for (int k = 0; k < 3; k++) x += ((double)b[k * 4 + r] - e[k * 4 + r]) * inv[c * 3 + k];
            f2 += x * x;
        }
    }
    return (float)(sqrt(t2) + sqrt(f2) * B->joint_shell[j]);
}

/* The per-time bounds into S->bound (the largest over joints that move a vertex). */
static ossa_result time_bounds(const builder *B, const ossa_built_clip *bc, ossa_sampling_context *ctx,
                               vertex_scratch *S) {
    for (uint32_t g = 0; g < B->grid_count; g++) {
        ossa_result r = poses_at(B, bc, ctx, g, S);
        if (r != OSSA_OK) return r;
        float worst = 0.0f;
        for (uint32_t j = 0; j < B->joint_count; j++)
            if (B->moves_vertex[j]) {
                float e = joint_bound(B, S, j);
                if (!(e <= worst)) worst = e;
            }
        S->bound[g] = worst;
    }
    return OSSA_OK;
}

/* Mesh i's palette differences (S->delta, in double as skin_vertex forms them) and, per joint,
 * how far they move a vertex at most: |delta (p, 1)| <= |delta (c, 1)| + ||dL||_F |p - c| for
 * its center c (B->joint_center), each term raised by 2^-39 of the magnitudes it is formed from
 * (skin_vertex's rounding, a few 2^-53 of them, stays below that). */
static void palette_deltas(const builder *B, vertex_scratch *S, uint32_t i) {
    uint32_t J = B->joint_count;
    const ossa_mat4 *pe = S->palettes + (size_t)i * 2 * J, *pb = pe + J;
    for (uint32_t j = 0; j < J; j++) {
        double *D = S->delta + ((size_t)i * J + j) * 12, f2 = 0.0, t2 = 0.0, c2 = 0.0, m2 = 0.0;
        const double *c = B->joint_center + ((size_t)i * J + j) * 3;
        for (int col = 0; col < 4; col++)
            for (int r = 0; r < 3; r++) D[col * 3 + r] = (double)pb[j].m[col * 4 + r] - pe[j].m[col * 4 + r];
        for (int r = 0; r < 3; r++) {
            double x = D[r] * c[0] + D[3 + r] * c[1] + D[6 + r] * c[2] + D[9 + r];
            f2 += D[r] * D[r] + D[3 + r] * D[3 + r] + D[6 + r] * D[6 + r];
            t2 += D[9 + r] * D[9 + r];
            c2 += x * x;
            m2 += c[r] * c[r];
        }
        double slope = sqrt(f2);
        S->slope[(size_t)i * J + j] = slope * (1.0 + 0x1p-39);
        S->offset[(size_t)i * J + j] = sqrt(c2) + 0x1p-39 * (slope * sqrt(m2) + sqrt(t2));
    }
}

/* Every skinned mesh's exact and built palettes at the time of S->exact / S->built, and their
 * differences (palette_deltas). */
static void palettes(const builder *B, vertex_scratch *S) {
    uint32_t J = B->joint_count;
    for (uint32_t i = 0; i < B->options.mesh_count; i++) {
        const ossa_mesh *m = B->options.meshes[i];
        if (!mesh_skinned(B, m)) continue;
        ossa_palette_job pj = {.skeleton = B->skeleton, .skin = (uint32_t)m->skin, .model = S->exact, .model_count = J,
                               .output = S->palettes + (size_t)i * 2 * J, .output_count = J};
        ossa_palette_job_run(&pj);
        pj.model = S->built;
        pj.output += J;
        ossa_palette_job_run(&pj);
        palette_deltas(B, S, i);
    }
}

/* The mesh and vertex of a vertex number (mesh_vertex_base numbering). */
static uint32_t mesh_of(const builder *B, uint32_t number) {
    uint32_t lo = 0, hi = B->options.mesh_count; /* the last mesh whose base is <= number */
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (B->mesh_vertex_base[mid] <= number) lo = mid;
        else hi = mid;
    }
    while (lo + 1 < B->options.mesh_count && B->mesh_vertex_base[lo + 1] <= number) lo++;
    return lo;
}

/* Skins vertex v of mesh i through both palettes (double): the error, and its dominant joint
 * (the influence whose weighted term is largest). */
static float skin_vertex(const builder *B, const vertex_scratch *S, uint32_t i, uint32_t v, uint32_t *dominant) {
    const ossa_mesh *m = B->options.meshes[i];
    uint32_t J = B->joint_count, n = m->influences;
    const double *delta = S->delta + (size_t)i * J * 12;
    const uint16_t *jt = m->joints + (size_t)v * n;
    const float *w = m->weights + (size_t)v * n, *p = m->positions + (size_t)v * 3;
    double d[3] = {0, 0, 0}, best = -1.0;
    *dominant = jt[0];
    for (uint32_t k = 0; k < n; k++) {
        if (jt[k] >= J || !(w[k] > 0.0f)) continue;
        const double *D = delta + (size_t)jt[k] * 12; /* built - exact, as (double)a - b */
        double s[3];
        for (int r = 0; r < 3; r++)
            s[r] = (double)w[k] * ((D[r] * p[0] + D[3 + r] * p[1]) + (D[6 + r] * p[2] + D[9 + r]));
        double share = s[0] * s[0] + s[1] * s[1] + s[2] * s[2];
        if (share > best) best = share, *dominant = jt[k];
        for (int r = 0; r < 3; r++) d[r] += s[r];
    }
    return (float)sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

/* An upper bound of skin_vertex's error for vertex v of mesh i (number: its mesh_vertex_base
 * number): sum over its influences of w x (offset + slope x distance from the joint's center),
 * raised by 2^-30 for its own rounding; NaN when a difference is. */
static double vertex_bound(const builder *B, const vertex_scratch *S, uint32_t i, uint32_t v, uint32_t number) {
    const ossa_mesh *m = B->options.meshes[i];
    uint32_t J = B->joint_count, n = m->influences;
    const uint16_t *jt = m->joints + (size_t)v * n;
    const float *w = m->weights + (size_t)v * n, *dist = B->influence_distance + (size_t)number * 8;
    const double *slope = S->slope + (size_t)i * J, *offset = S->offset + (size_t)i * J;
    double b = 0.0;
    for (uint32_t k = 0; k < n; k++) {
        if (jt[k] >= J || !(w[k] > 0.0f)) continue;
        b += (double)w[k] * (offset[jt[k]] + slope[jt[k]] * dist[k]);
    }
    return b * (1.0 + 0x1p-30);
}

/* At grid time g (S->exact / S->built set): skins every vertex of a joint whose bound is above
 * `hot` (the target; below 0 for all) (each vertex once: S->stamp), records the largest error and each failing vertex's
 * dominant joint. Returns the vertices skinned. */
static uint64_t check_time(const builder *B, vertex_scratch *S, uint32_t g, float hot, float target,
                           vertex_check *out, uint32_t *joint_fail_time) {
    uint64_t skinned = 0;
    uint32_t stamp = g + 1;
    palettes(B, S);
    for (uint32_t j = 0; j < B->joint_count; j++) {
        if (!B->moves_vertex[j] || joint_bound(B, S, j) <= hot) continue; /* its vertices' terms are within */
        for (uint32_t q = B->joint_vertex_start[j]; q < B->joint_vertex_start[j + 1]; q++) {
            uint32_t number = B->joint_vertices[q];
            if (S->stamp[number] == stamp) continue;
            S->stamp[number] = stamp;
            uint32_t i = mesh_of(B, number), v = number - B->mesh_vertex_base[i], dominant;
            skinned++;
            /* within the largest error so far and the target: it would change nothing below */
            double bound = vertex_bound(B, S, i, v, number);
            if (bound <= (double)out->max_error && bound <= (double)target) continue;
            float e = skin_vertex(B, S, i, v, &dominant);
            if (!(e <= out->max_error)) {
                out->max_error = e;
                out->mesh = i, out->vertex = v, out->joint = dominant, out->grid = g;
            }
            if (!(e <= target)) {
                out->over = true;
                if (!(e <= S->fail_error[dominant])) S->fail_error[dominant] = e, joint_fail_time[dominant] = g;
            }
        }
    }
    return skinned;
}

static int cmp_bound_desc(const void *a, const void *b) {
    const struct timed_bound *x = a, *y = b;
    if (x->bound != y->bound) return (x->bound < y->bound) - (x->bound > y->bound);
    return (x->g > y->g) - (x->g < y->g);
}

/* The grid times whose bound is above the target, largest first, into S->order (and always the
 * time of the largest bound, so the stats name a real vertex); their count. */
static uint32_t times_to_check(const builder *B, vertex_scratch *S, float target) {
    uint32_t n = 0, top = 0;
    for (uint32_t g = 0; g < B->grid_count; g++) {
        if (!(S->bound[g] <= S->bound[top])) top = g;
        if (!(S->bound[g] <= target)) {
            S->order[n].bound = isnan(S->bound[g]) ? INFINITY : S->bound[g];
            S->order[n++].g = g;
        }
    }
    if (n == 0 && B->grid_count) S->order[n].bound = S->bound[top], S->order[n++].g = top;
    qsort(S->order, n, sizeof *S->order, cmp_bound_desc);
    return n;
}

ossa_result ossa__build_vertex_check(builder *B, const ossa_built_clip *bc, ossa_sampling_context *ctx, float target,
                                     vertex_check *out, uint32_t *joint_fail_time) {
    uint32_t J = B->joint_count, G = B->grid_count, V = B->mesh_vertex_base[B->options.mesh_count];
    memset(out, 0, sizeof *out);
    for (uint32_t j = 0; j < J; j++) joint_fail_time[j] = UINT32_MAX;
    size_t M = B->options.mesh_count;
    size_t bytes = (size_t)J * (M * 14 * sizeof(double) + sizeof(ossa_transform) + (2 + 2 * M) * sizeof(ossa_mat4) +
                                sizeof(float)) +
                   (size_t)G * (sizeof(float) + sizeof(struct timed_bound)) + (size_t)V * sizeof(uint32_t) + 64;
    unsigned char *mem = ossa__alloc_array(B->allocator, 1, bytes);
    if (!mem) return OSSA_ERROR_OUT_OF_MEMORY;
    vertex_scratch S;
    S.delta = (double *)mem;
    S.slope = S.delta + M * J * 12;
    S.offset = S.slope + M * J;
    S.exact = (ossa_mat4 *)(S.offset + M * J);
    S.built = S.exact + J, S.palettes = S.built + J;
    S.got = (ossa_transform *)(S.palettes + (size_t)2 * J * B->options.mesh_count);
    S.bound = (float *)(S.got + J);
    S.fail_error = S.bound + G;
    S.order = (struct timed_bound *)(S.fail_error + J);
    S.stamp = (uint32_t *)(S.order + G);
    memset(S.fail_error, 0, J * sizeof(float));
    memset(S.stamp, 0, (size_t)V * sizeof(uint32_t));
    ossa_result r = time_bounds(B, bc, ctx, &S);
    uint32_t n = r == OSSA_OK ? times_to_check(B, &S, target) : 0, k = 0;
    for (uint64_t budget = VERTEX_CHECK_BUDGET; k < n && r == OSSA_OK && budget > 0; k++) {
        uint32_t g = S.order[k].g;
        if ((r = poses_at(B, bc, ctx, g, &S)) != OSSA_OK) break;
        /* the top time is skinned even when within the target (the stats name a real vertex) */
        float hot = k == 0 && !(S.order[k].bound > target) ? -1.0f : target;
        uint64_t done = check_time(B, &S, g, hot, target, out, joint_fail_time);
        budget = done < budget ? budget - done : 0;
    }
    out->times_checked = k;
    out->times_unchecked = n - k;
    ossa__free(B->allocator, mem);
    return r;
}
