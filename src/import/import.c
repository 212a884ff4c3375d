/* Any model file → ossa_asset (ossa/import.h): picks the packed-file loader, the glTF
 * importer or, when the build has it (OSSA_HAVE_ASSIMP), the Assimp importer. */
#include <ossa/format.h>
#include <ossa/gltf.h>
#include <ossa/import.h>
#include <ossa/pack.h>
#ifdef OSSA_HAVE_ASSIMP
#include <ossa/assimp.h>
#endif

#include <stdio.h>
#include <string.h>

#define HEAD_SIZE 512u /* enough for ossa_format_detect and the packed file's magic */

static ossa_result fail(ossa_diagnostic *diag, ossa_result result, const char *path, const char *message,
                        const char *format_name) {
    if (diag) {
        memset(diag, 0, sizeof *diag);
        snprintf(diag->message, sizeof diag->message, "%s: %s%s%s", path, message, format_name ? format_name : "",
                 format_name ? ")" : "");
    }
    return result;
}

/* The importer AUTO means for `path`, from its first bytes. IO when they cannot be read. */
static ossa_result detect(const char *path, ossa_importer *importer, ossa_file_format *format) {
    unsigned char head[HEAD_SIZE];
    FILE *f = fopen(path, "rb");
    if (!f) return OSSA_ERROR_IO;
    size_t n = fread(head, 1, sizeof head, f);
    bool bad = ferror(f) != 0;
    fclose(f);
    if (bad) return OSSA_ERROR_IO;
    *format = ossa_format_detect(head, n, path);
    if (ossa_pack_detect(head, n)) *importer = OSSA_IMPORTER_PACK;
    else if (ossa_format_is_gltf(*format)) *importer = OSSA_IMPORTER_GLTF;
    else *importer = OSSA_IMPORTER_ASSIMP;
    return OSSA_OK;
}

/* Resolves `importer` for `path` (AUTO: by detection); fills diag on failure. */
static ossa_result choose(const char *path, ossa_importer *importer, ossa_diagnostic *diag) {
    ossa_file_format format = OSSA_FORMAT_UNKNOWN;
    if (*importer == OSSA_IMPORTER_AUTO && detect(path, importer, &format) != OSSA_OK)
        return fail(diag, OSSA_ERROR_IO, path, "cannot read the file", NULL);
    if (format == OSSA_FORMAT_EMPTY) return fail(diag, OSSA_ERROR_PARSE, path, "empty file (0 bytes)", NULL);
    if ((unsigned)*importer > OSSA_IMPORTER_PACK)
        return fail(diag, OSSA_ERROR_INVALID_ARGUMENT, path, "importer is not an ossa_importer value", NULL);
#ifndef OSSA_HAVE_ASSIMP
    if (*importer == OSSA_IMPORTER_ASSIMP)
        return fail(diag, OSSA_ERROR_UNSUPPORTED, path,
                    "needs the Assimp importer, and this ossa was built without it (configure with "
                    "OSSA_WITH_ASSIMP=ON and libassimp-dev installed; detected format ",
                    ossa_format_name(format));
#endif
    return OSSA_OK;
}

ossa_result ossa_import_file(const char *path, ossa_importer importer, const ossa_load_options *options,
                             ossa_asset **out, ossa_diagnostic *diag) {
    if (!path || !out) return ossa_gltf_load_file(path, options, out, diag); /* argument errors, one place */
    *out = NULL;
    ossa_result r = choose(path, &importer, diag);
    if (r != OSSA_OK) return r;
    switch (importer) {
    case OSSA_IMPORTER_PACK: return ossa_pack_load_file(path, options, out, diag);
#ifdef OSSA_HAVE_ASSIMP
    case OSSA_IMPORTER_ASSIMP: return ossa_assimp_load_file(path, options, out, diag);
#endif
    default: return ossa_gltf_load_file(path, options, out, diag);
    }
}

ossa_result ossa_import_clips(const char *path, ossa_importer importer, const ossa_skeleton *skeleton,
                              const ossa_load_options *options, ossa_asset **out, ossa_diagnostic *diag) {
    if (!path || !out || !skeleton) return ossa_gltf_load_clips(path, skeleton, options, out, diag);
    *out = NULL;
    ossa_result r = choose(path, &importer, diag);
    if (r != OSSA_OK) return r;
    switch (importer) {
    case OSSA_IMPORTER_PACK:
        return fail(diag, OSSA_ERROR_UNSUPPORTED, path,
                    "a packed .ossa file holds built clips for its own skeleton, not clips to bind by name; "
                    "load it with ossa_import_file or ossa_pack_load_file", NULL);
#ifdef OSSA_HAVE_ASSIMP
    case OSSA_IMPORTER_ASSIMP: return ossa_assimp_load_clips(path, skeleton, options, out, diag);
#endif
    default: return ossa_gltf_load_clips(path, skeleton, options, out, diag);
    }
}
