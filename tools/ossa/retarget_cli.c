/* Retargeting for the ossa tool (see retarget_cli.h). */
#include "retarget_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "demo_character.h"

retarget_cli_options retarget_cli_load;

ossa_asset *retarget_cli_load_asset(const char *cmd, const char *file) {
    if (!strcmp(file, "demo")) {
        ossa_asset *demo = demo_character_create();
        if (!demo) fprintf(stderr, "ossa %s: cannot build the demo character\n", cmd);
        return demo;
    }
    const char *anim = cli_load.anim; /* the --anim clips go to the target only */
    cli_load.anim = NULL;
    ossa_asset *asset = cli_load_asset(cmd, file);
    cli_load.anim = anim;
    if (asset && !asset->skeleton) {
        fprintf(stderr, "ossa %s: %s: the file has no nodes (no skeleton to retarget)\n", cmd, file);
        ossa_asset_destroy(asset);
        return NULL;
    }
    return asset;
}

/* The automatic map of one skeleton; an incomplete one is reported only when no map file may
 * complete it (the validation after the file names what is still wrong). */
static void auto_map(const ossa_skeleton *skeleton, ossa_retarget_map *map) {
    ossa_diagnostic d;
    (void)ossa_retarget_map_auto(skeleton, map, &d); /* map holds what was found either way */
}

bool retarget_cli_apply_map_file(const char *cmd, const char *map_file, const char *side, const ossa_skeleton *skeleton,
                           ossa_retarget_map *map) {
    ossa_diagnostic d;
    memset(&d, 0, sizeof d);
    ossa_result r = ossa_retarget_map_load_file(map_file, side, skeleton, map, &d);
    if (r == OSSA_OK) return true;
    const char *message = d.message[0] ? d.message : "cannot read the map";
    if (d.path[0] && !strstr(message, d.path))
        fprintf(stderr, "ossa %s: %s: %s: %s (%s)\n", cmd, map_file, d.path, message, ossa_result_string(r));
    else
        fprintf(stderr, "ossa %s: %s: %s (%s)\n", cmd, map_file, message, ossa_result_string(r));
    return false;
}

/* Validates one side's final map; false after printing the fault with the file it comes from. */
static bool check_map(const char *cmd, const char *model_file, const char *side, const ossa_skeleton *skeleton,
                      const ossa_retarget_map *map, const char *map_file) {
    ossa_diagnostic d;
    memset(&d, 0, sizeof d);
    if (ossa_retarget_map_validate(map, skeleton, &d) == OSSA_OK) return true;
    fprintf(stderr, "ossa %s: %s: the %s bone map (automatic%s%s) is not usable: %s\n", cmd, model_file, side,
            map_file ? ", then " : "", map_file ? map_file : "", d.message);
    fprintf(stderr, "ossa %s: see the maps with `ossa retarget --print-map SOURCE TARGET`; complete or correct them "
                    "with --map MAP.json (docs/retargeting.md)\n", cmd);
    return false;
}

bool retarget_cli_maps(const char *cmd, const char *source_file, const ossa_skeleton *source,
                       const char *target_file, const ossa_skeleton *target, const char *map_file,
                       ossa_retarget_map *source_map, ossa_retarget_map *target_map) {
    auto_map(source, source_map);
    auto_map(target, target_map);
    if (map_file && !(retarget_cli_apply_map_file(cmd, map_file, "source", source, source_map) &&
                      retarget_cli_apply_map_file(cmd, map_file, "target", target, target_map)))
        return false;
    return check_map(cmd, source_file, "source", source, source_map, map_file) &&
           check_map(cmd, target_file, "target", target, target_map, map_file);
}

ossa_retarget_rig *retarget_cli_rig(const char *cmd, const char *source_file, const ossa_skeleton *source,
                                    const char *target_file, const ossa_skeleton *target,
                                    const retarget_cli_options *options) {
    ossa_retarget_map source_map, target_map;
    if (!retarget_cli_maps(cmd, source_file, source, target_file, target, options->map_file, &source_map, &target_map))
        return NULL;
    ossa_retarget_rig_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.source = source;
    desc.source_map = &source_map;
    desc.target = target;
    desc.target_map = &target_map;
    desc.tpose_fix = options->tpose_fix;
    if (options->rest_reference) desc.source_reference = source->rest, desc.target_reference = target->rest;
    ossa_retarget_rig *rig = NULL;
    ossa_diagnostic d;
    memset(&d, 0, sizeof d);
    ossa_result r = ossa_retarget_rig_create(&desc, NULL, &rig, &d);
    if (r != OSSA_OK) {
        fprintf(stderr, "ossa %s: %s onto %s: cannot set up the retargeting: %s (%s)\n", cmd, source_file, target_file,
                d.message[0] ? d.message : "rig creation failed", ossa_result_string(r));
        return NULL;
    }
    return rig;
}

bool retarget_cli_bake(const char *cmd, const ossa_retarget_rig *rig, const ossa_clip *clip,
                       const retarget_cli_options *options, ossa_clip **out) {
    ossa_retarget_bake_options bake;
    memset(&bake, 0, sizeof bake);
    bake.no_contacts = options->no_contacts;
    ossa_result r = ossa_retarget_bake(rig, clip, &bake, NULL, out);
    if (r != OSSA_OK) {
        fprintf(stderr, "ossa %s: retargeting clip '%s' failed (%s)\n", cmd, clip->name ? clip->name : "",
                ossa_result_string(r));
        return false;
    }
    return true;
}

bool retarget_cli_add_clips(const char *cmd, ossa_asset *asset, const char *target_file, const char *source_file) {
    if (asset->built_clip_count && !asset->clip_count) {
        fprintf(stderr, "ossa %s: --anim %s --retarget: a packed model holds built clips only; load the model's "
                        "source file\n", cmd, source_file);
        return false;
    }
    if (!asset->skeleton) {
        fprintf(stderr, "ossa %s: --retarget: the model has no skeleton to retarget onto\n", cmd);
        return false;
    }
    ossa_asset *source = retarget_cli_load_asset(cmd, source_file);
    if (!source) return false;
    bool ok = true;
    if (!source->clip_count) {
        fprintf(stderr, "ossa %s: %s: no clips to retarget%s\n", cmd, source_file,
                source->built_clip_count ? " (a packed file holds built clips only: use the source model file)" : "");
        ok = false;
    }
    ossa_retarget_rig *rig = ok ? retarget_cli_rig(cmd, source_file, source->skeleton, target_file, asset->skeleton,
                                                   &retarget_cli_load)
                                : NULL;
    ossa_clip **baked = rig ? calloc(source->clip_count, sizeof *baked) : NULL;
    ok = baked != NULL;
    for (uint32_t i = 0; ok && i < source->clip_count; i++)
        ok = retarget_cli_bake(cmd, rig, source->clips[i], &retarget_cli_load, &baked[i]);
    if (ok && !cli_prepend_clips(asset, baked, source->clip_count)) {
        fprintf(stderr, "ossa %s: out of memory\n", cmd);
        ok = false;
    }
    if (!ok && baked)
        for (uint32_t i = 0; i < source->clip_count; i++) ossa_clip_destroy(baked[i]);
    free(baked);
    ossa_retarget_rig_destroy(rig);
    ossa_asset_destroy(source);
    return ok;
}
