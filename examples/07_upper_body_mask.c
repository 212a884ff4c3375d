/* 07_upper_body_mask: the upper body from one clip, the legs from another. Layer 0 plays
 * Walking with a mask that leaves out Spine's subtree; layer 1 plays Punch masked to Spine's
 * subtree ("upper body from Spine", ossa_blend_mask_from_name). The feet follow the walk, the
 * hands the punch.
 *   example_07_upper_body_mask [Woman.gltf]   (a file with "Walking", "Punch" and a Spine joint) */
#include <ossa/ossa.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "../shared/assets/Woman/Woman.gltf";
    ossa_asset *asset = NULL;
    if (ossa_gltf_load_file(path, NULL, &asset, NULL) != OSSA_OK) {
        fprintf(stderr, "cannot load %s\n", path);
        return 1;
    }
    const ossa_skeleton *sk = asset->skeleton;
    uint32_t n = sk->joint_count;
    int32_t walk = ossa_asset_find_clip(asset, "Walking"), punch = ossa_asset_find_clip(asset, "Punch");
    int32_t foot = ossa_skeleton_find_joint(sk, "LeftFoot"), hand = ossa_skeleton_find_joint(sk, "RightHand");
    float *upper = malloc(sizeof(float) * n), *lower = malloc(sizeof(float) * n);
    ossa_player *player = NULL;
    if (walk < 0 || punch < 0 || foot < 0 || hand < 0 ||
        ossa_blend_mask_from_name(sk, "Spine", 1.0f, 0.0f, upper, n) != OSSA_OK ||
        ossa_player_create(sk, NULL, &player) != OSSA_OK) {
        fprintf(stderr, "%s: needs Walking, Punch and the joints Spine, LeftFoot, RightHand\n", path);
        free(upper), free(lower);
        ossa_asset_destroy(asset);
        return 1;
    }
    for (uint32_t j = 0; j < n; j++) lower[j] = 1.0f - upper[j]; /* the complement: everything else */
    uint32_t top;
    ossa_player_add_layer(player, OSSA_PLAYER_LAYER_OVERRIDE, &top);
    ossa_player_play(player, ossa_source_editable(asset->clips[walk]), 1.0f, true);
    ossa_player_layer_set_mask(player, 0, lower, n);
    ossa_player_layer_play(player, top, ossa_source_editable(asset->clips[punch]), 1.0f, true);
    ossa_player_layer_set_mask(player, top, upper, n);
    ossa_mat4 *model = malloc(sizeof *model * n);
    for (int tick = 0; tick <= 30; tick += 1) {
        ossa_player_update(player, 1.0f / 30.0f);
        ossa_player_model(player, model, n);
        if (tick % 5 == 0)
            printf("t=%.2f  left foot (walk) (%7.3f %7.3f %7.3f)  right hand (punch) (%7.3f %7.3f %7.3f)\n",
                   (double)ossa_player_time(player), (double)model[foot].m[12], (double)model[foot].m[13],
                   (double)model[foot].m[14], (double)model[hand].m[12], (double)model[hand].m[13],
                   (double)model[hand].m[14]);
    }
    free(model);
    free(upper);
    free(lower);
    ossa_player_destroy(player);
    ossa_asset_destroy(asset);
    return 0;
}
