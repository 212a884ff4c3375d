/* The built-in demo character (see demo_character.h): skeleton, capsule body
 * with smooth 2-joint weights, and two CUBIC clips sampled from analytic motion. */
#include "demo_character.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

enum {
    J_HIPS, J_SPINE, J_CHEST, J_NECK, J_HEAD,
    J_UPPER_ARM_L, J_LOWER_ARM_L, J_HAND_L,
    J_UPPER_ARM_R, J_LOWER_ARM_R, J_HAND_R,
    J_UPPER_LEG_L, J_LOWER_LEG_L, J_FOOT_L,
    J_UPPER_LEG_R, J_LOWER_LEG_R, J_FOOT_R
};

static const char *const JOINT_NAMES[DEMO_JOINT_COUNT] = {
    "hips", "spine", "chest", "neck", "head",
    "upper_arm_L", "lower_arm_L", "hand_L",
    "upper_arm_R", "lower_arm_R", "hand_R",
    "upper_leg_L", "lower_leg_L", "foot_L",
    "upper_leg_R", "lower_leg_R", "foot_R"};

static const int32_t JOINT_PARENTS[DEMO_JOINT_COUNT] = {
    -1, J_HIPS, J_SPINE, J_CHEST, J_NECK,
    J_CHEST, J_UPPER_ARM_L, J_LOWER_ARM_L,
    J_CHEST, J_UPPER_ARM_R, J_LOWER_ARM_R,
    J_HIPS, J_UPPER_LEG_L, J_LOWER_LEG_L,
    J_HIPS, J_UPPER_LEG_R, J_LOWER_LEG_R};

/* Local rest translations (metres); rest rotations are identity, scale 1. */
static const float JOINT_OFFSETS[DEMO_JOINT_COUNT][3] = {
    {0, 0.98f, 0}, {0, 0.12f, 0}, {0, 0.20f, 0}, {0, 0.20f, 0}, {0, 0.10f, 0},
    {0.21f, 0.15f, 0}, {0, -0.28f, 0}, {0, -0.25f, 0},
    {-0.21f, 0.15f, 0}, {0, -0.28f, 0}, {0, -0.25f, 0},
    {0.10f, -0.06f, 0}, {0, -0.42f, 0}, {0, -0.42f, 0},
    {-0.10f, -0.06f, 0}, {0, -0.42f, 0}, {0, -0.42f, 0}};

/* ------------------------------------------------------------------ body --- */

typedef struct tube {
    float start[3], dir[3];   /* axis start (world, bind pose) and unit direction */
    int segments;
    float length[3];          /* segment lengths along the axis */
    int joint[3];             /* joint of each segment */
    float rx, rz;             /* cross-section radii along the frame's a and b axes */
    int start_blend, end_blend; /* joint sharing half the weight at the axis ends, or -1 */
} tube;

static const tube TUBES[] = {
    /* torso: hips, spine, chest */
    {{0, 0.86f, 0}, {0, 1, 0}, 3, {0.24f, 0.20f, 0.18f}, {J_HIPS, J_SPINE, J_CHEST}, 0.15f, 0.10f, -1, -1},
    {{0, 1.44f, 0}, {0, 1, 0}, 1, {0.16f}, {J_NECK}, 0.05f, 0.05f, J_CHEST, J_HEAD},
    {{0, 1.63f, 0}, {0, 1, 0}, 1, {0.10f}, {J_HEAD}, 0.10f, 0.11f, -1, -1},
    {{0.21f, 1.45f, 0}, {0, -1, 0}, 3, {0.28f, 0.25f, 0.10f}, {J_UPPER_ARM_L, J_LOWER_ARM_L, J_HAND_L},
     0.045f, 0.045f, J_CHEST, -1},
    {{-0.21f, 1.45f, 0}, {0, -1, 0}, 3, {0.28f, 0.25f, 0.10f}, {J_UPPER_ARM_R, J_LOWER_ARM_R, J_HAND_R},
     0.045f, 0.045f, J_CHEST, -1},
    {{0.10f, 0.92f, 0}, {0, -1, 0}, 2, {0.42f, 0.40f}, {J_UPPER_LEG_L, J_LOWER_LEG_L}, 0.07f, 0.07f, J_HIPS, -1},
    {{-0.10f, 0.92f, 0}, {0, -1, 0}, 2, {0.42f, 0.40f}, {J_UPPER_LEG_R, J_LOWER_LEG_R}, 0.07f, 0.07f, J_HIPS, -1},
    {{0.10f, 0.05f, -0.05f}, {0, 0, 1}, 1, {0.17f}, {J_FOOT_L}, 0.05f, 0.04f, J_LOWER_LEG_L, -1},
    {{-0.10f, 0.05f, -0.05f}, {0, 0, 1}, 1, {0.17f}, {J_FOOT_R}, 0.05f, 0.04f, J_LOWER_LEG_R, -1},
};
#define TUBE_COUNT (sizeof(TUBES) / sizeof(TUBES[0]))

#define AROUND 20      /* vertices per ring */
#define CAP_RINGS 5    /* rings per hemispherical cap, pole included */
#define RING_STEP 0.025f

static float smooth01(float x) {
    if (x <= 0) return 0;
    if (x >= 1) return 1;
    return x * x * (3 - 2 * x);
}

/* Two influences for a point at axial distance s along tube t. */
static void tube_weights(const tube *t, float s, int joints[2], float weights[2]) {
    float total = 0;
    for (int k = 0; k < t->segments; k++) total += t->length[k];
    if (s < 0) s = 0;
    if (s > total) s = total;
    int k = 0;
    float b0 = 0;
    while (k < t->segments - 1 && s > b0 + t->length[k]) b0 += t->length[k++];
    float b1 = b0 + t->length[k];
    joints[0] = t->joint[k];
    weights[0] = 1;
    joints[1] = t->joint[k];
    weights[1] = 0;
    float h = 0.05f;
    for (int i = 0; i < t->segments; i++)
        if (h > 0.45f * t->length[i]) h = 0.45f * t->length[i];
    if (s - b0 < h) { /* near the lower boundary of segment k */
        int other = k > 0 ? t->joint[k - 1] : t->start_blend;
        if (other >= 0) {
            float w = k > 0 ? 1 - smooth01(0.5f + 0.5f * (s - b0) / h) : 0.5f * (1 - smooth01((s - b0) / h));
            joints[1] = other;
            weights[1] = w;
            weights[0] = 1 - w;
        }
    } else if (b1 - s < h) { /* near the upper boundary */
        int other = k < t->segments - 1 ? t->joint[k + 1] : t->end_blend;
        if (other >= 0) {
            float w = k < t->segments - 1 ? 1 - smooth01(0.5f + 0.5f * (b1 - s) / h)
                                          : 0.5f * (1 - smooth01((b1 - s) / h));
            joints[1] = other;
            weights[1] = w;
            weights[0] = 1 - w;
        }
    }
}

typedef struct body {
    uint32_t vertex_count, index_count, vcap, icap;
    float *positions, *normals, *weights;
    uint16_t *joints;
    uint32_t *indices;
} body;

static int body_reserve(body *b, uint32_t vertices, uint32_t indices) {
    if (b->vertex_count + vertices > b->vcap) {
        uint32_t cap = (b->vertex_count + vertices) * 2;
        float *p = realloc(b->positions, sizeof(float) * 3 * cap);
        if (!p) return 0;
        b->positions = p;
        p = realloc(b->normals, sizeof(float) * 3 * cap);
        if (!p) return 0;
        b->normals = p;
        p = realloc(b->weights, sizeof(float) * 4 * cap);
        if (!p) return 0;
        b->weights = p;
        uint16_t *j = realloc(b->joints, sizeof(uint16_t) * 4 * cap);
        if (!j) return 0;
        b->joints = j;
        b->vcap = cap;
    }
    if (b->index_count + indices > b->icap) {
        uint32_t cap = (b->index_count + indices) * 2;
        uint32_t *i = realloc(b->indices, sizeof(uint32_t) * cap);
        if (!i) return 0;
        b->indices = i;
        b->icap = cap;
    }
    return 1;
}

static void cross3(const float a[3], const float b[3], float out[3]) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static void normalize3(float v[3]) {
    float l = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (l > 1e-12f) v[0] /= l, v[1] /= l, v[2] /= l;
}

/* Appends one capsule: rings along the axis, hemispherical (ellipsoidal) caps. */
static int body_add_tube(body *b, const tube *t) {
    float total = 0;
    for (int k = 0; k < t->segments; k++) total += t->length[k];
    const float *d = t->dir;
    /* frame: a ⟂ d (close to +X), b = d x a, so a x b = d (outward-facing CCW triangles) */
    float a[3] = {1, 0, 0};
    if (fabsf(d[0]) > 0.9f) a[0] = 0, a[2] = 1;
    float dd = a[0] * d[0] + a[1] * d[1] + a[2] * d[2];
    for (int i = 0; i < 3; i++) a[i] -= dd * d[i];
    normalize3(a);
    float bv[3];
    cross3(d, a, bv);
    float cap = t->rx < t->rz ? t->rx : t->rz; /* axial radius of the caps */
    int body_rings = (int)ceilf(total / RING_STEP) + 1;
    int rings = 2 * CAP_RINGS + body_rings;
    uint32_t base = b->vertex_count;
    if (!body_reserve(b, (uint32_t)(rings * AROUND), (uint32_t)((rings - 1) * AROUND * 6))) return 0;
    for (int r = 0; r < rings; r++) {
        float s, phi; /* axial position and polar angle (0 at the start pole, pi at the end pole) */
        if (r < CAP_RINGS) {
            phi = (float)(PI / 2) * (float)r / CAP_RINGS;
            s = -cap * cosf(phi);
        } else if (r < CAP_RINGS + body_rings) {
            phi = (float)(PI / 2);
            s = total * (float)(r - CAP_RINGS) / (float)(body_rings - 1);
        } else {
            phi = (float)(PI / 2) + (float)(PI / 2) * (float)(r - CAP_RINGS - body_rings + 1) / CAP_RINGS;
            s = total - cap * cosf(phi);
        }
        float sp = sinf(phi), cp = cosf(phi);
        int joints[2];
        float weights[2];
        tube_weights(t, s, joints, weights);
        for (int i = 0; i < AROUND; i++) {
            float th = (float)(2 * PI) * (float)i / AROUND, ct = cosf(th), st = sinf(th);
            uint32_t v = b->vertex_count++;
            float n[3];
            for (uint32_t c = 0; c < 3; c++) {
                b->positions[v * 3 + c] = t->start[c] + s * d[c] + sp * (t->rx * ct * a[c] + t->rz * st * bv[c]);
                n[c] = -cp / cap * d[c] + sp * (ct / t->rx * a[c] + st / t->rz * bv[c]);
            }
            normalize3(n);
            memcpy(b->normals + v * 3, n, sizeof n);
            b->joints[v * 4 + 0] = (uint16_t)joints[0];
            b->joints[v * 4 + 1] = (uint16_t)joints[1];
            b->joints[v * 4 + 2] = 0;
            b->joints[v * 4 + 3] = 0;
            b->weights[v * 4 + 0] = weights[0];
            b->weights[v * 4 + 1] = weights[1];
            b->weights[v * 4 + 2] = 0;
            b->weights[v * 4 + 3] = 0;
        }
    }
    for (int r = 0; r + 1 < rings; r++)
        for (int i = 0; i < AROUND; i++) {
            uint32_t i1 = (uint32_t)((i + 1) % AROUND);
            uint32_t v00 = base + (uint32_t)(r * AROUND + i), v01 = base + (uint32_t)r * AROUND + i1;
            uint32_t v10 = v00 + AROUND, v11 = v01 + AROUND;
            uint32_t *ix = b->indices + b->index_count;
            ix[0] = v00, ix[1] = v01, ix[2] = v10;
            ix[3] = v01, ix[4] = v11, ix[5] = v10;
            b->index_count += 6;
        }
    return 1;
}

/* ----------------------------------------------------------------- clips --- */

typedef struct dquat { double x, y, z, w; } dquat;

static dquat dq_axis(double ax, double ay, double az, double angle) {
    double s = sin(angle / 2);
    dquat q = {ax * s, ay * s, az * s, cos(angle / 2)};
    return q;
}

static dquat dq_mul(dquat a, dquat b) {
    dquat q = {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
               a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
    return q;
}

static double smoothstep_d(double e0, double e1, double x) {
    double u = (x - e0) / (e1 - e0);
    if (u <= 0) return 0;
    if (u >= 1) return 1;
    return u * u * (3 - 2 * u);
}

typedef struct pose_d {
    dquat rot[DEMO_JOINT_COUNT];
    double hips[3]; /* hips translation */
} pose_d;

static void pose_rest(pose_d *p) {
    for (int j = 0; j < DEMO_JOINT_COUNT; j++) p->rot[j] = dq_axis(1, 0, 0, 0);
    p->hips[0] = JOINT_OFFSETS[J_HIPS][0];
    p->hips[1] = JOINT_OFFSETS[J_HIPS][1];
    p->hips[2] = JOINT_OFFSETS[J_HIPS][2];
}

/* Walk cycle, period 1 s. The character faces +Z; a rotation about +X by a
 * negative angle swings a limb forward. */
static void walk_pose(double t, pose_d *p) {
    pose_rest(p);
    double ph = 2 * PI * t, s = sin(ph);
    p->hips[1] = 0.965 - 0.02 * cos(2 * ph);
    p->rot[J_HIPS] = dq_axis(0, 1, 0, 0.12 * s);
    p->rot[J_SPINE] = dq_axis(1, 0, 0, 0.05 + 0.02 * cos(2 * ph));
    p->rot[J_CHEST] = dq_axis(0, 1, 0, -0.2 * s);
    p->rot[J_HEAD] = dq_axis(0, 1, 0, 0.08 * s);
    double swing_l = sin(ph + 0.3), swing_r = sin(ph + 0.3 + PI);
    double kl = swing_l > 0 ? swing_l * swing_l : 0, kr = swing_r > 0 ? swing_r * swing_r : 0;
    p->rot[J_UPPER_LEG_L] = dq_axis(1, 0, 0, -0.5 * s);
    p->rot[J_UPPER_LEG_R] = dq_axis(1, 0, 0, 0.5 * s);
    p->rot[J_LOWER_LEG_L] = dq_axis(1, 0, 0, 0.12 + 0.75 * kl);
    p->rot[J_LOWER_LEG_R] = dq_axis(1, 0, 0, 0.12 + 0.75 * kr);
    p->rot[J_FOOT_L] = dq_axis(1, 0, 0, -0.25 * kl + 0.1 * s);
    p->rot[J_FOOT_R] = dq_axis(1, 0, 0, -0.25 * kr - 0.1 * s);
    p->rot[J_UPPER_ARM_L] = dq_mul(dq_axis(0, 0, 1, 0.08), dq_axis(1, 0, 0, 0.4 * s));
    p->rot[J_UPPER_ARM_R] = dq_mul(dq_axis(0, 0, 1, -0.08), dq_axis(1, 0, 0, -0.4 * s));
    p->rot[J_LOWER_ARM_L] = dq_axis(1, 0, 0, -0.35 - 0.2 * s);
    p->rot[J_LOWER_ARM_R] = dq_axis(1, 0, 0, -0.35 + 0.2 * s);
}

#define WAVE_DURATION 2.2
/* Right arm raised, hand waved three times, arm lowered. */
static void wave_pose(double t, pose_d *p) {
    pose_rest(p);
    double env = smoothstep_d(0, 0.5, t) * (1 - smoothstep_d(1.7, WAVE_DURATION, t));
    double w = sin(2 * PI * 2.0 * (t - 0.45));
    p->rot[J_UPPER_ARM_R] = dq_mul(dq_axis(0, 0, 1, -2.45 * env), dq_axis(1, 0, 0, -0.25 * env));
    p->rot[J_LOWER_ARM_R] = dq_axis(0, 0, 1, env * (-0.45 + 0.4 * w));
    p->rot[J_HAND_R] = dq_axis(0, 0, 1, env * 0.25 * w);
    p->rot[J_UPPER_ARM_L] = dq_axis(0, 0, 1, 0.06 + 0.04 * env);
    p->rot[J_LOWER_ARM_L] = dq_axis(1, 0, 0, -0.15 * env);
    p->rot[J_CHEST] = dq_axis(0, 0, 1, 0.06 * env);
    p->rot[J_HEAD] = dq_mul(dq_axis(0, 1, 0, -0.25 * env), dq_axis(0, 0, 1, 0.12 * env));
    p->hips[1] = JOINT_OFFSETS[J_HIPS][1] - 0.01 * env;
}

typedef void (*pose_fn)(double t, pose_d *p);

void demo_character_analytic_pose(int clip, double t, demo_pose *out) {
    pose_d p;
    (clip ? wave_pose : walk_pose)(t, &p);
    for (int j = 0; j < DEMO_JOINT_COUNT; j++) {
        out->rot[j][0] = p.rot[j].x, out->rot[j][1] = p.rot[j].y;
        out->rot[j][2] = p.rot[j].z, out->rot[j][3] = p.rot[j].w;
    }
    for (int c = 0; c < 3; c++) out->hips[c] = p.hips[c];
}

static void quat_comp(dquat q, float out[4]) {
    out[0] = (float)q.x, out[1] = (float)q.y, out[2] = (float)q.z, out[3] = (float)q.w;
}

/* Samples `fn` at key_count evenly spaced times over [0, duration] into CUBIC
 * tracks: every value with in = out tangent = its time derivative (per second),
 * by central differences in double. Rotation tracks for every joint, a
 * translation track for the hips. The skeleton maps desc joints to its own. */
static ossa_clip *make_clip(const char *name, pose_fn fn, double duration, uint32_t key_count, bool looping,
                            const ossa_skeleton *skeleton) {
    const uint32_t joints = DEMO_JOINT_COUNT;
    float *times = malloc(sizeof(float) * key_count);
    float *rot = malloc(sizeof(float) * key_count * 12 * joints);
    float *hips = malloc(sizeof(float) * key_count * 9);
    ossa_transform_track *tracks = calloc(joints, sizeof *tracks);
    ossa_clip *clip = NULL;
    if (!times || !rot || !hips || !tracks) goto done;
    const double h = 1e-5;
    for (uint32_t k = 0; k < key_count; k++) {
        double t = duration * (double)k / (double)(key_count - 1);
        times[k] = (float)t;
        pose_d p0, pm, pp;
        fn(t, &p0);
        fn(t - h, &pm);
        fn(t + h, &pp);
        for (uint32_t j = 0; j < joints; j++) {
            float *v = rot + ((size_t)j * key_count + k) * 12;
            dquat a = pm.rot[j], b = pp.rot[j];
            dquat dq = {(b.x - a.x) / (2 * h), (b.y - a.y) / (2 * h), (b.z - a.z) / (2 * h), (b.w - a.w) / (2 * h)};
            quat_comp(dq, v);
            quat_comp(p0.rot[j], v + 4);
            quat_comp(dq, v + 8);
        }
        float *v = hips + (size_t)k * 9;
        for (int c = 0; c < 3; c++) {
            float d = (float)((pp.hips[c] - pm.hips[c]) / (2 * h));
            v[c] = d;
            v[3 + c] = (float)p0.hips[c];
            v[6 + c] = d;
        }
    }
    for (uint32_t j = 0; j < joints; j++) {
        ossa_transform_track *tr = &tracks[j];
        tr->joint = skeleton->joint_of_source[j];
        tr->rotation.kind = OSSA_TRACK_ROTATION;
        tr->rotation.interp = OSSA_INTERP_CUBIC;
        tr->rotation.components = 4;
        tr->rotation.key_count = key_count;
        tr->rotation.times = times;
        tr->rotation.values = rot + (size_t)j * key_count * 12;
        if (j == J_HIPS) {
            tr->translation.kind = OSSA_TRACK_VECTOR;
            tr->translation.interp = OSSA_INTERP_CUBIC;
            tr->translation.components = 3;
            tr->translation.key_count = key_count;
            tr->translation.times = times;
            tr->translation.values = hips;
        }
    }
    ossa_clip_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.name = name;
    desc.looping = looping;
    desc.track_count = joints;
    desc.tracks = tracks;
    ossa_result r = ossa_clip_create(&desc, NULL, &clip);
    if (r != OSSA_OK) {
        fprintf(stderr, "demo character: clip '%s': %s\n", name, ossa_result_string(r));
        clip = NULL;
    }
done:
    free(times);
    free(rot);
    free(hips);
    free(tracks);
    return clip;
}

/* ----------------------------------------------------------------- asset --- */

/* Frees a partly built asset (the same as ossa_asset_destroy for what we build). */
static void demo_asset_free(ossa_asset *asset) {
    if (!asset) return;
    for (uint32_t i = 0; i < asset->clip_count; i++) ossa_clip_destroy(asset->clips[i]);
    for (uint32_t i = 0; i < asset->mesh_count; i++) ossa_mesh_destroy(asset->meshes[i]);
    ossa_skeleton_destroy(asset->skeleton);
    free(asset->clips);
    free(asset->meshes);
    free(asset);
}

/* The skeleton: rest = the joint offsets; bind = rest, so each inverse bind matrix is the
 * translation by minus the joint's world rest position. False after printing why. */
static bool make_skeleton(ossa_asset *asset) {
    ossa_transform rest[DEMO_JOINT_COUNT];
    ossa_mat4 ibm[DEMO_JOINT_COUNT];
    uint32_t skin_joints[DEMO_JOINT_COUNT];
    float world[DEMO_JOINT_COUNT][3];
    for (int j = 0; j < DEMO_JOINT_COUNT; j++) {
        rest[j].translation.x = JOINT_OFFSETS[j][0];
        rest[j].translation.y = JOINT_OFFSETS[j][1];
        rest[j].translation.z = JOINT_OFFSETS[j][2];
        rest[j].rotation.x = rest[j].rotation.y = rest[j].rotation.z = 0;
        rest[j].rotation.w = 1;
        rest[j].scale.x = rest[j].scale.y = rest[j].scale.z = 1;
        for (int c = 0; c < 3; c++)
            world[j][c] = JOINT_OFFSETS[j][c] + (JOINT_PARENTS[j] >= 0 ? world[JOINT_PARENTS[j]][c] : 0);
        memset(&ibm[j], 0, sizeof ibm[j]);
        ibm[j].m[0] = ibm[j].m[5] = ibm[j].m[10] = ibm[j].m[15] = 1;
        ibm[j].m[12] = -world[j][0];
        ibm[j].m[13] = -world[j][1];
        ibm[j].m[14] = -world[j][2];
        skin_joints[j] = (uint32_t)j;
    }
    ossa_skin_desc skin = {.name = "body", .joint_count = DEMO_JOINT_COUNT, .joints = skin_joints,
                           .inverse_bind = ibm, .root = J_HIPS};
    ossa_skeleton_desc sd = {.joint_count = DEMO_JOINT_COUNT, .parents = JOINT_PARENTS, .rest = rest,
                             .names = JOINT_NAMES, .skin_count = 1, .skins = &skin,
                             .metres_per_unit = 1.0f}; /* authored in metres (JOINT_OFFSETS) */
    ossa_result r = ossa_skeleton_create(&sd, NULL, &asset->skeleton);
    if (r != OSSA_OK) fprintf(stderr, "demo character: skeleton: %s\n", ossa_result_string(r));
    return r == OSSA_OK;
}

/* The body mesh: the tubes, skinned to the joints. False after printing why. */
static bool make_body(ossa_asset *asset) {
    const ossa_skeleton *sk = asset->skeleton;
    body b;
    memset(&b, 0, sizeof b);
    bool ok = true;
    for (size_t i = 0; i < TUBE_COUNT && ok; i++) ok = body_add_tube(&b, &TUBES[i]);
    if (ok) asset->meshes = calloc(1, sizeof *asset->meshes);
    if (!ok || !asset->meshes) {
        fprintf(stderr, "demo character: out of memory\n");
        ok = false;
    }
    if (ok) {
        for (uint32_t i = 0; i < b.vertex_count * 4; i++) b.joints[i] = (uint16_t)sk->joint_of_source[b.joints[i]];
        ossa_mesh md = {.name = "body", .vertex_count = b.vertex_count, .positions = b.positions, .normals = b.normals,
                        .influences = 4, .joints = b.joints, .weights = b.weights, .index_count = b.index_count,
                        .indices = b.indices, .skin = 0, .node = -1};
        ossa_result r = ossa_mesh_create(&md, NULL, &asset->meshes[0]);
        if (r != OSSA_OK) fprintf(stderr, "demo character: mesh: %s\n", ossa_result_string(r));
        ok = r == OSSA_OK;
        asset->mesh_count = ok ? 1 : 0;
    }
    free(b.positions), free(b.normals), free(b.weights), free(b.joints), free(b.indices);
    return ok;
}

ossa_asset *demo_character_create(void) {
    ossa_asset *asset = calloc(1, sizeof *asset);
    if (!asset) {
        fprintf(stderr, "demo character: out of memory\n");
        return NULL;
    }
    asset->scene = -1;
    if (!make_skeleton(asset) || !make_body(asset)) goto fail;
    asset->clips = calloc(2, sizeof *asset->clips);
    if (!asset->clips) {
        fprintf(stderr, "demo character: out of memory\n");
        goto fail;
    }
    asset->clips[0] = make_clip("walk", walk_pose, 1.0, 13, true, asset->skeleton);
    if (!asset->clips[0]) goto fail;
    asset->clip_count = 1;
    asset->clips[1] = make_clip("wave", wave_pose, WAVE_DURATION, 23, false, asset->skeleton);
    if (!asset->clips[1]) goto fail;
    asset->clip_count = 2;
    return asset;
fail:
    demo_asset_free(asset);
    return NULL;
}
