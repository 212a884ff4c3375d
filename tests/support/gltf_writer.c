/* Test-side glTF writer and independent reader (see gltf_writer.h). */
#include "gltf_writer.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSMN_STATIC
#include <jsmn.h>

/* ------------------------------------------------------------ strings */

typedef struct sbuf {
    char *p;
    size_t n, cap;
} sbuf;

static void sb_grow(sbuf *s, size_t add) {
    if (s->n + add + 1 <= s->cap) return;
    size_t cap = s->cap ? s->cap : 256;
    while (cap < s->n + add + 1) cap *= 2;
    s->p = realloc(s->p, cap);
    if (!s->p) abort();
    s->cap = cap;
}

static void sb_vprintf(sbuf *s, const char *fmt, va_list ap) {
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    if (n < 0) abort();
    sb_grow(s, (size_t)n);
    vsnprintf(s->p + s->n, (size_t)n + 1, fmt, ap);
    s->n += (size_t)n;
}

static void sb_printf(sbuf *s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(s, fmt, ap);
    va_end(ap);
}

static void sb_bytes(sbuf *s, const void *d, size_t n) {
    sb_grow(s, n);
    memcpy(s->p + s->n, d, n);
    s->n += n;
}

/* ------------------------------------------------------------ writer */

#define GW_MAX_ARRAYS 16

struct gw {
    sbuf bin;
    struct { char name[32]; sbuf items; int count; } arrays[GW_MAX_ARRAYS];
    int array_count;
    sbuf top;
};

gw *gw_create(void) {
    gw *w = calloc(1, sizeof *w);
    if (!w) abort();
    return w;
}

void gw_destroy(gw *w) {
    if (!w) return;
    free(w->bin.p);
    for (int i = 0; i < w->array_count; i++) free(w->arrays[i].items.p);
    free(w->top.p);
    free(w);
}

uint32_t gw_type_components(const char *type) {
    if (!strcmp(type, "SCALAR")) return 1;
    if (!strcmp(type, "VEC2")) return 2;
    if (!strcmp(type, "VEC3")) return 3;
    if (!strcmp(type, "VEC4") || !strcmp(type, "MAT2")) return 4;
    if (!strcmp(type, "MAT3")) return 9;
    if (!strcmp(type, "MAT4")) return 16;
    return 0;
}

uint32_t gw_component_size(uint32_t ct) {
    return ct == GW_BYTE || ct == GW_UBYTE ? 1 : ct == GW_SHORT || ct == GW_USHORT ? 2 : 4;
}

static int add_item(gw *w, const char *array, const char *fmt, va_list ap) {
    int a = -1;
    for (int i = 0; i < w->array_count; i++)
        if (!strcmp(w->arrays[i].name, array)) a = i;
    if (a < 0) {
        if (w->array_count == GW_MAX_ARRAYS) abort();
        a = w->array_count++;
        snprintf(w->arrays[a].name, sizeof w->arrays[a].name, "%s", array);
    }
    if (w->arrays[a].count) sb_printf(&w->arrays[a].items, ",\n    ");
    sb_vprintf(&w->arrays[a].items, fmt, ap);
    return w->arrays[a].count++;
}

int gw_add(gw *w, const char *array, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int i = add_item(w, array, fmt, ap);
    va_end(ap);
    return i;
}

static int add_fmt(gw *w, const char *array, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int i = add_item(w, array, fmt, ap);
    va_end(ap);
    return i;
}

void gw_top(gw *w, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    sb_printf(&w->top, ",\n  ");
    sb_vprintf(&w->top, fmt, ap);
    va_end(ap);
}

int gw_view(gw *w, const void *data, size_t size, uint32_t stride) {
    while (w->bin.n % 4) sb_bytes(&w->bin, "", 1);
    size_t off = w->bin.n;
    sb_bytes(&w->bin, data, size);
    if (stride)
        return add_fmt(w, "bufferViews", "{\"buffer\": 0, \"byteOffset\": %zu, \"byteLength\": %zu, \"byteStride\": %u}", off,
                       size, stride);
    return add_fmt(w, "bufferViews", "{\"buffer\": 0, \"byteOffset\": %zu, \"byteLength\": %zu}", off, size);
}

int gw_accessor(gw *w, int view, size_t byte_offset, uint32_t component_type, bool normalized, uint32_t count,
                const char *type, const char *extra) {
    char v[64] = "";
    if (view >= 0) snprintf(v, sizeof v, "\"bufferView\": %d, \"byteOffset\": %zu, ", view, byte_offset);
    return add_fmt(w, "accessors", "{%s\"componentType\": %u, %s\"count\": %u, \"type\": \"%s\"%s%s}", v, component_type,
                   normalized ? "\"normalized\": true, " : "", count, type, extra ? ", " : "", extra ? extra : "");
}

int gw_data(gw *w, uint32_t component_type, bool normalized, uint32_t count, const char *type, const void *data) {
    size_t size = (size_t)count * gw_type_components(type) * gw_component_size(component_type);
    int view = gw_view(w, data, size, 0);
    return gw_accessor(w, view, 0, component_type, normalized, count, type, NULL);
}

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void b64_encode(sbuf *s, const uint8_t *d, size_t n) {
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)d[i] << 16 | (i + 1 < n ? (uint32_t)d[i + 1] << 8 : 0) | (i + 2 < n ? d[i + 2] : 0);
        char q[4] = {B64[v >> 18 & 63], B64[v >> 12 & 63], i + 1 < n ? B64[v >> 6 & 63] : '=', i + 2 < n ? B64[v & 63] : '='};
        sb_bytes(s, q, 4);
    }
}

static void put32(sbuf *s, uint32_t v) {
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    sb_bytes(s, b, 4);
}

uint8_t *gw_finish(gw *w, gw_container container, const char *bin_uri, const char *bin_path, size_t *size) {
    sbuf j = {0};
    sb_printf(&j, "{\n  \"asset\": {\"version\": \"2.0\", \"generator\": \"ossa tests\"}");
    if (w->bin.n) {
        size_t len = w->bin.n;
        if (container == GW_GLB) {
            sb_printf(&j, ",\n  \"buffers\": [{\"byteLength\": %zu}]", len);
        } else if (container == GW_EXTERNAL) {
            if (gw_write_file(bin_path, w->bin.p, len)) abort();
            sb_printf(&j, ",\n  \"buffers\": [{\"byteLength\": %zu, \"uri\": \"%s\"}]", len, bin_uri);
        } else {
            sb_printf(&j, ",\n  \"buffers\": [{\"byteLength\": %zu, \"uri\": \"data:application/octet-stream;base64,", len);
            b64_encode(&j, (const uint8_t *)w->bin.p, len);
            sb_printf(&j, "\"}]");
        }
    }
    for (int i = 0; i < w->array_count; i++)
        sb_printf(&j, ",\n  \"%s\": [\n    %.*s]", w->arrays[i].name, (int)w->arrays[i].items.n,
                  w->arrays[i].items.p ? w->arrays[i].items.p : "");
    if (w->top.n) sb_bytes(&j, w->top.p, w->top.n);
    sb_printf(&j, "\n}\n");
    if (container != GW_GLB) {
        *size = j.n;
        return (uint8_t *)j.p;
    }
    while (j.n % 4) sb_bytes(&j, " ", 1);
    size_t bin_len = (w->bin.n + 3) & ~(size_t)3;
    size_t total = 12 + 8 + j.n + (w->bin.n ? 8 + bin_len : 0);
    sbuf g = {0};
    sb_bytes(&g, "glTF", 4);
    put32(&g, 2);
    put32(&g, (uint32_t)total);
    put32(&g, (uint32_t)j.n);
    put32(&g, 0x4E4F534Au);
    sb_bytes(&g, j.p, j.n);
    if (w->bin.n) {
        put32(&g, (uint32_t)bin_len);
        put32(&g, 0x004E4942u);
        sb_bytes(&g, w->bin.p, w->bin.n);
        while (g.n % 4) sb_bytes(&g, "", 1);
    }
    free(j.p);
    *size = g.n;
    return (uint8_t *)g.p;
}

int gw_write_file(const char *path, const void *data, size_t size) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t n = fwrite(data, 1, size, f);
    return fclose(f) || n != size ? -1 : 0;
}

int gw_save(gw **w, gw_container container, const char *path) {
    size_t size = 0;
    uint8_t *bytes = gw_finish(*w, container, NULL, NULL, &size);
    int status = bytes ? gw_write_file(path, bytes, size) : -1;
    free(bytes);
    gw_destroy(*w);
    *w = NULL;
    return status;
}

/* ------------------------------------------------------------ JSON reader */

struct gj {
    char *text;
    jsmntok_t *t;
    int n;
};

gj *gj_parse(const char *text, size_t size) {
    gj *j = calloc(1, sizeof *j);
    if (!j) abort();
    j->text = malloc(size + 1);
    if (!j->text) abort();
    memcpy(j->text, text, size);
    j->text[size] = 0;
    jsmn_parser p;
    jsmn_init(&p);
    int n = jsmn_parse(&p, j->text, size, NULL, 0);
    if (n <= 0) {
        gj_free(j);
        return NULL;
    }
    j->t = calloc((size_t)n, sizeof *j->t);
    if (!j->t) abort();
    jsmn_init(&p);
    if (jsmn_parse(&p, j->text, size, j->t, (unsigned)n) != n) {
        gj_free(j);
        return NULL;
    }
    j->n = n;
    return j;
}

void gj_free(gj *j) {
    if (!j) return;
    free(j->text);
    free(j->t);
    free(j);
}

static int skip(const gj *j, int i) {
    int pending = 1;
    while (pending > 0 && i < j->n) {
        pending += j->t[i].size - 1;
        i++;
    }
    return i;
}

int gj_find(const gj *j, const char *pointer) {
    int cur = 0;
    const char *s = pointer;
    while (*s == '/') {
        s++;
        const char *e = strchr(s, '/');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        const jsmntok_t *t = &j->t[cur];
        int child = cur + 1, found = -1;
        if (t->type == JSMN_OBJECT) {
            for (int k = 0; k < t->size; k++) {
                const jsmntok_t *key = &j->t[child];
                if ((size_t)(key->end - key->start) == len && !memcmp(j->text + key->start, s, len)) {
                    found = child + 1;
                    break;
                }
                child = skip(j, child + 1);
            }
        } else if (t->type == JSMN_ARRAY) {
            int idx = atoi(s);
            if (idx < 0 || idx >= t->size) return -1;
            for (int k = 0; k < idx; k++) child = skip(j, child);
            found = child;
        }
        if (found < 0) return -1;
        cur = found;
        s += len;
    }
    return cur;
}

int gj_findf(const gj *j, const char *fmt, ...) {
    char p[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p, sizeof p, fmt, ap);
    va_end(ap);
    return gj_find(j, p);
}

double gj_num(const gj *j, int tok) {
    if (tok < 0 || j->t[tok].type != JSMN_PRIMITIVE) return NAN;
    char c = j->text[j->t[tok].start];
    if (c != '-' && (c < '0' || c > '9')) return NAN;
    return strtod(j->text + j->t[tok].start, NULL);
}

const char *gj_str(const gj *j, int tok) {
    static char buf[256];
    if (tok < 0 || j->t[tok].type != JSMN_STRING) return NULL;
    int n = j->t[tok].end - j->t[tok].start;
    if (n > 255) n = 255;
    memcpy(buf, j->text + j->t[tok].start, (size_t)n);
    buf[n] = 0;
    return buf;
}

int gj_size(const gj *j, int tok) { return tok < 0 ? -1 : j->t[tok].size; }

bool gj_is_null(const gj *j, int tok) {
    return tok >= 0 && j->t[tok].type == JSMN_PRIMITIVE && j->text[j->t[tok].start] == 'n';
}

/* ------------------------------------------------------------ accessor reader */

struct gr {
    gj *json;
    int buffer_count;
    uint8_t **buffers;
    size_t *sizes;
};

uint8_t *gw_read_all(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *d = malloc((size_t)n + 1);
    if (!d || fread(d, 1, (size_t)n, f) != (size_t)n) abort();
    fclose(f);
    d[n] = 0;
    *size = (size_t)n;
    return d;
}

static int b64v(char c) {
    const char *p = strchr(B64, c);
    return c && p ? (int)(p - B64) : -1;
}

gr *gr_open(const char *path) {
    size_t size;
    uint8_t *text = gw_read_all(path, &size);
    if (!text) return NULL;
    gr *r = calloc(1, sizeof *r);
    if (!r) abort();
    r->json = gj_parse((const char *)text, size);
    free(text);
    if (!r->json) {
        free(r);
        return NULL;
    }
    int bufs = gj_find(r->json, "/buffers");
    r->buffer_count = bufs < 0 ? 0 : gj_size(r->json, bufs);
    r->buffers = calloc((size_t)r->buffer_count + 1, sizeof *r->buffers);
    r->sizes = calloc((size_t)r->buffer_count + 1, sizeof *r->sizes);
    if (!r->buffers || !r->sizes) abort();
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) slash[1] = 0;
    else dir[0] = 0;
    for (int b = 0; b < r->buffer_count; b++) {
        const char *uri = gj_str(r->json, gj_findf(r->json, "/buffers/%d/uri", b));
        if (!uri) continue;
        if (!strncmp(uri, "data:", 5)) {
            int tok = gj_findf(r->json, "/buffers/%d/uri", b);
            const char *s = r->json->text + r->json->t[tok].start;
            const char *e = r->json->text + r->json->t[tok].end;
            const char *c = memchr(s, ',', (size_t)(e - s));
            if (!c) continue;
            c++;
            uint8_t *d = malloc((size_t)(e - c) + 4);
            if (!d) abort();
            size_t o = 0;
            uint32_t acc = 0;
            int bits = 0;
            for (const char *q = c; q < e && *q != '='; q++) {
                int v = b64v(*q);
                if (v < 0) break;
                acc = acc << 6 | (uint32_t)v;
                bits += 6;
                if (bits >= 8) {
                    bits -= 8;
                    d[o++] = (uint8_t)(acc >> bits);
                }
            }
            r->buffers[b] = d;
            r->sizes[b] = o;
        } else {
            char full[2048];
            snprintf(full, sizeof full, "%s%s", dir, uri);
            r->buffers[b] = gw_read_all(full, &r->sizes[b]);
        }
    }
    return r;
}

void gr_close(gr *r) {
    if (!r) return;
    for (int b = 0; b < r->buffer_count; b++) free(r->buffers[b]);
    free(r->buffers);
    free(r->sizes);
    gj_free(r->json);
    free(r);
}

const gj *gr_json(const gr *r) { return r->json; }

static double comp(const uint8_t *p, uint32_t ct, bool norm) {
    switch (ct) {
    case GW_BYTE: { int8_t v; memcpy(&v, p, 1); return norm ? fmax(v / 127.0, -1.0) : v; }
    case GW_UBYTE: return norm ? p[0] / 255.0 : p[0];
    case GW_SHORT: { int16_t v; memcpy(&v, p, 2); return norm ? fmax(v / 32767.0, -1.0) : v; }
    case GW_USHORT: { uint16_t v; memcpy(&v, p, 2); return norm ? v / 65535.0 : v; }
    case GW_UINT: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { float v; memcpy(&v, p, 4); return v; }
    }
}

/* element-wise read of `count` elements starting at base with stride (vectors only; MAT4 float has no padding) */
static void read_elems(const uint8_t *base, size_t stride, uint32_t count, uint32_t comps, uint32_t ct, bool norm,
                       float *out) {
    uint32_t cs = gw_component_size(ct);
    for (uint32_t i = 0; i < count; i++)
        for (uint32_t c = 0; c < comps; c++) out[(size_t)i * comps + c] = (float)comp(base + i * stride + c * cs, ct, norm);
}

float *gr_accessor(gr *r, int index, uint32_t *count, uint32_t *components) {
    const gj *j = r->json;
    uint32_t n = (uint32_t)gj_num(j, gj_findf(j, "/accessors/%d/count", index));
    uint32_t ct = (uint32_t)gj_num(j, gj_findf(j, "/accessors/%d/componentType", index));
    const char *type = gj_str(j, gj_findf(j, "/accessors/%d/type", index));
    uint32_t comps = type ? gw_type_components(type) : 0;
    int nt = gj_findf(j, "/accessors/%d/normalized", index);
    bool norm = nt >= 0 && j->text[j->t[nt].start] == 't';
    float *out = calloc((size_t)n * comps + 1, sizeof *out);
    if (!out) abort();
    int vt = gj_findf(j, "/accessors/%d/bufferView", index);
    if (vt >= 0) {
        int v = (int)gj_num(j, vt);
        int b = (int)gj_num(j, gj_findf(j, "/bufferViews/%d/buffer", v));
        double vo = gj_num(j, gj_findf(j, "/bufferViews/%d/byteOffset", v));
        double ao = gj_num(j, gj_findf(j, "/accessors/%d/byteOffset", index));
        double st = gj_num(j, gj_findf(j, "/bufferViews/%d/byteStride", v));
        size_t off = (size_t)(isnan(vo) ? 0 : vo) + (size_t)(isnan(ao) ? 0 : ao);
        size_t stride = isnan(st) ? (size_t)comps * gw_component_size(ct) : (size_t)st;
        if (!r->buffers[b] || off + stride * (n - 1) + comps * gw_component_size(ct) > r->sizes[b]) abort();
        read_elems(r->buffers[b] + off, stride, n, comps, ct, norm, out);
    }
    int sp = gj_findf(j, "/accessors/%d/sparse", index);
    if (sp >= 0) {
        uint32_t sn = (uint32_t)gj_num(j, gj_findf(j, "/accessors/%d/sparse/count", index));
        int iv = (int)gj_num(j, gj_findf(j, "/accessors/%d/sparse/indices/bufferView", index));
        int vv = (int)gj_num(j, gj_findf(j, "/accessors/%d/sparse/values/bufferView", index));
        uint32_t ict = (uint32_t)gj_num(j, gj_findf(j, "/accessors/%d/sparse/indices/componentType", index));
        double io = gj_num(j, gj_findf(j, "/accessors/%d/sparse/indices/byteOffset", index));
        double vo = gj_num(j, gj_findf(j, "/accessors/%d/sparse/values/byteOffset", index));
        int ib = (int)gj_num(j, gj_findf(j, "/bufferViews/%d/buffer", iv));
        int vb = (int)gj_num(j, gj_findf(j, "/bufferViews/%d/buffer", vv));
        double ivo = gj_num(j, gj_findf(j, "/bufferViews/%d/byteOffset", iv));
        double vvo = gj_num(j, gj_findf(j, "/bufferViews/%d/byteOffset", vv));
        const uint8_t *ip = r->buffers[ib] + (size_t)(isnan(ivo) ? 0 : ivo) + (size_t)(isnan(io) ? 0 : io);
        const uint8_t *vp = r->buffers[vb] + (size_t)(isnan(vvo) ? 0 : vvo) + (size_t)(isnan(vo) ? 0 : vo);
        float tmp[16];
        for (uint32_t k = 0; k < sn; k++) {
            uint32_t e = (uint32_t)comp(ip + k * gw_component_size(ict), ict, false);
            read_elems(vp + (size_t)k * comps * gw_component_size(ct), 0, 1, comps, ct, norm, tmp);
            if (e < n) memcpy(out + (size_t)e * comps, tmp, comps * sizeof(float));
        }
    }
    *count = n;
    *components = comps;
    return out;
}
