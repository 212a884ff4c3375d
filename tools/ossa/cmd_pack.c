/* ossa pack IN OUT.ossa [--precision P] [--lossless] [--strip-warnings]
 *
 * Loads IN (glTF, GLB, a packed .ossa file, or "demo" for the built-in character),
 * builds every editable clip with the asset's skinned meshes (compressed at precision P model
 * units, default ossa_clip_build_default_precision, or lossless), and writes skeleton, skins,
 * meshes, node and mesh infos, built clips and warnings into one packed file (pack.h). Prints
 * one line per clip: raw bytes (the editable keys), built bytes, ratio, the precision in model
 * units and as a fraction of the height, the joint shells' measured max error with the joint
 * and time, and the skinned-vertex error with the mesh, vertex, joint and time (or "no mesh
 * checked"); then the file's size. The file keeps these build reports (asset->clip_reports),
 * so `ossa info OUT.ossa` shows them. An input that is already packed keeps its built clips
 * (and reports) as they are. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ossa/ossa.h>

#include "cli_common.h"
#include "commands.h"
#include "demo_character.h"

/* --help on stdout (exit 0), a usage error on stderr (exit 2). */
static int usage(FILE *f) {
    fprintf(f, "usage: ossa pack IN OUT.ossa [--precision P] [--lossless] [--strip-warnings]\n"
               "  IN: .gltf, .glb, .ossa or \"demo\"; P: max error of the skinned vertices, model units\n"
               "  (default 1e-4 x the skeleton's bind-pose height / 1.8: 0.1 mm on a 1.8 m character;\n"
               "  no looser than 0.1 mm where the file declares its unit, as glTF does: metres,\n"
               "  unless that is below 1e-5 of the height)\n");
    return f == stdout ? 0 : 2;
}

int cmd_pack(int argc, char **argv) {
    const char *in = NULL, *out = NULL;
    ossa_clip_build_options build;
    memset(&build, 0, sizeof build);
    ossa_pack_options pack;
    memset(&pack, 0, sizeof pack);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return usage(stdout);
        if (!strcmp(argv[i], "--precision") && i + 1 < argc) {
            char *end;
            build.precision = strtof(argv[++i], &end);
            if (*end || !(build.precision > 0)) {
                fprintf(stderr, "ossa pack: --precision expects a positive number of model units\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--lossless")) build.lossless = true;
        else if (!strcmp(argv[i], "--strip-warnings")) pack.strip_warnings = true;
        else if (argv[i][0] == '-' && argv[i][1]) {
            cli_unknown_option("pack", argv[i], i + 1 >= argc);
            return usage(stderr);
        } else if (in && out) {
            fprintf(stderr, "ossa pack: more than two files: %s\n", argv[i]);
            return usage(stderr);
        } else if (!in) in = argv[i];
        else out = argv[i];
    }
    if (!in || !out) return usage(stderr);
    if (build.lossless && build.precision > 0) {
        fprintf(stderr, "ossa pack: --precision and --lossless exclude each other (lossless keeps every key)\n");
        return 2;
    }
    ossa_asset *asset = !strcmp(in, "demo") ? demo_character_create() : cli_load_asset("pack", in);
    if (!asset) return 1;
    int rc = 0;
    if (cli_build_clips(asset, &build, "pack", true)) rc = 1;
    size_t size = 0;
    ossa_result r = rc ? OSSA_OK : ossa_pack_write(asset, &pack, NULL, 0, &size);
    if (!rc && !r) r = ossa_pack_write_file(asset, &pack, out);
    if (!rc && r) {
        fprintf(stderr, "ossa pack: cannot write %s (%s)\n", out, ossa_result_string(r));
        rc = 1;
    }
    if (!rc)
        printf("wrote %s: %zu bytes (%u joints, %u skins, %u meshes, %u built clips)\n", out, size,
               asset->skeleton ? asset->skeleton->joint_count : 0, asset->skeleton ? asset->skeleton->skin_count : 0,
               asset->mesh_count, asset->built_clip_count);
    ossa_asset_destroy(asset);
    return rc;
}
