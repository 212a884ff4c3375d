/* 06_additive_layer: an additive layer over a base clip. Punch is turned into a delta clip
 * against its own first frame (ossa_clip_make_additive) and played on an ADDITIVE layer at
 * weight 0.6 over Walking: the walk keeps its legs and the punch's motion is added on top.
 *   example_06_additive_layer [Woman.gltf]   (a file with "Walking" and "Punch" clips) */
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
    int32_t walk = ossa_asset_find_clip(asset, "Walking"), punch = ossa_asset_find_clip(asset, "Punch");
    int32_t hand = ossa_skeleton_find_joint(sk, "RightHand");
    ossa_clip *punch_delta = NULL;
    ossa_player *player = NULL;
    if (walk < 0 || punch < 0 || hand < 0 ||
        ossa_clip_make_additive(asset->clips[punch], sk, NULL, NULL, &punch_delta) != OSSA_OK ||
        ossa_player_create(sk, NULL, &player) != OSSA_OK) {
        fprintf(stderr, "%s: needs Walking and Punch clips and a RightHand joint\n", path);
        ossa_clip_destroy(punch_delta);
        ossa_asset_destroy(asset);
        return 1;
    }
    uint32_t add;
    ossa_player_add_layer(player, OSSA_PLAYER_LAYER_ADDITIVE, &add);
    ossa_player_play(player, ossa_source_editable(asset->clips[walk]), 1.0f, true);
    ossa_player_layer_play(player, add, ossa_source_editable(punch_delta), 1.0f, true);
    ossa_mat4 *model = malloc(sizeof *model * sk->joint_count);
    for (int tick = 0; tick <= 30; tick++) {
        /* Every other tick without the additive layer, to show what it adds. */
        for (int on = 0; on < 2; on++) {
            ossa_player_layer_set_weight(player, add, on ? 0.6f : 0.0f);
            ossa_player_update(player, on ? 1.0f / 30.0f : 0.0f);
            ossa_player_model(player, model, sk->joint_count);
            if (tick % 5 == 0)
                printf("%s t=%.2f  right hand (%7.3f %7.3f %7.3f)%s", on ? "  with punch" : "walk",
                       (double)ossa_player_time(player), (double)model[hand].m[12], (double)model[hand].m[13],
                       (double)model[hand].m[14], on ? "\n" : "");
        }
    }
    free(model);
    ossa_player_destroy(player);
    ossa_clip_destroy(punch_delta);
    ossa_asset_destroy(asset);
    return 0;
}
