/* A small glTF 2.0 writer and JSON reader for tests (not part of the library).
 *
 * Writer: build a document from raw JSON fragments plus binary data, then
 * serialise it as .gltf with a data: URI, .gltf with an external .bin, or .glb.
 *     gw *w = gw_create();
 *     int pos = gw_data(w, GW_FLOAT, false, 3, "VEC3", positions);   // view + accessor
 *     gw_add(w, "meshes", "{\"primitives\": [{\"attributes\": {\"POSITION\": %d}}]}", pos);
 *     gw_add(w, "nodes", "{\"mesh\": 0}");
 *     size_t n; uint8_t *bytes = gw_finish(w, GW_GLB, NULL, NULL, &n);
 * Reader: a jsmn-based JSON pointer lookup ("/animations/0/samplers/1/input") and
 * an independent accessor reader (data: URIs and external buffers) for reference
 * computations in tests. Aborts the test on malformed input. */
#ifndef OSSA_TEST_GLTF_WRITER_H
#define OSSA_TEST_GLTF_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    GW_BYTE = 5120,
    GW_UBYTE = 5121,
    GW_SHORT = 5122,
    GW_USHORT = 5123,
    GW_UINT = 5125,
    GW_FLOAT = 5126
};

typedef enum gw_container { GW_EMBEDDED, GW_EXTERNAL, GW_GLB } gw_container;

typedef struct gw gw;

gw *gw_create(void);
void gw_destroy(gw *w);
/* Appends bytes to the binary buffer (4-byte aligned) and adds a bufferView
 * (byteStride when stride != 0). Returns the view index. */
int gw_view(gw *w, const void *data, size_t size, uint32_t stride);
/* Adds an accessor; view < 0 = no bufferView. extra: raw JSON members appended
 * inside the object (e.g. "\"sparse\": {...}") or NULL. Returns its index. */
int gw_accessor(gw *w, int view, size_t byte_offset, uint32_t component_type, bool normalized, uint32_t count,
                const char *type, const char *extra);
/* Tightly packed data → a new view + accessor. Returns the accessor index. */
int gw_data(gw *w, uint32_t component_type, bool normalized, uint32_t count, const char *type, const void *data);
/* Appends a raw JSON value (printf format) to the top-level array `array`; returns its index. */
int gw_add(gw *w, const char *array, const char *fmt, ...);
/* Appends a raw top-level member, e.g. gw_top(w, "\"scene\": 0"). */
void gw_top(gw *w, const char *fmt, ...);
/* Serialises the document (the writer stays usable). EXTERNAL writes the binary
 * to bin_path and references it as bin_uri. Returns malloc'd bytes. */
uint8_t *gw_finish(gw *w, gw_container container, const char *bin_uri, const char *bin_path, size_t *size);
/* Writes bytes to a file; returns 0 on success. */
int gw_write_file(const char *path, const void *data, size_t size);
/* Serialises *w as GLB or embedded .gltf into path, then destroys it (*w = NULL) either way;
 * returns 0 on success. */
int gw_save(gw **w, gw_container container, const char *path);
/* Component count of "SCALAR".."MAT4" and byte size of a component type. */
uint32_t gw_type_components(const char *type);
uint32_t gw_component_size(uint32_t component_type);

/* ---- reader ---- */
typedef struct gj gj;
/* Parses JSON text (copied); NULL on a syntax error. */
gj *gj_parse(const char *text, size_t size);
void gj_free(gj *j);
/* Token index of a JSON pointer ("" = root), or -1. */
int gj_find(const gj *j, const char *pointer);
int gj_findf(const gj *j, const char *fmt, ...);
/* Values of a token: number (NaN if not a number / null), string copy (static, 256 bytes). */
double gj_num(const gj *j, int tok);
const char *gj_str(const gj *j, int tok);
int gj_size(const gj *j, int tok);        /* children of an array/object, -1 if absent */
bool gj_is_null(const gj *j, int tok);

/* Independent glTF accessor reader over a parsed document: loads buffers
 * (external relative to dir, or data: base64), reads accessor `index` as floats
 * (any component type, normalization applied, byteStride honoured, sparse
 * applied). Returns malloc'd count*components floats and sets count and components. */
typedef struct gr gr;
gr *gr_open(const char *gltf_path); /* .gltf text only */
void gr_close(gr *r);
const gj *gr_json(const gr *r);
float *gr_accessor(gr *r, int index, uint32_t *count, uint32_t *components);

/* A whole file, malloc'd and NUL-terminated (caller frees); NULL when it cannot be opened. */
uint8_t *gw_read_all(const char *path, size_t *size);

#endif
