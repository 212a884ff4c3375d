/* 05_blend_walk_run: walk and run blended by speed (a 1-D blend space). Two player layers
 * play Walking (1.2 s) and Running (0.7 s) in one sync group, so their feet stay in step while
 * the cycle duration moves between the two; the weights come from ossa_blend_space_1d. The clips
 * are built first (ossa_clip_build: compressed within 0.1 mm), the form a game plays.
 *   example_05_blend_walk_run [Woman.gltf]   (a file with "Walking" and "Running" clips) */
#include <ossa/ossa.h>

#include <stdio.h>

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "../shared/assets/Woman/Woman.gltf";
    ossa_asset *asset = NULL;
    if (ossa_gltf_load_file(path, NULL, &asset, NULL) != OSSA_OK) {
        fprintf(stderr, "cannot load %s\n", path);
        return 1;
    }
    int32_t walk = ossa_asset_find_clip(asset, "Walking"), run = ossa_asset_find_clip(asset, "Running");
    ossa_built_clip *walk_built = NULL, *run_built = NULL;
    ossa_player *player = NULL;
    if (walk < 0 || run < 0 ||
        ossa_clip_build(asset->clips[walk], asset->skeleton, NULL, NULL, &walk_built, NULL) != OSSA_OK ||
        ossa_clip_build(asset->clips[run], asset->skeleton, NULL, NULL, &run_built, NULL) != OSSA_OK ||
        ossa_player_create(asset->skeleton, NULL, &player) != OSSA_OK) {
        fprintf(stderr, "%s: needs Walking and Running clips\n", path);
        ossa_built_clip_destroy(walk_built);
        ossa_built_clip_destroy(run_built);
        ossa_asset_destroy(asset);
        return 1;
    }
    uint32_t run_layer;
    ossa_player_add_layer(player, OSSA_PLAYER_LAYER_OVERRIDE, &run_layer);
    ossa_player_play(player, ossa_source_built(walk_built), 1.0f, true); /* layer 0 */
    ossa_player_layer_play(player, run_layer, ossa_source_built(run_built), 1.0f, true);
    ossa_player_layer_set_sync(player, 0, 1); /* one sync group: a shared phase */
    ossa_player_layer_set_sync(player, run_layer, 1);

    const float speeds[2] = {1.4f, 4.0f}; /* m/s of the walk and of the run: the blend space axis */
    for (int tick = 0; tick <= 40; tick++) {
        float speed = 1.0f + 3.5f * (float)tick / 40.0f; /* the character speeds up */
        float w[2];
        ossa_blend_space_1d(speeds, 2, speed, w);
        ossa_player_layer_set_weight(player, 0, w[0]);
        ossa_player_layer_set_weight(player, run_layer, w[1]);
        ossa_player_update(player, 1.0f / 30.0f);
        if (tick % 5 == 0)
            printf("speed %.2f m/s  weights walk %.2f run %.2f  times walk %.3f s run %.3f s  phase %.3f\n",
                   (double)speed, (double)w[0], (double)w[1], (double)ossa_player_time(player),
                   (double)ossa_player_layer_time(player, run_layer),
                   (double)(ossa_player_time(player) / ossa_built_clip_duration(walk_built)));
    }
    ossa_player_destroy(player);
    ossa_built_clip_destroy(walk_built);
    ossa_built_clip_destroy(run_built);
    ossa_asset_destroy(asset);
    return 0;
}
