/* Scene loading, posing, CPU skinning, camera framing and GL drawing shared by
 * the ossa tool's render, demo, view, bench and plot commands. */
#include "render_common.h"

#include <ctype.h>
#ifdef OSSA_TOOL_GL
#include <epoxy/gl.h>
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli_common.h"
#include "demo_character.h"

#define PROGRESS_LINE_SECONDS 3.0
#include "image_decode.h"
#include "image_io.h"

double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void scene_free(scene *s) {
    if (!s) return;
    if (s->asset) {
        for (uint32_t i = 0; i < s->asset->mesh_count; i++) {
            if (s->positions) free(s->positions[i]);
            if (s->normals) free(s->normals[i]);
            if (s->morph_weights) free(s->morph_weights[i]);
            if (s->morphed) free(s->morphed[i]);
        }
    }
    free(s->morph_weights);
    free(s->morphed);
    free(s->positions);
    free(s->normals);
    free(s->locals);
    free(s->model);
    free(s->palettes);
    free(s->skin_joint);
    free(s->moving);
    free(s->dual_quats);
    for (uint32_t i = 0; s->built && s->asset && i < s->asset->clip_count; i++) ossa_built_clip_destroy(s->built[i]);
    free(s->built);
    cli_built_sampler_free(&s->sampler);
    ossa_asset_destroy(s->asset);
    memset(s, 0, sizeof *s);
}

bool scene_load(scene *s, const char *path, const char *cmd) {
    memset(s, 0, sizeof *s);
    if (!path || !strcmp(path, "demo")) {
        s->asset = demo_character_create();
        s->label = "demo";
        s->is_demo = true;
        if (!s->asset) {
            fprintf(stderr, "ossa %s: cannot build the demo character\n", cmd);
            return false;
        }
        if (!cli_add_anim_clips(cmd, s->asset, "demo")) { /* --anim (--retarget) onto the demo too */
            scene_free(s);
            return false;
        }
    } else {
        s->asset = cli_load_asset(cmd, path);
        if (!s->asset) return false;
        s->label = path;
    }
    const ossa_asset *a = s->asset;
    if (!a->skeleton) {
        fprintf(stderr, "ossa %s: %s: the file has no nodes\n", cmd, s->label);
        scene_free(s);
        return false;
    }
    const ossa_skeleton *sk = a->skeleton;
    uint32_t jc = sk->joint_count, n = jc ? jc : 1, skins = sk->skin_count ? sk->skin_count : 1;
    s->joint_count = jc;
    s->locals = calloc(n, sizeof *s->locals);
    s->model = calloc(n, sizeof *s->model);
    s->palettes = calloc((size_t)n * skins, sizeof *s->palettes);
    s->skin_joint = calloc(n, sizeof *s->skin_joint);
    s->moving = calloc(n, sizeof *s->moving);
    s->dual_quats = calloc((size_t)n * skins, sizeof *s->dual_quats);
    s->positions = calloc(a->mesh_count + 1, sizeof *s->positions);
    s->normals = calloc(a->mesh_count + 1, sizeof *s->normals);
    s->morph_weights = calloc(a->mesh_count + 1, sizeof *s->morph_weights);
    s->morphed = calloc(a->mesh_count + 1, sizeof *s->morphed);
    bool ok = s->locals && s->model && s->palettes && s->skin_joint && s->moving && s->dual_quats && s->positions &&
              s->normals && s->morph_weights && s->morphed;
    for (uint32_t i = 0; ok && i < a->mesh_count; i++) {
        const ossa_mesh *m = a->meshes[i];
        size_t vc = m->vertex_count ? m->vertex_count : 1;
        s->positions[i] = malloc(vc * 3 * sizeof(float));
        if (!s->positions[i]) ok = false;
        if (m->normals) {
            s->normals[i] = malloc(vc * 3 * sizeof(float));
            if (!s->normals[i]) ok = false;
        }
        if (m->target_count && m->targets) {
            s->morph_weights[i] = calloc(m->target_count, sizeof(float));
            s->morphed[i] = malloc(vc * 6 * sizeof(float));
            if (!s->morph_weights[i] || !s->morphed[i]) ok = false;
        }
    }
    if (!ok) {
        fprintf(stderr, "ossa %s: out of memory\n", cmd);
        scene_free(s);
        return false;
    }
    for (uint32_t k = 0; k < sk->skin_count; k++)
        for (uint32_t i = 0; i < sk->skins[k].joint_count; i++)
            if (sk->skins[k].joints[i] < jc) s->skin_joint[sk->skins[k].joints[i]] = true;
    scene_pose(s, NULL, 0, false);
    return true;
}

int scene_find_clip(const scene *s, const char *name, const char *cmd) {
    const ossa_asset *a = s->asset;
    int idx = a->clip_count ? ossa_asset_find_clip(a, name) : cli_find_built_clip(a, name);
    if (idx >= 0) return idx;
    bool digits = *name != 0;
    for (const char *p = name; *p; p++)
        if (!isdigit((unsigned char)*p)) digits = false;
    if (digits) {
        long i = strtol(name, NULL, 10);
        if (i >= 0 && (uint32_t)i < a->clip_count) return (int)i;
    }
    fprintf(stderr, "ossa %s: %s has no clip '%s'; clips:", cmd, s->label, name);
    if (!a->clip_count && !a->built_clip_count) fprintf(stderr, " (none)");
    for (uint32_t i = 0; i < a->clip_count; i++)
        fprintf(stderr, " %u:'%s'", i, a->clips[i]->name ? a->clips[i]->name : "");
    for (uint32_t i = 0; !a->clip_count && i < a->built_clip_count; i++)
        fprintf(stderr, " %u:'%s'", i, ossa_built_clip_name(a->built_clips[i]));
    fprintf(stderr, "\n");
    return -1;
}

void scene_set_pose(scene *s, const ossa_transform *locals) {
    const ossa_skeleton *sk = s->asset->skeleton;
    uint32_t jc = s->joint_count;
    if (!jc) return;
    if (locals != s->locals) memcpy(s->locals, locals, sizeof *s->locals * jc);
    ossa_local_to_model_job lm = {.skeleton = sk, .input = s->locals, .input_count = jc, .output = s->model,
                                  .output_count = jc};
    ossa_local_to_model_job_run(&lm);
    if (s->post_pose) s->post_pose(s, s->post_pose_user);
    for (uint32_t k = 0; k < sk->skin_count; k++) {
        ossa_palette_job pj = {.skeleton = sk, .skin = k, .model = s->model, .model_count = jc,
                               .output = s->palettes + (size_t)k * jc, .output_count = jc};
        ossa_palette_job_run(&pj);
        ossa_dual_quat_job dj = {.palette = s->palettes + (size_t)k * jc, .palette_count = jc,
                                 .output = s->dual_quats + (size_t)k * jc, .output_count = jc};
        if (s->dqs) ossa_dual_quat_job_run(&dj);
    }
}

float scene_pose(scene *s, const ossa_clip *clip, float t, bool loop) {
    const ossa_skeleton *sk = s->asset->skeleton;
    uint32_t jc = s->joint_count;
    float time = t;
    if (!jc) return t;
    if (s->pose_fn && clip) {
        s->pose_fn(s->pose_user, s, t, loop);
        return t;
    }
    if (clip) {
        ossa_clip_sample_job job = {.clip = clip, .time = t, .loop = loop, .reference = sk->rest,
                                    .reference_count = jc, .output = s->locals, .output_count = jc};
        if (ossa_clip_sample_job_run(&job) == OSSA_OK) time = job.sampled_time;
    } else
        memcpy(s->locals, sk->rest, sizeof *s->locals * jc);
    scene_set_pose(s, s->locals);
    scene_set_weights(s, clip, t, loop);
    return time;
}

const ossa_built_clip *scene_built_clip(scene *s, int index, const char *cmd) {
    const ossa_asset *a = s->asset;
    if (index < 0) return NULL;
    if (!a->clip_count) return (uint32_t)index < a->built_clip_count ? a->built_clips[index] : NULL;
    if ((uint32_t)index >= a->clip_count) return NULL;
    if (!s->built && !(s->built = calloc(a->clip_count, sizeof *s->built))) return NULL;
    if (!s->built[index]) {
        /* as ossa pack builds it: the asset's meshes, the command's precision */
        ossa_clip_build_options o = s->build_options;
        o.meshes = (const ossa_mesh *const *)a->meshes;
        o.mesh_count = a->mesh_count;
        cli_build_clip(cmd, a->clips[index], a->skeleton, &o, (uint32_t)index, a->clip_count, &s->built[index],
                       NULL, NULL);
    }
    return s->built[index];
}

float scene_pose_built(scene *s, const ossa_built_clip *clip, float t, bool loop) {
    if (!s->joint_count) return t;
    if (s->sampler.clip != clip) {
        cli_built_sampler_free(&s->sampler);
        if (cli_built_sampler_init(&s->sampler, clip, s->asset->skeleton)) return t;
    }
    if (cli_built_sampler_run(&s->sampler, t, loop, s->locals)) return t;
    scene_set_pose(s, s->locals);
    scene_set_built_weights(s, &s->sampler);
    return s->sampler.sampled_time;
}

void scene_set_built_weights(scene *s, const cli_built_sampler *sampler) {
    const ossa_asset *a = s->asset;
    for (uint32_t i = 0; i < a->mesh_count; i++) {
        const ossa_mesh *m = a->meshes[i];
        float *w = s->morph_weights[i];
        if (!w) continue;
        if (m->default_weights) memcpy(w, m->default_weights, sizeof(float) * m->target_count);
        else memset(w, 0, sizeof(float) * m->target_count);
        if (m->node >= 0) cli_built_sampler_weights(sampler, (uint32_t)m->node, m->target_count, w);
    }
}

bool scene_clip_span(scene *s, int index, clip_span *span, const char *cmd) {
    memset(span, 0, sizeof *span);
    const ossa_asset *a = s->asset;
    span->clip = (uint32_t)index < a->clip_count ? a->clips[index] : NULL;
    if (!s->pose_fn || !span->clip) span->built = scene_built_clip(s, index, cmd);
    if (!span->clip && !span->built) return false;
    if (span->built) {
        span->from = ossa_built_clip_start(span->built);
        span->to = ossa_built_clip_end(span->built);
        span->loop = ossa_built_clip_looping(span->built);
    } else {
        span->from = span->clip->start;
        span->to = span->clip->end;
        span->loop = span->clip->looping;
    }
    return true;
}

/* Poses one span at t: its built clip when it has one, else the editable path. */
static float span_pose(scene *s, const clip_span *sp, float t) {
    if (s->pose_fn && !sp->clip) { /* layers over a packed file's built clips */
        s->pose_fn(s->pose_user, s, t, sp->loop);
        return t;
    }
    if (sp->built) return scene_pose_built(s, sp->built, t, sp->loop);
    return scene_pose(s, sp->clip, t, sp->loop);
}

void scene_set_weights(scene *s, const ossa_clip *clip, float t, bool loop) {
    const ossa_asset *a = s->asset;
    for (uint32_t i = 0; i < a->mesh_count; i++) {
        const ossa_mesh *m = a->meshes[i];
        float *w = s->morph_weights[i];
        if (!w) continue;
        if (m->default_weights)
            memcpy(w, m->default_weights, sizeof(float) * m->target_count);
        else
            memset(w, 0, sizeof(float) * m->target_count);
        if (!clip || m->node < 0) continue;
        for (uint32_t k = 0; k < clip->weight_track_count; k++)
            if (clip->weight_tracks[k].joint == (uint32_t)m->node &&
                clip->weight_tracks[k].weights.components == m->target_count &&
                clip->weight_tracks[k].weights.key_count) {
                ossa_clip_weights_job job = {.clip = clip, .track = k, .time = t, .loop = loop, .output = w,
                                             .output_count = m->target_count};
                ossa_clip_weights_job_run(&job);
            }
    }
}

bool scene_mesh_is_skinned(const scene *s, uint32_t mesh) {
    const ossa_mesh *m = s->asset->meshes[mesh];
    return m->skin >= 0 && (uint32_t)m->skin < s->asset->skeleton->skin_count && m->joints && m->weights &&
           (m->influences == 4 || m->influences == 8) && s->joint_count > 0;
}

const ossa_mat4 *scene_mesh_palette(const scene *s, uint32_t mesh) {
    if (!scene_mesh_is_skinned(s, mesh)) return NULL;
    return s->palettes + (size_t)s->asset->meshes[mesh]->skin * s->joint_count;
}

bool scene_skin_cpu(scene *s, uint32_t mesh) {
    const ossa_mesh *m = s->asset->meshes[mesh];
    float *pos = s->positions[mesh], *nrm = s->normals[mesh];
    if (!m->vertex_count) return true;
    const float *src_pos = m->positions, *src_nrm = m->normals;
    if (s->morph_weights[mesh]) {
        float *mp = s->morphed[mesh], *mn = m->normals ? mp + (size_t)m->vertex_count * 3 : NULL;
        ossa_morph_job mj = {.mesh = m, .weights = s->morph_weights[mesh], .weight_count = m->target_count,
                             .end = m->vertex_count, .out_positions = mp, .out_positions_count = m->vertex_count,
                             .out_normals = mn, .out_normals_count = m->vertex_count};
        if (ossa_morph_job_run(&mj) != OSSA_OK) return false;
        src_pos = mp;
        if (mn) src_nrm = mn;
    }
    if (scene_mesh_is_skinned(s, mesh)) {
        ossa_skin_job job;
        memset(&job, 0, sizeof job);
        job.begin = 0;
        job.end = m->vertex_count;
        job.vertex_count = m->vertex_count;
        job.influences = m->influences;
        job.joints = m->joints;
        job.weights = m->weights;
        job.method = s->dqs ? OSSA_SKIN_DQS : OSSA_SKIN_LBS;
        job.palette = scene_mesh_palette(s, mesh);
        if (s->dqs) job.dual_quats = s->dual_quats + (size_t)m->skin * s->joint_count;
        job.palette_count = s->joint_count;
        job.positions = src_pos;
        job.out_positions = pos;
        if (src_nrm && nrm) {
            job.normals = src_nrm;
            job.out_normals = nrm;
        }
        return ossa_skin_job_run(&job) == OSSA_OK;
    }
    ossa_mat4 w = ossa_mat4_identity();
    if (m->node >= 0 && (uint32_t)m->node < s->joint_count) w = s->model[m->node];
    for (uint32_t v = 0; v < m->vertex_count; v++) {
        ossa_vec3 p = {src_pos[v * 3], src_pos[v * 3 + 1], src_pos[v * 3 + 2]};
        p = ossa_mat4_transform_point(&w, p);
        pos[v * 3] = p.x, pos[v * 3 + 1] = p.y, pos[v * 3 + 2] = p.z;
        if (src_nrm && nrm) {
            ossa_vec3 n = {src_nrm[v * 3], src_nrm[v * 3 + 1], src_nrm[v * 3 + 2]};
            n = ossa_vec3_normalize(ossa_mat4_transform_vector(&w, n));
            nrm[v * 3] = n.x, nrm[v * 3 + 1] = n.y, nrm[v * 3 + 2] = n.z;
        }
    }
    return true;
}

static void extend(float lo[3], float hi[3], const float p[3]) {
    for (int c = 0; c < 3; c++) {
        if (!isfinite(p[c])) return;
    }
    for (int c = 0; c < 3; c++) {
        if (p[c] < lo[c]) lo[c] = p[c];
        if (p[c] > hi[c]) hi[c] = p[c];
    }
}

void scene_extend_bounds(scene *s, float lo[3], float hi[3]) {
    for (uint32_t i = 0; i < s->asset->mesh_count; i++) {
        if (!scene_skin_cpu(s, i)) continue;
        const ossa_mesh *m = s->asset->meshes[i];
        for (uint32_t v = 0; v < m->vertex_count; v++) extend(lo, hi, s->positions[i] + v * 3);
    }
}

/* Sample count of a span (0: its start only) and the time of sample i of n. */
static uint32_t span_samples(const clip_span *sp, uint32_t samples) {
    return (sp->clip || sp->built) && sp->to > sp->from ? samples : 0;
}
static float span_sample_time(const clip_span *sp, uint32_t i, uint32_t n) {
    return n ? sp->from + (sp->to - sp->from) * (float)i / (float)n : sp->from;
}

/* Marks s->moving[j] when joint j's model matrix differs from `first`'s. */
static void mark_moving(scene *s, const ossa_mat4 *first) {
    for (uint32_t j = 0; j < s->joint_count; j++)
        for (int e = 0; e < 16 && !s->moving[j]; e++) {
            float a = first[j].m[e], b = s->model[j].m[e];
            if (fabsf(a - b) > 1e-5f * (1.0f + fabsf(a))) s->moving[j] = s->any_moving = true;
        }
}

/* Whether mesh i is among what animates once s->moving is known (step 1 of the framing). */
static bool mesh_animates(const scene *s, uint32_t i) {
    const ossa_mesh *m = s->asset->meshes[i];
    if (!m->vertex_count) return false;
    if (scene_mesh_is_skinned(s, i) || (m->target_count && m->targets)) return true;
    return m->node >= 0 && (uint32_t)m->node < s->joint_count && s->moving[m->node];
}

/* One pose per sample time (as many as the frames' poses cost, for IK's counts): per mesh
 * and per joint boxes (6 floats: lo, hi) over the samples, and s->moving. */
static void sample_boxes(scene *s, const clip_span *spans, uint32_t span_count, uint32_t samples, float *mesh_box,
                         float *joint_box, ossa_mat4 *first) {
    const ossa_asset *a = s->asset;
    bool have_first = false;
    for (uint32_t k = 0; k < span_count; k++) {
        uint32_t n = span_samples(&spans[k], samples);
        for (uint32_t i = 0; i <= n; i++) {
            span_pose(s, &spans[k], span_sample_time(&spans[k], i, n));
            if (have_first) mark_moving(s, first);
            else memcpy(first, s->model, sizeof *first * s->joint_count);
            have_first = true;
            for (uint32_t m = 0; m < a->mesh_count; m++) {
                if (!scene_skin_cpu(s, m)) continue;
                for (uint32_t v = 0; v < a->meshes[m]->vertex_count; v++)
                    extend(mesh_box + m * 6, mesh_box + m * 6 + 3, s->positions[m] + v * 3);
            }
            for (uint32_t j = 0; j < s->joint_count; j++) extend(joint_box + j * 6, joint_box + j * 6 + 3, &s->model[j].m[12]);
        }
    }
}

static void extend_box(float lo[3], float hi[3], const float box[6]) {
    if (!(box[0] <= box[3])) return; /* empty */
    extend(lo, hi, box);
    extend(lo, hi, box + 3);
}

bool scene_animated_bounds(scene *s, const clip_span *spans, uint32_t span_count, uint32_t samples, float lo[3],
                           float hi[3]) {
    const ossa_asset *a = s->asset;
    uint32_t jc = s->joint_count, mc = a->mesh_count;
    lo[0] = lo[1] = lo[2] = INFINITY;
    hi[0] = hi[1] = hi[2] = -INFINITY;
    memset(s->moving, 0, sizeof *s->moving * (jc ? jc : 1));
    s->any_moving = false;
    float *boxes = malloc(sizeof(float) * 6 * ((size_t)mc + jc + 1)), *joint_box = boxes ? boxes + (size_t)mc * 6 : NULL;
    ossa_mat4 *first = malloc(sizeof *first * (jc ? jc : 1));
    for (size_t i = 0; boxes && i < ((size_t)mc + jc) * 6; i++) boxes[i] = i % 6 < 3 ? INFINITY : -INFINITY;
    bool meshes = false;
    if (boxes && first) {
        sample_boxes(s, spans, span_count, samples, boxes, joint_box, first);
        bool animated = false, geometry = false; /* some mesh animates; some mesh has vertices */
        for (uint32_t i = 0; i < mc; i++) {
            animated = animated || mesh_animates(s, i);
            geometry = geometry || a->meshes[i]->vertex_count > 0;
        }
        meshes = animated || (geometry && !s->any_moving);
        for (uint32_t i = 0; meshes && i < mc; i++)
            if (!animated || mesh_animates(s, i)) extend_box(lo, hi, boxes + (size_t)i * 6);
        for (uint32_t j = 0; !meshes && j < jc; j++)
            if (s->moving[j] || !s->any_moving) extend_box(lo, hi, joint_box + (size_t)j * 6);
    }
    free(boxes);
    free(first);
    if (!(lo[0] <= hi[0])) { /* nothing at all (or out of memory): a unit box at the origin */
        lo[0] = lo[1] = lo[2] = -0.5f;
        hi[0] = hi[1] = hi[2] = 0.5f;
    }
    return meshes;
}

static void basis(const camera *cam, float dir[3], float right[3], float up[3]) {
    float cp = cosf(cam->pitch);
    dir[0] = sinf(cam->yaw) * cp; /* from the target towards the eye */
    dir[1] = sinf(cam->pitch);
    dir[2] = cosf(cam->yaw) * cp;
    /* right = normalize(cross(world up, dir)), up = cross(dir, right) */
    right[0] = dir[2];
    right[1] = 0;
    right[2] = -dir[0];
    float l = sqrtf(right[0] * right[0] + right[2] * right[2]);
    if (l < 1e-6f) {
        right[0] = 1, right[2] = 0, l = 1;
    }
    right[0] /= l, right[2] /= l;
    up[0] = dir[1] * right[2] - dir[2] * right[1];
    up[1] = dir[2] * right[0] - dir[0] * right[2];
    up[2] = dir[0] * right[1] - dir[1] * right[0];
}

camera camera_frame(const float lo[3], const float hi[3], float aspect) {
    return camera_frame_at(lo, hi, aspect, 0.45f, 0.22f);
}

camera camera_frame_at(const float lo[3], const float hi[3], float aspect, float yaw, float pitch) {
    camera cam;
    memset(&cam, 0, sizeof cam);
    cam.yaw = yaw;
    cam.pitch = pitch;
    cam.fovy = 0.70f; /* about 40 degrees */
    float radius = 0;
    for (int c = 0; c < 3; c++) {
        cam.target[c] = 0.5f * (lo[c] + hi[c]);
        float e = 0.5f * (hi[c] - lo[c]);
        radius += e * e;
    }
    radius = sqrtf(radius);
    if (!(radius > 1e-6f)) radius = 1e-3f;
    float dir[3], right[3], up[3];
    basis(&cam, dir, right, up);
    float ty = tanf(cam.fovy / 2), tx = ty * (aspect > 0 ? aspect : 1);
    const float margin = 1.08f;
    float dist = 0;
    for (int i = 0; i < 8; i++) {
        float p[3] = {(i & 1) ? hi[0] : lo[0], (i & 2) ? hi[1] : lo[1], (i & 4) ? hi[2] : lo[2]}, x = 0, y = 0, z = 0;
        for (int c = 0; c < 3; c++) {
            float r = p[c] - cam.target[c];
            x += r * right[c], y += r * up[c], z += r * dir[c];
        }
        float dx = z + margin * fabsf(x) / tx, dy = z + margin * fabsf(y) / ty;
        if (dx > dist) dist = dx;
        if (dy > dist) dist = dy;
    }
    if (dist < radius * 1.01f) dist = radius * 1.01f;
    /* Centre the projected box: under perspective and an oblique view the box centre
     * is not the centre of its image. Shift the target in the view plane by the
     * offset of the projected extents' midpoint (two passes converge to < 1 pixel). */
    for (int pass = 0; pass < 2; pass++) {
        float eye[3], ex[2] = {INFINITY, -INFINITY}, ey[2] = {INFINITY, -INFINITY};
        for (int c = 0; c < 3; c++) eye[c] = cam.target[c] + dist * dir[c];
        for (int i = 0; i < 8; i++) {
            float p[3] = {(i & 1) ? hi[0] : lo[0], (i & 2) ? hi[1] : lo[1], (i & 4) ? hi[2] : lo[2]}, x = 0, y = 0, z = 0;
            for (int c = 0; c < 3; c++) {
                float r = p[c] - eye[c];
                x += r * right[c], y += r * up[c], z -= r * dir[c];
            }
            if (!(z > 1e-6f)) continue;
            float sx = x / (z * tx), sy = y / (z * ty);
            ex[0] = fminf(ex[0], sx), ex[1] = fmaxf(ex[1], sx);
            ey[0] = fminf(ey[0], sy), ey[1] = fmaxf(ey[1], sy);
        }
        if (!(ex[0] <= ex[1]) || !(ey[0] <= ey[1])) break;
        float cx = 0.5f * (ex[0] + ex[1]) * tx * dist, cy = 0.5f * (ey[0] + ey[1]) * ty * dist;
        for (int c = 0; c < 3; c++) cam.target[c] += cx * right[c] + cy * up[c];
        /* refit the distance around the new target */
        float nd = 0;
        for (int i = 0; i < 8; i++) {
            float p[3] = {(i & 1) ? hi[0] : lo[0], (i & 2) ? hi[1] : lo[1], (i & 4) ? hi[2] : lo[2]}, x = 0, y = 0, z = 0;
            for (int c = 0; c < 3; c++) {
                float r = p[c] - cam.target[c];
                x += r * right[c], y += r * up[c], z += r * dir[c];
            }
            nd = fmaxf(nd, fmaxf(z + margin * fabsf(x) / tx, z + margin * fabsf(y) / ty));
        }
        dist = fmaxf(nd, radius * 1.01f);
    }
    cam.distance = dist;
    cam.near_plane = fmaxf(dist - 2 * radius, dist * 0.02f);
    cam.far_plane = dist + 2 * radius;
    return cam;
}

void camera_eye(const camera *cam, float eye[3]) {
    float dir[3], right[3], up[3];
    basis(cam, dir, right, up);
    for (int c = 0; c < 3; c++) eye[c] = cam->target[c] + cam->distance * dir[c];
}

void camera_view_proj(const camera *cam, float aspect, float out[16]) {
    float dir[3], r[3], u[3], eye[3];
    basis(cam, dir, r, u);
    camera_eye(cam, eye);
    float view[16] = {0};
    for (int c = 0; c < 3; c++) {
        view[c * 4 + 0] = r[c];
        view[c * 4 + 1] = u[c];
        view[c * 4 + 2] = dir[c];
    }
    view[12] = -(r[0] * eye[0] + r[1] * eye[1] + r[2] * eye[2]);
    view[13] = -(u[0] * eye[0] + u[1] * eye[1] + u[2] * eye[2]);
    view[14] = -(dir[0] * eye[0] + dir[1] * eye[1] + dir[2] * eye[2]);
    view[15] = 1;
    float n = cam->near_plane, f = cam->far_plane, t = 1.0f / tanf(cam->fovy / 2);
    float proj[16] = {0};
    proj[0] = t / (aspect > 0 ? aspect : 1);
    proj[5] = t;
    proj[10] = (f + n) / (n - f);
    proj[11] = -1;
    proj[14] = 2 * f * n / (n - f);
    for (int col = 0; col < 4; col++)
        for (int row = 0; row < 4; row++) {
            float acc = 0;
            for (int k = 0; k < 4; k++) acc += proj[k * 4 + row] * view[col * 4 + k];
            out[col * 4 + row] = acc;
        }
}

#ifdef OSSA_TOOL_GL /* the GL side (no_gl.c stubs it in builds without GL) */
bool scene_gl_create(scene_gl *g, const scene *s, const char *cmd) {
    memset(g, 0, sizeof *g);
    ossa_result r = ossa_gl_renderer_create(&g->renderer);
    if (r != OSSA_OK) {
        fprintf(stderr, "ossa %s: cannot create the GL renderer: %s\n", cmd, ossa_result_string(r));
        return false;
    }
    g->meshes = calloc(s->asset->mesh_count + 1, sizeof *g->meshes);
    if (!g->meshes) {
        fprintf(stderr, "ossa %s: out of memory\n", cmd);
        scene_gl_destroy(g);
        return false;
    }
    g->mesh_count = s->asset->mesh_count;
    const ossa_asset *a = s->asset;
    g->textures = calloc(a->material_count + 1, sizeof *g->textures);
    if (!g->textures) {
        fprintf(stderr, "ossa %s: out of memory\n", cmd);
        scene_gl_destroy(g);
        return false;
    }
    g->material_count = a->material_count;
    for (uint32_t i = 0; i < a->material_count; i++) {
        const ossa_texture_ref *t = &a->materials[i].base_color_texture;
        if (t->image < 0 || (uint32_t)t->image >= a->image_count) continue;
        const ossa_image *im = &a->images[t->image];
        if (!im->data) continue; /* the loader has warned */
        uint8_t *rgba = NULL;
        uint32_t w = 0, h = 0;
        char err[256];
        if (!image_decode(im->data, im->size, &rgba, &w, &h, err, sizeof err)) {
            fprintf(stderr, "ossa %s: warning: materials[%u]: image %d%s%s%s: %s; the base colour factor is used\n", cmd,
                    i, t->image, im->uri[0] ? " '" : "", im->uri, im->uri[0] ? "'" : "", err);
            continue;
        }
        ossa_gl_texture_desc td = {w, h, rgba, t->wrap_s, t->wrap_t, t->min_filter, t->mag_filter};
        r = ossa_gl_texture_create(&td, &g->textures[i]);
        free(rgba);
        if (r != OSSA_OK)
            fprintf(stderr, "ossa %s: warning: materials[%u]: texture upload failed (%s); the base colour factor is used\n",
                    cmd, i, ossa_result_string(r));
    }
    for (uint32_t i = 0; i < g->mesh_count; i++) {
        if (!s->asset->meshes[i]->vertex_count) continue;
        r = ossa_gl_mesh_create(s->asset->meshes[i], &g->meshes[i]);
        if (r != OSSA_OK) {
            fprintf(stderr, "ossa %s: cannot upload mesh %u: %s\n", cmd, i, ossa_result_string(r));
            scene_gl_destroy(g);
            return false;
        }
    }
    return true;
}

void scene_gl_destroy(scene_gl *g) {
    for (uint32_t i = 0; g->meshes && i < g->mesh_count; i++) ossa_gl_mesh_destroy(g->meshes[i]);
    for (uint32_t i = 0; g->textures && i < g->material_count; i++) ossa_gl_texture_destroy(g->textures[i]);
    free(g->textures);
    free(g->meshes);
    ossa_gl_renderer_destroy(g->renderer);
    memset(g, 0, sizeof *g);
}

ossa_gl_draw_desc scene_gl_material(const scene_gl *g, const scene *s, uint32_t mesh) {
    ossa_gl_draw_desc d;
    memset(&d, 0, sizeof d);
    const ossa_asset *a = s->asset;
    const ossa_mesh *m = a->meshes[mesh];
    if (g->has_eye) d.eye = g->eye;
    if (s->is_demo) { /* warm skin tone (linear) */
        d.color[0] = 0.83f, d.color[1] = 0.35f, d.color[2] = 0.13f, d.color[3] = 1.0f;
    } else if (m->material >= 0 && (uint32_t)m->material < a->material_count) {
        const ossa_material *mat = &a->materials[m->material];
        memcpy(d.color, mat->base_color, sizeof d.color);
        bool zero = d.color[0] == 0 && d.color[1] == 0 && d.color[2] == 0 && d.color[3] == 0;
        if (zero) d.color[3] = 1e-6f; /* transparent black, not ossa_gl's default grey */
        d.base_color_texture = g->textures ? g->textures[m->material] : NULL;
        d.texcoord = mat->base_color_texture.texcoord;
        d.alpha_mode = mat->alpha_mode;
        d.alpha_cutoff = mat->alpha_cutoff;
        d.cull_back_faces = !mat->double_sided;
    }
    return d;
}

/* True when mesh i is drawn in the blended pass. */
static bool mesh_blends(const scene *s, uint32_t i) {
    const ossa_asset *a = s->asset;
    int32_t mi = a->meshes[i]->material;
    return mi >= 0 && (uint32_t)mi < a->material_count && a->materials[mi].alpha_mode == OSSA_ALPHA_MODE_BLEND;
}

bool scene_gl_draw(scene_gl *g, scene *s, const float view_proj[16], const draw_options *opt, uint32_t width,
                   uint32_t height, const char *cmd) {
    return scene_gl_draw_rect(g, s, view_proj, opt, 0, 0, width, height, cmd);
}

bool scene_gl_draw_rect(scene_gl *g, scene *s, const float view_proj[16], const draw_options *opt, uint32_t x,
                        uint32_t y, uint32_t width, uint32_t height, const char *cmd) {
    glViewport((GLint)x, (GLint)y, (GLsizei)width, (GLsizei)height);
    glScissor((GLint)x, (GLint)y, (GLsizei)width, (GLsizei)height);
    glEnable(GL_SCISSOR_TEST);
    glClearColor(opt->background[0], opt->background[1], opt->background[2], 1.0f);
    glClearDepth(1.0);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glDisable(GL_SCISSOR_TEST);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    for (uint32_t pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < g->mesh_count; i++) {
            if (!g->meshes[i] || mesh_blends(s, i) != (pass == 1)) continue;
            ossa_gl_draw_desc d = scene_gl_material(g, s, i);
            d.view_proj = view_proj;
            d.wireframe = opt->wireframe;
            /* the GPU path applies up to OSSA_GL_MAX_ACTIVE_MORPHS weights in the shader */
            uint32_t active = 0;
            const ossa_mesh *m = s->asset->meshes[i];
            for (uint32_t k = 0; s->morph_weights[i] && k < m->target_count; k++) active += s->morph_weights[i][k] != 0;
            ossa_gl_skinning gpu = s->dqs ? OSSA_GL_SKIN_DUAL_QUAT : OSSA_GL_SKIN_PALETTE_TEXTURE;
            bool gpu_fits = s->joint_count <= ossa_gl_renderer_max_joints(g->renderer, gpu);
            if (opt->cpu || !scene_mesh_is_skinned(s, i) || active > OSSA_GL_MAX_ACTIVE_MORPHS || !gpu_fits) {
                if (!scene_skin_cpu(s, i)) {
                    fprintf(stderr, "ossa %s: CPU skinning of mesh %u failed\n", cmd, i);
                    return false;
                }
                ossa_result r = ossa_gl_mesh_update(g->meshes[i], s->positions[i], s->normals[i]);
                if (r != OSSA_OK) {
                    fprintf(stderr, "ossa %s: mesh upload failed: %s\n", cmd, ossa_result_string(r));
                    return false;
                }
                d.skinning = OSSA_GL_SKIN_NONE;
            } else {
                d.skinning = gpu;
                d.joint_count = s->joint_count;
                d.palette = scene_mesh_palette(s, i);
                if (s->dqs) d.dual_quats = s->dual_quats + (size_t)m->skin * s->joint_count;
                d.morph_weights = s->morph_weights[i];
            }
            ossa_result r = ossa_gl_draw(g->renderer, g->meshes[i], &d);
            if (r != OSSA_OK) {
                fprintf(stderr, "ossa %s: draw failed: %s\n", cmd, ossa_result_string(r));
                return false;
            }
        }
    if (opt->bones && s->joint_count) {
        const ossa_skeleton *sk = s->asset->skeleton;
        float *pts = malloc(sizeof(float) * 6 * s->joint_count);
        if (!pts) return false;
        uint32_t n = 0;
        /* the skins' joints; without skins the moving ones (not a static root, camera or sky) */
        const bool *drawn = sk->skin_count ? s->skin_joint : s->any_moving ? s->moving : NULL;
        for (uint32_t j = 0; j < s->joint_count; j++) {
            int32_t p = sk->parents[j];
            if (p < 0) continue;
            if (drawn && !(drawn[j] && drawn[p])) continue;
            memcpy(pts + n * 3, &s->model[p].m[12], sizeof(float) * 3);
            memcpy(pts + n * 3 + 3, &s->model[j].m[12], sizeof(float) * 3);
            n += 2;
        }
        static const float color[4] = {1.0f, 0.9f, 0.2f, 1.0f};
        ossa_result r = n ? ossa_gl_draw_lines(g->renderer, pts, n, view_proj, color) : OSSA_OK;
        free(pts);
        if (r != OSSA_OK) {
            fprintf(stderr, "ossa %s: bone overlay failed: %s\n", cmd, ossa_result_string(r));
            return false;
        }
    }
    return true;
}

#endif

uint32_t span_frame_count(const clip_span *span, float fps) {
    if ((!span->clip && !span->built) || !(span->to > span->from)) return 1;
    double n = ceil(((double)span->to - (double)span->from) * fps - 1e-3);
    if (n < 1) n = 1;
    if (n > 100000) n = 100000;
    return (uint32_t)n + (span->loop ? 0u : 1u);
}

#ifdef OSSA_TOOL_GL
/* Seconds between progress lines off a terminal: PROGRESS_LINE_SECONDS, or the
 * environment's OSSA_PROGRESS_SECONDS (tests use 0: a line per frame). */
static double progress_interval(void) {
    const char *e = getenv("OSSA_PROGRESS_SECONDS");
    char *end = NULL;
    double v = e ? strtod(e, &end) : -1;
    return e && end != e && v >= 0 ? v : PROGRESS_LINE_SECONDS;
}

/* (render_common.h) A bar on a terminal, else a line every progress_interval(). */
void progress(progress_state *ps, const char *cmd, uint32_t done, uint32_t total) {
    double now = now_seconds();
    double eta = done ? (now - ps->start) / done * (total - done) : 0;
    if (ps->tty) {
        const int width = 30;
        int fill = total ? (int)((uint64_t)done * (uint64_t)width / total) : width;
        char bar[64];
        for (int i = 0; i < width; i++) bar[i] = i < fill ? '#' : '.';
        bar[width] = 0;
        fprintf(stderr, "\rossa %s: [%s] %u/%u frames, %.0f s left ", cmd, bar, done, total, eta);
        if (done == total) fputc('\n', stderr);
    } else if (now - ps->last_line >= progress_interval() || (done == total && ps->last_line > ps->start)) {
        fprintf(stderr, "ossa %s: %u/%u frames (%.0f%%), %.1f s elapsed, about %.0f s left\n", cmd, done, total,
                100.0 * done / (total ? total : 1), now - ps->start, eta);
        ps->last_line = now;
    }
    fflush(stderr);
}

/* The camera of one panel: framed on the whole clip of every span (so a still and the frames of a
 * partial range are framed like the full animation), both skinnings' bounds with --compare;
 * turns the bone overlay on when the framing is of joints. cam may be NULL. */
static bool frame_scene(scene *s, const clip_span *spans, const render_job *job, float aspect, camera *cam_out,
                        float vp[16], draw_options *draw, const char *cmd) {
    float lo[3], hi[3];
    clip_span *whole = calloc(job->span_count + 1, sizeof *whole);
    if (!whole) {
        fprintf(stderr, "ossa %s: out of memory\n", cmd);
        return false;
    }
    for (uint32_t k = 0; k < job->span_count; k++) {
        whole[k] = spans[k];
        if (whole[k].built) {
            whole[k].from = ossa_built_clip_start(whole[k].built);
            whole[k].to = ossa_built_clip_end(whole[k].built);
        } else if (whole[k].clip) {
            whole[k].from = whole[k].clip->start, whole[k].to = whole[k].clip->end;
        }
    }
    bool compare = job->draw.compare, of_meshes = true;
    for (int side = 0; side < (compare ? 2 : 1); side++) { /* DQS and LBS bounds differ a little */
        float l2[3], h2[3];
        s->dqs = compare ? side == 1 : job->draw.dqs;
        s->repeat_pose = true; /* framing poses are not frames (IK statistics) */
        of_meshes = scene_animated_bounds(s, whole, job->span_count, 24, l2, h2);
        s->repeat_pose = false;
        for (int c = 0; c < 3; c++) {
            lo[c] = side ? fminf(lo[c], l2[c]) : l2[c];
            hi[c] = side ? fmaxf(hi[c], h2[c]) : h2[c];
        }
    }
    free(whole);
    if (!of_meshes && !draw->bones && s->joint_count > 1) { /* framed on joints: no mesh shows the motion */
        draw->bones = true;
        fprintf(stderr, "ossa %s: %s: no skinned mesh: drawing the skeleton (--bones)\n", cmd, s->label);
    }
    camera cam = camera_frame(lo, hi, aspect);
    camera_view_proj(&cam, aspect, vp);
    if (cam_out) *cam_out = cam;
    return true;
}

/* Box filter: each of the w x h RGBA8 output pixels is the mean of its ss x ss block of src. */
static void image_downsample(const uint8_t *src, uint8_t *dst, uint32_t w, uint32_t h, uint32_t ss) {
    size_t sw = (size_t)w * ss;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            for (int c = 0; c < 4; c++) {
                uint32_t sum = 0;
                for (uint32_t j = 0; j < ss; j++)
                    for (uint32_t i = 0; i < ss; i++) sum += src[(((size_t)y * ss + j) * sw + (size_t)x * ss + i) * 4 + (size_t)c];
                dst[((size_t)y * w + x) * 4 + (size_t)c] = (uint8_t)((sum + ss * ss / 2) / (ss * ss));
            }
}

bool frame_output_open(frame_output *f, const char *out, uint32_t width, uint32_t height, uint32_t supersample,
                       const char *cmd) {
    memset(f, 0, sizeof *f);
    f->out = out, f->width = width, f->height = height;
    if (!make_parent_dirs(out)) {
        fprintf(stderr, "ossa %s: cannot create the directory of %s\n", cmd, out);
        return false;
    }
    f->ss = supersample ? supersample : 1;
    while (f->ss > 1 && (width * f->ss > 8192 || height * f->ss > 8192)) f->ss--;
    f->rw = width * f->ss, f->rh = height * f->ss;
    ossa_result r = ossa_gl_headless_create(f->rw, f->rh, &f->ctx);
    if (r != OSSA_OK) {
        fprintf(stderr, "ossa %s: no offscreen OpenGL 3.3 context through EGL (%s); on a headless Linux box "
                        "install Mesa (llvmpipe) EGL drivers\n", cmd, ossa_result_string(r));
        return false;
    }
    f->pixels = malloc((size_t)width * height * 4);
    f->big = f->ss > 1 ? malloc((size_t)f->rw * f->rh * 4) : f->pixels;
    if (f->pixels && f->big) return true;
    fprintf(stderr, "ossa %s: out of memory\n", cmd);
    return false;
}

bool frame_output_begin(frame_output *f, float fps, const char *cmd) {
    if (!path_has_ext(f->out, ".gif")) return true;
    char err[512];
    f->gif = gif_writer_open(f->out, f->width, f->height, fps, err, sizeof err);
    if (!f->gif) fprintf(stderr, "ossa %s: %s\n", cmd, err);
    return f->gif != NULL;
}

bool frame_output_write(frame_output *f, const char *cmd) {
    ossa_result r = ossa_gl_headless_read(f->ctx, f->big);
    if (r != OSSA_OK) {
        fprintf(stderr, "ossa %s: reading the framebuffer failed: %s\n", cmd, ossa_result_string(r));
        return false;
    }
    if (f->ss > 1) image_downsample(f->big, f->pixels, f->width, f->height, f->ss);
    for (size_t p = 0; p < (size_t)f->width * f->height; p++) f->pixels[p * 4 + 3] = 255;
    char err[512];
    if (f->gif ? gif_writer_add(f->gif, f->pixels, err, sizeof err)
               : image_write_png(f->out, f->pixels, f->width, f->height, err, sizeof err))
        return true;
    fprintf(stderr, "ossa %s: %s\n", cmd, err);
    return false;
}

bool frame_output_end(frame_output *f, const char *cmd) {
    char err[512];
    bool ok = !f->gif || gif_writer_close(f->gif, err, sizeof err);
    if (!ok) fprintf(stderr, "ossa %s: %s\n", cmd, err);
    f->gif = NULL;
    return ok;
}

void frame_output_free(frame_output *f) {
    char err[512];
    if (f->gif) gif_writer_close(f->gif, err, sizeof err);
    ossa_gl_headless_destroy(f->ctx);
    if (f->big != f->pixels) free(f->big);
    free(f->pixels);
    memset(f, 0, sizeof *f);
}

/* Poses the scene(s) at time t of span k and draws the frame: one panel, LBS | DQS
 * (--compare: the same frame twice, same camera) or the job's scene beside job->beside. */
static bool draw_frame(scene *s, const render_job *job, uint32_t k, float t, scene_gl *g, scene_gl *g_beside,
                       const float vp[16], const float vp_beside[16], const draw_options *draw,
                       const draw_options *draw_beside, uint32_t rw, uint32_t rh, const char *cmd) {
    const clip_span *sp = &job->spans[k];
    bool ok = true;
    if (job->draw.compare) { /* LBS on the left half, DQS on the right, same camera */
        for (uint32_t side = 0; ok && side < 2; side++) {
            s->dqs = side == 1;
            s->repeat_pose = side == 1; /* the same frame again */
            span_pose(s, sp, t);
            s->repeat_pose = false;
            ok = scene_gl_draw_rect(g, s, vp, draw, side * (rw / 2), 0, rw / 2, rh, cmd);
        }
        return ok;
    }
    if (job->beside) { /* this scene on the left half, the other on the right, same time */
        s->dqs = job->beside->dqs = job->draw.dqs;
        span_pose(s, sp, t);
        ok = scene_gl_draw_rect(g, s, vp, draw, 0, 0, rw / 2, rh, cmd);
        span_pose(job->beside, &job->beside_spans[k], t);
        return ok && scene_gl_draw_rect(g_beside, job->beside, vp_beside, draw_beside, rw / 2, 0, rw / 2, rh, cmd);
    }
    s->dqs = job->draw.dqs;
    span_pose(s, sp, t);
    return scene_gl_draw(g, s, vp, draw, rw, rh, cmd);
}

bool render_to_file(scene *s, const render_job *job, render_stats *stats, const char *cmd) {
    double t0 = now_seconds();
    memset(stats, 0, sizeof *stats);
    bool gif = path_has_ext(job->out, ".gif");
    if (!gif && !path_has_ext(job->out, ".png")) {
        fprintf(stderr, "ossa %s: --out %s: the output must end in .gif or .png\n", cmd, job->out);
        return false;
    }
    uint32_t total = 0;
    for (uint32_t k = 0; k < job->span_count; k++) total += span_frame_count(&job->spans[k], job->fps);
    if (!gif && job->png_frame >= total) {
        fprintf(stderr, "ossa %s: frame %u requested, the sequence has %u\n", cmd, job->png_frame, total);
        return false;
    }
    uint32_t skip = gif ? 0 : job->png_frame; /* frames to step over before the PNG one */
    if (!gif) total = 1;
    float aspect = (float)job->width / (float)job->height / (job->draw.compare || job->beside ? 2.0f : 1.0f);
    float vp[16], vp_beside[16];
    camera cam;
    draw_options draw = job->draw, draw_beside = job->draw;
    if (!frame_scene(s, job->spans, job, aspect, &cam, vp, &draw, cmd)) return false;
    if (job->beside && !frame_scene(job->beside, job->beside_spans, job, aspect, NULL, vp_beside, &draw_beside, cmd))
        return false;
    frame_output f;
    scene_gl g, g_beside;
    bool ok = frame_output_open(&f, job->out, job->width, job->height, job->supersample, cmd);
    bool gl_made = ok = ok && scene_gl_create(&g, s, cmd);
    ok = ok && (!job->beside || scene_gl_create(&g_beside, job->beside, cmd));
    bool beside_made = ok && job->beside;
    if (ok) {
        camera_eye(&cam, g.eye);
        g.has_eye = true;
    }
    progress_state ps = {isatty(2), now_seconds(), now_seconds()};
    ok = ok && frame_output_begin(&f, job->fps, cmd);
    uint32_t done = 0;
    for (uint32_t k = 0; ok && k < job->span_count && done < total; k++) {
        const clip_span *sp = &job->spans[k];
        uint32_t n = span_frame_count(sp, job->fps);
        for (uint32_t i = 0; ok && i < n && done < total; i++) {
            float t = sp->from + (float)i / job->fps;
            if (t > sp->to || (!sp->loop && i == n - 1 && n > 1)) t = sp->to;
            if (skip) {
                skip--;
                continue;
            }
            ok = draw_frame(s, job, k, t, &g, &g_beside, vp, vp_beside, &draw, &draw_beside, f.rw, f.rh, cmd) &&
                 frame_output_write(&f, cmd);
            if (!ok) break;
            done++;
            if (total > 1 && !job->draw.quiet) progress(&ps, cmd, done, total);
        }
    }
    ok = frame_output_end(&f, cmd) && ok;
    if (gl_made) scene_gl_destroy(&g);
    if (beside_made) scene_gl_destroy(&g_beside);
    frame_output_free(&f);
    stats->frames = done;
    stats->seconds = now_seconds() - t0;
    return ok;
}
#endif

bool parse_float(const char *cmd, const char *opt, const char *text, float *out) {
    char *end = NULL;
    float v = text ? strtof(text, &end) : 0;
    if (!text || end == text || *end || !isfinite(v)) {
        fprintf(stderr, "ossa %s: %s expects a number, got '%s'\n", cmd, opt, text ? text : "");
        return false;
    }
    *out = v;
    return true;
}

bool parse_size(const char *cmd, const char *text, uint32_t *w, uint32_t *h) {
    unsigned long a = 0, b = 0;
    char *end = NULL;
    if (text) a = strtoul(text, &end, 10);
    if (!text || end == text || (*end != 'x' && *end != 'X')) goto bad;
    const char *second = end + 1;
    b = strtoul(second, &end, 10);
    if (end == second || *end || a < 1 || b < 1 || a > 8192 || b > 8192) goto bad;
    *w = (uint32_t)a;
    *h = (uint32_t)b;
    return true;
bad:
    fprintf(stderr, "ossa %s: --size expects WxH (1..8192), got '%s'\n", cmd, text ? text : "");
    return false;
}

bool take_file_arg(const char *cmd, const char *arg, bool last, const char **file) {
    if (arg[0] == '-' && arg[1]) {
        cli_unknown_option(cmd, arg, last);
        return false;
    }
    if (*file) {
        fprintf(stderr, "ossa %s: more than one FILE: %s\n", cmd, arg);
        return false;
    }
    *file = arg;
    return true;
}

bool parse_skinning(const char *cmd, const char *text, bool *dqs) {
    if (text && !strcmp(text, "lbs")) *dqs = false;
    else if (text && !strcmp(text, "dqs")) *dqs = true;
    else {
        fprintf(stderr, "ossa %s: --skinning expects lbs or dqs, got '%s'\n", cmd, text ? text : "");
        return false;
    }
    return true;
}

void render_options_init(render_options *o, const char *out) {
    memset(o, 0, sizeof *o);
    o->out = out;
    o->width = o->height = 320;
    o->fps = 15;
    o->ssaa = 2;
    o->draw.background[0] = 0.16f, o->draw.background[1] = 0.18f, o->draw.background[2] = 0.22f;
}

int render_options_parse(render_options *o, const char *cmd, int argc, char **argv, int *i) {
    const char *a = argv[*i];
    bool more = *i + 1 < argc;
    if (!strcmp(a, "--out") && more) {
        o->out = argv[++*i];
    } else if (!strcmp(a, "--size") && more) {
        if (!parse_size(cmd, argv[++*i], &o->width, &o->height)) return -1;
    } else if (!strcmp(a, "--fps") && more) {
        if (!parse_float(cmd, a, argv[++*i], &o->fps)) return -1;
        if (!(o->fps > 0 && o->fps <= 1000)) {
            fprintf(stderr, "ossa %s: --fps must be in (0, 1000]\n", cmd);
            return -1;
        }
    } else if (!strcmp(a, "--ssaa") && more) {
        const char *text = argv[++*i];
        char *end = NULL;
        long n = strtol(text, &end, 10);
        if (!*text || *end || n < 1 || n > 4) {
            fprintf(stderr, "ossa %s: --ssaa expects 1..4 (samples per pixel side)\n", cmd);
            return -1;
        }
        o->ssaa = (uint32_t)n;
    } else if (!strcmp(a, "--bones")) {
        o->draw.bones = true;
    } else if (!strcmp(a, "--cpu")) {
        o->draw.cpu = true;
    } else if (!strcmp(a, "--gpu")) {
        o->draw.cpu = false;
    } else if (!strcmp(a, "--skinning") && more) {
        if (!parse_skinning(cmd, argv[++*i], &o->draw.dqs)) return -1;
        o->skinning_given = true;
    } else if (!strcmp(a, "--compare")) {
        o->draw.compare = true;
    } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
        o->draw.quiet = true;
    } else {
        return 0;
    }
    return 1;
}

bool render_options_consistent(const render_options *o, const char *cmd) {
    if (!(o->draw.compare && o->skinning_given)) return true;
    fprintf(stderr, "ossa %s: --compare draws LBS and DQS side by side: it takes no --skinning\n", cmd);
    return false;
}

bool render_out_ext_ok(const char *cmd, const char *out) {
    if (path_has_ext(out, ".gif") || path_has_ext(out, ".png")) return true;
    fprintf(stderr, "ossa %s: --out %s: use a .gif or .png name\n", cmd, out);
    return false;
}

render_job render_options_job(const render_options *o, const clip_span *spans, uint32_t span_count) {
    render_job job;
    memset(&job, 0, sizeof job);
    job.spans = spans;
    job.span_count = span_count;
    job.fps = o->fps;
    job.width = o->width;
    job.height = o->height;
    job.out = o->out;
    job.supersample = o->ssaa;
    job.draw = o->draw;
    return job;
}
