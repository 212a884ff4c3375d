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

/* out = a * b for 8 poses at once in ossa__mat4_mul_affine_scalar's operations. */
static inline lanes12 lanes_mul_affine(const lanes12 *a, const lanes12 *b) {
    lanes12 o;
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 3; r++)
            o.v[3 * c + r] = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(a->v[r], b->v[3 * c]), _mm256_mul_ps(a->v[3 + r], b->v[3 * c + 1])),
                                           _mm256_mul_ps(a->v[6 + r], b->v[3 * c + 2]));
    for (int r = 0; r < 3; r++) o.v[9 + r] = _mm256_add_ps(o.v[9 + r], a->v[9 + r]);
    return o;
}

/* The 8 x 8 transpose: row i's lane l becomes row l's lane i. */
static inline void transpose8(__m256 r[8]) {
    __m256 t[8], s[8];
    for (int i = 0; i < 4; i++) {
        t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int h = 0; h < 2; h++) { /* rows 0-3 (h = 0) and 4-7 */
        s[4 * h + 0] = _mm256_shuffle_ps(t[4 * h], t[4 * h + 2], _MM_SHUFFLE(1, 0, 1, 0));
        s[4 * h + 1] = _mm256_shuffle_ps(t[4 * h], t[4 * h + 2], _MM_SHUFFLE(3, 2, 3, 2));
        s[4 * h + 2] = _mm256_shuffle_ps(t[4 * h + 1], t[4 * h + 3], _MM_SHUFFLE(1, 0, 1, 0));
        s[4 * h + 3] = _mm256_shuffle_ps(t[4 * h + 1], t[4 * h + 3], _MM_SHUFFLE(3, 2, 3, 2));
    }
    for (int i = 0; i < 4; i++) {
        r[i] = _mm256_permute2f128_ps(s[i], s[4 + i], 0x20);
        r[4 + i] = _mm256_permute2f128_ps(s[i], s[4 + i], 0x31);
    }
}

/* Palette entry e of the live poses: m (16 SoA rows, ossa_mat4's order) transposed to one
 * matrix a lane. */
static inline void store_lanes(__m256 m[16], ossa_mat4 *const out[8], uint32_t live, uint32_t e) {
    transpose8(m);
    transpose8(m + 8);
    for (uint32_t g = 0; g < live; g++) {
        _mm256_storeu_ps(out[g][e].m, m[g]);
        _mm256_storeu_ps(out[g][e].m + 8, m[8 + g]);
    }
}

/* The palette entry of model matrices a and inverse bind b (the same for every lane): the
 * scalar palette_entry's product, affine when b is (a always is), else 4x4 with a's last row
 * 0 0 0 1. */
static inline void palette_lanes(const lanes12 *a, const ossa_mat4 *b, __m256 m[16]) {
    const float *B = b->m;
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f);
    if (B[3] == 0.0f && B[7] == 0.0f && B[11] == 0.0f && B[15] == 1.0f) {
        lanes12 bl;
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 3; r++) bl.v[3 * c + r] = _mm256_broadcast_ss(&B[4 * c + r]);
        lanes12 o = lanes_mul_affine(a, &bl);
        for (int c = 0; c < 4; c++) {
            for (int r = 0; r < 3; r++) m[4 * c + r] = o.v[3 * c + r];
            m[4 * c + 3] = c == 3 ? one : zero;
        }
        return;
    }
    __m256 A[16]; /* a as ossa_mat4's rows: column c row r at 4 c + r */
    for (int c = 0; c < 4; c++) {
        for (int r = 0; r < 3; r++) A[4 * c + r] = a->v[3 * c + r];
        A[4 * c + 3] = c == 3 ? one : zero;
    }
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) { /* ossa__mat4_mul: ((a0 b0 + a1 b1) + a2 b2) + a3 b3 */
            __m256 s = _mm256_add_ps(_mm256_mul_ps(A[r], _mm256_broadcast_ss(&B[4 * c])),
                                     _mm256_mul_ps(A[4 + r], _mm256_broadcast_ss(&B[4 * c + 1])));
            s = _mm256_add_ps(s, _mm256_mul_ps(A[8 + r], _mm256_broadcast_ss(&B[4 * c + 2])));
            m[4 * c + r] = _mm256_add_ps(s, _mm256_mul_ps(A[12 + r], _mm256_broadcast_ss(&B[4 * c + 3])));
        }
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

static inline lanes12 load_lanes(const float *p) {
    lanes12 a;
    for (int i = 0; i < 12; i++) a.v[i] = _mm256_loadu_ps(p + 8 * i);
    return a;
}
static inline void store_lanes12(float *p, const lanes12 *a) {
    for (int i = 0; i < 12; i++) _mm256_storeu_ps(p + 8 * i, a->v[i]);
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
            if (p >= 0) {
                lanes12 a = load_lanes(scratch + 96u * (uint32_t)p);
                l = lanes_mul_affine(&a, &l);
            }
            store_lanes12(scratch + 96u * j, &l);
        }
        ossa_mat4 *out[8]; /* a local copy: the stores cannot change it */
        for (uint32_t g = 0; g < live; g++) out[g] = outputs[k0 + g];
        for (uint32_t i = 0; i < skin->joint_count; i++) {
            uint32_t j = skin->joints[i];
            lanes12 a = load_lanes(scratch + 96u * j);
            __m256 m[16];
            palette_lanes(&a, &skin->inverse_bind[i], m);
            store_lanes(m, out, live, skin_layout ? i : j);
        }
    }
}
