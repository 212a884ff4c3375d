/* 02_load_gltf: load a glTF 2.0 file (.gltf or .glb), report what the loader
 * found (or the diagnostic naming the broken place), and skin its first skinned
 * mesh with the first clip at the clip's midpoint.
 *   example_02_load_gltf model.gltf|model.glb
 * Pipeline: file → ossa_asset (skeleton, skins, meshes, clips) → sample → model
 * matrices → skeleton-indexed palette → CPU skinning. */
#include <ossa/ossa.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s model.gltf|model.glb\n", argv[0]);
        return 2;
    }
    ossa_asset *asset = NULL;
    ossa_diagnostic diag;
    ossa_result r = ossa_gltf_load_file(argv[1], NULL, &asset, &diag);
    if (r != OSSA_OK) {
        /* e.g. "accessors[3]: count 120 exceeds bufferView 1" at /accessors/3 */
        fprintf(stderr, "%s: %s\n  %s (at %s)\n", argv[1], ossa_result_string(r), diag.message, diag.path);
        return 1;
    }
    const ossa_skeleton *sk = asset->skeleton;
    printf("%u nodes, %u skins, %u meshes, %u clips, %u warnings\n", asset->node_count, sk ? sk->skin_count : 0,
           asset->mesh_count, asset->clip_count, asset->warning_count);
    for (uint32_t i = 0; i < asset->warning_count; i++) printf("  warning: %s\n", asset->warnings[i]);
    for (uint32_t i = 0; i < asset->clip_count; i++)
        printf("  clip %u \"%s\": %.3f .. %.3f s\n", i, asset->clips[i]->name, (double)asset->clips[i]->start,
               (double)asset->clips[i]->end);

    const ossa_mesh *mesh = NULL;
    for (uint32_t i = 0; i < asset->mesh_count && !mesh; i++)
        if (asset->meshes[i]->skin >= 0 && asset->meshes[i]->influences) mesh = asset->meshes[i];
    if (!mesh || !sk) {
        ossa_asset_destroy(asset);
        return 0;
    }
    uint32_t n = sk->joint_count;
    ossa_transform *pose = malloc(sizeof *pose * n);
    ossa_mat4 *model = malloc(sizeof *model * n), *palette = malloc(sizeof *palette * n);
    float *out = malloc(sizeof(float) * 3 * mesh->vertex_count);
    if (!pose || !model || !palette || !out) return 1;
    const ossa_clip *clip = asset->clip_count ? asset->clips[0] : NULL;
    float t = clip ? 0.5f * (clip->start + clip->end) : 0.0f;
    ossa_clip_sample_job sample = {.clip = clip, .time = t, .reference = sk->rest, .reference_count = n,
                                   .output = pose, .output_count = n};
    if (clip) ossa_clip_sample_job_run(&sample);
    else for (uint32_t j = 0; j < n; j++) pose[j] = sk->rest[j];
    ossa_local_to_model_job to_model = {.skeleton = sk, .input = pose, .input_count = n, .output = model,
                                        .output_count = n};
    ossa_local_to_model_job_run(&to_model);
    /* skeleton-indexed palette for the mesh's skin: model[joint] * inverse bind, identity elsewhere */
    ossa_palette_job to_palette = {.skeleton = sk, .skin = (uint32_t)mesh->skin, .model = model, .model_count = n,
                                   .output = palette, .output_count = n};
    ossa_palette_job_run(&to_palette);
    ossa_skin_job job = {0};
    job.end = mesh->vertex_count;
    job.vertex_count = mesh->vertex_count;
    job.influences = mesh->influences;
    job.joints = mesh->joints;
    job.weights = mesh->weights;
    job.palette = palette;
    job.palette_count = n;
    job.positions = mesh->positions;
    job.out_positions = out;
    r = ossa_skin_job_run(&job); /* LBS (method 0) with the best kernel (AUTO, 0) */
    printf("skinned mesh \"%s\" (%u vertices) at t = %.3f: %s\n", mesh->name, mesh->vertex_count, (double)t,
           ossa_result_string(r));
    if (r == OSSA_OK && mesh->vertex_count)
        printf("  vertex 0: (%.4f %.4f %.4f) -> (%.4f %.4f %.4f)\n", (double)mesh->positions[0],
               (double)mesh->positions[1], (double)mesh->positions[2], (double)out[0], (double)out[1], (double)out[2]);
    free(pose);
    free(model);
    free(palette);
    free(out);
    ossa_asset_destroy(asset);
    return r == OSSA_OK ? 0 : 1;
}
