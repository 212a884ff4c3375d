/* Internal to src/skin: the kernel table shared by the dispatcher and the per-ISA files. */
#ifndef OSSA_SKIN_INTERNAL_H
#define OSSA_SKIN_INTERNAL_H

#include <ossa/skin.h>

#include <math.h>
#include <stdbool.h>
#include <string.h>

/* A kernel skins job->[begin, end) of an already validated job whose joint indices
 * were checked; strides are resolved (non-zero). It never fails and never allocates. */
typedef void (*ossa__skin_kernel_fn)(const ossa_skin_job *job);

void ossa__skin_lbs_scalar(const ossa_skin_job *job);
void ossa__skin_lbs_sse(const ossa_skin_job *job);
void ossa__skin_lbs_avx2(const ossa_skin_job *job);
void ossa__skin_lbs_avx512(const ossa_skin_job *job);
/* DQS kernels over a validated, joint-checked, stride-resolved job; dq is job->dual_quats. */
void ossa__skin_dqs_scalar(const ossa_skin_job *job, const ossa_dual_quat *dq);
void ossa__skin_dqs_avx2(const ossa_skin_job *job, const ossa_dual_quat *dq);
void ossa__skin_dqs_avx512(const ossa_skin_job *job, const ossa_dual_quat *dq);

/* Copy of *job with zero strides replaced by the packed sizes (12, 12, 16). */
ossa_skin_job ossa__skin_job_resolve(const ossa_skin_job *job);

/* OSSA_OK when every joint index of [begin, end) is < palette_count, else INVALID_DATA. */
ossa_result ossa__skin_check_joints(const ossa_skin_job *job);

/* Packed copy of up to 16 vertices, so SIMD kernels run partial blocks (range ends) and
 * strided streams through the same block code as packed ones: results then do not
 * depend on where a caller splits the range, nor on the stream layout. */
typedef struct ossa__skin_scratch {
    uint16_t joints[16 * OSSA_MAX_INFLUENCES];
    float weights[16 * OSSA_MAX_INFLUENCES];
    float positions[16 * 3], normals[16 * 3], tangents[16 * 4];
    float out_positions[16 * 3], out_normals[16 * 3], out_tangents[16 * 4];
} ossa__skin_scratch;

/* Copies vertices [v, e) of job into lanes v - b0 ... of s (zero weights elsewhere) and
 * returns a packed job over lanes [0, 16) of s. */
ossa_skin_job ossa__skin_scratch_load(const ossa_skin_job *job, uint32_t b0, uint32_t v, uint32_t e,
                                      ossa__skin_scratch *s);
/* Copies the outputs of lanes v - b0 ... back to job's vertices [v, e). */
void ossa__skin_scratch_store(const ossa_skin_job *job, uint32_t b0, uint32_t v, uint32_t e,
                              const ossa__skin_scratch *s);

/* The weight sum tested against 0 ("copied unchanged"), summed pairwise in this exact
 * order by every kernel so they agree on which vertices are skipped. */
static inline float ossa__skin_weight_sum(const float *w, uint32_t k) {
    float s = (w[0] + w[1]) + (w[2] + w[3]);
    if (k == 8) s += (w[4] + w[5]) + (w[6] + w[7]);
    return s;
}

/* Stream element address: base + vertex * stride bytes. */
static inline const float *ossa__skin_in(const float *base, uint32_t stride, uint32_t vertex) {
    return (const float *)(const void *)((const char *)base + (size_t)vertex * stride);
}
static inline float *ossa__skin_out(float *base, uint32_t stride, uint32_t vertex) {
    return (float *)(void *)((char *)base + (size_t)vertex * stride);
}

/* Copies vertex v's position, normal and tangent to the outputs unchanged (what every
 * kernel does for a vertex whose weights sum to 0). */
static inline void ossa__skin_copy_vertex(const ossa_skin_job *job, uint32_t v) {
    memcpy(ossa__skin_out(job->out_positions, job->out_positions_stride, v),
           ossa__skin_in(job->positions, job->positions_stride, v), 12);
    if (job->normals)
        memcpy(ossa__skin_out(job->out_normals, job->out_normals_stride, v),
               ossa__skin_in(job->normals, job->normals_stride, v), 12);
    if (job->tangents)
        memcpy(ossa__skin_out(job->out_tangents, job->out_tangents_stride, v),
               ossa__skin_in(job->tangents, job->tangents_stride, v), 16);
}

/* True when every stream of a stride-resolved job is packed (12, 12, 16 bytes). */
static inline bool ossa__skin_job_packed(const ossa_skin_job *job) {
    return job->positions_stride == 12 && job->out_positions_stride == 12 &&
           (!job->normals || (job->normals_stride == 12 && job->out_normals_stride == 12)) &&
           (!job->tangents || (job->tangents_stride == 16 && job->out_tangents_stride == 16));
}

/* One block of a SIMD kernel `width` vertices wide (8 or 16). Blocks are aligned to
 * absolute vertex indices (multiples of width); a partial block or a strided stream goes
 * through the packed scratch copy, so every vertex takes the same arithmetic whatever the
 * range split or layout. The block code runs on `job` from vertex `at`. */
typedef struct ossa__skin_block {
    const ossa_skin_job *job; /* the caller's job, or &scratch_job */
    uint32_t at;              /* first vertex of the block in *job: v, or 0 in the scratch */
    uint32_t b0, v, e;        /* aligned start, first and end vertex in the caller's job */
    ossa_skin_job scratch_job;
} ossa__skin_block;

/* Sets up the block holding vertex v of job (loading the scratch copy when needed); the
 * next block starts at b->e. */
static inline void ossa__skin_block_begin(ossa__skin_block *b, const ossa_skin_job *job, bool packed, uint32_t width,
                                          uint32_t v, ossa__skin_scratch *s) {
    b->b0 = v - v % width;
    b->v = v;
    b->e = job->end - b->b0 > width ? b->b0 + width : job->end;
    b->job = job, b->at = v;
    if (!(packed && v == b->b0 && b->e == b->b0 + width)) {
        b->scratch_job = ossa__skin_scratch_load(job, b->b0, v, b->e, s);
        b->job = &b->scratch_job, b->at = 0;
    }
}

/* Copies the block's outputs back to job when it ran on the scratch copy. */
static inline void ossa__skin_block_end(const ossa__skin_block *b, const ossa_skin_job *job,
                                        const ossa__skin_scratch *s) {
    if (b->job != job) ossa__skin_scratch_store(job, b->b0, b->v, b->e, s);
}

/* Scales v[0..2] to unit length unless its squared length is <= 1e-24 (scalar paths). */
static inline void ossa__skin_normalize3(float *v) {
    float l2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    if (l2 > 1e-24f) {
        float s = 1.0f / sqrtf(l2);
        v[0] *= s, v[1] *= s, v[2] *= s;
    }
}

#endif
