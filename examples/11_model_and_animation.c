/* 11_model_and_animation: load a model of any format and its animation stored in a
 * separate file (the LearnOpenGL Model + Animation(path, model) pattern), bound to the
 * model's skeleton by joint name; print where the first animated joint is halfway
 * through the first clip.
 *   example_11_model_and_animation character.fbx walk.fbx
 *   example_11_model_and_animation Woman.gltf Woman.gltf   (any pair: .gltf/.glb, .fbx, .dae, ...)
 * Links ossa_import: with ossa_assimp (libassimp-dev) every format Assimp reads loads; without
 * it glTF and .ossa do, and other formats fail with UNSUPPORTED naming the build option. */
#include <ossa/import.h>
#include <ossa/ossa.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s MODEL ANIMATION\n", argv[0]);
        return 2;
    }
    ossa_asset *model = NULL, *anim = NULL;
    ossa_diagnostic diag;
    /* AUTO: .ossa through the packed loader, .gltf/.glb through the glTF importer, everything
     * else through Assimp */
    ossa_result r = ossa_import_file(argv[1], OSSA_IMPORTER_AUTO, NULL, &model, &diag);
    if (r != OSSA_OK || !model->skeleton) {
        fprintf(stderr, "%s: %s %s\n", argv[1], ossa_result_string(r), r ? diag.message : "has no nodes");
        ossa_asset_destroy(model);
        return 1;
    }
    r = ossa_import_clips(argv[2], OSSA_IMPORTER_AUTO, model->skeleton, NULL, &anim, &diag);
    if (r != OSSA_OK) {
        fprintf(stderr, "%s: %s %s\n", argv[2], ossa_result_string(r), diag.message);
        ossa_asset_destroy(model);
        return 1;
    }
    for (uint32_t i = 0; i < anim->warning_count; i++) printf("warning: %s\n", anim->warnings[i]); /* unmatched names */
    if (!anim->clip_count || !anim->clips[0]->track_count) {
        printf("%s: no clip binds to this skeleton\n", argv[2]);
        ossa_asset_destroy(anim);
        ossa_asset_destroy(model);
        return 0;
    }
    const ossa_skeleton *sk = model->skeleton;
    const ossa_clip *clip = anim->clips[0];
    uint32_t n = sk->joint_count;
    ossa_transform *pose = malloc(sizeof *pose * n);
    ossa_mat4 *world = malloc(sizeof *world * n);
    if (!pose || !world) return 1;
    float t = 0.5f * (clip->start + clip->end);
    ossa_clip_sample_job sample = {.clip = clip, .time = t, .reference = sk->rest, .reference_count = n,
                                   .output = pose, .output_count = n};
    ossa_local_to_model_job l2m = {.skeleton = sk, .input = pose, .input_count = n, .output = world, .output_count = n};
    if (ossa_clip_sample_job_run(&sample) || ossa_local_to_model_job_run(&l2m)) return 1;
    uint32_t j = clip->tracks[0].joint;
    printf("clip \"%s\" (%.3f s) at t = %.3f s: joint \"%s\" at (%.4f, %.4f, %.4f)\n", clip->name,
           (double)ossa_clip_duration(clip), (double)t, sk->names[j], (double)world[j].m[12], (double)world[j].m[13],
           (double)world[j].m[14]);
    free(pose);
    free(world);
    ossa_asset_destroy(anim);
    ossa_asset_destroy(model);
    return 0;
}
