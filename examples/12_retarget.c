/* 12_retarget: a clip of one character played on another. Loads a humanoid glTF (Woman.gltf
 * by default), makes a second skeleton from it with other names (a "mixamorig:" namespace) and
 * longer legs, maps both onto the humanoid profile by name, bakes the first clip onto the
 * second skeleton with feet pinned during contacts, and prints the quality report as JSON.
 *   example_12_retarget [model.gltf] */
#include <ossa/ossa.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The same hierarchy with "mixamorig:" names and legs (knee and ankle offsets) 1.3x longer. */
static ossa_skeleton *long_legged_copy(const ossa_skeleton *s) {
    ossa_transform *rest = malloc(s->joint_count * sizeof *rest);
    const char **names = malloc(s->joint_count * sizeof *names);
    char (*buffers)[80] = malloc(s->joint_count * sizeof *buffers);
    for (uint32_t j = 0; j < s->joint_count; j++) {
        rest[j] = s->bind[j];
        if (strstr(s->names[j], "Leg") || strstr(s->names[j], "Foot")) {
            if (!strstr(s->names[j], "UpLeg")) rest[j].translation = ossa_vec3_scale(rest[j].translation, 1.3f);
        }
        snprintf(buffers[j], sizeof buffers[j], "mixamorig:%s", s->names[j]);
        names[j] = buffers[j];
    }
    ossa_skeleton_desc desc = {s->joint_count, s->parents, rest, names, 0, NULL, 0.0f};
    ossa_skeleton *copy = NULL;
    ossa_skeleton_create(&desc, NULL, &copy);
    free(rest), free(names), free(buffers);
    return copy;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "../shared/assets/Woman/Woman.gltf";
    ossa_asset *asset = NULL;
    ossa_diagnostic diag = {{0}, {0}};
    if (ossa_gltf_load_file(path, NULL, &asset, &diag) != OSSA_OK || asset->clip_count == 0) {
        fprintf(stderr, "%s: %s\n", path, asset ? "no clip" : diag.message);
        return 1;
    }
    ossa_skeleton *target = long_legged_copy(asset->skeleton);
    ossa_retarget_map source_map, target_map;
    if (ossa_retarget_map_auto(asset->skeleton, &source_map, &diag) != OSSA_OK ||
        ossa_retarget_map_auto(target, &target_map, &diag) != OSSA_OK) {
        fprintf(stderr, "automatic map: %s\n", diag.message); /* a map file would complete it */
        return 1;
    }
    ossa_retarget_rig_desc desc = {.source = asset->skeleton, .source_map = &source_map,
                                   .target = target, .target_map = &target_map, .tpose_fix = true};
    ossa_retarget_rig *rig = NULL;
    if (ossa_retarget_rig_create(&desc, NULL, &rig, &diag) != OSSA_OK) {
        fprintf(stderr, "rig: %s\n", diag.message);
        return 1;
    }
    ossa_clip *clip = NULL; /* an editable clip of the target: build and pack it like any clip */
    ossa_retarget_bake(rig, asset->clips[0], NULL, NULL, &clip);
    ossa_retarget_report report;
    ossa_retarget_report_compute(rig, asset->clips[0], clip, NULL, NULL, &report);
    char json[8192];
    ossa_retarget_report_to_json(&report, json, sizeof json);
    printf("'%s' on the long-legged copy (hips x%.3f):\n%s", clip->name, (double)rig->translation_scale, json);
    ossa_clip_destroy(clip);
    ossa_retarget_rig_destroy(rig);
    ossa_skeleton_destroy(target);
    ossa_asset_destroy(asset);
    return 0;
}
