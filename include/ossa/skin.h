/* ossa/skin.h: CPU skinning (skin palette → deformed vertices) and morph targets.
 * Provided by library ossa (runtime; CMake ossa::ossa, pkg-config ossa).
 *
 * Where it sits: after the palette job (ossa/pose.h); morph targets (ossa_morph_job)
 * run on the bind-pose streams before skinning. Three jobs, each with the shape of
 * ossa/common.h (_validate names the wrong field, _run takes the job mutable, a zeroed
 * job fails): ossa_skin_job (LBS or DQS), ossa_dual_quat_job (palette → dual quaternions
 * for DQS) and ossa_morph_job.
 *
 * Jobs run over a vertex range [begin, end) so callers can split a mesh across threads;
 * they never allocate and write into caller buffers. Streams are float pointers with a
 * byte stride (0 = tightly packed: 12 bytes for positions/normals, 16 for tangents), so
 * interleaved and separate layouts both work. Outputs may not alias inputs. The palette
 * is indexed by the mesh's joint indices (skeleton-indexed, see ossa_palette_job).
 *
 * Skinned p' = Σ wᵢ · palette[jᵢ] · p (positions w=1; normals and tangents w=0,
 * then renormalised). A vertex whose weights sum to 0 is copied unchanged;
 * weights that do not sum to 1 are used as given by the kernels (importers
 * renormalise). Thread-safety: jobs over disjoint ranges may run concurrently. */
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

/* Kernel AUTO resolves to on this CPU, and whether a kernel is available. The environment
 * variable OSSA_SIMD=scalar|sse4|avx2|avx512 caps the kernels reported available (and every
 * other SIMD kernel of the library); a build with -DOSSA_SIMD_KERNELS=OFF has only SCALAR. */
ossa_skin_kernel ossa_skin_kernel_best(void);
bool ossa_skin_kernel_available(ossa_skin_kernel kernel);
const char *ossa_skin_kernel_name(ossa_skin_kernel kernel);

typedef enum ossa_skin_method {
    OSSA_SKIN_LBS = 0, /* linear blend skinning: Σ wᵢ · palette[jᵢ] (the default) */
    OSSA_SKIN_DQS      /* dual quaternion skinning: blend of dual_quats[jᵢ], rigid part only */
} ossa_skin_method;

/* Unit dual quaternion (real = rotation, dual = 0.5 * t * real), 8 floats. */
typedef struct ossa_dual_quat { ossa_quat real, dual; } ossa_dual_quat;

/* The skinning job: skins vertices [begin, end) of the streams with `method`, running
 * `kernel`. LBS reads `palette`, DQS reads `dual_quats` (both palette_count entries); the
 * span the method does not read may be set too (so a caller can keep both and switch
 * `method`) and is then not read. Joint indices are checked over the whole range BEFORE
 * anything is written: an index >= palette_count is INVALID_DATA from _run, nothing
 * written. "Weights sum to 0" is tested on the pairwise sum
 * ((w0+w1)+(w2+w3))[+((w4+w5)+(w6+w7))]. A kernel gives each vertex the same bits
 * whatever the range split or stream layout (SIMD kernels agree with scalar within 1e-5).
 * DQS uses the rigid part only (scale ignored) and normalises the blend, so weights that
 * do not sum to 1 do not scale the result there; it has no SSE kernel (AUTO then runs
 * scalar DQS, an explicit SSE is UNSUPPORTED). Every pointer but `joints` must be 4-byte
 * aligned (`joints` 2-byte); strides are 0 (packed) or >= the element size and a multiple
 * of 4. */
typedef struct ossa_skin_job {
    ossa_skin_method method;        /* 0 = LBS */
    ossa_skin_kernel kernel;        /* 0 = AUTO (best available); an unavailable one fails validation */
    uint32_t begin, end;            /* vertex range, end <= vertex_count */
    uint32_t vertex_count;          /* vertices every stream (and joints / weights) holds */
    uint32_t influences;            /* 4 or 8 */
    const uint16_t *joints;         /* influences per vertex (indexed from vertex 0) */
    const float *weights;           /* influences per vertex */
    const ossa_mat4 *palette;       /* LBS: palette_count matrices (model × inverse bind) */
    const ossa_dual_quat *dual_quats; /* DQS: palette_count dual quaternions (ossa_dual_quat_job) */
    uint32_t palette_count;         /* > 0; joint indices >= palette_count: INVALID_DATA */
    const float *positions; uint32_t positions_stride;   /* required */
    const float *normals;   uint32_t normals_stride;     /* optional */
    const float *tangents;  uint32_t tangents_stride;    /* optional (xyzw, w copied) */
    float *out_positions;   uint32_t out_positions_stride; /* required */
    float *out_normals;     uint32_t out_normals_stride; /* required iff normals */
    float *out_tangents;    uint32_t out_tangents_stride;/* required iff tangents */
} ossa_skin_job;

/* Cheap checks (O(1), no stream is read): INVALID_ARGUMENT for a NULL job or span, a bad
 * method / kernel / influences / stride / alignment, begin > end, an input stream without
 * its output or an output without its input; UNSUPPORTED for a kernel this CPU lacks (or
 * SSE with DQS); BUFFER_TOO_SMALL when end > vertex_count. diag (may be NULL) names the
 * first wrong field, e.g. "out_normals", "kernel", "dual_quats". */
ossa_result ossa_skin_job_validate(const ossa_skin_job *job, ossa_diagnostic *diag);
/* Validates, checks the range's joint indices (INVALID_DATA, nothing written), then writes
 * out_* for vertices [begin, end) only. An empty range is OK and writes nothing. */
ossa_result ossa_skin_job_run(ossa_skin_job *job);

/* Converts palette matrices (rigid part: columns normalised, scale ignored) to unit dual
 * quaternions for DQS: output[i] from palette[i], i < palette_count. */
typedef struct ossa_dual_quat_job {
    const ossa_mat4 *palette;       /* required: palette_count matrices */
    uint32_t palette_count;         /* 0 is valid (nothing written) */
    ossa_dual_quat *output;         /* required */
    uint32_t output_count;          /* >= palette_count */
} ossa_dual_quat_job;

/* INVALID_ARGUMENT for a NULL job, palette or output; BUFFER_TOO_SMALL (naming "output")
 * when output_count < palette_count. */
ossa_result ossa_dual_quat_job_validate(const ossa_dual_quat_job *job, ossa_diagnostic *diag);
/* Validates, then writes output[0, palette_count). */
ossa_result ossa_dual_quat_job_run(ossa_dual_quat_job *job);

/* Morph targets: out = base + Σ weights[t] · target t's delta, for vertices [begin, end),
 * for positions and, when out_normals is given, normals. Targets without a delta for a
 * stream (NULL) and zero weights add nothing. Output arrays are indexed from vertex 0
 * (vertex v at out + 3 * v); only [begin, end) is written. */
typedef struct ossa_morph_job {
    const ossa_mesh *mesh;          /* required: base positions / normals and targets */
    const float *weights;           /* weight_count >= mesh->target_count; may be NULL with no targets */
    uint32_t weight_count;
    uint32_t begin, end;            /* vertex range, end <= mesh->vertex_count */
    float *out_positions;           /* required */
    uint32_t out_positions_count;   /* in vertices (3 floats each), >= end */
    float *out_normals;             /* optional; requires mesh->normals */
    uint32_t out_normals_count;     /* in vertices (3 floats each), >= end when out_normals is given */
} ossa_morph_job;

/* INVALID_ARGUMENT for a NULL job, mesh or out_positions, a mesh without positions (or
 * with target_count but no targets), NULL weights when the mesh has targets, begin > end,
 * end > mesh->vertex_count, or out_normals for a mesh without normals; BUFFER_TOO_SMALL
 * when weight_count < mesh->target_count or an output count < end. O(1). */
ossa_result ossa_morph_job_validate(const ossa_morph_job *job, ossa_diagnostic *diag);
/* Validates, then writes vertices [begin, end) of the outputs (an empty range writes nothing). */
ossa_result ossa_morph_job_run(ossa_morph_job *job);

#ifdef __cplusplus
}
#endif
#endif
