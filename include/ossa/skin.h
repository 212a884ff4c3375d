/* ossa/skin.h: CPU skinning (skin palette → deformed vertices) and morph targets.
 * Provided by library ossa (runtime; CMake ossa::ossa, pkg-config ossa).
 *
 * Kernels run over a vertex range [begin, end) so callers can split a mesh
 * across threads; they never allocate and write into caller buffers. Streams
 * are float pointers with a byte stride (0 = tightly packed: 12 bytes for
 * positions/normals, 16 for tangents), so interleaved and separate layouts both
 * work. Outputs may not alias inputs. The palette is indexed by the mesh's
 * joint indices (skeleton-indexed, see ossa_palette_job).
 *
 * Skinned p' = Σ wᵢ · palette[jᵢ] · p (positions w=1; normals and tangents w=0,
 * then renormalised). A vertex whose weights sum to 0 is copied unchanged;
 * weights that do not sum to 1 are used as given by the kernels (importers
 * renormalise). */
#ifndef OSSA_SKIN_H
#define OSSA_SKIN_H

#include "mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ossa_skin_kernel {
    OSSA_SKIN_KERNEL_AUTO = 0, /* best the CPU supports (AVX-512 → AVX2 → SSE → scalar) */
    OSSA_SKIN_KERNEL_SCALAR,
    OSSA_SKIN_KERNEL_SSE,
    OSSA_SKIN_KERNEL_AVX2,
    OSSA_SKIN_KERNEL_AVX512
} ossa_skin_kernel;

typedef struct ossa_skin_job {
    uint32_t begin, end;            /* vertex range, end <= vertex_count */
    uint32_t vertex_count;          /* vertices every stream (and joints / weights) holds */
    uint32_t influences;            /* 4 or 8 */
    const uint16_t *joints;         /* influences per vertex (indexed from vertex 0) */
    const float *weights;           /* influences per vertex */
    const ossa_mat4 *palette;       /* palette_count matrices */
    uint32_t palette_count;         /* joint indices >= palette_count: INVALID_DATA */
    const float *positions; uint32_t positions_stride;   /* required */
    const float *normals;   uint32_t normals_stride;     /* optional */
    const float *tangents;  uint32_t tangents_stride;    /* optional (xyzw, w copied) */
    float *out_positions;   uint32_t out_positions_stride;
    float *out_normals;     uint32_t out_normals_stride; /* required iff normals */
    float *out_tangents;    uint32_t out_tangents_stride;/* required iff tangents */
} ossa_skin_job;

/* Checks a job's pointers, range and influence count (cheap; called by the kernels):
 * INVALID_ARGUMENT for NULLs, bad influences / strides / alignment or begin > end;
 * BUFFER_TOO_SMALL when end > vertex_count (the streams are vertex_count long). */
ossa_result ossa_skin_job_validate(const ossa_skin_job *job);

/* Linear blend skinning with the chosen kernel (AUTO picks at run time). A kernel the
 * CPU lacks returns UNSUPPORTED. */
ossa_result ossa_skin_lbs(const ossa_skin_job *job, ossa_skin_kernel kernel);

/* Kernel AUTO resolves to on this CPU, and whether a kernel is available. */
ossa_skin_kernel ossa_skin_kernel_best(void);
bool ossa_skin_kernel_available(ossa_skin_kernel kernel);
const char *ossa_skin_kernel_name(ossa_skin_kernel kernel);

/* Unit dual quaternion (real = rotation, dual = 0.5 * t * real), 8 floats. */
typedef struct ossa_dual_quat { ossa_quat real, dual; } ossa_dual_quat;

/* Converts count palette matrices (rigid part; scale is ignored) to dual quaternions. */
void ossa_palette_to_dual_quats(const ossa_mat4 *palette, uint32_t count, ossa_dual_quat *out);

/* Dual quaternion skinning over the job's range, with hemisphere correction against
 * the first influence. job->palette is unused; dq has job->palette_count entries. */
ossa_result ossa_skin_dqs(const ossa_skin_job *job, const ossa_dual_quat *dq);

/* Morph targets: out = base + Σ weights[i] * target_i delta for vertices [begin, end),
 * for positions and (when both base and output are given) normals. weights has
 * mesh->target_count entries. Output arrays are vertex_count * 3 floats.
 * INVALID_ARGUMENT for a NULL mesh or out_positions, begin > end, end > vertex_count, or
 * NULL weights when the mesh has targets; an empty range is OK and writes nothing. */
ossa_result ossa_morph_apply(const ossa_mesh *mesh, const float *weights, uint32_t begin, uint32_t end,
                             float *out_positions, float *out_normals);

/* Joint indices are checked by ossa_skin_lbs / ossa_skin_dqs over the whole range
 * BEFORE anything is written (INVALID_DATA writes nothing); ossa_skin_job_validate
 * checks pointers, 4-byte alignment, strides (0 or >= element size, multiple of 4).
 * "Weights sum to 0" is tested on the pairwise sum ((w0+w1)+(w2+w3))[+((w4+w5)+(w6+w7))].
 * A kernel gives each vertex the same bits whatever the range split or stream layout
 * (SIMD kernels agree with scalar within 1e-5). The environment variable
 * OSSA_SKIN_KERNEL=scalar|sse|avx2|avx512 caps the kernels reported available.
 * DQS uses the rigid part only (scale ignored) and normalises the blend, so weights
 * that do not sum to 1 do not scale the result there. */

/* ossa_skin_dqs with a chosen kernel: AUTO (what ossa_skin_dqs uses), SCALAR, AVX2 or
 * AVX512 when available; DQS has no SSE kernel (UNSUPPORTED). */
ossa_result ossa_skin_dqs_with_kernel(const ossa_skin_job *job, const ossa_dual_quat *dq, ossa_skin_kernel kernel);

/* Reference path (the seed's two-array variant, slow): skin matrix of joint j is
 * model[j] * inverse_bind[j], multiplied per influence; job->palette is unused and
 * model/inverse_bind have job->palette_count entries. For tests. */
ossa_result ossa_skin_lbs_two_arrays(const ossa_skin_job *job, const ossa_mat4 *model, const ossa_mat4 *inverse_bind);
/* Reference path (the seed's transform variant): skin transform = combine(model[j],
 * inverse_bind[j]) as TRS (matches the matrix paths for uniform scale). For tests. */
ossa_result ossa_skin_lbs_transforms(const ossa_skin_job *job, const ossa_transform *model,
                                     const ossa_transform *inverse_bind);

#ifdef __cplusplus
}
#endif
#endif
