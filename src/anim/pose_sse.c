/* SSE pose kernels (built with -msse4.1; they use SSE2 operations only). The rotation-scale
 * terms are computed splatted (all four lanes equal), so the local matrix never goes through
 * memory and needs no shuffles, then multiply the parent's columns: out_c = (a0 * b0c + a1 * b1c)
 * + a2 * b2c (+ a3 for the translation), exactly the scalar operations of ossa__trs_to_mat4 +
 * ossa__mat4_mul_affine_scalar. A root's parent is the identity. The AVX2
 * and AVX-512 kernels are in pose_avx2.c and pose_avx512.c. */
#include <immintrin.h>

#include "anim/pose_columns.h"

/* model = parent (a) * local (t). Lanes never mix, so the w lanes (row 3) only feed w lanes:
 * a rotation column's is left as computed (the chain to a child is one product and two sums)
 * and cleared where the matrix is stored; the translation's is cleared before the parent's 1
 * is added, so memory gets exactly 0 0 0 1. */
static inline columns4 joint(const ossa_transform *t, const columns4 *a) {
    const __m128 one = _mm_set1_ps(1.0f);
    __m128 x = _mm_set1_ps(t->rotation.x), y = _mm_set1_ps(t->rotation.y), z = _mm_set1_ps(t->rotation.z),
           w = _mm_set1_ps(t->rotation.w);
    __m128 x2 = _mm_add_ps(x, x), y2 = _mm_add_ps(y, y), z2 = _mm_add_ps(z, z);
    __m128 xx = _mm_mul_ps(x, x2), yy = _mm_mul_ps(y, y2), zz = _mm_mul_ps(z, z2);
    __m128 xy = _mm_mul_ps(x, y2), xz = _mm_mul_ps(x, z2), yz = _mm_mul_ps(y, z2);
    __m128 wx = _mm_mul_ps(w, x2), wy = _mm_mul_ps(w, y2), wz = _mm_mul_ps(w, z2);
    __m128 sx = _mm_set1_ps(t->scale.x), sy = _mm_set1_ps(t->scale.y), sz = _mm_set1_ps(t->scale.z);
    /* b[k][c]: row k of local column c */
    __m128 b00 = _mm_mul_ps(_mm_sub_ps(one, _mm_add_ps(yy, zz)), sx), b10 = _mm_mul_ps(_mm_add_ps(xy, wz), sx),
           b20 = _mm_mul_ps(_mm_sub_ps(xz, wy), sx);
    __m128 b01 = _mm_mul_ps(_mm_sub_ps(xy, wz), sy), b11 = _mm_mul_ps(_mm_sub_ps(one, _mm_add_ps(xx, zz)), sy),
           b21 = _mm_mul_ps(_mm_add_ps(yz, wx), sy);
    __m128 b02 = _mm_mul_ps(_mm_add_ps(xz, wy), sz), b12 = _mm_mul_ps(_mm_sub_ps(yz, wx), sz),
           b22 = _mm_mul_ps(_mm_sub_ps(one, _mm_add_ps(xx, yy)), sz);
    const __m128 a0 = a->c[0], a1 = a->c[1], a2 = a->c[2];
    const __m128 xyz = _mm_castsi128_ps(_mm_set_epi32(0, -1, -1, -1));
    columns4 m;
    m.c[0] = _mm_add_ps(_mm_add_ps(_mm_mul_ps(a0, b00), _mm_mul_ps(a1, b10)), _mm_mul_ps(a2, b20));
    m.c[1] = _mm_add_ps(_mm_add_ps(_mm_mul_ps(a0, b01), _mm_mul_ps(a1, b11)), _mm_mul_ps(a2, b21));
    m.c[2] = _mm_add_ps(_mm_add_ps(_mm_mul_ps(a0, b02), _mm_mul_ps(a1, b12)), _mm_mul_ps(a2, b22));
    __m128 tr = _mm_add_ps(_mm_add_ps(_mm_mul_ps(a0, _mm_set1_ps(t->translation.x)), _mm_mul_ps(a1, _mm_set1_ps(t->translation.y))),
                           _mm_mul_ps(a2, _mm_set1_ps(t->translation.z)));
    m.c[3] = _mm_add_ps(_mm_and_ps(tr, xyz), a->c[3]);
    return m;
}

/* Bound by the parent chains' latency: a parent that is the joint just computed is taken from
 * registers (no store-to-load forward). */
void ossa__to_model_sse(const ossa_transform *locals, const int32_t *parents, uint32_t begin, uint32_t end,
                        ossa_mat4 *out) {
    columns4 prev = {{_mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps()}};
    for (uint32_t i = begin; i < end; i++) {
        columns4 a = parent_columns(&prev, parents, out, i, begin);
        prev = joint(&locals[i], &a);
        store_columns(&prev, out[i].m);
    }
}

/* out = a * b, the general 4x4 product in ossa__mat4_mul's order; b's entries splat from one
 * load of its column (in-register shuffles: faster than a load and a shuffle each). */
static inline void mul4(const float *A, const float *B, float *o) {
    __m128 a0 = _mm_loadu_ps(A), a1 = _mm_loadu_ps(A + 4), a2 = _mm_loadu_ps(A + 8), a3 = _mm_loadu_ps(A + 12);
    for (int c = 0; c < 4; c++) {
        __m128 b = _mm_loadu_ps(B + 4 * c);
        __m128 r = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(a0, _mm_shuffle_ps(b, b, 0x00)),
                                                    _mm_mul_ps(a1, _mm_shuffle_ps(b, b, 0x55))),
                                         _mm_mul_ps(a2, _mm_shuffle_ps(b, b, 0xAA))),
                              _mm_mul_ps(a3, _mm_shuffle_ps(b, b, 0xFF)));
        _mm_storeu_ps(o + c * 4, r);
    }
}

void ossa__palette_sse(const ossa_mat4 *model, const uint32_t *joints, const ossa_mat4 *inverse_bind, uint32_t count,
                       bool skin_layout, ossa_mat4 *out) {
    for (uint32_t i = 0; i < count; i++)
        mul4(model[joints[i]].m, inverse_bind[i].m, out[skin_layout ? i : joints[i]].m);
}

/* ---- the palette batch: 4 poses, one a lane ---- */

/* The 4 x 4 transpose: row i's lane l becomes row l's lane i. */
static inline void transpose4(__m128 r[4]) {
    __m128 t0 = _mm_unpacklo_ps(r[0], r[1]), t1 = _mm_unpackhi_ps(r[0], r[1]);
    __m128 t2 = _mm_unpacklo_ps(r[2], r[3]), t3 = _mm_unpackhi_ps(r[2], r[3]);
    r[0] = _mm_movelh_ps(t0, t2);
    r[1] = _mm_movehl_ps(t2, t0);
    r[2] = _mm_movelh_ps(t1, t3);
    r[3] = _mm_movehl_ps(t3, t1);
}

/* Joint j's local matrices of poses locals[0 .. live) (lanes past live repeat the last pose),
 * SoA: column c row r at l[3 c + r] (the scalar ossa__trs_to_mat4's operations, a pose a lane). */
static inline void local_lanes4(const ossa_transform *const *locals, uint32_t live, uint32_t j, __m128 l[12]) {
    __m128 f[3][4]; /* (tx ty tz qx), (qx qy qz qw), (qw sx sy sz) of each pose, transposed */
    for (uint32_t g = 0; g < 4; g++) {
        const ossa_transform *t = &locals[g < live ? g : live - 1][j];
        f[0][g] = _mm_loadu_ps(&t->translation.x);
        f[1][g] = _mm_loadu_ps(&t->rotation.x);
        f[2][g] = _mm_loadu_ps(&t->rotation.w);
    }
    for (int k = 0; k < 3; k++) transpose4(f[k]);
    const __m128 one = _mm_set1_ps(1.0f);
    __m128 x = f[1][0], y = f[1][1], z = f[1][2], w = f[1][3], sx = f[2][1], sy = f[2][2], sz = f[2][3];
    __m128 x2 = _mm_add_ps(x, x), y2 = _mm_add_ps(y, y), z2 = _mm_add_ps(z, z);
    __m128 xx = _mm_mul_ps(x, x2), yy = _mm_mul_ps(y, y2), zz = _mm_mul_ps(z, z2);
    __m128 xy = _mm_mul_ps(x, y2), xz = _mm_mul_ps(x, z2), yz = _mm_mul_ps(y, z2);
    __m128 wx = _mm_mul_ps(w, x2), wy = _mm_mul_ps(w, y2), wz = _mm_mul_ps(w, z2);
    l[0] = _mm_mul_ps(_mm_sub_ps(one, _mm_add_ps(yy, zz)), sx);
    l[1] = _mm_mul_ps(_mm_add_ps(xy, wz), sx);
    l[2] = _mm_mul_ps(_mm_sub_ps(xz, wy), sx);
    l[3] = _mm_mul_ps(_mm_sub_ps(xy, wz), sy);
    l[4] = _mm_mul_ps(_mm_sub_ps(one, _mm_add_ps(xx, zz)), sy);
    l[5] = _mm_mul_ps(_mm_add_ps(yz, wx), sy);
    l[6] = _mm_mul_ps(_mm_add_ps(xz, wy), sz);
    l[7] = _mm_mul_ps(_mm_sub_ps(yz, wx), sz);
    l[8] = _mm_mul_ps(_mm_sub_ps(one, _mm_add_ps(xx, yy)), sz);
    l[9] = f[0][0], l[10] = f[0][1], l[11] = f[0][2];
}

/* Joint model matrices of 4 poses into m (12 SoA rows): parent p (12 SoA rows, or NULL for a
 * root: the local itself, as the scalar pass copies it) times local l in
 * ossa__mat4_mul_affine_scalar's operations, the parent's translation added last. */
static inline void model_lanes4(const float *p, const __m128 l[12], float *m) {
    for (uint32_t c = 0; c < 4; c++)
        for (uint32_t r = 0; r < 3; r++) {
            __m128 x = l[3 * c + r];
            if (p) {
                x = _mm_add_ps(_mm_add_ps(_mm_mul_ps(_mm_loadu_ps(p + 4 * r), l[3 * c]),
                                          _mm_mul_ps(_mm_loadu_ps(p + 4 * (3 + r)), l[3 * c + 1])),
                               _mm_mul_ps(_mm_loadu_ps(p + 4 * (6 + r)), l[3 * c + 2]));
                if (c == 3) x = _mm_add_ps(x, _mm_loadu_ps(p + 4 * (9 + r)));
            }
            _mm_storeu_ps(m + 4 * (3 * c + r), x);
        }
}

/* Palette entry e of 4 poses, column by column: model matrices a (12 SoA rows) times inverse
 * bind B (the same for every lane) in the scalar palette_entry's product (affine when B is, else
 * 4 x 4 with a's last row 0 0 0 1), each column transposed to one pose a row and stored. */
static inline void palette_lanes4(const float *a, const float *B, bool affine, ossa_mat4 *const out[4], uint32_t live,
                                  uint32_t e) {
    const __m128 zero = _mm_setzero_ps(), one = _mm_set1_ps(1.0f);
    for (uint32_t c = 0; c < 4; c++) {
        __m128 b0 = _mm_set1_ps(B[4 * c]), b1 = _mm_set1_ps(B[4 * c + 1]), b2 = _mm_set1_ps(B[4 * c + 2]), m[4];
        for (uint32_t r = 0; r < 3; r++) /* (a0 b0 + a1 b1) + a2 b2 */
            m[r] = _mm_add_ps(_mm_add_ps(_mm_mul_ps(_mm_loadu_ps(a + 4 * r), b0),
                                         _mm_mul_ps(_mm_loadu_ps(a + 4 * (3 + r)), b1)),
                              _mm_mul_ps(_mm_loadu_ps(a + 4 * (6 + r)), b2));
        if (affine) { /* the translation's sum, and the last row 0 0 0 1 */
            for (uint32_t r = 0; c == 3 && r < 3; r++) m[r] = _mm_add_ps(m[r], _mm_loadu_ps(a + 4 * (9 + r)));
            m[3] = c == 3 ? one : zero;
        } else { /* + a3 b3, and row 3: ((0 b0 + 0 b1) + 0 b2) + 1 b3 */
            __m128 b3 = _mm_set1_ps(B[4 * c + 3]);
            for (uint32_t r = 0; r < 3; r++) m[r] = _mm_add_ps(m[r], _mm_mul_ps(_mm_loadu_ps(a + 4 * (9 + r)), b3));
            m[3] = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(zero, b0), _mm_mul_ps(zero, b1)), _mm_mul_ps(zero, b2)),
                              _mm_mul_ps(one, b3));
        }
        transpose4(m);
        for (uint32_t g = 0; g < live; g++) _mm_storeu_ps(out[g][e].m + 4 * c, m[g]);
    }
}

/* Per 4 poses: every joint's model matrices into scratch (48 floats a joint), then every skin
 * entry's palette entries. */
void ossa__palette_batch_sse(const ossa_skeleton *skeleton, const ossa_skin *skin, const ossa_transform *const *locals,
                             ossa_mat4 *const *outputs, uint32_t count, bool skin_layout, float *scratch) {
    uint32_t J = skeleton->joint_count;
    for (uint32_t k0 = 0; k0 < count; k0 += 4) {
        uint32_t live = count - k0 < 4 ? count - k0 : 4;
        for (uint32_t j = 0; j < J; j++) {
            __m128 l[12];
            local_lanes4(locals + k0, live, j, l);
            int32_t p = skeleton->parents[j];
            model_lanes4(p >= 0 ? scratch + 48u * (uint32_t)p : NULL, l, scratch + 48u * j);
        }
        ossa_mat4 *out[4]; /* a local copy: the stores cannot change it */
        for (uint32_t g = 0; g < live; g++) out[g] = outputs[k0 + g];
        for (uint32_t i = 0; i < skin->joint_count; i++) {
            uint32_t j = skin->joints[i];
            const float *B = skin->inverse_bind[i].m;
            bool affine = ossa__mat4_affine(&skin->inverse_bind[i]);
            palette_lanes4(scratch + 48u * j, B, affine, out, live, skin_layout ? i : j);
        }
    }
}
