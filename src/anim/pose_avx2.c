/* AVX2 pose kernels (built with -mavx2 -mfma; the ISO C mode keeps -ffp-contract=off, so no
 * FMA: the values equal the scalar path's, see anim/pose_internal.h). */
#include <immintrin.h>

#include "anim/pose_block.h"
#include "anim/pose_columns.h"

/* (AVX-512 hosts run pose_avx512.c's kernels: one whole product per step.)
 * out = a * b (4x4, ossa__mat4_mul's order), two columns per 256-bit step: a's columns
 * repeated in both halves, b's elements splat within each half (one in-lane shuffle). */
static inline void mul4_x2(const float *A, const float *B, float *o) {
    __m256 a0 = _mm256_broadcast_ps((const __m128 *)A), a1 = _mm256_broadcast_ps((const __m128 *)(A + 4)),
           a2 = _mm256_broadcast_ps((const __m128 *)(A + 8)), a3 = _mm256_broadcast_ps((const __m128 *)(A + 12));
    for (int h = 0; h < 2; h++) {
        __m256 b = _mm256_loadu_ps(B + 8 * h); /* columns 2h and 2h + 1 */
        __m256 r = _mm256_add_ps(
            _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(a0, _mm256_permute_ps(b, 0x00)), _mm256_mul_ps(a1, _mm256_permute_ps(b, 0x55))),
                          _mm256_mul_ps(a2, _mm256_permute_ps(b, 0xAA))),
            _mm256_mul_ps(a3, _mm256_permute_ps(b, 0xFF)));
        _mm256_storeu_ps(o + 8 * h, r);
    }
}

void ossa__palette_avx2(const ossa_mat4 *model, const uint32_t *joints, const ossa_mat4 *inverse_bind, uint32_t count,
                        bool skin_layout, ossa_mat4 *out) {
    for (uint32_t i = 0; i < count; i++)
        mul4_x2(model[joints[i]].m, inverse_bind[i].m, out[skin_layout ? i : joints[i]].m);
}

/* Joint k of the block: model = parent * local in ossa__mat4_mul_affine_scalar's operations
 * (three terms a column, the parent's translation added last), the local's entries splat from
 * the block's SoA rows (S, row 3c + r = row r of column c) by broadcast loads. Lanes never mix,
 * so the w lanes (row 3) only feed w lanes: a rotation column's is left as computed (the chain
 * to a child is one product and two sums) and cleared where the matrix is stored; the
 * translation's is cleared before the parent's 1 is added, so memory gets exactly 0 0 0 1. */
static inline columns4 joint_product(const columns4 *a, const float *S, uint32_t k) {
    const __m128 xyz = _mm_castsi128_ps(_mm_set_epi32(0, -1, -1, -1));
    columns4 m;
    for (uint32_t c = 0; c < 4; c++) {
        __m128 r = _mm_add_ps(_mm_mul_ps(a->c[0], _mm_broadcast_ss(&S[(3 * c) * BLOCK + k])),
                              _mm_mul_ps(a->c[1], _mm_broadcast_ss(&S[(3 * c + 1) * BLOCK + k])));
        m.c[c] = _mm_add_ps(r, _mm_mul_ps(a->c[2], _mm_broadcast_ss(&S[(3 * c + 2) * BLOCK + k])));
    }
    m.c[3] = _mm_add_ps(_mm_and_ps(m.c[3], xyz), a->c[3]);
    return m;
}

/* The local matrices of a block, SoA, their 12 varying rows stored as computed (no transpose). */
static inline void local_rows(const ossa_transform *t, uint32_t count, float S[12 * BLOCK]) {
    __m256 c01[8], c23[8];
    local_soa(t, count, c01, c23);
    for (int r = 0; r < 3; r++) {
        _mm256_storeu_ps(S + r * BLOCK, c01[r]);
        _mm256_storeu_ps(S + (3 + r) * BLOCK, c01[4 + r]);
        _mm256_storeu_ps(S + (6 + r) * BLOCK, c23[r]);
        _mm256_storeu_ps(S + (9 + r) * BLOCK, c23[4 + r]);
    }
}

/* The pass is bound by the parent chains' latency (a child waits for its parent's product):
 * with 128-bit columns, a parent that is the joint just computed is taken from registers
 * (no store-to-load forward), and a child's rotation waits only for its parent's rotation.
 * Figures, and the forms tried before, in docs/performance.md ("Pose kernel designs"). */
void ossa__to_model_avx2(const ossa_transform *locals, const int32_t *parents, uint32_t begin, uint32_t end,
                         ossa_mat4 *out) {
    float S[12 * BLOCK];
    columns4 prev = {{_mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps()}};
    for (uint32_t i0 = begin; i0 < end; i0 += BLOCK) {
        uint32_t count = end - i0 < BLOCK ? end - i0 : BLOCK;
        local_rows(&locals[i0], count, S);
        for (uint32_t k = 0; k < count; k++) {
            uint32_t i = i0 + k;
            columns4 a = parent_columns(&prev, parents, out, i, begin);
            prev = joint_product(&a, S, k);
            store_columns(&prev, out[i].m);
        }
    }
}

/* ---- the palette batch: 8 poses, one a lane ---- */

/* An affine matrix of 8 poses, SoA: rows 0-2 of its four columns (c * 3 + r). */
typedef struct lanes12 {
    __m256 v[12];
} lanes12;

/* Two columns (c0, c0 + 1) of palette entry e of 8 poses: model matrices a (12 SoA rows in
 * scratch: column c row r at 8 (3 c + r)) times inverse bind B (the same for every lane), in
 * the scalar palette_entry's product: the affine one when b is affine (a always is), else the
 * 4 x 4 one with a's last row 0 0 0 1. Then transposed to 8 floats a pose and stored, so no
 * more than the 8 rows of a half are live at once. */
static inline void palette_half(const float *a, const float *B, bool affine, uint32_t c0,
                                ossa_mat4 *const out[8], uint32_t live, uint32_t e) {
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f);
    __m256 m[8];
    for (uint32_t h = 0; h < 2; h++) {
        uint32_t c = c0 + h;
        __m256 b0 = _mm256_broadcast_ss(&B[4 * c]), b1 = _mm256_broadcast_ss(&B[4 * c + 1]),
               b2 = _mm256_broadcast_ss(&B[4 * c + 2]);
        for (uint32_t r = 0; r < 3; r++) { /* (a0 b0 + a1 b1) + a2 b2 */
            __m256 x = _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(a + 8 * r), b0),
                                     _mm256_mul_ps(_mm256_loadu_ps(a + 8 * (3 + r)), b1));
            m[4 * h + r] = _mm256_add_ps(x, _mm256_mul_ps(_mm256_loadu_ps(a + 8 * (6 + r)), b2));
        }
        if (affine) { /* the translation's sum, and the last row 0 0 0 1 */
            for (uint32_t r = 0; c == 3 && r < 3; r++)
                m[4 * h + r] = _mm256_add_ps(m[4 * h + r], _mm256_loadu_ps(a + 8 * (9 + r)));
            m[4 * h + 3] = c == 3 ? one : zero;
        } else { /* + a3 b3, and row 3: ((0 b0 + 0 b1) + 0 b2) + 1 b3 */
            __m256 b3 = _mm256_broadcast_ss(&B[4 * c + 3]);
            for (uint32_t r = 0; r < 3; r++)
                m[4 * h + r] = _mm256_add_ps(m[4 * h + r], _mm256_mul_ps(_mm256_loadu_ps(a + 8 * (9 + r)), b3));
            __m256 w = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(zero, b0), _mm256_mul_ps(zero, b1)),
                                     _mm256_mul_ps(zero, b2));
            m[4 * h + 3] = _mm256_add_ps(w, _mm256_mul_ps(one, b3));
        }
    }
    transpose8(m);
    for (uint32_t g = 0; g < live; g++) _mm256_storeu_ps(out[g][e].m + 4 * c0, m[g]);
}

/* Joint j's local matrices of poses locals[0 .. live) (lanes past live repeat the last pose). */
static inline lanes12 local_lanes(const ossa_transform *const *locals, uint32_t live, uint32_t j) {
    const ossa_transform *lane[8];
    for (uint32_t g = 0; g < 8; g++) lane[g] = &locals[g < live ? g : live - 1][j];
    __m256 c01[8], c23[8];
    local_soa_of(lane, c01, c23);
    lanes12 l;
    for (int r = 0; r < 3; r++) {
        l.v[r] = c01[r];
        l.v[3 + r] = c01[4 + r];
        l.v[6 + r] = c23[r];
        l.v[9 + r] = c23[4 + r];
    }
    return l;
}

/* Joint model matrices of 8 poses into m (12 SoA rows): parent p (12 SoA rows, or NULL for a
 * root: the local itself, as the scalar pass copies it) times local l in
 * ossa__mat4_mul_affine_scalar's operations: ((p0 l0 + p1 l1) + p2 l2) a row, the parent's
 * translation added last. */
static inline void model_lanes(const float *p, const lanes12 *l, float *m) {
    for (uint32_t c = 0; c < 4; c++)
        for (uint32_t r = 0; r < 3; r++) {
            __m256 x = l->v[3 * c + r];
            if (p) {
                x = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(p + 8 * r), l->v[3 * c]),
                                                _mm256_mul_ps(_mm256_loadu_ps(p + 8 * (3 + r)), l->v[3 * c + 1])),
                                  _mm256_mul_ps(_mm256_loadu_ps(p + 8 * (6 + r)), l->v[3 * c + 2]));
                if (c == 3) x = _mm256_add_ps(x, _mm256_loadu_ps(p + 8 * (9 + r)));
            }
            _mm256_storeu_ps(m + 8 * (3 * c + r), x);
        }
}

/* Per 8 poses: every joint's model matrices into scratch (parents first, as the skeleton
 * orders them; a root's is its local matrix, as in the scalar pass), then every skin entry's
 * palette entries. */
void ossa__palette_batch_avx2(const ossa_skeleton *skeleton, const ossa_skin *skin, const ossa_transform *const *locals,
                              ossa_mat4 *const *outputs, uint32_t count, bool skin_layout, float *scratch) {
    uint32_t J = skeleton->joint_count;
    for (uint32_t k0 = 0; k0 < count; k0 += 8) {
        uint32_t live = count - k0 < 8 ? count - k0 : 8;
        for (uint32_t j = 0; j < J; j++) {
            lanes12 l = local_lanes(locals + k0, live, j);
            int32_t p = skeleton->parents[j];
            model_lanes(p >= 0 ? scratch + 96u * (uint32_t)p : NULL, &l, scratch + 96u * j);
        }
        ossa_mat4 *out[8]; /* a local copy: the stores cannot change it */
        for (uint32_t g = 0; g < live; g++) out[g] = outputs[k0 + g];
        for (uint32_t i = 0; i < skin->joint_count; i++) {
            uint32_t j = skin->joints[i];
            const float *B = skin->inverse_bind[i].m;
            bool affine = ossa__mat4_affine(&skin->inverse_bind[i]);
            palette_half(scratch + 96u * j, B, affine, 0, out, live, skin_layout ? i : j);
            palette_half(scratch + 96u * j, B, affine, 2, out, live, skin_layout ? i : j);
        }
    }
}
