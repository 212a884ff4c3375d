/* ossa/format.h: which model format a file holds (import, before choosing an importer).
 * Provided by library ossa_offline (CMake ossa::ossa_offline, pkg-config ossa_offline).
 *
 * Detection looks at the first bytes (magic numbers, XML root, text keywords) and
 * only falls back to the file extension for formats without a signature (OBJ, STL,
 * ...). It never decides what an importer accepts: it names the format so a tool can
 * pick the glTF importer or the Assimp one (assimp.h), and say clearly what a build
 * cannot read. Pure functions; thread-safe. */
#ifndef OSSA_FORMAT_H
#define OSSA_FORMAT_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ossa_file_format {
    OSSA_FORMAT_UNKNOWN = 0,
    OSSA_FORMAT_GLTF,        /* glTF 2.0 JSON (.gltf) */
    OSSA_FORMAT_GLB,         /* glTF binary container (.glb) */
    OSSA_FORMAT_FBX_BINARY,  /* "Kaydara FBX Binary" */
    OSSA_FORMAT_FBX_ASCII,   /* "; FBX ..." text */
    OSSA_FORMAT_COLLADA,     /* XML with a <COLLADA> root (.dae) */
    OSSA_FORMAT_OBJ,         /* Wavefront OBJ */
    OSSA_FORMAT_3DS,
    OSSA_FORMAT_BLEND,
    OSSA_FORMAT_PLY,
    OSSA_FORMAT_STL,
    OSSA_FORMAT_X,           /* DirectX .x */
    OSSA_FORMAT_MD5,         /* Doom 3 md5mesh / md5anim */
    OSSA_FORMAT_BVH,         /* BioVision motion capture */
    OSSA_FORMAT_OTHER,       /* an extension Assimp may know; no signature recognised */
    OSSA_FORMAT_EMPTY,       /* a file of 0 bytes: no importer reads it, whatever its extension */
    OSSA_FORMAT_COUNT
} ossa_file_format;

/* Detects the format from the first `size` bytes of a file (`head`; 512 bytes are
 * enough) and, for formats without a signature, from `path`'s extension (path may be
 * NULL). Never fails: unknown data gives OSSA_FORMAT_UNKNOWN, head NULL gives UNKNOWN (or
 * the extension's guess), and a non-NULL head with size 0 gives OSSA_FORMAT_EMPTY. */
ossa_file_format ossa_format_detect(const void *head, size_t size, const char *path);

/* Reads the first 512 bytes of `path` and detects (an empty file: OSSA_FORMAT_EMPTY, OK). IO
 * when the file cannot be read (then *out is OSSA_FORMAT_UNKNOWN); INVALID_ARGUMENT on NULL
 * arguments. */
ossa_result ossa_format_detect_file(const char *path, ossa_file_format *out);

/* Static English name ("glTF 2.0 (JSON)", "FBX (binary)", "COLLADA", ...); never NULL. */
const char *ossa_format_name(ossa_file_format format);

/* True for the formats the core library's glTF importer reads (GLTF, GLB). */
bool ossa_format_is_gltf(ossa_file_format format);

#ifdef __cplusplus
}
#endif
#endif
