/* Morph targets: out = base + Σ wᵢ·deltaᵢ over a vertex range, in cache-sized blocks. */
#include <ossa/skin.h>

#include <string.h>

#include "core/job.h"

#define MORPH_BLOCK 1024u /* vertices per block: 12 KiB of output stays in L1 */

static void blend(const float *base, const ossa_morph_target *targets, bool normals, uint32_t target_count,
                  const float *weights, size_t first, size_t count, float *out) {
    float *o = out + first;
    memcpy(o, base + first, count * sizeof(float));
    for (uint32_t t = 0; t < target_count; t++) {
        const float *d = normals ? targets[t].normals : targets[t].positions;
        const float w = weights[t];
        if (!d || w == 0.0f) continue;
        d += first;
        for (size_t i = 0; i < count; i++) o[i] += w * d[i];
    }
}

/* The mesh the job reads: positions, targets when it has any, and normals when the
 * job writes them. */
static ossa_result check_mesh(const ossa_morph_job *job, ossa_diagnostic *diag) {
    const ossa_mesh *m = job->mesh;
    if (!m) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "mesh", "required");
    if (!m->positions && m->vertex_count)
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "mesh.positions", "NULL for %u vertices",
                              m->vertex_count);
    if (m->target_count && !m->targets)
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "mesh.targets", "NULL for target_count %u",
                              m->target_count);
    if (job->out_normals && !m->normals)
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "out_normals",
                              "given, but the mesh has no normals to morph");
    return OSSA_OK;
}

ossa_result ossa_morph_job_validate(const ossa_morph_job *job, ossa_diagnostic *diag) {
    if (!job) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "job", "NULL");
    ossa_result r = check_mesh(job, diag);
    if (r != OSSA_OK) return r;
    const uint32_t targets = job->mesh->target_count, vertices = job->mesh->vertex_count;
    if (targets && !job->weights)
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "weights", "required: the mesh has %u targets",
                              targets);
    if (job->weight_count < targets)
        return ossa__job_fail(diag, OSSA_ERROR_BUFFER_TOO_SMALL, "weights", "%u weights for %u targets",
                              job->weight_count, targets);
    if (job->begin > job->end)
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "begin", "%u is past end %u", job->begin, job->end);
    if (job->end > vertices)
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "end", "%u is past the mesh's %u vertices", job->end,
                              vertices);
    if (!job->out_positions) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "out_positions", "required");
    if (job->out_positions_count < job->end)
        return ossa__job_fail(diag, OSSA_ERROR_BUFFER_TOO_SMALL, "out_positions", "%u vertices, the range needs %u",
                              job->out_positions_count, job->end);
    if (job->out_normals && job->out_normals_count < job->end)
        return ossa__job_fail(diag, OSSA_ERROR_BUFFER_TOO_SMALL, "out_normals", "%u vertices, the range needs %u",
                              job->out_normals_count, job->end);
    return OSSA_OK;
}

ossa_result ossa_morph_job_run(ossa_morph_job *job) {
    ossa_result r = ossa_morph_job_validate(job, NULL);
    if (r != OSSA_OK) return r;
    const ossa_mesh *mesh = job->mesh;
    for (uint32_t b = job->begin; b < job->end; b += MORPH_BLOCK) {
        uint32_t e = job->end - b > MORPH_BLOCK ? b + MORPH_BLOCK : job->end;
        size_t first = (size_t)b * 3, count = (size_t)(e - b) * 3;
        blend(mesh->positions, mesh->targets, false, mesh->target_count, job->weights, first, count,
              job->out_positions);
        if (job->out_normals)
            blend(mesh->normals, mesh->targets, true, mesh->target_count, job->weights, first, count,
                  job->out_normals);
    }
    return OSSA_OK;
}
