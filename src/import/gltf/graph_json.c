/* The JSON loader of animation-graph descriptions (see ossa/graph_json.h): jsmn tokens, then
 * one pass over them that fills an ossa_graph_desc, every piece allocated from a list the
 * description owns. Nothing recurses over the document; the `when` compiler recurses at most
 * OSSA_GRAPH_MAX_STACK deep. */
#include <ossa/graph_json.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSMN_STATIC
#define JSMN_STRICT
#define JSMN_PARENT_LINKS
#include <jsmn.h>

#include "core/alloc.h"

/* JSON pointers are cut at the diagnostic's size on purpose. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

#define DEFAULT_MAX_BYTES ((size_t)16 << 20)

/* The loaded description and the list of its pieces. */
typedef struct loaded {
    ossa_graph_desc desc; /* first: ossa_graph_desc_destroy casts back */
    ossa_allocator allocator;
    void *pieces;         /* singly linked: each piece starts with the next pointer */
} loaded;

typedef struct loader {
    const char *js;
    jsmntok_t *tok;
    uint32_t *next;       /* index of the first token after each subtree */
    uint32_t count;
    loaded *out;
    ossa_diagnostic *diag;
    ossa_result failed;
} loader;

static ossa_result fail(loader *L, ossa_result r, const char *path, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static ossa_result fail(loader *L, ossa_result r, const char *path, const char *fmt, ...) {
    if (L->diag) {
        snprintf(L->diag->path, sizeof L->diag->path, "%s", path);
        char message[300];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(message, sizeof message, fmt, ap);
        va_end(ap);
        snprintf(L->diag->message, sizeof L->diag->message, "%s: %s", path, message);
    }
    return L->failed = r;
}

static void *piece(loader *L, size_t count, size_t size) {
    size_t bytes;
    if (!ossa__size_mul_add(count, size, 16, &bytes)) return NULL;
    void **p = ossa__alloc_array(&L->out->allocator, 1, bytes);
    if (!p) return NULL;
    *p = L->out->pieces;
    L->out->pieces = p;
    return (char *)p + 16;
}

static void free_pieces(loaded *d) {
    void *p = d->pieces;
    while (p) {
        void *next = *(void **)p;
        ossa__free(&d->allocator, p);
        p = next;
    }
}

/* ---- tokens ---- */

static bool tok_is(const loader *L, uint32_t t, const char *s) {
    size_t n = strlen(s);
    return L->tok[t].type == JSMN_STRING && (size_t)(L->tok[t].end - L->tok[t].start) == n &&
           memcmp(L->js + L->tok[t].start, s, n) == 0;
}

static bool is_literal(const loader *L, uint32_t t, const char *s) {
    size_t n = strlen(s);
    return L->tok[t].type == JSMN_PRIMITIVE && (size_t)(L->tok[t].end - L->tok[t].start) == n &&
           memcmp(L->js + L->tok[t].start, s, n) == 0;
}

static int hexval(char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* A string token decoded (escapes, \uXXXX of the BMP as UTF-8; no NUL) into a piece. */
static ossa_result get_string(loader *L, uint32_t t, const char *path, const char **out) {
    if (L->tok[t].type != JSMN_STRING) return fail(L, OSSA_ERROR_INVALID_DATA, path, "expected a string");
    const char *s = L->js + L->tok[t].start;
    size_t n = (size_t)(L->tok[t].end - L->tok[t].start), k = 0;
    char *d = piece(L, n + 1, 1);
    if (!d) return fail(L, OSSA_ERROR_OUT_OF_MEMORY, path, "out of memory");
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c != '\\') { d[k++] = c; continue; }
        c = s[++i]; /* jsmn strict checked the escape */
        if (c != 'u') {
            d[k++] = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c == 'b' ? '\b' : c == 'f' ? '\f' : c;
            continue;
        }
        unsigned u = 0;
        for (int h = 1; h <= 4; h++) u = u * 16u + (unsigned)hexval(s[i + (size_t)h]);
        i += 4;
        if (u == 0 || (u >= 0xD800u && u < 0xE000u))
            return fail(L, OSSA_ERROR_INVALID_DATA, path, "\\u%04X is not allowed in a name", u);
        if (u < 0x80u) d[k++] = (char)u;
        else if (u < 0x800u) d[k++] = (char)(0xC0u | (u >> 6)), d[k++] = (char)(0x80u | (u & 0x3Fu));
        else d[k++] = (char)(0xE0u | (u >> 12)), d[k++] = (char)(0x80u | ((u >> 6) & 0x3Fu)),
             d[k++] = (char)(0x80u | (u & 0x3Fu));
    }
    d[k] = '\0';
    *out = d;
    return OSSA_OK;
}

static ossa_result get_number(loader *L, uint32_t t, const char *path, float *out) {
    char buf[64];
    size_t n = (size_t)(L->tok[t].end - L->tok[t].start);
    char c = L->js[L->tok[t].start];
    if (L->tok[t].type != JSMN_PRIMITIVE || n >= sizeof buf || !(c == '-' || (c >= '0' && c <= '9')))
        return fail(L, OSSA_ERROR_INVALID_DATA, path, "expected a number");
    memcpy(buf, L->js + L->tok[t].start, n);
    buf[n] = '\0';
    char *end;
    double v = strtod(buf, &end);
    if (*end || !isfinite(v) || fabs(v) > 3.4e38)
        return fail(L, OSSA_ERROR_INVALID_DATA, path, "\"%s\" is not a finite float", buf);
    *out = (float)v;
    return OSSA_OK;
}

static ossa_result get_bool(loader *L, uint32_t t, const char *path, bool *out) {
    if (is_literal(L, t, "true")) return *out = true, OSSA_OK;
    if (is_literal(L, t, "false")) return *out = false, OSSA_OK;
    return fail(L, OSSA_ERROR_INVALID_DATA, path, "expected true or false");
}

static ossa_result expect(loader *L, uint32_t t, jsmntype_t type, const char *path) {
    if (L->tok[t].type == type) return OSSA_OK;
    return fail(L, OSSA_ERROR_INVALID_DATA, path, "expected %s",
                type == JSMN_OBJECT ? "an object" : type == JSMN_ARRAY ? "an array" : "a string");
}

/* The key's text into buf (cut; for paths and messages). */
static const char *key_text(const loader *L, uint32_t t, char *buf, size_t size) {
    int n = L->tok[t].end - L->tok[t].start;
    snprintf(buf, size, "%.*s", n, L->js + L->tok[t].start);
    return buf;
}

/* Checks every key of object `obj` is one of `allowed` (a NULL-terminated list). */
static ossa_result known_keys(loader *L, uint32_t obj, const char *path, const char *const *allowed) {
    uint32_t k = obj + 1;
    for (int c = 0; c < L->tok[obj].size; c++, k = L->next[k + 1]) {
        bool ok = false;
        for (const char *const *a = allowed; *a && !ok; a++) ok = tok_is(L, k, *a);
        char key[64];
        if (!ok) return fail(L, OSSA_ERROR_INVALID_DATA, path, "unknown key \"%s\"", key_text(L, k, key, sizeof key));
        for (uint32_t j = obj + 1; j < k; j = L->next[j + 1])
            if (tok_is(L, j, key_text(L, k, key, sizeof key)))
                return fail(L, OSSA_ERROR_INVALID_DATA, path, "key \"%s\" given twice", key);
    }
    return OSSA_OK;
}

/* The value of `key` in object `obj`, or 0 (token 0 is the document, never a value). */
static uint32_t member(const loader *L, uint32_t obj, const char *key) {
    uint32_t k = obj + 1;
    for (int c = 0; c < L->tok[obj].size; c++, k = L->next[k + 1])
        if (tok_is(L, k, key)) return k + 1;
    return 0;
}

/* ---- the `when` compiler: recursive descent into postfix code ---- */

typedef struct compiler {
    const char *s;
    size_t pos;
    const ossa_graph_parameter_desc *params;
    uint32_t param_count;
    ossa_graph_instruction *out;
    uint32_t capacity, count, depth;
    ossa_diagnostic *diag;
    ossa_result failed;
} compiler;

static ossa_result cfail(compiler *c, ossa_result r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static ossa_result cfail(compiler *c, ossa_result r, const char *fmt, ...) {
    if (c->failed != OSSA_OK) return c->failed;
    if (c->diag) {
        char message[256];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(message, sizeof message, fmt, ap);
        va_end(ap);
        c->diag->path[0] = '\0';
        snprintf(c->diag->message, sizeof c->diag->message, "column %zu: %s", c->pos + 1, message);
    }
    return c->failed = r;
}

static void skip_space(compiler *c) {
    while (c->s[c->pos] == ' ' || c->s[c->pos] == '\t' || c->s[c->pos] == '\n' || c->s[c->pos] == '\r') c->pos++;
}

static bool accept(compiler *c, const char *op) {
    skip_space(c);
    size_t n = strlen(op);
    if (strncmp(c->s + c->pos, op, n) != 0) return false;
    c->pos += n;
    return true;
}

static void emit(compiler *c, ossa_graph_instruction in) {
    if (c->failed != OSSA_OK) return;
    if (c->count >= c->capacity) {
        cfail(c, OSSA_ERROR_BUFFER_TOO_SMALL, "more than %u instructions", c->capacity);
        return;
    }
    c->out[c->count++] = in;
}

static bool is_name_start(char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_'; }
static bool is_name_char(char ch) { return is_name_start(ch) || (ch >= '0' && ch <= '9') || ch == '.'; }

/* An operand: a parameter (*param set) or a number (*value set). */
typedef struct operand {
    bool is_param, is_keyword; /* a parameter; true / false */
    uint32_t param;
    float value;
    size_t at;
} operand;

static bool read_operand(compiler *c, operand *o) {
    skip_space(c);
    o->at = c->pos;
    const char *p = c->s + c->pos;
    if (is_name_start(*p)) {
        size_t n = 1;
        while (is_name_char(p[n])) n++;
        c->pos += n;
        if ((n == 4 && !strncmp(p, "true", 4)) || (n == 5 && !strncmp(p, "false", 5))) {
            o->is_param = false, o->is_keyword = true, o->value = n == 4 ? 1.0f : 0.0f, o->param = UINT32_MAX;
            return true;
        }
        for (uint32_t i = 0; i < c->param_count; i++)
            if (c->params[i].name && strlen(c->params[i].name) == n && !strncmp(c->params[i].name, p, n)) {
                o->is_param = true, o->is_keyword = false, o->param = i;
                return true;
            }
        c->pos = o->at;
        cfail(c, OSSA_ERROR_INVALID_DATA, "no parameter \"%.*s\"", (int)(n > 64 ? 64 : n), p);
        return false;
    }
    char *end;
    double v = strtod(p, &end);
    if (end == p || !isfinite(v) || fabs(v) > 3.4e38 || !(*p == '-' || *p == '.' || (*p >= '0' && *p <= '9'))) {
        cfail(c, OSSA_ERROR_INVALID_DATA, "expected a parameter, a number, '!' or '('");
        return false;
    }
    c->pos += (size_t)(end - p);
    o->is_param = false, o->is_keyword = false, o->param = UINT32_MAX, o->value = (float)v;
    return true;
}

static ossa_graph_compare read_compare(compiler *c) {
    static const struct { const char *text; ossa_graph_compare op; } ops[] = {
        {"<=", OSSA_GRAPH_LESS_EQUAL}, {">=", OSSA_GRAPH_GREATER_EQUAL}, {"==", OSSA_GRAPH_EQUAL},
        {"!=", OSSA_GRAPH_NOT_EQUAL}, {"<", OSSA_GRAPH_LESS}, {">", OSSA_GRAPH_GREATER}};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (accept(c, ops[i].text)) return ops[i].op;
    return OSSA_GRAPH_COMPARE_INVALID;
}

static ossa_graph_compare mirrored(ossa_graph_compare op) {
    switch (op) {
    case OSSA_GRAPH_LESS: return OSSA_GRAPH_GREATER;
    case OSSA_GRAPH_LESS_EQUAL: return OSSA_GRAPH_GREATER_EQUAL;
    case OSSA_GRAPH_GREATER: return OSSA_GRAPH_LESS;
    case OSSA_GRAPH_GREATER_EQUAL: return OSSA_GRAPH_LESS_EQUAL;
    default: return op;
    }
}

static bool is_float(const compiler *c, const operand *o) {
    return o->is_param && c->params[o->param].type == OSSA_GRAPH_PARAMETER_FLOAT;
}

/* comparison | NAME | true | false */
static void compile_atom(compiler *c) {
    operand a, b;
    if (!read_operand(c, &a)) return;
    size_t after = c->pos;
    ossa_graph_compare op = read_compare(c);
    if (op == OSSA_GRAPH_COMPARE_INVALID) {
        c->pos = after;
        if (!a.is_param && !a.is_keyword) {
            c->pos = a.at;
            cfail(c, OSSA_ERROR_INVALID_DATA, "a number alone is not a condition");
            return;
        }
        if (!a.is_param) {
            emit(c, (ossa_graph_instruction){.op = a.value != 0.0f ? OSSA_GRAPH_OP_TRUE : OSSA_GRAPH_OP_FALSE});
            return;
        }
        if (c->params[a.param].type == OSSA_GRAPH_PARAMETER_FLOAT) {
            c->pos = a.at;
            cfail(c, OSSA_ERROR_INVALID_DATA, "\"%s\" is a float: compare it", c->params[a.param].name);
            return;
        }
        emit(c, (ossa_graph_instruction){.op = OSSA_GRAPH_OP_FLAG, .parameter = a.param});
        return;
    }
    if (!read_operand(c, &b)) return;
    if ((a.is_param && !is_float(c, &a)) || (b.is_param && !is_float(c, &b)) || (!a.is_param && !b.is_param) ||
        a.is_keyword || b.is_keyword) {
        c->pos = a.at;
        cfail(c, OSSA_ERROR_INVALID_DATA, "a comparison needs a float parameter and a number or another float");
        return;
    }
    if (a.is_param && b.is_param)
        emit(c, (ossa_graph_instruction){.op = OSSA_GRAPH_OP_COMPARE_PARAMETERS, .compare = op, .parameter = a.param,
                                         .other = b.param});
    else if (a.is_param)
        emit(c, (ossa_graph_instruction){.op = OSSA_GRAPH_OP_COMPARE, .compare = op, .parameter = a.param,
                                         .constant = b.value});
    else
        emit(c, (ossa_graph_instruction){.op = OSSA_GRAPH_OP_COMPARE, .compare = mirrored(op), .parameter = b.param,
                                         .constant = a.value});
}

static void compile_or(compiler *c);

/* "!" unary | "(" or ")" | atom */
static void compile_unary(compiler *c) {
    if (c->failed != OSSA_OK) return;
    if (++c->depth > OSSA_GRAPH_MAX_STACK - 1) {
        cfail(c, OSSA_ERROR_LIMIT, "nested deeper than %u", OSSA_GRAPH_MAX_STACK - 1);
        return;
    }
    skip_space(c);
    if (c->s[c->pos] == '!' && c->s[c->pos + 1] != '=') {
        c->pos++;
        compile_unary(c);
        emit(c, (ossa_graph_instruction){.op = OSSA_GRAPH_OP_NOT});
    } else if (accept(c, "(")) {
        compile_or(c);
        if (c->failed == OSSA_OK && !accept(c, ")")) cfail(c, OSSA_ERROR_INVALID_DATA, "expected ')'");
    } else {
        compile_atom(c);
    }
    c->depth--;
}

static void compile_and(compiler *c) {
    compile_unary(c);
    while (c->failed == OSSA_OK && accept(c, "&&")) {
        compile_unary(c);
        emit(c, (ossa_graph_instruction){.op = OSSA_GRAPH_OP_AND});
    }
}

static void compile_or(compiler *c) {
    compile_and(c);
    while (c->failed == OSSA_OK && accept(c, "||")) {
        compile_and(c);
        emit(c, (ossa_graph_instruction){.op = OSSA_GRAPH_OP_OR});
    }
}

ossa_result ossa_graph_condition_compile(const char *text, const ossa_graph_parameter_desc *parameters,
                                         uint32_t parameter_count, ossa_graph_instruction *out, uint32_t capacity,
                                         uint32_t *out_count, ossa_diagnostic *diag) {
    if (!text || !out_count || (!out && capacity) || (!parameters && parameter_count))
        return OSSA_ERROR_INVALID_ARGUMENT;
    compiler c = {.s = text, .params = parameters, .param_count = parameter_count, .out = out,
                  .capacity = capacity, .diag = diag};
    compile_or(&c);
    skip_space(&c);
    if (c.failed == OSSA_OK && c.s[c.pos] != '\0') cfail(&c, OSSA_ERROR_INVALID_DATA, "unexpected text");
    *out_count = c.count;
    return c.failed;
}

/* ---- the schema ---- */

static ossa_result parse_parameters(loader *L, uint32_t obj, ossa_graph_desc *d) {
    if (expect(L, obj, JSMN_OBJECT, "/parameters") != OSSA_OK) return L->failed;
    uint32_t n = (uint32_t)L->tok[obj].size;
    if (n > OSSA_GRAPH_MAX_PARAMETERS)
        return fail(L, OSSA_ERROR_LIMIT, "/parameters", "%u parameters (at most %u)", n, OSSA_GRAPH_MAX_PARAMETERS);
    ossa_graph_parameter_desc *p = piece(L, n, sizeof *p);
    if (!p) return fail(L, OSSA_ERROR_OUT_OF_MEMORY, "/parameters", "out of memory");
    uint32_t k = obj + 1;
    char path[128], key[64];
    for (uint32_t i = 0; i < n; i++, k = L->next[k + 1]) {
        snprintf(path, sizeof path, "/parameters/%s", key_text(L, k, key, sizeof key));
        if (get_string(L, k, path, &p[i].name) != OSSA_OK) return L->failed;
        uint32_t v = k + 1;
        if (L->tok[v].type == JSMN_STRING) {
            p[i].type = tok_is(L, v, "trigger") ? OSSA_GRAPH_PARAMETER_TRIGGER
                        : tok_is(L, v, "bool")  ? OSSA_GRAPH_PARAMETER_BOOL
                        : tok_is(L, v, "float") ? OSSA_GRAPH_PARAMETER_FLOAT
                                                : OSSA_GRAPH_PARAMETER_INVALID;
            if (!p[i].type) return fail(L, OSSA_ERROR_INVALID_DATA, path, "expected \"float\", \"bool\" or \"trigger\"");
        } else if (is_literal(L, v, "true") || is_literal(L, v, "false")) {
            p[i].type = OSSA_GRAPH_PARAMETER_BOOL;
            p[i].initial.flag = is_literal(L, v, "true");
        } else {
            p[i].type = OSSA_GRAPH_PARAMETER_FLOAT;
            if (get_number(L, v, path, &p[i].initial.number) != OSSA_OK) return L->failed;
        }
    }
    d->parameters = p, d->parameter_count = n;
    return OSSA_OK;
}

static int32_t find_parameter(const ossa_graph_desc *d, const char *name) {
    for (uint32_t i = 0; i < d->parameter_count; i++)
        if (strcmp(d->parameters[i].name, name) == 0) return (int32_t)i;
    return -1;
}

static ossa_result parameter_ref(loader *L, uint32_t t, const char *path, const ossa_graph_desc *d, uint32_t *out) {
    const char *name;
    if (get_string(L, t, path, &name) != OSSA_OK) return L->failed;
    int32_t p = find_parameter(d, name);
    if (p < 0) return fail(L, OSSA_ERROR_INVALID_DATA, path, "no parameter \"%s\"", name);
    *out = (uint32_t)p;
    return OSSA_OK;
}

/* "blend1d": {"parameter": "speed", "clips": [["Idle", 0.0], ...], "sync": true}, and 2-D with
 * "parameters": ["vx", "vz"] and [name, x, y] clips. */
static ossa_result parse_blend(loader *L, uint32_t obj, const char *base, bool two, const ossa_graph_desc *d,
                               ossa_graph_state_desc *s) {
    static const char *const keys1[] = {"parameter", "clips", "sync", NULL};
    static const char *const keys2[] = {"parameters", "clips", "sync", NULL};
    char path[160];
    if (expect(L, obj, JSMN_OBJECT, base) != OSSA_OK || known_keys(L, obj, base, two ? keys2 : keys1) != OSSA_OK)
        return L->failed;
    uint32_t v = member(L, obj, two ? "parameters" : "parameter");
    snprintf(path, sizeof path, "%s/%s", base, two ? "parameters" : "parameter");
    if (!v) return fail(L, OSSA_ERROR_INVALID_DATA, path, "missing");
    if (two) {
        if (expect(L, v, JSMN_ARRAY, path) != OSSA_OK) return L->failed;
        if (L->tok[v].size != 2) return fail(L, OSSA_ERROR_INVALID_DATA, path, "expected two parameter names");
        if (parameter_ref(L, v + 1, path, d, &s->parameter_x) != OSSA_OK ||
            parameter_ref(L, L->next[v + 1], path, d, &s->parameter_y) != OSSA_OK)
            return L->failed;
    } else if (parameter_ref(L, v, path, d, &s->parameter_x) != OSSA_OK) {
        return L->failed;
    }
    if ((v = member(L, obj, "sync")) && get_bool(L, v, base, &s->sync) != OSSA_OK) return L->failed;
    snprintf(path, sizeof path, "%s/clips", base);
    if (!(v = member(L, obj, "clips"))) return fail(L, OSSA_ERROR_INVALID_DATA, path, "missing");
    if (expect(L, v, JSMN_ARRAY, path) != OSSA_OK) return L->failed;
    uint32_t n = (uint32_t)L->tok[v].size;
    if (n == 0 || n > OSSA_GRAPH_MAX_SAMPLES)
        return fail(L, OSSA_ERROR_INVALID_DATA, path, "%u clips (1 to %u)", n, OSSA_GRAPH_MAX_SAMPLES);
    ossa_graph_blend_sample *samples = piece(L, n, sizeof *samples);
    if (!samples) return fail(L, OSSA_ERROR_OUT_OF_MEMORY, path, "out of memory");
    uint32_t e = v + 1;
    for (uint32_t i = 0; i < n; i++, e = L->next[e]) {
        snprintf(path, sizeof path, "%s/clips/%u", base, i);
        if (expect(L, e, JSMN_ARRAY, path) != OSSA_OK) return L->failed;
        if (L->tok[e].size != (two ? 3 : 2))
            return fail(L, OSSA_ERROR_INVALID_DATA, path, "expected [clip, %s]", two ? "x, y" : "position");
        uint32_t a = e + 1, b = L->next[a];
        if (get_string(L, a, path, &samples[i].clip) != OSSA_OK || get_number(L, b, path, &samples[i].x) != OSSA_OK ||
            (two && get_number(L, L->next[b], path, &samples[i].y) != OSSA_OK))
            return L->failed;
    }
    s->samples = samples, s->sample_count = n;
    return OSSA_OK;
}

static ossa_result parse_state(loader *L, uint32_t key, uint32_t l, const ossa_graph_desc *d,
                               ossa_graph_state_desc *s) {
    static const char *const keys[] = {"clip", "additive", "blend1d", "blend2d", "empty", "loop", "speed", NULL};
    char base[128], path[160], name[64];
    snprintf(base, sizeof base, "/layers/%u/states/%s", l, key_text(L, key, name, sizeof name));
    if (get_string(L, key, base, &s->name) != OSSA_OK) return L->failed;
    uint32_t obj = key + 1, v;
    if (expect(L, obj, JSMN_OBJECT, base) != OSSA_OK || known_keys(L, obj, base, keys) != OSSA_OK) return L->failed;
    s->loop = true, s->speed = 1.0f;
    int kinds = 0;
    if ((v = member(L, obj, "clip"))) {
        kinds++, s->kind = OSSA_GRAPH_STATE_CLIP;
        snprintf(path, sizeof path, "%s/clip", base);
        if (get_string(L, v, path, &s->clip) != OSSA_OK) return L->failed;
    }
    if ((v = member(L, obj, "additive"))) {
        kinds++, s->kind = OSSA_GRAPH_STATE_ADDITIVE;
        snprintf(path, sizeof path, "%s/additive", base);
        if (get_string(L, v, path, &s->clip) != OSSA_OK) return L->failed;
    }
    for (int two = 0; two < 2; two++) {
        if (!(v = member(L, obj, two ? "blend2d" : "blend1d"))) continue;
        kinds++, s->kind = two ? OSSA_GRAPH_STATE_BLEND_2D : OSSA_GRAPH_STATE_BLEND_1D;
        snprintf(path, sizeof path, "%s/%s", base, two ? "blend2d" : "blend1d");
        if (parse_blend(L, v, path, two != 0, d, s) != OSSA_OK) return L->failed;
    }
    if ((v = member(L, obj, "empty"))) {
        bool empty;
        snprintf(path, sizeof path, "%s/empty", base);
        if (get_bool(L, v, path, &empty) != OSSA_OK) return L->failed;
        if (!empty) return fail(L, OSSA_ERROR_INVALID_DATA, path, "only true is meaningful");
        kinds++, s->kind = OSSA_GRAPH_STATE_EMPTY;
    }
    if (kinds != 1)
        return fail(L, OSSA_ERROR_INVALID_DATA, base, "needs exactly one of clip, additive, blend1d, blend2d, empty");
    snprintf(path, sizeof path, "%s/loop", base);
    if ((v = member(L, obj, "loop")) && get_bool(L, v, path, &s->loop) != OSSA_OK) return L->failed;
    snprintf(path, sizeof path, "%s/speed", base);
    if ((v = member(L, obj, "speed")) && get_number(L, v, path, &s->speed) != OSSA_OK) return L->failed;
    if (s->speed == 0.0f) return fail(L, OSSA_ERROR_INVALID_DATA, path, "0 (a frozen state: use a clip at a speed near 0)");
    return OSSA_OK;
}

static ossa_result state_ref(loader *L, uint32_t t, const char *path, const ossa_graph_layer_desc *layer,
                             bool any, uint32_t *out) {
    const char *name;
    if (get_string(L, t, path, &name) != OSSA_OK) return L->failed;
    if (any && strcmp(name, "*") == 0) return *out = OSSA_GRAPH_ANY_STATE, OSSA_OK;
    for (uint32_t i = 0; i < layer->state_count; i++)
        if (strcmp(layer->states[i].name, name) == 0) return *out = i, OSSA_OK;
    return fail(L, OSSA_ERROR_INVALID_DATA, path, "no state \"%s\"", name);
}

static ossa_result parse_when(loader *L, uint32_t t, const char *path, const ossa_graph_desc *d,
                              ossa_graph_transition_desc *tr) {
    const char *text;
    if (get_string(L, t, path, &text) != OSSA_OK) return L->failed;
    uint32_t capacity = (uint32_t)strlen(text) + 1;
    if (capacity > OSSA_GRAPH_MAX_INSTRUCTIONS) capacity = OSSA_GRAPH_MAX_INSTRUCTIONS;
    ossa_graph_instruction *code = piece(L, capacity, sizeof *code);
    if (!code) return fail(L, OSSA_ERROR_OUT_OF_MEMORY, path, "out of memory");
    ossa_diagnostic inner = {{0}, {0}};
    ossa_result r = ossa_graph_condition_compile(text, d->parameters, d->parameter_count, code, capacity,
                                                 &tr->condition_count, &inner);
    if (r != OSSA_OK) return fail(L, r == OSSA_ERROR_BUFFER_TOO_SMALL ? OSSA_ERROR_LIMIT : r, path, "%s", inner.message);
    tr->condition = code;
    return OSSA_OK;
}

static ossa_result parse_transition(loader *L, uint32_t obj, uint32_t l, uint32_t i, const ossa_graph_desc *d,
                                    const ossa_graph_layer_desc *layer, ossa_graph_transition_desc *t) {
    static const char *const keys[] = {"from", "to", "when", "exit_time", "duration", "blend", NULL};
    char base[64], path[96];
    snprintf(base, sizeof base, "/layers/%u/transitions/%u", l, i);
    if (expect(L, obj, JSMN_OBJECT, base) != OSSA_OK || known_keys(L, obj, base, keys) != OSSA_OK) return L->failed;
    uint32_t v;
    t->duration = 0.2f;
    static const char *const required[] = {"from", "to"};
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/%s", base, required[k]);
        if (!(v = member(L, obj, required[k]))) return fail(L, OSSA_ERROR_INVALID_DATA, path, "missing");
        if (state_ref(L, v, path, layer, k == 0, k == 0 ? &t->from : &t->to) != OSSA_OK) return L->failed;
    }
    snprintf(path, sizeof path, "%s/when", base);
    if ((v = member(L, obj, "when")) && parse_when(L, v, path, d, t) != OSSA_OK) return L->failed;
    snprintf(path, sizeof path, "%s/exit_time", base);
    if ((v = member(L, obj, "exit_time"))) {
        t->has_exit_time = true;
        if (get_number(L, v, path, &t->exit_time) != OSSA_OK) return L->failed;
    }
    snprintf(path, sizeof path, "%s/duration", base);
    if ((v = member(L, obj, "duration")) && get_number(L, v, path, &t->duration) != OSSA_OK) return L->failed;
    snprintf(path, sizeof path, "%s/blend", base);
    if ((v = member(L, obj, "blend"))) {
        if (tok_is(L, v, "crossfade")) t->blend = OSSA_GRAPH_BLEND_CROSSFADE;
        else if (tok_is(L, v, "inertialize")) t->blend = OSSA_GRAPH_BLEND_INERTIALIZE;
        else if (tok_is(L, v, "dead_blend")) t->blend = OSSA_GRAPH_BLEND_DEAD_BLEND;
        else return fail(L, OSSA_ERROR_INVALID_DATA, path, "expected \"crossfade\", \"inertialize\" or \"dead_blend\"");
    }
    return OSSA_OK;
}

static ossa_result parse_layer_states(loader *L, uint32_t obj, uint32_t l, const ossa_graph_desc *d,
                                      ossa_graph_layer_desc *layer) {
    char path[64];
    snprintf(path, sizeof path, "/layers/%u/states", l);
    if (!obj) return fail(L, OSSA_ERROR_INVALID_DATA, path, "missing");
    if (expect(L, obj, JSMN_OBJECT, path) != OSSA_OK) return L->failed;
    uint32_t n = (uint32_t)L->tok[obj].size;
    if (n == 0 || n > OSSA_GRAPH_MAX_STATES)
        return fail(L, OSSA_ERROR_INVALID_DATA, path, "%u states (1 to %u)", n, OSSA_GRAPH_MAX_STATES);
    ossa_graph_state_desc *states = piece(L, n, sizeof *states);
    if (!states) return fail(L, OSSA_ERROR_OUT_OF_MEMORY, path, "out of memory");
    uint32_t k = obj + 1;
    for (uint32_t i = 0; i < n; i++, k = L->next[k + 1])
        if (parse_state(L, k, l, d, &states[i]) != OSSA_OK) return L->failed;
    layer->states = states, layer->state_count = n;
    return OSSA_OK;
}

static ossa_result parse_layer_transitions(loader *L, uint32_t arr, uint32_t l, const ossa_graph_desc *d,
                                           ossa_graph_layer_desc *layer) {
    if (!arr) return OSSA_OK;
    char path[64];
    snprintf(path, sizeof path, "/layers/%u/transitions", l);
    if (expect(L, arr, JSMN_ARRAY, path) != OSSA_OK) return L->failed;
    uint32_t n = (uint32_t)L->tok[arr].size;
    if (n > OSSA_GRAPH_MAX_TRANSITIONS)
        return fail(L, OSSA_ERROR_LIMIT, path, "%u transitions (at most %u)", n, OSSA_GRAPH_MAX_TRANSITIONS);
    ossa_graph_transition_desc *t = piece(L, n, sizeof *t);
    if (!t) return fail(L, OSSA_ERROR_OUT_OF_MEMORY, path, "out of memory");
    uint32_t e = arr + 1;
    for (uint32_t i = 0; i < n; i++, e = L->next[e])
        if (parse_transition(L, e, l, i, d, layer, &t[i]) != OSSA_OK) return L->failed;
    layer->transitions = t, layer->transition_count = n;
    return OSSA_OK;
}

static ossa_result parse_layer(loader *L, uint32_t obj, uint32_t l, const ossa_graph_desc *d,
                               ossa_graph_layer_desc *layer) {
    static const char *const keys[] = {"name", "mode", "mask", "weight", "start", "states", "transitions", NULL};
    char base[32], path[64];
    snprintf(base, sizeof base, "/layers/%u", l);
    if (expect(L, obj, JSMN_OBJECT, base) != OSSA_OK || known_keys(L, obj, base, keys) != OSSA_OK) return L->failed;
    uint32_t v;
    *layer = (ossa_graph_layer_desc){.weight = 1.0f, .weight_parameter = OSSA_GRAPH_NONE};
    snprintf(path, sizeof path, "%s/name", base);
    if (!(v = member(L, obj, "name"))) return fail(L, OSSA_ERROR_INVALID_DATA, path, "missing");
    if (get_string(L, v, path, &layer->name) != OSSA_OK) return L->failed;
    snprintf(path, sizeof path, "%s/mode", base);
    if ((v = member(L, obj, "mode"))) {
        if (tok_is(L, v, "additive")) layer->mode = OSSA_GRAPH_LAYER_ADDITIVE;
        else if (!tok_is(L, v, "override")) return fail(L, OSSA_ERROR_INVALID_DATA, path, "expected \"override\" or \"additive\"");
    }
    snprintf(path, sizeof path, "%s/mask", base);
    if ((v = member(L, obj, "mask")) && get_string(L, v, path, &layer->mask_joint) != OSSA_OK) return L->failed;
    snprintf(path, sizeof path, "%s/weight", base);
    if ((v = member(L, obj, "weight"))) {
        ossa_result r = L->tok[v].type == JSMN_STRING ? parameter_ref(L, v, path, d, &layer->weight_parameter)
                                                      : get_number(L, v, path, &layer->weight);
        if (r != OSSA_OK) return r;
    }
    if (parse_layer_states(L, member(L, obj, "states"), l, d, layer) != OSSA_OK) return L->failed;
    snprintf(path, sizeof path, "%s/start", base);
    if ((v = member(L, obj, "start")) && state_ref(L, v, path, layer, false, &layer->start_state) != OSSA_OK)
        return L->failed;
    return parse_layer_transitions(L, member(L, obj, "transitions"), l, d, layer);
}

static ossa_result parse_layers(loader *L, uint32_t arr, ossa_graph_desc *d) {
    if (!arr) return fail(L, OSSA_ERROR_INVALID_DATA, "/layers", "missing");
    if (expect(L, arr, JSMN_ARRAY, "/layers") != OSSA_OK) return L->failed;
    uint32_t n = (uint32_t)L->tok[arr].size;
    if (n == 0 || n > OSSA_GRAPH_MAX_LAYERS)
        return fail(L, OSSA_ERROR_INVALID_DATA, "/layers", "%u layers (1 to %u)", n, OSSA_GRAPH_MAX_LAYERS);
    ossa_graph_layer_desc *layers = piece(L, n, sizeof *layers);
    if (!layers) return fail(L, OSSA_ERROR_OUT_OF_MEMORY, "/layers", "out of memory");
    uint32_t e = arr + 1;
    for (uint32_t i = 0; i < n; i++, e = L->next[e])
        if (parse_layer(L, e, i, d, &layers[i]) != OSSA_OK) return L->failed;
    d->layers = layers, d->layer_count = n;
    return OSSA_OK;
}

static ossa_result parse_events(loader *L, uint32_t arr, ossa_graph_desc *d) {
    static const char *const keys[] = {"clip", "time", "name", NULL};
    if (!arr) return OSSA_OK;
    if (expect(L, arr, JSMN_ARRAY, "/events") != OSSA_OK) return L->failed;
    uint32_t n = (uint32_t)L->tok[arr].size;
    if (n > OSSA_GRAPH_MAX_EVENTS) return fail(L, OSSA_ERROR_LIMIT, "/events", "%u events (at most %u)", n, OSSA_GRAPH_MAX_EVENTS);
    ossa_graph_event_desc *events = piece(L, n, sizeof *events);
    if (!events) return fail(L, OSSA_ERROR_OUT_OF_MEMORY, "/events", "out of memory");
    uint32_t e = arr + 1;
    char base[32], path[48];
    for (uint32_t i = 0; i < n; i++, e = L->next[e]) {
        snprintf(base, sizeof base, "/events/%u", i);
        if (expect(L, e, JSMN_OBJECT, base) != OSSA_OK || known_keys(L, e, base, keys) != OSSA_OK) return L->failed;
        uint32_t c = member(L, e, "clip"), t = member(L, e, "time"), nm = member(L, e, "name");
        if (!c || !t || !nm) return fail(L, OSSA_ERROR_INVALID_DATA, base, "needs clip, time and name");
        snprintf(path, sizeof path, "%s/clip", base);
        if (get_string(L, c, path, &events[i].clip) != OSSA_OK) return L->failed;
        snprintf(path, sizeof path, "%s/time", base);
        if (get_number(L, t, path, &events[i].time) != OSSA_OK) return L->failed;
        snprintf(path, sizeof path, "%s/name", base);
        if (get_string(L, nm, path, &events[i].name) != OSSA_OK) return L->failed;
    }
    d->events = events, d->event_count = n;
    return OSSA_OK;
}

static ossa_result parse_document(loader *L) {
    static const char *const keys[] = {"parameters", "layers", "events", NULL};
    if (expect(L, 0, JSMN_OBJECT, "") != OSSA_OK || known_keys(L, 0, "", keys) != OSSA_OK) return L->failed;
    ossa_graph_desc *d = &L->out->desc;
    uint32_t v = member(L, 0, "parameters");
    if (v && parse_parameters(L, v, d) != OSSA_OK) return L->failed;
    if (parse_layers(L, member(L, 0, "layers"), d) != OSSA_OK) return L->failed;
    return parse_events(L, member(L, 0, "events"), d);
}

/* ---- tokens and the entry points ---- */

#define MAX_DEPTH 64 /* a description needs 8; jsmn's closing-bracket search is quadratic in the depth */

/* The byte where nesting exceeds MAX_DEPTH (strings skipped), or SIZE_MAX. */
static size_t too_deep(const char *js, size_t size) {
    uint32_t depth = 0;
    bool in_string = false;
    for (size_t i = 0; i < size; i++) {
        char c = js[i];
        if (in_string) {
            if (c == '\\') i++;
            else if (c == '"') in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > MAX_DEPTH) return i;
        } else if ((c == ']' || c == '}') && depth > 0) {
            depth--;
        }
    }
    return SIZE_MAX;
}

/* jsmn over the text, then subtree ends and the shape of objects (keys are strings). */
static ossa_result tokenize(loader *L, size_t size) {
    size_t deep = too_deep(L->js, size);
    if (deep != SIZE_MAX)
        return fail(L, OSSA_ERROR_PARSE, "", "JSON: nesting deeper than %d levels at byte %zu", MAX_DEPTH, deep);
    jsmn_parser p;
    jsmn_init(&p);
    int n = jsmn_parse(&p, L->js, size, NULL, 0);
    if (n <= 0)
        return fail(L, OSSA_ERROR_PARSE, "", "JSON: %s near byte %u", n == JSMN_ERROR_PART ? "truncated document"
                                                                     : n == 0 ? "no value" : "invalid syntax", p.pos);
    L->count = (uint32_t)n;
    L->tok = piece(L, L->count, sizeof *L->tok);
    L->next = piece(L, L->count, sizeof *L->next);
    if (!L->tok || !L->next) return fail(L, OSSA_ERROR_OUT_OF_MEMORY, "", "JSON: %u tokens", L->count);
    jsmn_init(&p);
    if (jsmn_parse(&p, L->js, size, L->tok, L->count) != n) return fail(L, OSSA_ERROR_PARSE, "", "JSON: invalid syntax");
    for (uint32_t i = L->count; i-- > 0;) {
        uint32_t j = i + 1;
        for (int c = 0; c < L->tok[i].size; c++) {
            if (j >= L->count) return fail(L, OSSA_ERROR_PARSE, "", "JSON: malformed near byte %d", L->tok[i].start);
            bool key = L->tok[i].type == JSMN_OBJECT;
            if (key && (L->tok[j].type != JSMN_STRING || L->tok[j].size != 1))
                return fail(L, OSSA_ERROR_PARSE, "", "JSON: an object key is not a string near byte %d", L->tok[j].start);
            j = L->next[j]; /* a key's subtree holds its value */
        }
        if (L->tok[i].type == JSMN_STRING && L->tok[i].size > 1)
            return fail(L, OSSA_ERROR_PARSE, "", "JSON: malformed near byte %d", L->tok[i].start);
        L->next[i] = j;
    }
    if (L->next[0] != L->count) return fail(L, OSSA_ERROR_PARSE, "", "JSON: trailing data after the document");
    return OSSA_OK;
}

ossa_result ossa_graph_desc_load_memory(const void *json, size_t size, const ossa_graph_load_options *options,
                                        ossa_graph_desc **out, ossa_diagnostic *diag) {
    if (out) *out = NULL;
    if (!json || !out) return OSSA_ERROR_INVALID_ARGUMENT;
    size_t max = options && options->max_bytes ? options->max_bytes : DEFAULT_MAX_BYTES;
    ossa_allocator a = ossa__allocator_resolve(options ? options->allocator : NULL);
    loader L = {.js = json, .diag = diag};
    if (size > max || size > (size_t)INT32_MAX) return fail(&L, OSSA_ERROR_LIMIT, "", "%zu bytes (at most %zu)", size, max);
    loaded *d = ossa__alloc_array(&a, 1, sizeof *d);
    if (!d) return fail(&L, OSSA_ERROR_OUT_OF_MEMORY, "", "out of memory");
    d->allocator = a;
    L.out = d;
    ossa_result r = tokenize(&L, size);
    if (r == OSSA_OK) r = parse_document(&L);
    if (r == OSSA_OK) r = ossa_graph_desc_validate(&d->desc, diag);
    if (r != OSSA_OK) {
        free_pieces(d);
        ossa__free(&a, d);
        return r;
    }
    *out = &d->desc;
    return OSSA_OK;
}

ossa_result ossa_graph_desc_load_file(const char *path, const ossa_graph_load_options *options,
                                      ossa_graph_desc **out, ossa_diagnostic *diag) {
    if (out) *out = NULL;
    if (!path || !out) return OSSA_ERROR_INVALID_ARGUMENT;
    loader L = {.diag = diag};
    size_t max = options && options->max_bytes ? options->max_bytes : DEFAULT_MAX_BYTES;
    FILE *f = fopen(path, "rb");
    if (!f) return fail(&L, OSSA_ERROR_IO, "", "cannot open %s", path);
    ossa_allocator a = ossa__allocator_resolve(options ? options->allocator : NULL);
    long length = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    rewind(f);
    size_t want = length >= 0 && (size_t)length < max ? (size_t)length + 1 : max + 1;
    char *text = ossa__alloc(&a, want);
    size_t n = text ? fread(text, 1, want, f) : 0;
    bool error = text && ferror(f);
    fclose(f);
    ossa_result r;
    if (!text) r = fail(&L, OSSA_ERROR_OUT_OF_MEMORY, "", "out of memory");
    else if (error) r = fail(&L, OSSA_ERROR_IO, "", "cannot read %s", path);
    else if (n > max || (n == want && want <= max))
        r = fail(&L, OSSA_ERROR_LIMIT, "", "%s is larger than %zu bytes (or grew while read)", path, max);
    else r = ossa_graph_desc_load_memory(text, n, options, out, diag);
    ossa__free(&a, text);
    return r;
}

void ossa_graph_desc_destroy(ossa_graph_desc *desc) {
    if (!desc) return;
    loaded *d = (loaded *)desc;
    ossa_allocator a = d->allocator;
    free_pieces(d);
    ossa__free(&a, d);
}
