/* The skinning job: validation (naming the wrong field) and the run, which resolves the
 * kernel and hands a checked, stride-resolved job to the LBS or DQS kernel. */
#include "skin_internal.h"

#include <stdint.h>

#include "core/job.h"

/* One vertex stream as validation sees it: its field names, pointer, stride and packed size. */
typedef struct skin_stream {
    const char *name, *stride_name;
    const void *data;
    uint32_t stride, size;
} skin_stream;

static bool aligned(const void *p, uintptr_t to) {
    return ((uintptr_t)p & (to - 1u)) == 0;
}

/* method, kernel (in range and available on this CPU), influences and range order. */
static ossa_result check_parameters(const ossa_skin_job *job, ossa_diagnostic *diag) {
    if (job->method != OSSA_SKIN_LBS && job->method != OSSA_SKIN_DQS)
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "method", "%d is not LBS or DQS", (int)job->method);
    const ossa_skin_kernel k = job->kernel;
    if (k < OSSA_SKIN_KERNEL_AUTO || k > OSSA_SKIN_KERNEL_AVX512)
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "kernel", "%d is not a skinning kernel", (int)k);
    if (k != OSSA_SKIN_KERNEL_AUTO && job->method == OSSA_SKIN_DQS && k == OSSA_SKIN_KERNEL_SSE)
        return ossa__job_fail(diag, OSSA_ERROR_UNSUPPORTED, "kernel",
                              "DQS has no SSE kernel (use AUTO, SCALAR, AVX2 or AVX512)");
    if (k != OSSA_SKIN_KERNEL_AUTO && !ossa_skin_kernel_available(k))
        return ossa__job_fail(diag, OSSA_ERROR_UNSUPPORTED, "kernel", "%s is not available on this CPU",
                              ossa_skin_kernel_name(k));
    if (job->influences != 4 && job->influences != 8)
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "influences", "%u (must be 4 or 8)", job->influences);
    if (job->begin > job->end)
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "begin", "%u is past end %u", job->begin, job->end);
    return OSSA_OK;
}

/* The per-vertex influence spans and the joint transforms the method reads. */
static ossa_result check_influences(const ossa_skin_job *job, ossa_diagnostic *diag) {
    if (!job->joints) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "joints", "required");
    if (!aligned(job->joints, 2))
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "joints", "not 2-byte aligned");
    if (!job->weights) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "weights", "required");
    if (!aligned(job->weights, 4))
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "weights", "not 4-byte aligned");
    const bool dqs = job->method == OSSA_SKIN_DQS;
    const char *name = dqs ? "dual_quats" : "palette";
    const void *transforms = dqs ? (const void *)job->dual_quats : (const void *)job->palette;
    if (!transforms)
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, name, "required by %s", dqs ? "DQS" : "LBS");
    if (!aligned(transforms, 4))
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, name, "not 4-byte aligned");
    if (job->palette_count == 0)
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "palette_count", "0 (the %s span is empty)", name);
    return OSSA_OK;
}

/* One stream: 4-byte aligned, stride 0 or >= its size and a multiple of 4. */
static ossa_result check_stream(const skin_stream *s, ossa_diagnostic *diag) {
    if (!aligned(s->data, 4))
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, s->name, "not 4-byte aligned");
    if (s->stride != 0 && (s->stride < s->size || s->stride % 4 != 0))
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, s->stride_name,
                              "%u (must be 0 or >= %u and a multiple of 4)", s->stride, s->size);
    return OSSA_OK;
}

/* Positions in and out are required; normals and tangents come in pairs (input and
 * output); then every stream's alignment and stride. */
static ossa_result check_streams(const ossa_skin_job *job, ossa_diagnostic *diag) {
    if (!job->positions) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "positions", "required");
    if (!job->out_positions) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "out_positions", "required");
    if (job->normals && !job->out_normals)
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "out_normals", "required when normals is given");
    if (!job->normals && job->out_normals)
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "normals",
                              "the mesh's normals are required when out_normals is given");
    if (job->tangents && !job->out_tangents)
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "out_tangents", "required when tangents is given");
    if (!job->tangents && job->out_tangents)
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "tangents",
                              "the mesh's tangents are required when out_tangents is given");
    const skin_stream streams[] = {
        {"positions", "positions_stride", job->positions, job->positions_stride, 12},
        {"normals", "normals_stride", job->normals, job->normals_stride, 12},
        {"tangents", "tangents_stride", job->tangents, job->tangents_stride, 16},
        {"out_positions", "out_positions_stride", job->out_positions, job->out_positions_stride, 12},
        {"out_normals", "out_normals_stride", job->out_normals, job->out_normals_stride, 12},
        {"out_tangents", "out_tangents_stride", job->out_tangents, job->out_tangents_stride, 16},
    };
    for (size_t i = 0; i < sizeof streams / sizeof streams[0]; i++) {
        ossa_result r = check_stream(&streams[i], diag);
        if (r != OSSA_OK) return r;
    }
    return OSSA_OK;
}

ossa_result ossa_skin_job_validate(const ossa_skin_job *job, ossa_diagnostic *diag) {
    if (!job) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "job", "NULL");
    ossa_result r = check_parameters(job, diag);
    if (r == OSSA_OK) r = check_influences(job, diag);
    if (r == OSSA_OK) r = check_streams(job, diag);
    if (r != OSSA_OK) return r;
    if (job->end > job->vertex_count)
        return ossa__job_fail(diag, OSSA_ERROR_BUFFER_TOO_SMALL, "vertex_count",
                              "%u vertices in the streams, the range needs end = %u", job->vertex_count, job->end);
    return OSSA_OK;
}

/* The kernel that runs: AUTO resolved to the best available (scalar for DQS when the best
 * is SSE: there is no SSE DQS kernel). The job is validated, so an explicit one is usable. */
static ossa_skin_kernel resolve_kernel(const ossa_skin_job *job) {
    ossa_skin_kernel k = job->kernel;
    if (k != OSSA_SKIN_KERNEL_AUTO) return k;
    k = ossa_skin_kernel_best();
    if (job->method == OSSA_SKIN_DQS && k == OSSA_SKIN_KERNEL_SSE) k = OSSA_SKIN_KERNEL_SCALAR;
    return k;
}

ossa_result ossa_skin_job_run(ossa_skin_job *job) {
    ossa_result r = ossa_skin_job_validate(job, NULL);
    if (r == OSSA_OK) r = ossa__skin_check_joints(job);
    if (r != OSSA_OK) return r;
    if (job->begin == job->end) return OSSA_OK;
    const ossa_skin_kernel kernel = resolve_kernel(job);
    const ossa_skin_job resolved = ossa__skin_job_resolve(job);
    if (job->method == OSSA_SKIN_DQS) {
#if !defined(OSSA_SCALAR_ONLY)
        if (kernel == OSSA_SKIN_KERNEL_AVX512) ossa__skin_dqs_avx512(&resolved, resolved.dual_quats);
        else if (kernel == OSSA_SKIN_KERNEL_AVX2) ossa__skin_dqs_avx2(&resolved, resolved.dual_quats);
        else
#endif
            ossa__skin_dqs_scalar(&resolved, resolved.dual_quats);
        return OSSA_OK;
    }
    /* a scalar-only build has no other kernel, and ossa__simd() is scalar there */
    static const ossa__skin_kernel_fn lbs[] = {
        [OSSA_SKIN_KERNEL_SCALAR] = ossa__skin_lbs_scalar,
#if !defined(OSSA_SCALAR_ONLY)
        [OSSA_SKIN_KERNEL_SSE] = ossa__skin_lbs_sse,
        [OSSA_SKIN_KERNEL_AVX2] = ossa__skin_lbs_avx2,
        [OSSA_SKIN_KERNEL_AVX512] = ossa__skin_lbs_avx512,
#endif
    };
    lbs[kernel](&resolved);
    return OSSA_OK;
}
