/* Model format detection by signature, then extension (format.h). */
#include <ossa/format.h>

#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char *const NAMES[OSSA_FORMAT_COUNT] = {
    "unknown",        "glTF 2.0 (JSON)",  "glTF 2.0 (GLB)", "FBX (binary)", "FBX (ASCII)",
    "COLLADA",        "Wavefront OBJ",    "3DS",            "Blender",      "PLY",
    "STL",            "DirectX X",        "MD5",            "BVH",          "unknown (extension only)",
    "empty file",
};

const char *ossa_format_name(ossa_file_format format) {
    return (unsigned)format < OSSA_FORMAT_COUNT ? NAMES[format] : NAMES[0];
}

bool ossa_format_is_gltf(ossa_file_format format) {
    return format == OSSA_FORMAT_GLTF || format == OSSA_FORMAT_GLB;
}

/* Does the text `s` (n bytes) contain `needle`? */
static bool contains(const char *s, size_t n, const char *needle) {
    size_t l = strlen(needle);
    for (size_t i = 0; i + l <= n; i++)
        if (!memcmp(s + i, needle, l)) return true;
    return false;
}

static bool starts(const char *s, size_t n, const char *prefix) {
    size_t l = strlen(prefix);
    return n >= l && !memcmp(s, prefix, l);
}

static const char *extension(const char *path) {
    if (!path) return "";
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    return dot && (!slash || dot > slash) ? dot + 1 : "";
}

ossa_file_format ossa_format_detect(const void *head, size_t size, const char *path) {
    if (head && size == 0) return OSSA_FORMAT_EMPTY;
    const char *s = head ? (const char *)head : "";
    if (!head) size = 0;
    if (starts(s, size, "glTF")) return OSSA_FORMAT_GLB;
    if (starts(s, size, "Kaydara FBX Binary")) return OSSA_FORMAT_FBX_BINARY;
    if (starts(s, size, "BLENDER")) return OSSA_FORMAT_BLEND;
    if (starts(s, size, "xof ")) return OSSA_FORMAT_X;
    if (size >= 2 && (uint8_t)s[0] == 0x4d && (uint8_t)s[1] == 0x4d) return OSSA_FORMAT_3DS;
    if (starts(s, size, "ply\n") || starts(s, size, "ply\r")) return OSSA_FORMAT_PLY;
    if (starts(s, size, "MD5Version")) return OSSA_FORMAT_MD5;
    if (starts(s, size, "HIERARCHY")) return OSSA_FORMAT_BVH;
    /* skip a UTF-8 BOM and leading white space for the text formats */
    size_t o = size >= 3 && !memcmp(s, "\xef\xbb\xbf", 3) ? 3 : 0;
    while (o < size && (s[o] == ' ' || s[o] == '\t' || s[o] == '\r' || s[o] == '\n')) o++;
    const char *t = s + o;
    size_t n = size - o;
    if (starts(t, n, "; FBX") || contains(t, n, "FBXHeaderExtension")) return OSSA_FORMAT_FBX_ASCII;
    if (starts(t, n, "<") && contains(t, n, "<COLLADA")) return OSSA_FORMAT_COLLADA;
    if (starts(t, n, "{") && (contains(t, n, "\"asset\"") || !strcasecmp(extension(path), "gltf")))
        return OSSA_FORMAT_GLTF;
    if (starts(t, n, "solid ") && !strcasecmp(extension(path), "stl")) return OSSA_FORMAT_STL;
    const char *ext = extension(path);
    static const struct {
        const char *ext;
        ossa_file_format format;
    } EXT[] = {{"gltf", OSSA_FORMAT_GLTF},   {"glb", OSSA_FORMAT_GLB},   {"fbx", OSSA_FORMAT_FBX_BINARY},
               {"dae", OSSA_FORMAT_COLLADA}, {"obj", OSSA_FORMAT_OBJ},   {"3ds", OSSA_FORMAT_3DS},
               {"blend", OSSA_FORMAT_BLEND}, {"ply", OSSA_FORMAT_PLY},   {"stl", OSSA_FORMAT_STL},
               {"x", OSSA_FORMAT_X},         {"md5mesh", OSSA_FORMAT_MD5}, {"md5anim", OSSA_FORMAT_MD5},
               {"bvh", OSSA_FORMAT_BVH}};
    for (size_t i = 0; i < sizeof EXT / sizeof EXT[0]; i++)
        if (!strcasecmp(ext, EXT[i].ext)) {
            /* a signature format whose signature is missing is not that format */
            ossa_file_format f = EXT[i].format;
            if (f == OSSA_FORMAT_OBJ || f == OSSA_FORMAT_STL) return f;
            return OSSA_FORMAT_OTHER;
        }
    return ext[0] ? OSSA_FORMAT_OTHER : OSSA_FORMAT_UNKNOWN;
}

ossa_result ossa_format_detect_file(const char *path, ossa_file_format *out) {
    if (!out) return OSSA_ERROR_INVALID_ARGUMENT;
    *out = OSSA_FORMAT_UNKNOWN;
    if (!path) return OSSA_ERROR_INVALID_ARGUMENT;
    FILE *f = fopen(path, "rb");
    if (!f) return OSSA_ERROR_IO;
    char head[512];
    size_t n = fread(head, 1, sizeof head, f);
    bool err = ferror(f) != 0;
    fclose(f);
    if (err) return OSSA_ERROR_IO;
    *out = ossa_format_detect(head, n, path);
    return OSSA_OK;
}
