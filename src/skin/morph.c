/* Morph targets: out = base + Σ wᵢ·deltaᵢ over a vertex range, in cache-sized blocks. */
#include <ossa/skin.h>

#include <string.h>

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

ossa_result ossa_morph_apply(const ossa_mesh *mesh, const float *weights, uint32_t begin, uint32_t end,
                             float *out_positions, float *out_normals) {
    if (!mesh || !out_positions || begin > end || end > mesh->vertex_count) return OSSA_ERROR_INVALID_ARGUMENT;
    if (begin == end) return OSSA_OK;
    if (!mesh->positions) return OSSA_ERROR_INVALID_ARGUMENT;
    if (mesh->target_count && (!weights || !mesh->targets)) return OSSA_ERROR_INVALID_ARGUMENT;
    const bool normals = mesh->normals && out_normals;
    for (uint32_t b = begin; b < end; b += MORPH_BLOCK) {
        uint32_t e = end - b > MORPH_BLOCK ? b + MORPH_BLOCK : end;
        size_t first = (size_t)b * 3, count = (size_t)(e - b) * 3;
        blend(mesh->positions, mesh->targets, false, mesh->target_count, weights,
              first, count, out_positions);
        if (normals)
            blend(mesh->normals, mesh->targets, true, mesh->target_count, weights,
                  first, count, out_normals);
    }
    return OSSA_OK;
}
