/* 04_crossfade: a player (the seed's Animator) plays "swing", then cross-fades to "lift"
 * over half a second; every tick prints the fade weight, the tip position and the palette
 * entry of the skin's last joint.
 *   example_04_crossfade [model.gltf|.glb]   (a file with two or more clips and a skin) */
#include <ossa/ossa.h>

#include <stdio.h>
#include <stdlib.h>

static void tick_loop(const ossa_skeleton *sk, const ossa_clip *a, const ossa_clip *b) {
    ossa_player *player = NULL;
    if (ossa_player_create(sk, NULL, &player) != OSSA_OK) return;
    ossa_mat4 *model = malloc(sizeof *model * sk->joint_count);
    ossa_mat4 *palette = malloc(sizeof *palette * sk->joint_count);
    ossa_player_play(player, ossa_source_editable(a), 1.0f, true);
    const float dt = 1.0f / 10;
    for (int i = 0; i <= 20; i++) {
        if (i == 8) /* allocation happens here, not in update */
            ossa_player_crossfade(player, ossa_source_editable(b), 0.5f, 1.0f, true);
        if (i > 0) ossa_player_update(player, dt);
        ossa_player_model(player, model, sk->joint_count);
        const ossa_mat4 *tip = &model[sk->joint_count - 1];
        printf("tick %2d  clip %-6s t=%.2f  fade %.2f  tip (%6.3f %6.3f %6.3f)", i, ossa_player_layer_source(player, 0).clip->name,
               (double)ossa_player_time(player), (double)ossa_player_fade_weight(player), (double)tip->m[12],
               (double)tip->m[13], (double)tip->m[14]);
        if (sk->skin_count && ossa_player_palette(player, 0, palette, sk->joint_count) == OSSA_OK) {
            uint32_t j = sk->skins[0].joints[sk->skins[0].joint_count - 1];
            printf("  palette[%u] t (%6.3f %6.3f %6.3f)", j, (double)palette[j].m[12], (double)palette[j].m[13],
                   (double)palette[j].m[14]);
        }
        printf("\n");
    }
    free(model);
    free(palette);
    ossa_player_destroy(player);
}

static ossa_clip *rotation_clip(const char *name, uint32_t joint, const float *rotations) {
    static const float times[3] = {0, 0.5f, 1};
    ossa_transform_track track = {0};
    track.joint = joint;
    track.rotation = (ossa_track){OSSA_TRACK_ROTATION, OSSA_INTERP_LINEAR, 4, 3, times, rotations, {0, 0, 0, NULL}};
    ossa_clip_desc cd = {0};
    cd.name = name;
    cd.looping = true;
    cd.track_count = 1;
    cd.tracks = &track;
    ossa_clip *clip = NULL;
    ossa_clip_create(&cd, NULL, &clip);
    return clip;
}

int main(int argc, char **argv) {
    if (argc > 1) {
        ossa_asset *asset = NULL;
        ossa_diagnostic diag = {{0}, {0}};
        if (ossa_gltf_load_file(argv[1], NULL, &asset, &diag) != OSSA_OK || asset->clip_count < 2) {
            fprintf(stderr, "%s: need a loadable file with two clips (%s)\n", argv[1], diag.message);
            ossa_asset_destroy(asset);
            return 1;
        }
        tick_loop(asset->skeleton, asset->clips[0], asset->clips[1]);
        ossa_asset_destroy(asset);
        return 0;
    }
    /* Built in: a three-joint chain along y, skinned by all three joints (IBM = inverse rest world). */
    int32_t parents[3] = {-1, 0, 1};
    ossa_transform rest[3] = {ossa_transform_identity(), ossa_transform_identity(), ossa_transform_identity()};
    rest[1].translation = rest[2].translation = ossa_vec3_make(0, 1, 0);
    const char *names[3] = {"root", "mid", "tip"};
    ossa_mat4 ibm[3];
    for (int j = 0; j < 3; j++) {
        ossa_mat4 world = ossa_transform_to_mat4((ossa_transform){{0, (float)j, 0}, {0, 0, 0, 1}, {1, 1, 1}});
        ossa_mat4_inverse_affine(&world, &ibm[j]);
    }
    const uint32_t joints[3] = {0, 1, 2};
    ossa_skin_desc skin = {"arm", 3, joints, ibm, 0};
    ossa_skeleton_desc sd = {3, parents, rest, names, 1, &skin, 0.0f};
    ossa_skeleton *sk = NULL;
    if (ossa_skeleton_create(&sd, NULL, &sk) != OSSA_OK) return 1;
    static const float swing[12] = {0, 0, 0, 1, 0, 0, 0.38268343f, 0.92387953f, 0, 0, 0, 1};  /* about z */
    static const float lift[12] = {0, 0, 0, 1, 0.38268343f, 0, 0, 0.92387953f, 0, 0, 0, 1};   /* about x */
    ossa_clip *a = rotation_clip("swing", 0, swing), *b = rotation_clip("lift", 1, lift);
    if (a && b) tick_loop(sk, a, b);
    ossa_clip_destroy(a);
    ossa_clip_destroy(b);
    ossa_skeleton_destroy(sk);
    return 0;
}
