#include "cli_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef OSSA_HAVE_ASSIMP
#include <ossa/assimp.h>
#endif

#include "retarget_cli.h"

cli_load_options cli_load;

/* "512M", "2G", "1000000" → bytes; 0 on a malformed or zero value. */
static size_t parse_bytes(const char *s) {
    char *end;
    double v = strtod(s, &end);
    double mul = 1;
    if (*end == 'k' || *end == 'K') mul = 1024.0, end++;
    else if (*end == 'm' || *end == 'M') mul = 1024.0 * 1024, end++;
    else if (*end == 'g' || *end == 'G') mul = 1024.0 * 1024 * 1024, end++;
    if (*end == 'B' || *end == 'b') end++;
    v *= mul;
    if (end == s || *end || !(v >= 1) || v > (double)SIZE_MAX / 2) return 0;
    return (size_t)v;
}

int cli_take_load_options(int argc, char **argv) {
    int o = 0;
    for (int i = 0; i < argc; i++) {
        bool more = i + 1 < argc;
        if (!strcmp(argv[i], "--importer") && more) {
            const char *v = argv[++i];
            if (!strcmp(v, "gltf")) cli_load.importer = CLI_IMPORTER_GLTF;
            else if (!strcmp(v, "assimp")) cli_load.importer = CLI_IMPORTER_ASSIMP;
            else if (!strcmp(v, "auto")) cli_load.importer = CLI_IMPORTER_AUTO;
            else {
                fprintf(stderr, "ossa: --importer takes gltf, assimp or auto (not '%s')\n", v);
                return -1;
            }
        } else if (!strcmp(argv[i], "--max-memory") && more) {
            cli_load.max_memory = parse_bytes(argv[++i]);
            if (!cli_load.max_memory) {
                fprintf(stderr, "ossa: --max-memory takes a size in bytes (suffix K, M or G), not '%s'\n", argv[i]);
                return -1;
            }
        } else if (!strcmp(argv[i], "--anim") && more) {
            cli_load.anim = argv[++i];
        } else if (!strcmp(argv[i], "--retarget")) {
            cli_load.retarget = true;
        } else if (!strcmp(argv[i], "--map") && more) {
            retarget_cli_load.map_file = argv[++i];
            cli_load.retarget_options = true;
        } else if (!strcmp(argv[i], "--tpose-fix")) {
            retarget_cli_load.tpose_fix = cli_load.retarget_options = true;
        } else if (!strcmp(argv[i], "--rest-reference")) {
            retarget_cli_load.rest_reference = cli_load.retarget_options = true;
        } else if (!strcmp(argv[i], "--no-contacts")) {
            retarget_cli_load.no_contacts = cli_load.retarget_options = true;
        } else if (!strcmp(argv[i], "--max-build-scratch") && more) {
            cli_load.max_build_scratch = parse_bytes(argv[++i]);
            if (!cli_load.max_build_scratch) {
                fprintf(stderr, "ossa: --max-build-scratch takes a size in bytes (suffix K, M or G), not '%s'\n",
                        argv[i]);
                return -1;
            }
        } else if (!strcmp(argv[i], "--progress")) {
            cli_load.progress = true;
        } else {
            argv[o++] = argv[i];
        }
    }
    return o;
}

void cli_unknown_option(const char *cmd, const char *arg, bool last) {
    fprintf(stderr, "ossa %s: unknown option '%s'%s\n", cmd, arg, last ? " (or its value is missing)" : "");
}

bool cli_have_assimp(void) {
#ifdef OSSA_HAVE_ASSIMP
    return true;
#else
    return false;
#endif
}

static void print_failure(const char *cmd, const char *file, ossa_result r, const ossa_diagnostic *diag) {
    fprintf(stderr, "ossa %s: %s: %s (%s)\n", cmd, file, diag->message[0] ? diag->message : "load failed",
            ossa_result_string(r));
    if (r == OSSA_ERROR_LIMIT)
        fprintf(stderr, "ossa %s: raise the cap with --max-memory SIZE (e.g. --max-memory 4G)\n", cmd);
}

/* Loads `file` with the importer the options (or the detected format) pick. */
static ossa_result load_any(const char *cmd, const char *file, const ossa_skeleton *bind_to, ossa_asset **out,
                            ossa_diagnostic *diag) {
    ossa_load_options opt;
    memset(&opt, 0, sizeof opt);
    opt.max_allocation = cli_load.max_memory;
    memset(diag, 0, sizeof *diag);
    if (cli_is_packed(file)) { /* packed .ossa (built clips) */
        if (bind_to) {
            fprintf(stderr, "ossa %s: %s: a packed .ossa file has built clips only; --anim needs a model file\n", cmd, file);
            return OSSA_ERROR_UNSUPPORTED;
        }
        return ossa_pack_load_file(file, &opt, out, diag);
    }
    ossa_file_format f = OSSA_FORMAT_UNKNOWN;
    ossa_result dr = ossa_format_detect_file(file, &f);
    if (dr == OSSA_OK && f == OSSA_FORMAT_EMPTY) { /* no importer reads 0 bytes, whatever the extension */
        snprintf(diag->message, sizeof diag->message, "empty file (0 bytes)");
        return OSSA_ERROR_PARSE;
    }
    bool gltf = cli_load.importer == CLI_IMPORTER_GLTF ||
                (cli_load.importer == CLI_IMPORTER_AUTO && (ossa_format_is_gltf(f) || dr != OSSA_OK));
    memset(diag, 0, sizeof *diag);
    if (gltf) {
        if (dr == OSSA_OK && !ossa_format_is_gltf(f) && f != OSSA_FORMAT_UNKNOWN) {
            fprintf(stderr, "ossa %s: %s: detected format %s, not glTF 2.0; %s\n", cmd, file, ossa_format_name(f),
                    cli_have_assimp() ? "load it with --importer assimp (or without --importer)"
                                      : "this ossa was built without Assimp (see below)");
            if (!cli_have_assimp()) cli_explain_no_assimp(cmd, file, f);
            return OSSA_ERROR_UNSUPPORTED;
        }
        return bind_to ? ossa_gltf_load_clips(file, bind_to, &opt, out, diag) : ossa_gltf_load_file(file, &opt, out, diag);
    }
#ifdef OSSA_HAVE_ASSIMP
    /* --max-memory bounds the whole import, Assimp's memory included (a capped child process
     * probes the load first; assimp.h); 0 = the library default, as for max_allocation */
    return bind_to ? ossa_assimp_load_clips_bounded(file, bind_to, &opt, opt.max_allocation, out, diag)
                   : ossa_assimp_load_file_bounded(file, &opt, opt.max_allocation, out, diag);
#else
    (void)out;
    if (cli_load.importer == CLI_IMPORTER_ASSIMP && ossa_format_is_gltf(f)) {
        fprintf(stderr, "ossa %s: %s: --importer assimp: this ossa was built without Assimp; drop --importer "
                        "(glTF loads with ossa's own importer)\n", cmd, file);
        return OSSA_ERROR_UNSUPPORTED;
    }
    if (cli_load.importer == CLI_IMPORTER_ASSIMP)
        fprintf(stderr, "ossa %s: %s: --importer assimp: this ossa was built without Assimp\n", cmd, file);
    else
        fprintf(stderr, "ossa %s: %s: detected format %s; this ossa was built without Assimp\n", cmd, file,
                ossa_format_name(f));
    cli_explain_no_assimp(cmd, file, f);
    return OSSA_ERROR_UNSUPPORTED;
#endif
}

void cli_explain_no_assimp(const char *cmd, const char *file, ossa_file_format f) {
    (void)file;
    fprintf(stderr,
            "ossa %s: only glTF 2.0 (.gltf/.glb) loads without Assimp. Either install libassimp-dev "
            "(scripts/deps.sh) and rebuild ossa (CMake then says \"building ossa_assimp\"), or convert the %s "
            "file to glTF 2.0 (e.g. with Blender).\n",
            cmd, ossa_format_name(f));
}

bool cli_is_packed(const char *file) {
    unsigned char magic[8];
    FILE *f = fopen(file, "rb");
    size_t n = f ? fread(magic, 1, sizeof magic, f) : 0;
    if (f) fclose(f);
    return ossa_pack_detect(magic, n);
}

ossa_asset *cli_load_asset(const char *cmd, const char *file) {
    ossa_asset *asset = NULL;
    ossa_diagnostic diag;
    ossa_result r = load_any(cmd, file, NULL, &asset, &diag);
    if (r) {
        if (diag.message[0] || r != OSSA_ERROR_UNSUPPORTED) print_failure(cmd, file, r, &diag);
        return NULL;
    }
    if (!cli_add_anim_clips(cmd, asset, file)) {
        ossa_asset_destroy(asset);
        return NULL;
    }
    return asset;
}

bool cli_prepend_clips(ossa_asset *asset, ossa_clip *const *clips, uint32_t count) {
    uint32_t n = asset->clip_count + count;
    ossa_allocator *al = &asset->allocator; /* a hand-made asset (the demo) has none: malloc */
    ossa_clip **all = al->alloc ? al->alloc((n ? n : 1) * sizeof *all, al->user) : malloc((n ? n : 1) * sizeof *all);
    if (!all) return false;
    for (uint32_t i = 0; i < count; i++) all[i] = clips[i];
    for (uint32_t i = 0; i < asset->clip_count; i++) all[count + i] = asset->clips[i];
    if (asset->clips && al->free) al->free(asset->clips, al->user);
    else free(asset->clips);
    asset->clips = all;
    asset->clip_count = n;
    return true;
}

bool cli_add_anim_clips(const char *cmd, ossa_asset *asset, const char *file) {
    if (!cli_load.anim) return true;
    return cli_load.retarget ? retarget_cli_add_clips(cmd, asset, file, cli_load.anim)
                             : cli_add_clips(cmd, asset, cli_load.anim);
}

bool cli_add_clips(const char *cmd, ossa_asset *asset, const char *file) {
    if (asset->built_clip_count && !asset->clip_count) {
        fprintf(stderr, "ossa %s: --anim %s: a packed model holds built clips only; load the model's source file\n", cmd,
                file);
        return false;
    }
    if (!asset->skeleton) {
        fprintf(stderr, "ossa %s: --anim %s: the model has no skeleton to bind clips to\n", cmd, file);
        return false;
    }
    ossa_asset *clips = NULL;
    ossa_diagnostic diag;
    ossa_result r = load_any(cmd, file, asset->skeleton, &clips, &diag);
    if (r) {
        if (diag.message[0] || r != OSSA_ERROR_UNSUPPORTED) print_failure(cmd, file, r, &diag);
        return false;
    }
    for (uint32_t w = 0; w < clips->warning_count; w++) fprintf(stderr, "ossa %s: %s: %s\n", cmd, file, clips->warnings[w]);
    /* the --anim file's clips first: --clip 0 (and the default, the first clip) is its first clip */
    if (!cli_prepend_clips(asset, clips->clips, clips->clip_count)) {
        ossa_asset_destroy(clips);
        fprintf(stderr, "ossa %s: out of memory\n", cmd);
        return false;
    }
    clips->clip_count = 0; /* moved */
    ossa_asset_destroy(clips);
    return true;
}

void json_put_str(const char *s) {
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"' || *p == '\\') printf("\\%c", *p);
        else if (*p < 0x20) printf("\\u%04x", *p);
        else putchar(*p);
    }
    putchar('"');
}

void json_put_num(double v) {
    if (isfinite(v)) printf("%.9g", v);
    else printf("null");
}

int cli_no_gl(const char *cmd) {
    fprintf(stderr, "ossa %s: this ossa was built without GL (-DOSSA_BUILD_GL=OFF); "
                    "render, view, demo and crowd need it\n", cmd);
    return 1;
}
