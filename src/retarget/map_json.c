/* JSON bone-map files (docs/retargeting.md, "Map files"): untrusted input, tokenised by Debian's
 * jsmn (strict, parent links), every error naming its JSON pointer; and the map writer. */
#include <ossa/retarget.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"

#define JSMN_STATIC
#define JSMN_STRICT
#define JSMN_PARENT_LINKS
#include <jsmn.h>

#define MAP_MAX_BYTES (1u << 20)
#define MAP_MAX_DEPTH 32
#define NAME_MAX_BYTES 256

typedef struct map_reader {
    const char *json;
    const jsmntok_t *tokens;
    int count;
    const ossa_skeleton *skeleton;
    ossa_diagnostic *diag;
} map_reader;

static ossa_result fail(ossa_diagnostic *diag, ossa_result result, const char *path, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static ossa_result fail(ossa_diagnostic *diag, ossa_result result, const char *path, const char *format, ...) {
    if (!diag) return result;
    snprintf(diag->path, sizeof diag->path, "%s", path);
    char why[256];
    va_list args;
    va_start(args, format);
    vsnprintf(why, sizeof why, format, args);
    va_end(args);
    snprintf(diag->message, sizeof diag->message, "%s: %s", path[0] ? path : "map", why);
    return result;
}

/* Is tok a key with a value after it? (jsmn gives a key one child: its value) */
static bool is_key(const map_reader *r, int tok) {
    return tok + 1 < r->count && r->tokens[tok].type == JSMN_STRING && r->tokens[tok].size == 1;
}

/* The index of the token after tok's whole subtree. */
static int skip_token(const map_reader *r, int tok) {
    int end = tok + 1;
    while (end < r->count && r->tokens[end].start < r->tokens[tok].end) end++;
    return end;
}

static bool token_equals(const map_reader *r, int tok, const char *s) {
    size_t n = (size_t)(r->tokens[tok].end - r->tokens[tok].start);
    return strlen(s) == n && !memcmp(r->json + r->tokens[tok].start, s, n);
}

/* A JSON pointer "/side/key" with the key's bytes made printable (~ and / escaped). */
static void pointer_to(const map_reader *r, const char *side, int key, char *out, size_t size) {
    size_t n = (size_t)snprintf(out, size, "/%s/", side);
    for (int i = r->tokens[key].start; i < r->tokens[key].end && n + 3 < size; i++) {
        char c = r->json[i];
        if (c == '~' || c == '/') out[n++] = '~', out[n++] = c == '~' ? '0' : '1';
        else out[n++] = c >= 0x20 && c < 0x7f ? c : '?';
    }
    out[n < size ? n : size - 1] = '\0';
}

static int hex_digit(char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static bool read_hex4(const char *s, unsigned *out) {
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        int d = hex_digit(s[i]);
        if (d < 0) return false;
        v = v * 16u + (unsigned)d;
    }
    *out = v;
    return true;
}

/* Appends code point cp as UTF-8; false when it does not fit. */
static bool put_utf8(char *out, size_t *n, size_t size, unsigned cp) {
    char b[4];
    size_t k = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (k == 1) b[0] = (char)cp;
    else if (k == 2) b[0] = (char)(0xC0 | (cp >> 6)), b[1] = (char)(0x80 | (cp & 0x3F));
    else if (k == 3) b[0] = (char)(0xE0 | (cp >> 12)), b[1] = (char)(0x80 | ((cp >> 6) & 0x3F)), b[2] = (char)(0x80 | (cp & 0x3F));
    else {
        b[0] = (char)(0xF0 | (cp >> 18)), b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), b[3] = (char)(0x80 | (cp & 0x3F));
    }
    if (*n + k >= size) return false;
    memcpy(out + *n, b, k);
    *n += k;
    return true;
}

/* Decodes a string token (escapes, \u with surrogate pairs) into out; false with *why set. */
static bool unescape(const map_reader *r, int tok, char *out, size_t size, const char **why) {
    const char *s = r->json + r->tokens[tok].start, *end = r->json + r->tokens[tok].end;
    size_t n = 0;
    *why = "is longer than 255 bytes";
    while (s < end) {
        unsigned cp = (unsigned char)*s++;
        if (cp == 0) return *why = "holds a NUL character", false;
        if (cp != '\\') { /* raw bytes (UTF-8 included) as they are */
            if (n + 1 >= size) return false;
            out[n++] = (char)cp;
            continue;
        }
        {
            char e = *s++;
            static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
            const char *k = e ? strchr(from, e) : NULL;
            if (k) cp = (unsigned char)to[k - from];
            else if (e != 'u' || end - s < 4 || !read_hex4(s, &cp)) return *why = "has a bad escape", false;
            else {
                s += 4;
                if (cp >= 0xD800 && cp < 0xDC00) {
                    unsigned low;
                    if (end - s < 6 || s[0] != '\\' || s[1] != 'u' || !read_hex4(s + 2, &low) || low < 0xDC00 || low > 0xDFFF) {
                        return *why = "has an unpaired surrogate", false;
                    }
                    s += 6;
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                } else if (cp >= 0xDC00 && cp < 0xE000) {
                    return *why = "has an unpaired surrogate", false;
                }
                if (cp == 0) return *why = "holds a NUL character", false;
            }
        }
        if (!put_utf8(out, &n, size, cp)) return false;
    }
    out[n] = '\0';
    return true;
}

/* Applies one "<bone>": value entry. */
static ossa_result apply_entry(const map_reader *r, const char *side, int key, int value, bool *seen,
                               ossa_retarget_map *map) {
    char path[160], bone_name[40], name[NAME_MAX_BYTES];
    const char *why = NULL;
    pointer_to(r, side, key, path, sizeof path);
    if (!unescape(r, key, bone_name, sizeof bone_name, &why)) {
        return fail(r->diag, OSSA_ERROR_INVALID_DATA, path, "not a profile bone (see docs/retargeting.md)");
    }
    int32_t bone = ossa_humanoid_bone_from_name(bone_name);
    if (bone < 0) return fail(r->diag, OSSA_ERROR_INVALID_DATA, path, "not a profile bone (see docs/retargeting.md)");
    if (seen[bone]) return fail(r->diag, OSSA_ERROR_INVALID_DATA, path, "bone %s given twice", bone_name);
    seen[bone] = true;
    const jsmntok_t *v = &r->tokens[value];
    if (v->type == JSMN_PRIMITIVE && token_equals(r, value, "null")) {
        map->joints[bone] = -1;
        return OSSA_OK;
    }
    if (v->type != JSMN_STRING) {
        return fail(r->diag, OSSA_ERROR_INVALID_DATA, path, "must be a joint name (a string) or null");
    }
    if (!unescape(r, value, name, sizeof name, &why)) {
        return fail(r->diag, OSSA_ERROR_INVALID_DATA, path, "the joint name %s", why);
    }
    int32_t joint = ossa_skeleton_find_joint(r->skeleton, name);
    if (joint < 0) return fail(r->diag, OSSA_ERROR_INVALID_DATA, path, "the skeleton has no joint named '%.160s'", name);
    map->joints[bone] = joint;
    return OSSA_OK;
}

static ossa_result apply_side(const map_reader *r, const char *side, int object, ossa_retarget_map *map) {
    char path[64];
    snprintf(path, sizeof path, "/%s", side);
    if (r->tokens[object].type != JSMN_OBJECT) {
        return fail(r->diag, OSSA_ERROR_INVALID_DATA, path, "must be an object of \"<bone>\": \"<joint name>\" | null");
    }
    bool seen[OSSA_HUMANOID_BONE_COUNT] = {false};
    int tok = object + 1;
    for (int i = 0; i < r->tokens[object].size; i++) {
        if (!is_key(r, tok)) return fail(r->diag, OSSA_ERROR_PARSE, path, "broken JSON: a key without a value");
        ossa_result res = apply_entry(r, side, tok, tok + 1, seen, map);
        if (res != OSSA_OK) return res;
        tok = skip_token(r, tok + 1);
    }
    return OSSA_OK;
}

static ossa_result check_depth(const map_reader *r) {
    for (int t = 0; t < r->count; t++) {
        int depth = 0;
        for (int p = r->tokens[t].parent; p >= 0 && depth <= MAP_MAX_DEPTH; p = r->tokens[p].parent) depth++;
        if (depth > MAP_MAX_DEPTH) return fail(r->diag, OSSA_ERROR_LIMIT, "", "nested deeper than %d", MAP_MAX_DEPTH);
    }
    return OSSA_OK;
}

static ossa_result apply_document(const map_reader *r, const char *side, ossa_retarget_map *map) {
    ossa_result res = check_depth(r);
    if (res != OSSA_OK) return res;
    if (r->count < 1 || r->tokens[0].type != JSMN_OBJECT) {
        return fail(r->diag, OSSA_ERROR_INVALID_DATA, "", "must be a JSON object with \"source\" and/or \"target\"");
    }
    int found = -1, tok = 1;
    for (int i = 0; i < r->tokens[0].size; i++) {
        if (!is_key(r, tok)) return fail(r->diag, OSSA_ERROR_PARSE, "", "broken JSON: a key without a value");
        if (token_equals(r, tok, side)) {
            if (found >= 0) return fail(r->diag, OSSA_ERROR_INVALID_DATA, side[0] == 's' ? "/source" : "/target", "given twice");
            found = tok + 1;
        }
        tok = skip_token(r, tok + 1);
    }
    return found >= 0 ? apply_side(r, side, found, map) : OSSA_OK;
}

ossa_result ossa_retarget_map_load_json(const char *json, size_t size, const char *side,
                                        const ossa_skeleton *skeleton, ossa_retarget_map *map,
                                        ossa_diagnostic *diag) {
    if (!side || (strcmp(side, "source") && strcmp(side, "target"))) {
        return fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "side", "must be \"source\" or \"target\"");
    }
    if (!json || !skeleton || !map) return fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "", "NULL json, skeleton or map");
    if (size > MAP_MAX_BYTES) return fail(diag, OSSA_ERROR_LIMIT, "", "larger than %u bytes", MAP_MAX_BYTES);
    jsmn_parser parser;
    jsmn_init(&parser);
    int count = jsmn_parse(&parser, json, size, NULL, 0);
    if (count < 0) return fail(diag, OSSA_ERROR_PARSE, "", "broken JSON near byte %u", (unsigned)parser.pos);
    jsmntok_t *tokens = ossa__alloc_array(NULL, count ? (size_t)count : 1, sizeof *tokens);
    if (!tokens) return fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "", "out of memory");
    jsmn_init(&parser);
    count = jsmn_parse(&parser, json, size, tokens, (unsigned)count);
    ossa_result res = OSSA_OK;
    if (count < 0) res = fail(diag, OSSA_ERROR_PARSE, "", "broken JSON near byte %u", (unsigned)parser.pos);
    ossa_retarget_map work = *map;
    map_reader reader = {json, tokens, count, skeleton, diag};
    if (res == OSSA_OK) res = apply_document(&reader, side, &work);
    if (res == OSSA_OK) *map = work;
    ossa__free(NULL, tokens);
    return res;
}

ossa_result ossa_retarget_map_load_file(const char *path, const char *side, const ossa_skeleton *skeleton,
                                        ossa_retarget_map *map, ossa_diagnostic *diag) {
    if (!path) return fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "", "NULL path");
    FILE *f = fopen(path, "rb");
    if (!f) return fail(diag, OSSA_ERROR_IO, "", "cannot open %.200s", path);
    char *buffer = ossa__alloc(NULL, MAP_MAX_BYTES + 1);
    size_t size = buffer ? fread(buffer, 1, MAP_MAX_BYTES + 1, f) : 0;
    bool error = ferror(f) != 0;
    fclose(f);
    ossa_result res;
    if (!buffer) res = fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "", "out of memory");
    else if (error) res = fail(diag, OSSA_ERROR_IO, "", "cannot read %.200s", path);
    else res = ossa_retarget_map_load_json(buffer, size, side, skeleton, map, diag);
    ossa__free(NULL, buffer);
    return res;
}

/* ---- the writer ---- */

typedef struct text {
    char *out;
    size_t capacity, length;
} text;

static void put_char(text *t, char c) {
    if (t->out && t->length + 1 < t->capacity) t->out[t->length] = c;
    t->length++;
}

static void put_string(text *t, const char *s) {
    while (*s) put_char(t, *s++);
}

static void put_json_string(text *t, const char *s) {
    put_char(t, '"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') put_char(t, '\\'), put_char(t, (char)c);
        else if (c < 0x20) {
            char u[8];
            snprintf(u, sizeof u, "\\u%04x", (unsigned)c);
            put_string(t, u);
        } else put_char(t, (char)c);
    }
    put_char(t, '"');
}

size_t ossa_retarget_map_to_json(const ossa_retarget_map *map, const ossa_skeleton *skeleton, char *out,
                                 size_t capacity) {
    if (out && capacity) out[0] = '\0';
    if (!map || !skeleton) return 0;
    text t = {out, capacity, 0};
    put_string(&t, "{");
    for (int b = 0; b < OSSA_HUMANOID_BONE_COUNT; b++) {
        put_string(&t, b ? ",\n  \"" : "\n  \"");
        put_string(&t, ossa_humanoid_bone_name((ossa_humanoid_bone)b));
        put_string(&t, "\": ");
        int32_t j = map->joints[b];
        if (j >= 0 && (uint32_t)j < skeleton->joint_count) put_json_string(&t, skeleton->names[j]);
        else put_string(&t, "null");
    }
    put_string(&t, "\n}\n");
    if (out && capacity) out[t.length < capacity ? t.length : capacity - 1] = '\0';
    return t.length;
}
