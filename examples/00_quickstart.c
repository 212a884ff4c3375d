/* The README's 20-line tour: load a glTF, build its first clip (compressed, 0.1 mm bound), play it,
 * skin its first mesh. */
#include <ossa/ossa.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    ossa_asset *asset; ossa_diagnostic diag;
    if (argc < 2 || ossa_gltf_load_file(argv[1], NULL, &asset, &diag) != OSSA_OK)
        return fprintf(stderr, "usage: quickstart FILE.gltf (%s)\n", argc < 2 ? "no file" : diag.message), 1;
    const ossa_skeleton *skel = asset->skeleton;
    ossa_player *player; ossa_player_create(skel, NULL, &player);
    ossa_built_clip *clip = NULL;                             /* editable -> built, error <= 1e-4 */
    if (asset->clip_count) ossa_clip_build(asset->clips[0], skel, NULL, NULL, &clip, NULL);
    if (clip) ossa_player_play(player, ossa_source_built(clip), 1.0f, true);
    ossa_player_update(player, 0.25f);                        /* advance 0.25 s */
    const ossa_mesh *mesh = asset->mesh_count ? asset->meshes[0] : NULL;
    if (mesh && mesh->skin >= 0) {
        ossa_mat4 *palette = malloc(skel->joint_count * sizeof *palette);
        float *out = malloc((size_t)mesh->vertex_count * 3 * sizeof *out);
        ossa_player_palette(player, (uint32_t)mesh->skin, palette, skel->joint_count);
        ossa_skin_job job = {.end = mesh->vertex_count, .vertex_count = mesh->vertex_count, .influences = mesh->influences, .joints = mesh->joints,
            .weights = mesh->weights, .palette = palette, .palette_count = skel->joint_count,
            .positions = mesh->positions, .out_positions = out};
        if (ossa_skin_job_run(&job) == OSSA_OK) /* LBS, best SIMD kernel on this CPU */
            printf("vertex 0 at t=%.2f s: %g %g %g\n", ossa_player_time(player), out[0], out[1], out[2]);
        free(palette); free(out);
    }
    ossa_player_destroy(player); ossa_built_clip_destroy(clip); ossa_asset_destroy(asset);
    return 0;
}
