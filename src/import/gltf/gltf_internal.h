/* Internal state of one glTF load (src/import, not installed).
 *
 * Layers: json.c (jsmn tokens, subtree ends, typed getters that name the JSON
 * place on error), buffers.c (files, data: URIs, base64, percent-decoding, GLB
 * container), accessor.c (bufferViews and accessors, sparse, every read
 * bounds-checked), asset.c (document → skeleton, skins, meshes, clips). The
 * document state (ossa__gltf_doc) hangs off the shared load context (context.h:
 * ossa__gltf_attach); every temporary allocation goes through ossa__ctx_alloc, which
 * enforces options->max_allocation. Nothing here recurses over file data. */
#ifndef OSSA_IMPORT_GLTF_INTERNAL_H
#define OSSA_IMPORT_GLTF_INTERNAL_H

#include <ossa/gltf.h>

#include "build/context.h"

#define OSSA__JSON_MAX_DEPTH 128 /* glTF needs < 16; deeper JSON (even in extras) is a PARSE error */

typedef enum ossa__jtype {
    OSSA__J_NONE = 0,
    OSSA__J_OBJECT,
    OSSA__J_ARRAY,
    OSSA__J_STRING,
    OSSA__J_PRIMITIVE
} ossa__jtype;

typedef struct ossa__jtok {
    ossa__jtype type;
    uint32_t start, end; /* byte range in the JSON text (strings: without quotes) */
    uint32_t size;       /* children: keys for objects, elements for arrays */
    uint32_t next;       /* index of the first token after this subtree */
} ossa__jtok;

typedef struct ossa__buffer {
    const uint8_t *data;
    size_t size;       /* bytes available (>= declared byteLength once resolved) */
    size_t declared;   /* byteLength */
    void *owned;       /* freed at the end of the load */
    bool writable;     /* data is this load's own scratch copy (decoded data: URI): accessors may point into it */
    const char *base64; /* data: URI in the JSON text, checked, decoded on demand (data NULL): */
    size_t base64_len;  /* its characters without padding (ossa__buffer_bytes / ossa__buffer_copy) */
    void *mapped;      /* external file mapped read-only (unmapped at the end of the load), or NULL */
    size_t mapped_size;
    ossa_result deferred;       /* != OK: not loaded (why below); an error only if an accessor read uses it */
    ossa_diagnostic *deferred_diag;
} ossa__buffer;

typedef struct ossa__view {
    uint32_t buffer;
    size_t offset, length;
    uint32_t stride; /* 0 = tightly packed */
} ossa__view;

typedef struct ossa__accessor {
    int32_t view;         /* -1 = none (zeros) */
    size_t offset;
    uint32_t component_type;
    bool normalized;
    uint32_t count;
    uint32_t components;  /* 1, 2, 3, 4, 4 (MAT2), 9, 16 */
    uint32_t columns;     /* 1 for vectors, 2/3/4 for matrices */
    const char *type_name; /* "unknown" when the file's type is not a glTF type (an error only if read) */
    int32_t sparse_tok;   /* token of the sparse object, or -1 */
} ossa__accessor;

typedef struct ossa__gltf_doc {
    const char *json;
    size_t json_size;
    ossa__jtok *tok;
    uint32_t tok_count;

    const uint8_t *glb_bin;
    size_t glb_bin_size;
    bool is_glb;
    const char *base_dir;

    uint32_t buffer_count;
    ossa__buffer *buffers;
    uint32_t view_count;
    ossa__view *views;
    uint32_t accessor_count;
    ossa__accessor *accessors;
    bool releasing; /* ossa__gltf_release: buffers are being freed themselves */
} ossa__gltf_doc;

/* ---- the document in the load context (context.h) ---- */
/* Points ctx at doc (zeroed; base_dir from options) and installs the glTF hooks. */
void ossa__gltf_attach(ossa__ctx *ctx, ossa__gltf_doc *doc, const ossa_load_options *options);
/* The error of buffer b when it was not loaded (see ossa__buffer.deferred), else OK. */
ossa_result ossa__buffer_usable(ossa__ctx *ctx, uint32_t b);

/* ---- json.c ---- */
/* Tokenises ctx->json (must be one top-level object). */
ossa_result ossa__json_parse(ossa__ctx *ctx);
/* The tokeniser's parts, exposed for the test that checks them against one jsmn_parse call. */
#define OSSA__JSON_MAX_SKIPS 16
typedef struct ossa__json_skip {
    size_t open, close; /* byte offsets of the quotes of a long string without escapes or NULs */
} ossa__json_skip;
/* One pass over js: *bound = token count bound, up to OSSA__JSON_MAX_SKIPS long strings
 * (ossa__json_tokenize skips them). Returns the byte offset where nesting exceeds
 * OSSA__JSON_MAX_DEPTH, or SIZE_MAX. */
size_t ossa__json_scan(const char *js, size_t len, size_t *bound, ossa__json_skip *skips, uint32_t *skip_count);
/* jsmn (strict, parent links) over js into `tokens` (jsmntok_t[capacity]) with the skips
 * tokenised without jsmn's character loop: the same return value, tokens and *pos (the
 * parser's position) as one jsmn_parse call over the whole text. */
int ossa__json_tokenize(const char *js, size_t len, const ossa__json_skip *skips, uint32_t skip_count, void *tokens,
                        unsigned capacity, unsigned *pos);
/* Value token of `key` in object token obj, or -1. */
int32_t ossa__json_find(const ossa__ctx *ctx, int32_t obj, const char *key);
bool ossa__json_eq(const ossa__ctx *ctx, int32_t tok, const char *s);
/* Child i of an array token (walks siblings; O(i)). Use ossa__json_first/next for loops. */
int32_t ossa__json_first(const ossa__ctx *ctx, int32_t container);
int32_t ossa__json_next(const ossa__ctx *ctx, int32_t tok); /* next sibling value (skips keys' values) */

/* Typed getters. "Optional" getters return OK with *present = false when the key is
 * absent; all fail with INVALID_DATA naming path/key on a wrong type or range. */
ossa_result ossa__json_number(ossa__ctx *ctx, int32_t tok, const char *path, double *out);
ossa_result ossa__json_get_uint(ossa__ctx *ctx, int32_t obj, const char *path, const char *key, bool required,
                                uint64_t max, uint64_t *out, bool *present);
ossa_result ossa__json_get_index(ossa__ctx *ctx, int32_t obj, const char *path, const char *key, bool required,
                                 uint32_t count, const char *what, int32_t *out);
ossa_result ossa__json_get_bool(ossa__ctx *ctx, int32_t obj, const char *path, const char *key, bool *out);
/* Float array of exactly n numbers; *present false when absent. */
ossa_result ossa__json_get_floats(ossa__ctx *ctx, int32_t obj, const char *path, const char *key, float *out,
                                  uint32_t n, bool *present);
/* Typed container lookups: token or -1 when absent; INVALID_DATA when present with another type. */
ossa_result ossa__json_get_array(ossa__ctx *ctx, int32_t obj, const char *path, const char *key, int32_t *out);
ossa_result ossa__json_get_object(ossa__ctx *ctx, int32_t obj, const char *path, const char *key, int32_t *out);
/* Decoded (unescaped, UTF-8) copy of string token tok, NUL-terminated, from the budget. */
ossa_result ossa__json_string_dup(ossa__ctx *ctx, int32_t tok, const char *path, char **out);
/* Optional string member: NULL when absent; a non-string value is a warning, treated as absent. */
ossa_result ossa__json_get_string(ossa__ctx *ctx, int32_t obj, const char *path, const char *key, char **out);
/* Array elements that must be objects: fills *count and *items (token indices, from the budget). */
ossa_result ossa__json_object_array(ossa__ctx *ctx, int32_t obj, const char *path, const char *key,
                                    uint32_t *count, int32_t **items);

/* ---- buffers.c ---- */
/* Standard base64 (with optional padding, no whitespace). Decoded length bound: */
size_t ossa__base64_decoded_bound(size_t len);
/* Returns false on an invalid character or length. *out_len receives decoded bytes. */
bool ossa__base64_decode(const char *in, size_t len, uint8_t *out, size_t *out_len);
/* The same without the SIMD (AVX2) path: the reference the tests hold it to. */
bool ossa__base64_decode_scalar(const char *in, size_t len, uint8_t *out, size_t *out_len);
/* Whether ossa__base64_decode would accept in[0, len), without decoding it anywhere:
 * *text_len = the characters without padding, *out_len = the decoded size. */
bool ossa__base64_check(const char *in, size_t len, size_t *text_len, size_t *out_len);
/* Decoded bytes [offset, offset + length) of checked base64 text (text_len characters,
 * no padding) into out: the same bytes as ossa__base64_decode of the whole text, with
 * no other byte of out written. */
void ossa__base64_decode_range(const char *in, size_t text_len, size_t offset, size_t length, uint8_t *out);
/* Percent-decodes a URI reference (%XX); false on a malformed escape or an embedded NUL. */
bool ossa__uri_decode(const char *in, char *out, size_t out_size);
/* A whole file, memory-mapped read-only (*mapped true; not counted against max_allocation,
 * as it is not allocated) or, where mapping fails, read into a budgeted allocation; IO
 * error naming `path_json` on failure. Release with ossa__release_file. */
ossa_result ossa__read_file(ossa__ctx *ctx, const char *file, const char *path_json, uint8_t **out, size_t *size,
                           bool *mapped);
void ossa__release_file(ossa__ctx *ctx, uint8_t *data, size_t size, bool mapped);
/* Splits a .glb container (or sets json to the whole input for .gltf text). */
ossa_result ossa__container_open(ossa__ctx *ctx, const uint8_t *data, size_t size);
/* Resolves every buffer (GLB BIN, data: URIs, external files). */
ossa_result ossa__buffers_load(ossa__ctx *ctx);
/* Bytes [offset, offset + length) of resolved buffer b (the range checked by the caller):
 * a pointer into the buffer, or for a data: URI decoded on demand, into *scratch (a budget
 * allocation the caller frees with ossa__ctx_free; NULL when none was needed). NULL on failure. */
const uint8_t *ossa__buffer_bytes(ossa__ctx *ctx, uint32_t b, size_t offset, size_t length, void **scratch);
/* The same bytes copied (or decoded) straight into dst. */
void ossa__buffer_copy(const ossa__ctx *ctx, uint32_t b, size_t offset, size_t length, uint8_t *dst);

/* ---- accessor.c ---- */
ossa_result ossa__views_parse(ossa__ctx *ctx);
ossa_result ossa__accessors_parse(ossa__ctx *ctx);
/* Decodes accessor `index` into count * components floats (normalized per spec,
 * sparse applied, non-finite values rejected). `out` from the budget. */
ossa_result ossa__accessor_read_floats(ossa__ctx *ctx, uint32_t index, float **out);
/* The floats of read_floats may point into a (read-only) buffer: callers must not modify
 * them. This variant returns floats the caller may modify in place. Free both with
 * ossa__ctx_free. */
ossa_result ossa__accessor_read_floats_mutable(ossa__ctx *ctx, uint32_t index, float **out);
/* Same for unsigned integer accessors (indices, joints): non-normalized
 * UNSIGNED_BYTE/SHORT/INT only. */
ossa_result ossa__accessor_read_uints(ossa__ctx *ctx, uint32_t index, uint32_t **out);

#endif
