/* Vectors, quaternions, matrices, TRS transforms and curve bases (see ossa/math.h). */
#include <ossa/math.h>

#include <math.h>

#include "math/fast.h"

/* ---- vec3 ---- */

ossa_vec3 ossa_vec3_make(float x, float y, float z) { ossa_vec3 v = {x, y, z}; return v; }
ossa_vec3 ossa_vec3_add(ossa_vec3 a, ossa_vec3 b) { return ossa_vec3_make(a.x + b.x, a.y + b.y, a.z + b.z); }
ossa_vec3 ossa_vec3_sub(ossa_vec3 a, ossa_vec3 b) { return ossa_vec3_make(a.x - b.x, a.y - b.y, a.z - b.z); }
ossa_vec3 ossa_vec3_scale(ossa_vec3 v, float s) { return ossa_vec3_make(v.x * s, v.y * s, v.z * s); }
ossa_vec3 ossa_vec3_mul(ossa_vec3 a, ossa_vec3 b) { return ossa_vec3_make(a.x * b.x, a.y * b.y, a.z * b.z); }
float ossa_vec3_dot(ossa_vec3 a, ossa_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

ossa_vec3 ossa_vec3_cross(ossa_vec3 a, ossa_vec3 b) {
    return ossa_vec3_make(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

float ossa_vec3_length(ossa_vec3 v) { return sqrtf(ossa_vec3_dot(v, v)); }

ossa_vec3 ossa_vec3_normalize(ossa_vec3 v) {
    float len = ossa_vec3_length(v);
    if (!(len >= 1e-12f)) return v;
    return ossa_vec3_scale(v, 1.0f / len);
}

ossa_vec3 ossa_vec3_lerp(ossa_vec3 a, ossa_vec3 b, float t) {
    return ossa_vec3_make(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, a.z + (b.z - a.z) * t);
}

/* ---- quaternions ---- */

ossa_quat ossa_quat_identity(void) { ossa_quat q = {0.0f, 0.0f, 0.0f, 1.0f}; return q; }

ossa_quat ossa_quat_from_axis_angle(ossa_vec3 axis, float radians) {
    float s = sinf(radians * 0.5f), c = cosf(radians * 0.5f);
    ossa_quat q = {axis.x * s, axis.y * s, axis.z * s, c};
    return q;
}

ossa_quat ossa_quat_mul(ossa_quat a, ossa_quat b) { return ossa__quat_mul(a, b); }

float ossa_quat_dot(ossa_quat a, ossa_quat b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }

ossa_quat ossa_quat_inverse(ossa_quat q) {
    float d = ossa_quat_dot(q, q);
    if (!(d > 0.0f) || !isfinite(d)) return ossa_quat_identity();
    float inv = 1.0f / d;
    ossa_quat r = {-q.x * inv, -q.y * inv, -q.z * inv, q.w * inv};
    return r;
}

ossa_quat ossa_quat_normalize(ossa_quat q) {
    float v[4] = {q.x, q.y, q.z, q.w};
    ossa__quat_normalize4(v);
    ossa_quat r = {v[0], v[1], v[2], v[3]};
    return r;
}

ossa_quat ossa_quat_neighborhood(ossa_quat a, ossa_quat b) {
    if (ossa_quat_dot(a, b) < 0.0f) {
        ossa_quat n = {-b.x, -b.y, -b.z, -b.w};
        return n;
    }
    return b;
}

ossa_quat ossa_quat_nlerp(ossa_quat a, ossa_quat b, float t) {
    b = ossa_quat_neighborhood(a, b);
    ossa_quat r = {a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, a.z + (b.z - a.z) * t, a.w + (b.w - a.w) * t};
    return ossa_quat_normalize(r);
}

ossa_quat ossa_quat_slerp(ossa_quat a, ossa_quat b, float t) {
    float qa[4] = {a.x, a.y, a.z, a.w}, qb[4] = {b.x, b.y, b.z, b.w}, r[4];
    ossa__slerp4(qa, qb, t, r);
    ossa_quat q = {r[0], r[1], r[2], r[3]};
    return q;
}

ossa_vec3 ossa_quat_rotate(ossa_quat q, ossa_vec3 v) {
    ossa_vec3 u = {q.x, q.y, q.z};
    ossa_vec3 t = ossa_vec3_scale(ossa_vec3_cross(u, v), 2.0f);
    return ossa_vec3_add(ossa_vec3_add(v, ossa_vec3_scale(t, q.w)), ossa_vec3_cross(u, t));
}

/* ---- mat4 ---- */

ossa_mat4 ossa_mat4_identity(void) {
    ossa_mat4 m = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
    return m;
}

ossa_mat4 ossa_mat4_mul(const ossa_mat4 *a, const ossa_mat4 *b) {
    ossa_mat4 r;
    ossa__mat4_mul(a, b, &r);
    return r;
}

bool ossa_mat4_inverse(const ossa_mat4 *mat, ossa_mat4 *out) {
    /* Cofactor expansion in double precision. */
    double m[16], inv[16];
    for (int i = 0; i < 16; i++) m[i] = mat->m[i];
    inv[0] = m[5] * m[10] * m[15] - m[5] * m[11] * m[14] - m[9] * m[6] * m[15] + m[9] * m[7] * m[14] +
             m[13] * m[6] * m[11] - m[13] * m[7] * m[10];
    inv[4] = -m[4] * m[10] * m[15] + m[4] * m[11] * m[14] + m[8] * m[6] * m[15] - m[8] * m[7] * m[14] -
             m[12] * m[6] * m[11] + m[12] * m[7] * m[10];
    inv[8] = m[4] * m[9] * m[15] - m[4] * m[11] * m[13] - m[8] * m[5] * m[15] + m[8] * m[7] * m[13] +
             m[12] * m[5] * m[11] - m[12] * m[7] * m[9];
    inv[12] = -m[4] * m[9] * m[14] + m[4] * m[10] * m[13] + m[8] * m[5] * m[14] - m[8] * m[6] * m[13] -
              m[12] * m[5] * m[10] + m[12] * m[6] * m[9];
    inv[1] = -m[1] * m[10] * m[15] + m[1] * m[11] * m[14] + m[9] * m[2] * m[15] - m[9] * m[3] * m[14] -
             m[13] * m[2] * m[11] + m[13] * m[3] * m[10];
    inv[5] = m[0] * m[10] * m[15] - m[0] * m[11] * m[14] - m[8] * m[2] * m[15] + m[8] * m[3] * m[14] +
             m[12] * m[2] * m[11] - m[12] * m[3] * m[10];
    inv[9] = -m[0] * m[9] * m[15] + m[0] * m[11] * m[13] + m[8] * m[1] * m[15] - m[8] * m[3] * m[13] -
             m[12] * m[1] * m[11] + m[12] * m[3] * m[9];
    inv[13] = m[0] * m[9] * m[14] - m[0] * m[10] * m[13] - m[8] * m[1] * m[14] + m[8] * m[2] * m[13] +
              m[12] * m[1] * m[10] - m[12] * m[2] * m[9];
    inv[2] = m[1] * m[6] * m[15] - m[1] * m[7] * m[14] - m[5] * m[2] * m[15] + m[5] * m[3] * m[14] +
             m[13] * m[2] * m[7] - m[13] * m[3] * m[6];
    inv[6] = -m[0] * m[6] * m[15] + m[0] * m[7] * m[14] + m[4] * m[2] * m[15] - m[4] * m[3] * m[14] -
             m[12] * m[2] * m[7] + m[12] * m[3] * m[6];
    inv[10] = m[0] * m[5] * m[15] - m[0] * m[7] * m[13] - m[4] * m[1] * m[15] + m[4] * m[3] * m[13] +
              m[12] * m[1] * m[7] - m[12] * m[3] * m[5];
    inv[14] = -m[0] * m[5] * m[14] + m[0] * m[6] * m[13] + m[4] * m[1] * m[14] - m[4] * m[2] * m[13] -
              m[12] * m[1] * m[6] + m[12] * m[2] * m[5];
    inv[3] = -m[1] * m[6] * m[11] + m[1] * m[7] * m[10] + m[5] * m[2] * m[11] - m[5] * m[3] * m[10] -
             m[9] * m[2] * m[7] + m[9] * m[3] * m[6];
    inv[7] = m[0] * m[6] * m[11] - m[0] * m[7] * m[10] - m[4] * m[2] * m[11] + m[4] * m[3] * m[10] +
             m[8] * m[2] * m[7] - m[8] * m[3] * m[6];
    inv[11] = -m[0] * m[5] * m[11] + m[0] * m[7] * m[9] + m[4] * m[1] * m[11] - m[4] * m[3] * m[9] -
              m[8] * m[1] * m[7] + m[8] * m[3] * m[5];
    inv[15] = m[0] * m[5] * m[10] - m[0] * m[6] * m[9] - m[4] * m[1] * m[10] + m[4] * m[2] * m[9] +
              m[8] * m[1] * m[6] - m[8] * m[2] * m[5];
    double det = m[0] * inv[0] + m[1] * inv[4] + m[2] * inv[8] + m[3] * inv[12];
    if (!isfinite(det) || fabs(det) < 1e-20) {
        *out = ossa_mat4_identity();
        return false;
    }
    double s = 1.0 / det;
    for (int i = 0; i < 16; i++) out->m[i] = (float)(inv[i] * s);
    return true;
}

bool ossa_mat4_inverse_affine(const ossa_mat4 *mat, ossa_mat4 *out) {
    const float *m = mat->m;
    double a = m[0], b = m[4], c = m[8], d = m[1], e = m[5], f = m[9], g = m[2], h = m[6], i = m[10];
    double A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
    double det = a * A + b * B + c * C;
    if (!isfinite(det) || fabs(det) < 1e-20) {
        *out = ossa_mat4_identity();
        return false;
    }
    double s = 1.0 / det;
    double r[9]; /* row-major inverse of the 3x3 */
    r[0] = A * s; r[1] = -(b * i - c * h) * s; r[2] = (b * f - c * e) * s;
    r[3] = B * s; r[4] = (a * i - c * g) * s;  r[5] = -(a * f - c * d) * s;
    r[6] = C * s; r[7] = -(a * h - b * g) * s; r[8] = (a * e - b * d) * s;
    double tx = m[12], ty = m[13], tz = m[14];
    float *o = out->m;
    o[0] = (float)r[0]; o[4] = (float)r[1]; o[8] = (float)r[2];
    o[1] = (float)r[3]; o[5] = (float)r[4]; o[9] = (float)r[5];
    o[2] = (float)r[6]; o[6] = (float)r[7]; o[10] = (float)r[8];
    o[12] = (float)-(r[0] * tx + r[1] * ty + r[2] * tz);
    o[13] = (float)-(r[3] * tx + r[4] * ty + r[5] * tz);
    o[14] = (float)-(r[6] * tx + r[7] * ty + r[8] * tz);
    o[3] = o[7] = o[11] = 0.0f;
    o[15] = 1.0f;
    return true;
}

/* Unit quaternion from a rotation matrix given as three orthonormal columns (Shepperd). */
static ossa_quat quat_from_columns(const float c0[3], const float c1[3], const float c2[3]) {
    float m00 = c0[0], m10 = c0[1], m20 = c0[2];
    float m01 = c1[0], m11 = c1[1], m21 = c1[2];
    float m02 = c2[0], m12 = c2[1], m22 = c2[2];
    float tr = m00 + m11 + m22;
    ossa_quat q;
    if (tr > 0.0f) {
        float s = sqrtf(tr + 1.0f) * 2.0f;
        q.w = 0.25f * s;
        q.x = (m21 - m12) / s;
        q.y = (m02 - m20) / s;
        q.z = (m10 - m01) / s;
    } else if (m00 > m11 && m00 > m22) {
        float s = sqrtf(1.0f + m00 - m11 - m22) * 2.0f;
        q.w = (m21 - m12) / s;
        q.x = 0.25f * s;
        q.y = (m01 + m10) / s;
        q.z = (m02 + m20) / s;
    } else if (m11 > m22) {
        float s = sqrtf(1.0f + m11 - m00 - m22) * 2.0f;
        q.w = (m02 - m20) / s;
        q.x = (m01 + m10) / s;
        q.y = 0.25f * s;
        q.z = (m12 + m21) / s;
    } else {
        float s = sqrtf(1.0f + m22 - m00 - m11) * 2.0f;
        q.w = (m10 - m01) / s;
        q.x = (m02 + m20) / s;
        q.y = (m12 + m21) / s;
        q.z = 0.25f * s;
    }
    return ossa_quat_normalize(q);
}

bool ossa_mat4_decompose(const ossa_mat4 *mat, float tolerance, ossa_transform *out) {
    const float *m = mat->m;
    bool ok = true;
    if (!(tolerance > 0.0f)) tolerance = 1e-4f; /* zero (or NaN) means the default */
    out->translation = ossa_vec3_make(m[12], m[13], m[14]);
    float c[3][3];
    float s[3];
    for (int i = 0; i < 3; i++) {
        for (int r = 0; r < 3; r++) c[i][r] = m[i * 4 + r];
        s[i] = sqrtf(c[i][0] * c[i][0] + c[i][1] * c[i][1] + c[i][2] * c[i][2]);
    }
    /* Perspective row must be 0 0 0 1. */
    float ref = fabsf(m[15]) > 1.0f ? fabsf(m[15]) : 1.0f;
    if (fabsf(m[3]) > tolerance * ref || fabsf(m[7]) > tolerance * ref || fabsf(m[11]) > tolerance * ref ||
        fabsf(m[15] - 1.0f) > tolerance)
        ok = false;
    if (!(s[0] > 0.0f && s[1] > 0.0f && s[2] > 0.0f) || !isfinite(s[0] + s[1] + s[2])) {
        out->rotation = ossa_quat_identity();
        out->scale = ossa_vec3_make(s[0], s[1], s[2]);
        return false;
    }
    for (int i = 0; i < 3; i++)
        for (int r = 0; r < 3; r++) c[i][r] /= s[i];
    /* A reflection (negative determinant) is expressed as a negative x scale. */
    float det = c[0][0] * (c[1][1] * c[2][2] - c[2][1] * c[1][2]) - c[1][0] * (c[0][1] * c[2][2] - c[2][1] * c[0][2]) +
                c[2][0] * (c[0][1] * c[1][2] - c[1][1] * c[0][2]);
    if (det < 0.0f) {
        s[0] = -s[0];
        for (int r = 0; r < 3; r++) c[0][r] = -c[0][r];
    }
    /* Shear: the normalised columns must be orthogonal. */
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++) {
            float d = c[i][0] * c[j][0] + c[i][1] * c[j][1] + c[i][2] * c[j][2];
            if (fabsf(d) > tolerance) ok = false;
        }
    if (!ok) {
        /* Best fit: Gram-Schmidt orthonormalisation before extracting the rotation. */
        float d01 = c[0][0] * c[1][0] + c[0][1] * c[1][1] + c[0][2] * c[1][2];
        for (int r = 0; r < 3; r++) c[1][r] -= d01 * c[0][r];
        float l1 = sqrtf(c[1][0] * c[1][0] + c[1][1] * c[1][1] + c[1][2] * c[1][2]);
        if (l1 > 0.0f)
            for (int r = 0; r < 3; r++) c[1][r] /= l1;
        c[2][0] = c[0][1] * c[1][2] - c[0][2] * c[1][1];
        c[2][1] = c[0][2] * c[1][0] - c[0][0] * c[1][2];
        c[2][2] = c[0][0] * c[1][1] - c[0][1] * c[1][0];
    }
    out->rotation = quat_from_columns(c[0], c[1], c[2]);
    out->scale = ossa_vec3_make(s[0], s[1], s[2]);
    return ok;
}

ossa_vec3 ossa_mat4_transform_point(const ossa_mat4 *mat, ossa_vec3 p) {
    const float *m = mat->m;
    return ossa_vec3_make(m[0] * p.x + m[4] * p.y + m[8] * p.z + m[12], m[1] * p.x + m[5] * p.y + m[9] * p.z + m[13],
                          m[2] * p.x + m[6] * p.y + m[10] * p.z + m[14]);
}

ossa_vec3 ossa_mat4_transform_vector(const ossa_mat4 *mat, ossa_vec3 v) {
    const float *m = mat->m;
    return ossa_vec3_make(m[0] * v.x + m[4] * v.y + m[8] * v.z, m[1] * v.x + m[5] * v.y + m[9] * v.z,
                          m[2] * v.x + m[6] * v.y + m[10] * v.z);
}

/* ---- transforms ---- */

ossa_transform ossa_transform_identity(void) {
    ossa_transform t = {{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
    return t;
}

ossa_transform ossa_transform_combine(ossa_transform parent, ossa_transform child) {
    ossa_transform r;
    r.translation = ossa_transform_point(parent, child.translation);
    r.rotation = ossa_quat_mul(parent.rotation, child.rotation);
    r.scale = ossa_vec3_mul(parent.scale, child.scale);
    return r;
}

static float safe_recip(float x) { return x != 0.0f ? 1.0f / x : 0.0f; }

ossa_transform ossa_transform_inverse(ossa_transform t) {
    ossa_transform r;
    r.rotation = ossa_quat_inverse(t.rotation);
    r.scale = ossa_vec3_make(safe_recip(t.scale.x), safe_recip(t.scale.y), safe_recip(t.scale.z));
    ossa_vec3 neg = ossa_vec3_scale(t.translation, -1.0f);
    r.translation = ossa_vec3_mul(r.scale, ossa_quat_rotate(r.rotation, neg));
    return r;
}

ossa_mat4 ossa_transform_to_mat4(ossa_transform t) {
    ossa_mat4 m;
    ossa__trs_to_mat4(&t, &m);
    return m;
}

ossa_vec3 ossa_transform_point(ossa_transform t, ossa_vec3 p) {
    return ossa_vec3_add(t.translation, ossa_quat_rotate(t.rotation, ossa_vec3_mul(t.scale, p)));
}

ossa_vec3 ossa_transform_vector(ossa_transform t, ossa_vec3 v) {
    return ossa_quat_rotate(t.rotation, ossa_vec3_mul(t.scale, v));
}

/* ---- curve bases ---- */

float ossa_hermite(float t, float p0, float m0, float p1, float m1) {
    float t2 = t * t, t3 = t2 * t;
    return (2.0f * t3 - 3.0f * t2 + 1.0f) * p0 + (t3 - 2.0f * t2 + t) * m0 + (-2.0f * t3 + 3.0f * t2) * p1 +
           (t3 - t2) * m1;
}

float ossa_bezier(float t, float p0, float p1, float p2, float p3) {
    float u = 1.0f - t;
    return u * u * u * p0 + 3.0f * u * u * t * p1 + 3.0f * u * t * t * p2 + t * t * t * p3;
}
