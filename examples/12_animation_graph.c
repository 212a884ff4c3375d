/* 12_animation_graph: a locomotion graph (idle / walk / run by speed, a punch on the upper body)
 * described in JSON, built once against the asset's clips, and run per character with
 * ossa_graph_update (no allocation per frame). Prints the active states and the transitions as
 * the speed ramps up and the punch flag is set.
 *   example_12_animation_graph [Woman.gltf]   (a file with Idle, Walking, Running, Punch clips) */
#include <ossa/ossa.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *GRAPH =
    "{\"parameters\": {\"speed\": 0.0, \"armed\": false},"
    " \"layers\": [{\"name\": \"base\", \"states\": {\"move\": {\"blend1d\": {\"parameter\": \"speed\","
    "   \"clips\": [[\"Idle\", 0.0], [\"Walking\", 1.4], [\"Running\", 4.0]], \"sync\": true}}}},"
    "  {\"name\": \"upper\", \"mask\": \"Spine\", \"start\": \"none\","
    "   \"states\": {\"none\": {\"empty\": true}, \"punch\": {\"clip\": \"Punch\", \"loop\": false}},"
    "   \"transitions\": [{\"from\": \"none\", \"to\": \"punch\", \"when\": \"armed\", \"blend\": \"inertialize\"},"
    "    {\"from\": \"punch\", \"to\": \"none\", \"exit_time\": 1.0, \"duration\": 0.3}]}]}";

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "../shared/assets/Woman/Woman.gltf";
    ossa_asset *asset = NULL;
    ossa_graph_desc *desc = NULL;
    ossa_graph *graph = NULL;
    ossa_graph_instance *character = NULL;
    ossa_diagnostic diag = {{0}, {0}};
    ossa_graph_clip clips[64];
    uint32_t clip_count = 0;
    if (ossa_gltf_load_file(path, NULL, &asset, NULL) != OSSA_OK ||
        ossa_graph_desc_load_memory(GRAPH, strlen(GRAPH), NULL, &desc, &diag) != OSSA_OK ||
        ossa_graph_clips_from_asset(asset, false, clips, 64, &clip_count) != OSSA_OK ||
        ossa_graph_create(desc, asset->skeleton, clips, clip_count, NULL, &graph, &diag) != OSSA_OK ||
        ossa_graph_instance_create(graph, NULL, &character) != OSSA_OK) {
        fprintf(stderr, "%s: %s\n", path, diag.message[0] ? diag.message : "cannot load");
        ossa_graph_desc_destroy(desc);
        ossa_asset_destroy(asset);
        return 1;
    }
    ossa_graph_desc_destroy(desc); /* the graph keeps what it needs */
    printf("instance: %zu bytes\n", ossa_graph_instance_size(graph));
    ossa_graph_value params[2];
    ossa_graph_parameters_init(graph, params, 2);
    uint32_t speed = (uint32_t)ossa_graph_find_parameter(graph, "speed");
    uint32_t armed = (uint32_t)ossa_graph_find_parameter(graph, "armed");
    uint32_t joints = ossa_graph_joint_count(graph);
    int32_t hips = ossa_skeleton_find_joint(asset->skeleton, "Hips");
    if (hips < 0) hips = 0;
    ossa_transform *pose = malloc(joints * sizeof *pose);
    ossa_graph_event events[8];
    for (int frame = 0; frame <= 180 && pose; frame++) {
        params[speed].number = 4.0f * (float)frame / 180.0f;
        params[armed].flag = frame >= 60 && frame < 62;
        ossa_graph_output out = {.pose = pose, .pose_count = joints, .events = events, .event_capacity = 8};
        ossa_graph_update(character, 1.0f / 60.0f, params, 2, &out);
        for (uint32_t e = 0; e < out.event_count && e < 8; e++)
            if (events[e].kind == OSSA_GRAPH_EVENT_STATE_ENTER)
                printf("frame %3d: layer %s enters %s\n", frame, ossa_graph_layer_name(graph, events[e].layer),
                       events[e].name);
        ossa_graph_layer_status upper;
        ossa_graph_instance_layer_status(character, 1, &upper);
        if (frame % 30 == 0)
            printf("frame %3d: speed %.2f, hips y %.3f, upper layer in %s%s\n", frame, (double)params[speed].number,
                   (double)pose[hips].translation.y, upper.state_name, upper.transitioning ? " (transition)" : "");
    }
    free(pose);
    ossa_graph_instance_destroy(character);
    ossa_graph_destroy(graph);
    ossa_asset_destroy(asset);
    return 0;
}
