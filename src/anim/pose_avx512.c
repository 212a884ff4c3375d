/* AVX-512 pose kernels (F+VL+BW+DQ; built with -mavx512f...): the palette and local-to-model
 * with one whole 4x4 product per 512-bit step, and the palette batch with 16 poses a pass, one
 * a lane. Lane 4c + r of a product is column c, row r: out = sum_k A_k * B_k with
 * A_k = column k of the left matrix in all four 128-bit lanes and B_k = row k of the right
 * matrix, element c splat over 128-bit lane c (one permute). No FMA (the ISO C mode keeps
 * -ffp-contract=off): the scalar path's operations in its order, so the values are equal
 * (see anim/pose_internal.h). */
#include <immintrin.h>

#include "anim/pose_block.h"

static inline __m512 column4(const float *A, int k) {
    return _mm512_broadcast_f32x4(_mm_loadu_ps(A + 4 * k));
}

/* out = a * b, the general 4x4 product in ossa__mat4_mul's order: b's column c is in 128-bit
 * lane c, so its row k is an in-lane splat. */
static inline void mul4_x4(const float *A, const float *B, float *o) {
    __m512 b = _mm512_loadu_ps(B);
    __m512 r = _mm512_add_ps(_mm512_mul_ps(column4(A, 0), _mm512_permute_ps(b, 0x00)),
                             _mm512_mul_ps(column4(A, 1), _mm512_permute_ps(b, 0x55)));
    r = _mm512_add_ps(r, _mm512_mul_ps(column4(A, 2), _mm512_permute_ps(b, 0xAA)));
    r = _mm512_add_ps(r, _mm512_mul_ps(column4(A, 3), _mm512_permute_ps(b, 0xFF)));
    _mm512_storeu_ps(o, r);
}

void ossa__palette_avx512(const ossa_mat4 *model, const uint32_t *joints, const ossa_mat4 *inverse_bind,
                          uint32_t count, bool skin_layout, ossa_mat4 *out) {
    for (uint32_t i = 0; i < count; i++)
        mul4_x4(model[joints[i]].m, inverse_bind[i].m, out[skin_layout ? i : joints[i]].m);
}

/* Joint i's parent p is the joint the pass computed just before it (so it is in registers). */
static inline bool parent_just_computed(int32_t p, uint32_t i, uint32_t begin) {
    return p >= 0 && (uint32_t)p + 1 == i && i > begin;
}

/* out[i] = out[parent] * local[i] in ossa__mat4_mul_affine_scalar's operations: three terms
 * per entry, the parent's translation added to the translation column, last row 0 0 0 1
 * (neither last row is read). The local matrices stay SoA (8 joints a block): row k of
 * joint j is one two-source permute of the block's row-k registers, never transposed back
 * or stored. The pass is bound by the parent chains' latency (a child waits for its parent's
 * product): when the parent is the joint just computed, its columns come from the register
 * (in-register broadcasts of it before the translation add) instead of a store-to-load
 * forward. Transposing the locals back to matrices was slower, and loading a local stored as
 * two 256-bit halves with one 512-bit load much slower: that store-to-load forward fails
 * (figures in docs/performance.md, "Pose kernel designs"). */
void ossa__to_model_avx512(const ossa_transform *locals, const int32_t *parents, uint32_t begin, uint32_t end,
                           ossa_mat4 *out) {
    static const ossa_mat4 identity = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
    /* lane group c of row k picks column c's register: 0..7 and 8..15 (columns 0, 1) from
     * the first source, 16..23 and 24..31 (columns 2, 3) from the second; + j for joint j */
    const __m512i base = _mm512_setr_epi32(0, 0, 0, 0, 8, 8, 8, 8, 16, 16, 16, 16, 24, 24, 24, 24);
    /* the joint just computed: its upper-left 3x3 and last row (final one step before the
     * translation), and the whole matrix */
    __m512 prev3 = _mm512_setzero_ps(), prev = _mm512_setzero_ps();
    for (uint32_t i0 = begin; i0 < end; i0 += BLOCK) {
        uint32_t count = end - i0 < BLOCK ? end - i0 : BLOCK;
        __m256 c01[8], c23[8];
        local_soa(&locals[i0], count, c01, c23);
        __m512 ra[3], rb[3]; /* row k: (column 0 | column 1), (column 2 | column 3), 8 joints each */
        for (int k = 0; k < 3; k++) {
            ra[k] = _mm512_insertf32x8(_mm512_castps256_ps512(c01[k]), c01[4 + k], 1);
            rb[k] = _mm512_insertf32x8(_mm512_castps256_ps512(c23[k]), c23[4 + k], 1);
        }
        __m512i idx = base;
        for (uint32_t k = 0; k < count; k++, idx = _mm512_add_epi32(idx, _mm512_set1_epi32(1))) {
            uint32_t i = i0 + k;
            int32_t p = parents[i];
            __m512 a0, a1, a2, t; /* t: the parent's translation in lanes 12..14, 1 in lane 15 */
            if (parent_just_computed(p, i, begin)) {
                a0 = _mm512_shuffle_f32x4(prev3, prev3, 0x00), a1 = _mm512_shuffle_f32x4(prev3, prev3, 0x55);
                a2 = _mm512_shuffle_f32x4(prev3, prev3, 0xAA), t = prev; /* its lane 15 is 1 */
            } else {
                const float *A = p < 0 ? identity.m : out[p].m;
                a0 = column4(A, 0), a1 = column4(A, 1), a2 = column4(A, 2);
                t = _mm512_mask_blend_ps(0x8000, _mm512_loadu_ps(A), _mm512_set1_ps(1.0f));
            }
            __m512 r = _mm512_add_ps(_mm512_mul_ps(a0, _mm512_permutex2var_ps(ra[0], idx, rb[0])),
                                     _mm512_mul_ps(a1, _mm512_permutex2var_ps(ra[1], idx, rb[1])));
            r = _mm512_maskz_add_ps(0x7777, r, _mm512_mul_ps(a2, _mm512_permutex2var_ps(ra[2], idx, rb[2])));
            prev3 = r; /* last row 0 */
            prev = _mm512_mask_add_ps(prev3, 0xF000, prev3, t); /* + a's translation; 0 + 1 = 1 */
            _mm512_storeu_ps(out[i].m, prev);
        }
    }
}

/* ---- the palette batch: 16 poses, one a lane (the AVX2 kernel's steps at twice the width) ---- */

/* An affine matrix of 16 poses, SoA: rows 0-2 of its four columns (c * 3 + r). */
typedef struct lanes12 {
    __m512 v[12];
} lanes12;

static inline __m512 join(__m256 lo, __m256 hi) { return _mm512_insertf32x8(_mm512_castps256_ps512(lo), hi, 1); }

/* Joint j's local matrices of poses locals[0 .. live) (lanes past live repeat the last pose):
 * two halves of 8 poses from local_soa_of. */
static inline lanes12 local_lanes(const ossa_transform *const *locals, uint32_t live, uint32_t j) {
    const ossa_transform *lane[16];
    for (uint32_t g = 0; g < 16; g++) lane[g] = &locals[g < live ? g : live - 1][j];
    __m256 lo01[8], lo23[8], hi01[8], hi23[8];
    local_soa_of(lane, lo01, lo23);
    local_soa_of(lane + 8, hi01, hi23);
    lanes12 l;
    for (int r = 0; r < 3; r++) {
        l.v[r] = join(lo01[r], hi01[r]);
        l.v[3 + r] = join(lo01[4 + r], hi01[4 + r]);
        l.v[6 + r] = join(lo23[r], hi23[r]);
        l.v[9 + r] = join(lo23[4 + r], hi23[4 + r]);
    }
    return l;
}

/* Joint model matrices of 16 poses into m (12 SoA rows of 16): parent p (the same, or NULL for
 * a root: the local itself, as the scalar pass copies it) times local l in
 * ossa__mat4_mul_affine_scalar's operations: ((p0 l0 + p1 l1) + p2 l2) a row, the parent's
 * translation added last. */
static inline void model_lanes(const float *p, const lanes12 *l, float *m) {
    for (uint32_t c = 0; c < 4; c++)
        for (uint32_t r = 0; r < 3; r++) {
            __m512 x = l->v[3 * c + r];
            if (p) {
                x = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(_mm512_loadu_ps(p + 16 * r), l->v[3 * c]),
                                                _mm512_mul_ps(_mm512_loadu_ps(p + 16 * (3 + r)), l->v[3 * c + 1])),
                                  _mm512_mul_ps(_mm512_loadu_ps(p + 16 * (6 + r)), l->v[3 * c + 2]));
                if (c == 3) x = _mm512_add_ps(x, _mm512_loadu_ps(p + 16 * (9 + r)));
            }
            _mm512_storeu_ps(m + 16 * (3 * c + r), x);
        }
}

/* Two columns (c0, c0 + 1) of palette entry e of 16 poses: model matrices a (12 SoA rows of 16
 * in scratch) times inverse bind B, in the scalar palette_entry's product (the affine one when
 * B is affine, else the 4 x 4 one with a's last row 0 0 0 1); then each half of 8 poses
 * transposed to 8 floats a pose and stored. */
static inline void palette_half(const float *a, const float *B, bool affine, uint32_t c0, ossa_mat4 *const out[16],
                                uint32_t live, uint32_t e) {
    const __m512 zero = _mm512_setzero_ps(), one = _mm512_set1_ps(1.0f);
    __m512 m[8];
    for (uint32_t h = 0; h < 2; h++) {
        uint32_t c = c0 + h;
        __m512 b0 = _mm512_set1_ps(B[4 * c]), b1 = _mm512_set1_ps(B[4 * c + 1]), b2 = _mm512_set1_ps(B[4 * c + 2]);
        for (uint32_t r = 0; r < 3; r++) { /* (a0 b0 + a1 b1) + a2 b2 */
            __m512 x = _mm512_add_ps(_mm512_mul_ps(_mm512_loadu_ps(a + 16 * r), b0),
                                     _mm512_mul_ps(_mm512_loadu_ps(a + 16 * (3 + r)), b1));
            m[4 * h + r] = _mm512_add_ps(x, _mm512_mul_ps(_mm512_loadu_ps(a + 16 * (6 + r)), b2));
        }
        if (affine) { /* the translation's sum, and the last row 0 0 0 1 */
            for (uint32_t r = 0; c == 3 && r < 3; r++)
                m[4 * h + r] = _mm512_add_ps(m[4 * h + r], _mm512_loadu_ps(a + 16 * (9 + r)));
            m[4 * h + 3] = c == 3 ? one : zero;
        } else { /* + a3 b3, and row 3: ((0 b0 + 0 b1) + 0 b2) + 1 b3 */
            __m512 b3 = _mm512_set1_ps(B[4 * c + 3]);
            for (uint32_t r = 0; r < 3; r++)
                m[4 * h + r] = _mm512_add_ps(m[4 * h + r], _mm512_mul_ps(_mm512_loadu_ps(a + 16 * (9 + r)), b3));
            __m512 w = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(zero, b0), _mm512_mul_ps(zero, b1)), _mm512_mul_ps(zero, b2));
            m[4 * h + 3] = _mm512_add_ps(w, _mm512_mul_ps(one, b3));
        }
    }
    for (uint32_t half = 0; half < 2; half++) { /* poses 0-7, then 8-15 */
        __m256 t[8];
        for (int i = 0; i < 8; i++) t[i] = half ? _mm512_extractf32x8_ps(m[i], 1) : _mm512_castps512_ps256(m[i]);
        transpose8(t);
        for (uint32_t g = 0; g < 8 && 8 * half + g < live; g++) _mm256_storeu_ps(out[8 * half + g][e].m + 4 * c0, t[g]);
    }
}

/* Per 16 poses: every joint's model matrices into scratch (192 floats a joint; parents first, as
 * the skeleton orders them; a root's is its local matrix, as in the scalar pass), then every
 * skin entry's palette entries. */
void ossa__palette_batch_avx512(const ossa_skeleton *skeleton, const ossa_skin *skin, const ossa_transform *const *locals,
                                ossa_mat4 *const *outputs, uint32_t count, bool skin_layout, float *scratch) {
    uint32_t J = skeleton->joint_count;
    for (uint32_t k0 = 0; k0 < count; k0 += 16) {
        uint32_t live = count - k0 < 16 ? count - k0 : 16;
        for (uint32_t j = 0; j < J; j++) {
            lanes12 l = local_lanes(locals + k0, live, j);
            int32_t p = skeleton->parents[j];
            model_lanes(p >= 0 ? scratch + 192u * (uint32_t)p : NULL, &l, scratch + 192u * j);
        }
        ossa_mat4 *out[16]; /* a local copy: the stores cannot change it */
        for (uint32_t g = 0; g < live; g++) out[g] = outputs[k0 + g];
        for (uint32_t i = 0; i < skin->joint_count; i++) {
            uint32_t j = skin->joints[i];
            const float *B = skin->inverse_bind[i].m;
            bool affine = ossa__mat4_affine(&skin->inverse_bind[i]);
            palette_half(scratch + 192u * j, B, affine, 0, out, live, skin_layout ? i : j);
            palette_half(scratch + 192u * j, B, affine, 2, out, live, skin_layout ? i : j);
        }
    }
}
