/* The install check's runtime consumer: links the runtime library ossa ALONE (no importer,
 * builder or writer) and does what a game shipping .ossa files does: loads a packed file,
 * samples its first built clip with the sampling job, builds the skin palette and skins the
 * first skinned mesh on the CPU. It checks the kernel against LBS computed here by hand
 * (sum of weight * palette[joint] * position, with the library's matrix-point product) and
 * prints the skinned vertices' centroid, which scripts/check_install.sh compares with
 * `ossa sample` of the same file and time.
 *   runtime_consumer FILE.ossa TIME
 * Exit 0 when every step succeeds and the kernel agrees, 1 otherwise, 2 on usage. */
#include <ossa/ossa.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int fail(const char *what, ossa_result r) {
    fprintf(stderr, "runtime_consumer: %s: %s\n", what, ossa_result_string(r));
    return 1;
}

/* Largest distance between the kernel's positions and the by-hand LBS of the same mesh. */
static float by_hand_error(const ossa_mesh *mesh, const ossa_mat4 *palette, const float *skinned) {
    float worst = 0.0f;
    for (uint32_t v = 0; v < mesh->vertex_count; v++) {
        const float *p = mesh->positions + 3 * v;
        ossa_vec3 sum = {0, 0, 0};
        for (uint32_t k = 0; k < mesh->influences; k++) {
            float w = mesh->weights[v * mesh->influences + k];
            ossa_vec3 q = ossa_mat4_transform_point(&palette[mesh->joints[v * mesh->influences + k]],
                                                    ossa_vec3_make(p[0], p[1], p[2]));
            sum.x += w * q.x, sum.y += w * q.y, sum.z += w * q.z;
        }
        const float *s = skinned + 3 * v;
        float d = sqrtf((s[0] - sum.x) * (s[0] - sum.x) + (s[1] - sum.y) * (s[1] - sum.y) +
                        (s[2] - sum.z) * (s[2] - sum.z));
        if (!(d <= worst)) worst = d; /* NaN propagates as a failure */
    }
    return worst;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: runtime_consumer FILE.ossa TIME\n");
        return 2;
    }
    float time = strtof(argv[2], NULL);
    ossa_asset *asset = NULL;
    ossa_diagnostic diag;
    ossa_result r = ossa_pack_load_file(argv[1], NULL, &asset, &diag);
    if (r != OSSA_OK) {
        fprintf(stderr, "runtime_consumer: %s: %s\n", argv[1], diag.message);
        return 1;
    }
    const ossa_mesh *mesh = NULL;
    for (uint32_t i = 0; i < asset->mesh_count && !mesh; i++)
        if (asset->meshes[i]->skin >= 0 && asset->meshes[i]->influences) mesh = asset->meshes[i];
    if (!asset->skeleton || !asset->built_clip_count || !mesh) {
        fprintf(stderr, "runtime_consumer: %s needs a skeleton, a built clip and a skinned mesh\n", argv[1]);
        ossa_asset_destroy(asset);
        return 1;
    }
    const ossa_skeleton *skeleton = asset->skeleton;
    const ossa_built_clip *clip = asset->built_clips[0];
    uint32_t n = skeleton->joint_count;
    ossa_transform *locals = malloc(n * sizeof *locals);
    ossa_mat4 *model = malloc(n * sizeof *model), *palette = malloc(n * sizeof *palette);
    float *weights = malloc((ossa_built_clip_weight_count(clip) + 1) * sizeof *weights);
    float *skinned = malloc((size_t)mesh->vertex_count * 3 * sizeof *skinned);
    ossa_sampling_context *context = NULL;
    int status = 1;
    if (!locals || !model || !palette || !weights || !skinned) {
        fprintf(stderr, "runtime_consumer: out of memory\n");
        goto done;
    }
    r = ossa_sampling_context_create(n, ossa_built_clip_weight_count(clip), NULL, &context);
    if (r != OSSA_OK) {
        status = fail("sampling context", r);
        goto done;
    }
    ossa_sample_job sample = {.clip = clip, .context = context, .time = time, .output = locals, .output_count = n,
                              .weights = weights, .weights_count = ossa_built_clip_weight_count(clip),
                              .reference = skeleton->rest, .reference_count = n};
    if ((r = ossa_sample_job_run(&sample)) != OSSA_OK) {
        status = fail("sample job", r);
        goto done;
    }
    ossa_local_to_model_job to_model = {.skeleton = skeleton, .input = locals, .input_count = n, .output = model,
                                        .output_count = n};
    ossa_palette_job to_palette = {.skeleton = skeleton, .skin = (uint32_t)mesh->skin, .model = model,
                                   .model_count = n, .output = palette, .output_count = n};
    if ((r = ossa_local_to_model_job_run(&to_model)) != OSSA_OK || (r = ossa_palette_job_run(&to_palette)) != OSSA_OK) {
        status = fail("local-to-model / palette job", r);
        goto done;
    }
    ossa_skin_job skin = {.begin = 0, .end = mesh->vertex_count, .vertex_count = mesh->vertex_count,
                          .influences = mesh->influences, .joints = mesh->joints, .weights = mesh->weights,
                          .palette = palette, .palette_count = n, .positions = mesh->positions,
                          .out_positions = skinned};
    if ((r = ossa_skin_job_run(&skin)) != OSSA_OK) { /* LBS, best kernel (method and kernel 0) */
        status = fail("skinning", r);
        goto done;
    }
    float error = by_hand_error(mesh, palette, skinned);
    double c[3] = {0, 0, 0};
    for (uint32_t v = 0; v < mesh->vertex_count; v++)
        for (int k = 0; k < 3; k++) c[k] += skinned[3 * v + k];
    for (int k = 0; k < 3; k++) c[k] /= mesh->vertex_count;
    printf("clip '%s' at %.4f s: %u joints, %u vertices skinned, kernel vs by-hand LBS %.3g\n",
           ossa_built_clip_name(clip), (double)sample.sampled_time, n, mesh->vertex_count, (double)error);
    printf("centroid %.6f %.6f %.6f\n", c[0], c[1], c[2]);
    if (!(error <= 1e-4f)) fprintf(stderr, "runtime_consumer: the kernel differs from LBS by hand by %g\n", (double)error);
    else status = 0;
done:
    ossa_sampling_context_destroy(context);
    free(locals), free(model), free(palette), free(weights), free(skinned);
    ossa_asset_destroy(asset);
    return status;
}
