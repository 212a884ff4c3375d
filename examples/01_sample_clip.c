/* 01_sample_clip: load (or build) a skeleton and a clip, sample it at a few times and
 * print each joint's local translation and model-space position.
 *   example_01_sample_clip [model.gltf|.glb [clip name or index]]
 * Without a file, a shoulder-elbow-hand arm that bends its elbow by 90 degrees is built in code. */
#include <ossa/ossa.h>

#include <stdio.h>
#include <stdlib.h>

static int run(const ossa_skeleton *skeleton, const ossa_clip *clip) {
    uint32_t n = skeleton->joint_count;
    ossa_transform *pose = malloc(sizeof *pose * (n ? n : 1));
    ossa_mat4 *model = malloc(sizeof *model * (n ? n : 1));
    if (!pose || !model) return 1;
    printf("clip \"%s\": %.3f .. %.3f s, %u tracks\n", clip->name, (double)clip->start, (double)clip->end,
           clip->track_count);
    for (int i = 0; i <= 4; i++) {
        float t = clip->start + (clip->end - clip->start) * (float)i / 4;
        /* runtime data -> sample -> local pose -> model space */
        ossa_clip_sample_job sample = {.clip = clip, .time = t, .reference = skeleton->rest, .reference_count = n,
                                       .output = pose, .output_count = n};
        ossa_local_to_model_job to_model = {.skeleton = skeleton, .input = pose, .input_count = n, .output = model,
                                            .output_count = n};
        if (ossa_clip_sample_job_run(&sample) != OSSA_OK || ossa_local_to_model_job_run(&to_model) != OSSA_OK) return 1;
        printf("t = %.3f\n", (double)t);
        for (uint32_t j = 0; j < n && j < 8; j++)
            printf("  %-12s local T (%6.3f %6.3f %6.3f)  model position (%6.3f %6.3f %6.3f)\n", skeleton->names[j],
                   (double)pose[j].translation.x, (double)pose[j].translation.y, (double)pose[j].translation.z,
                   (double)model[j].m[12], (double)model[j].m[13], (double)model[j].m[14]);
    }
    free(pose);
    free(model);
    return 0;
}

int main(int argc, char **argv) {
    if (argc > 1) {
        ossa_asset *asset = NULL;
        ossa_diagnostic diag = {{0}, {0}};
        ossa_result r = ossa_gltf_load_file(argv[1], NULL, &asset, &diag);
        if (r != OSSA_OK) {
            fprintf(stderr, "%s: %s %s\n", argv[1], ossa_result_string(r), diag.message);
            return 1;
        }
        int32_t c = asset->clip_count ? 0 : -1;
        if (argc > 2) c = ossa_asset_find_clip(asset, argv[2]) >= 0 ? ossa_asset_find_clip(asset, argv[2]) : atoi(argv[2]);
        int rc = (c >= 0 && (uint32_t)c < asset->clip_count) ? run(asset->skeleton, asset->clips[c]) : 1;
        if (rc) fprintf(stderr, "no such clip\n");
        ossa_asset_destroy(asset);
        return rc;
    }
    /* Built in: shoulder at the origin, elbow and hand 1 unit apart along y; the elbow turns
     * 0 -> 90 degrees about z, so the hand moves from (0,2,0) to (-1,1,0). */
    int32_t parents[3] = {-1, 0, 1};
    ossa_transform rest[3] = {ossa_transform_identity(), ossa_transform_identity(), ossa_transform_identity()};
    rest[1].translation = rest[2].translation = ossa_vec3_make(0, 1, 0);
    const char *names[3] = {"shoulder", "elbow", "hand"};
    ossa_skeleton_desc sd = {3, parents, rest, names, 0, NULL, 0.0f};
    ossa_skeleton *skeleton = NULL;
    if (ossa_skeleton_create(&sd, NULL, &skeleton) != OSSA_OK) return 1;
    static const float times[2] = {0, 1};
    static const float rotations[8] = {0, 0, 0, 1, 0, 0, 0.70710678f, 0.70710678f};
    ossa_transform_track track = {0};
    track.joint = 1;
    track.rotation = (ossa_track){OSSA_TRACK_ROTATION, OSSA_INTERP_LINEAR, 4, 2, times, rotations, {0, 0, 0, NULL}};
    ossa_clip_desc cd = {0};
    cd.name = "bend";
    cd.track_count = 1;
    cd.tracks = &track;
    ossa_clip *clip = NULL;
    if (ossa_clip_create(&cd, NULL, &clip) != OSSA_OK) return 1;
    int rc = run(skeleton, clip);
    ossa_clip_destroy(clip);
    ossa_skeleton_destroy(skeleton);
    return rc;
}
