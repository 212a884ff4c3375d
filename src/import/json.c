/* JSON layer of the glTF importer: a strict tokeniser written for ossa (RFC 8259
 * grammar; strings found with memchr so large base64 data: URIs cost a memory scan,
 * not a per-character state machine), with each token's subtree end recorded as it
 * closes so lookups and skips never recurse, plus typed getters whose errors name
 * the JSON place. */
#include "import/gltf_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

static bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

/* Finds the closing quote of the string whose first content byte is at *pos; checks
 * every escape. Returns 0 (OK, *pos = the quote), 1 (invalid escape at *pos), 2 (truncated). */
static int scan_string(const char *js, size_t size, size_t *pos) {
    size_t i = *pos;
    /* short strings (keys, names): a plain loop beats two library calls */
    for (size_t k = i; k < size && k < i + 48; k++) {
        if (js[k] == '"') {
            *pos = k;
            return 0;
        }
        if (js[k] == '\\') break;
    }
    for (;;) {
        const char *q = memchr(js + i, '"', size - i);
        if (!q) return 2;
        size_t qe = (size_t)(q - js);
        const char *b = memchr(js + i, '\\', qe - i);
        if (!b) {
            *pos = qe;
            return 0;
        }
        i = (size_t)(b - js) + 1; /* the escaped character */
        if (i >= size) return 2;
        switch (js[i]) {
        case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't': i++; break;
        case 'u':
            if (size - i < 5) return 2;
            if (!is_hex(js[i + 1]) || !is_hex(js[i + 2]) || !is_hex(js[i + 3]) || !is_hex(js[i + 4])) {
                *pos = i;
                return 1;
            }
            i += 5;
            break;
        default: *pos = i; return 1;
        }
    }
}

enum { EXPECT_VALUE, EXPECT_VALUE_OR_CLOSE, EXPECT_KEY_OR_END, EXPECT_KEY, EXPECT_COLON, EXPECT_COMMA_OR_END, EXPECT_NOTHING };

/* 1 + the number of , : [ { bytes (SSE2: 16 bytes per step). */
static size_t count_structural(const char *js, size_t n) {
    size_t c = 1, i = 0;
#ifdef __SSE2__
    const __m128i comma = _mm_set1_epi8(','), colon = _mm_set1_epi8(':'), bracket = _mm_set1_epi8('['),
                  brace = _mm_set1_epi8('{');
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(js + i));
        __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, comma), _mm_cmpeq_epi8(v, colon)),
                                 _mm_or_si128(_mm_cmpeq_epi8(v, bracket), _mm_cmpeq_epi8(v, brace)));
        c += (size_t)__builtin_popcount((unsigned)_mm_movemask_epi8(m));
    }
#endif
    for (; i < n; i++) c += js[i] == ',' || js[i] == ':' || js[i] == '[' || js[i] == '{';
    return c;
}

/* Doubles the token array (budgeted); false after recording the failure. */
static bool grow(ossa__ctx *ctx, ossa__jtok **t, uint32_t *cap) {
    if (*cap >= (uint32_t)INT32_MAX / 2) {
        ossa__fail(ctx, OSSA_ERROR_LIMIT, "", "JSON: more than %u tokens", *cap);
        return false;
    }
    ossa__jtok *bigger = ossa__ctx_alloc_raw(ctx, (size_t)*cap * 2, sizeof *bigger);
    if (!bigger) return false;
    memcpy(bigger, *t, (size_t)*cap * sizeof *bigger);
    ossa__ctx_free(ctx, *t);
    *t = bigger;
    *cap *= 2;
    return true;
}

/* Tokenises ctx->json into *tp (capacity *capp, grown as needed). */
static ossa_result tokenize(ossa__ctx *ctx, ossa__jtok **tp, uint32_t *capp, uint32_t *count) {
    ossa__jtok *t = *tp;
    uint32_t cap = *capp;
    const char *js = ctx->json;
    size_t size = ctx->json_size;
    /* stack of open containers and of keys waiting for their value (token indices) */
    uint32_t stack[2 * OSSA__JSON_MAX_DEPTH + 4];
    uint8_t is_obj[2 * OSSA__JSON_MAX_DEPTH + 4], is_key[2 * OSSA__JSON_MAX_DEPTH + 4];
    size_t at[2 * OSSA__JSON_MAX_DEPTH + 4]; /* byte where each entry starts */
    uint32_t sp = 0, n = 0, depth = 0;
    int state = EXPECT_VALUE;
    size_t i = 0;
#define FAIL(what, at) return ossa__fail(ctx, OSSA_ERROR_PARSE, "", "JSON: %s near byte %zu", what, (size_t)(at))
    for (; i < size; i++) {
        char c = js[i];
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
        bool value_done = false;
        if (state == EXPECT_VALUE_OR_CLOSE) {
            if (c == ']') goto close;
            state = EXPECT_VALUE;
        }
        switch (state) {
        case EXPECT_NOTHING:
            return ossa__fail(ctx, OSSA_ERROR_PARSE, "", "JSON: trailing data after the top-level object");
        case EXPECT_COLON:
            if (c != ':') FAIL("malformed structure", at[sp - 2]); /* a key without a value: name its object */
            state = EXPECT_VALUE;
            continue;
        case EXPECT_COMMA_OR_END:
        case EXPECT_KEY_OR_END:
            if (c == '}' || c == ']') {
                if (state == EXPECT_KEY_OR_END && c == ']') FAIL("invalid syntax", i);
                goto close;
            }
            if (state == EXPECT_COMMA_OR_END) {
                if (c != ',' || !sp) FAIL("invalid syntax", i);
                state = is_obj[sp - 1] ? EXPECT_KEY : EXPECT_VALUE;
                continue;
            }
            /* EXPECT_KEY_OR_END with a key */
            /* fall through */
        case EXPECT_KEY:
            if (c != '"') FAIL("invalid syntax", i);
            {
                size_t e = i + 1;
                int s = scan_string(js, size, &e);
                if (s == 2) FAIL("truncated document", size);
                if (s == 1) FAIL("invalid syntax", e);
                if (n >= cap && !grow(ctx, tp, capp)) return ctx->failed;
                t = *tp, cap = *capp;
                if (t) {
                    t[n].type = OSSA__J_STRING, t[n].start = (uint32_t)(i + 1), t[n].end = (uint32_t)e, t[n].size = 1;
                    t[stack[sp - 1]].size++;
                }
                stack[sp] = n++, is_obj[sp] = 0, is_key[sp] = 1, at[sp] = i, sp++;
                i = e;
                state = EXPECT_COLON;
            }
            continue;
        case EXPECT_VALUE:
            if (n >= cap && !grow(ctx, tp, capp)) return ctx->failed;
            t = *tp, cap = *capp;
            if (sp == 0 && n == 0 && c != '{')
                return ossa__fail(ctx, OSSA_ERROR_PARSE, "", "JSON: top level is not an object");
            if (sp && !is_key[sp - 1] && t) t[stack[sp - 1]].size++; /* array element */
            if (c == '{' || c == '[') {
                if (++depth > OSSA__JSON_MAX_DEPTH)
                    return ossa__fail(ctx, OSSA_ERROR_PARSE, "", "JSON: nesting deeper than %d levels at byte %zu",
                                      OSSA__JSON_MAX_DEPTH, i);
                if (t) t[n].type = c == '{' ? OSSA__J_OBJECT : OSSA__J_ARRAY, t[n].start = (uint32_t)i, t[n].size = 0;
                stack[sp] = n++, is_obj[sp] = c == '{', is_key[sp] = 0, at[sp] = i, sp++;
                state = c == '{' ? EXPECT_KEY_OR_END : EXPECT_VALUE_OR_CLOSE;
                continue;
            }
            if (c == '"') {
                size_t e = i + 1;
                int s = scan_string(js, size, &e);
                if (s == 2) FAIL("truncated document", size);
                if (s == 1) FAIL("invalid syntax", e);
                if (t) t[n].type = OSSA__J_STRING, t[n].start = (uint32_t)(i + 1), t[n].end = (uint32_t)e, t[n].size = 0,
                       t[n].next = n + 1;
                n++;
                i = e;
                value_done = true;
                break;
            }
            if (c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n') {
                size_t e = i;
                while (e < size) {
                    char d = js[e];
                    if (d == ' ' || d == '\n' || d == '\r' || d == '\t' || d == ',' || d == ']' || d == '}' || d == ':')
                        break;
                    if ((unsigned char)d < 32 || (unsigned char)d >= 127) FAIL("invalid syntax", e);
                    e++;
                }
                if (e == size && sp) FAIL("truncated document", size);
                if (t) t[n].type = OSSA__J_PRIMITIVE, t[n].start = (uint32_t)i, t[n].end = (uint32_t)e, t[n].size = 0,
                       t[n].next = n + 1;
                n++;
                i = e - 1;
                value_done = true;
                break;
            }
            FAIL("invalid syntax", i);
        }
        if (0) {
        close:
            if (!sp || is_key[sp - 1] || (c == '}') != (bool)is_obj[sp - 1]) FAIL("invalid syntax", i);
            uint32_t ct = stack[--sp];
            if (t) t[ct].end = (uint32_t)(i + 1), t[ct].next = n;
            depth--;
            value_done = true;
        }
        if (value_done) {
            /* a completed value closes the key that was waiting for it */
            if (sp && is_key[sp - 1]) {
                uint32_t k = stack[--sp];
                if (t) t[k].next = n;
            }
            state = sp ? EXPECT_COMMA_OR_END : EXPECT_NOTHING;
        }
    }
#undef FAIL
    if (state != EXPECT_NOTHING) {
        if (!n) return ossa__fail(ctx, OSSA_ERROR_PARSE, "", "JSON: no value");
        return ossa__fail(ctx, OSSA_ERROR_PARSE, "", "JSON: truncated document near byte %zu", size);
    }
    *count = n;
    return OSSA_OK;
}

ossa_result ossa__json_parse(ossa__ctx *ctx) {
    if (ctx->json_size == 0) return ossa__fail(ctx, OSSA_ERROR_PARSE, "", "JSON: empty document");
    if (ctx->json_size >= (size_t)INT32_MAX)
        return ossa__fail(ctx, OSSA_ERROR_LIMIT, "", "JSON: %zu bytes is too large", ctx->json_size);
    /* Every token but the first follows one of , : [ { so their count (inside strings too:
     * an over-count is harmless) bounds the tokens: one allocation, no growth copies. When
     * that bound would take more than a quarter of the remaining budget (commas in long
     * strings), the array starts at one token per 64 bytes and doubles instead. */
    size_t bound = count_structural(ctx->json, ctx->json_size), guess = ctx->json_size / 64;
    uint32_t cap, n = 0;
    if (bound <= (1u << 30) && bound * sizeof(ossa__jtok) <= (ctx->limit - ctx->used) / 4) cap = (uint32_t)bound;
    else cap = guess < 1024 ? 1024 : guess > (1u << 20) ? (1u << 20) : (uint32_t)guess;
    ossa__jtok *t = ossa__ctx_alloc_raw(ctx, cap, sizeof *t); /* every field of tokens 0..n-1 is written */
    if (!t) return ctx->failed;
    ossa_result r = tokenize(ctx, &t, &cap, &n);
    if (r) {
        ossa__ctx_free(ctx, t);
        return r;
    }
    ctx->tok = t;
    ctx->tok_count = n;
    return OSSA_OK;
}

bool ossa__json_eq(const ossa__ctx *ctx, int32_t tok, const char *s) {
    if (tok < 0) return false;
    const ossa__jtok *t = &ctx->tok[tok];
    if (t->type != OSSA__J_STRING) return false;
    size_t n = strlen(s);
    return t->end - t->start == n && memcmp(ctx->json + t->start, s, n) == 0;
}

int32_t ossa__json_find(const ossa__ctx *ctx, int32_t obj, const char *key) {
    if (obj < 0 || ctx->tok[obj].type != OSSA__J_OBJECT) return -1;
    uint32_t k = (uint32_t)obj + 1;
    for (uint32_t c = 0; c < ctx->tok[obj].size; c++) {
        if (ossa__json_eq(ctx, (int32_t)k, key)) return (int32_t)k + 1;
        k = ctx->tok[k].next;
    }
    return -1;
}

int32_t ossa__json_first(const ossa__ctx *ctx, int32_t container) {
    if (container < 0 || ctx->tok[container].size == 0) return -1;
    return container + 1;
}

int32_t ossa__json_next(const ossa__ctx *ctx, int32_t tok) { return (int32_t)ctx->tok[tok].next; }

static const char *type_name(ossa__jtype t) {
    switch (t) {
    case OSSA__J_OBJECT: return "an object";
    case OSSA__J_ARRAY: return "an array";
    case OSSA__J_STRING: return "a string";
    case OSSA__J_PRIMITIVE: return "a literal";
    default: return "nothing";
    }
}

static void sub(char *out, size_t size, const char *path, const char *key) {
    snprintf(out, size, "%s/%s", path, key);
}

ossa_result ossa__json_number(ossa__ctx *ctx, int32_t tok, const char *path, double *out) {
    const ossa__jtok *t = &ctx->tok[tok];
    char buf[64];
    size_t n = t->end - t->start;
    const char *s = ctx->json + t->start;
    if (t->type != OSSA__J_PRIMITIVE || n == 0 || n >= sizeof buf || !(s[0] == '-' || (s[0] >= '0' && s[0] <= '9')))
        return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path, "expected a number, found %s",
                          t->type == OSSA__J_PRIMITIVE ? "true/false/null" : type_name(t->type));
    memcpy(buf, s, n);
    buf[n] = 0;
    char *end = NULL;
    double v = strtod(buf, &end);
    if (end != buf + n || !isfinite(v)) return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path, "invalid number '%s'", buf);
    *out = v;
    return OSSA_OK;
}

/* ossa__json_number without the diagnostic: false where it would fail. */
static bool number_quiet(const ossa__ctx *ctx, int32_t tok, double *out) {
    const ossa__jtok *t = &ctx->tok[tok];
    char buf[64];
    size_t n = t->end - t->start;
    const char *s = ctx->json + t->start;
    if (t->type == OSSA__J_PRIMITIVE && n > 0 && n <= 15 && (s[0] != '0' || n == 1)) {
        /* plain non-negative integers (indices, counts): exact without strtod */
        uint64_t v = 0;
        size_t k = 0;
        while (k < n && s[k] >= '0' && s[k] <= '9') v = v * 10 + (uint64_t)(s[k++] - '0');
        if (k == n) {
            *out = (double)v;
            return true;
        }
    }
    if (t->type != OSSA__J_PRIMITIVE || n == 0 || n >= sizeof buf || !(s[0] == '-' || (s[0] >= '0' && s[0] <= '9')))
        return false;
    memcpy(buf, s, n);
    buf[n] = 0;
    char *end = NULL;
    double v = strtod(buf, &end);
    if (end != buf + n || !isfinite(v)) return false;
    *out = v;
    return true;
}

ossa_result ossa__json_get_uint(ossa__ctx *ctx, int32_t obj, const char *path, const char *key, bool required,
                                uint64_t max, uint64_t *out, bool *present) {
    char p[160];
    if (present) *present = false;
    int32_t v = ossa__json_find(ctx, obj, key);
    if (v < 0) {
        if (required) return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path, "missing required '%s'", key);
        return OSSA_OK;
    }
    double d;
    if (!number_quiet(ctx, v, &d)) { /* the path is formatted only for the diagnostic */
        sub(p, sizeof p, path, key);
        return ossa__json_number(ctx, v, p, &d);
    }
    if (d < 0 || d != floor(d) || d > (double)max)
        return sub(p, sizeof p, path, key), ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, p, "%.17g is not an integer in [0, %llu]", d,
                          (unsigned long long)max);
    *out = (uint64_t)d;
    if (present) *present = true;
    return OSSA_OK;
}

ossa_result ossa__json_get_index(ossa__ctx *ctx, int32_t obj, const char *path, const char *key, bool required,
                                 uint32_t count, const char *what, int32_t *out) {
    uint64_t v = 0;
    bool present = false;
    *out = -1;
    ossa_result r = ossa__json_get_uint(ctx, obj, path, key, required, UINT32_MAX, &v, &present);
    if (r || !present) return r;
    if (v >= count) {
        char p[160];
        sub(p, sizeof p, path, key);
        return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, p, "%s index %llu out of range (%u %s)", what,
                          (unsigned long long)v, count, what);
    }
    *out = (int32_t)v;
    return OSSA_OK;
}

ossa_result ossa__json_get_bool(ossa__ctx *ctx, int32_t obj, const char *path, const char *key, bool *out) {
    int32_t v = ossa__json_find(ctx, obj, key);
    if (v < 0) return OSSA_OK;
    char p[160];
    sub(p, sizeof p, path, key);
    const ossa__jtok *t = &ctx->tok[v];
    size_t n = t->end - t->start;
    if (t->type == OSSA__J_PRIMITIVE && n == 4 && !memcmp(ctx->json + t->start, "true", 4)) *out = true;
    else if (t->type == OSSA__J_PRIMITIVE && n == 5 && !memcmp(ctx->json + t->start, "false", 5)) *out = false;
    else return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, p, "expected true or false");
    return OSSA_OK;
}

ossa_result ossa__json_get_floats(ossa__ctx *ctx, int32_t obj, const char *path, const char *key, float *out,
                                  uint32_t n, bool *present) {
    *present = false;
    int32_t v = ossa__json_find(ctx, obj, key);
    if (v < 0) return OSSA_OK;
    char p[160];
    sub(p, sizeof p, path, key);
    if (ctx->tok[v].type != OSSA__J_ARRAY || ctx->tok[v].size != n)
        return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, p, "expected an array of %u numbers", n);
    int32_t e = ossa__json_first(ctx, v);
    for (uint32_t i = 0; i < n; i++, e = ossa__json_next(ctx, e)) {
        double d;
        bool ok = number_quiet(ctx, e, &d);
        if (!ok || !(fabs(d) <= 3.4028234663852886e38)) {
            char pe[176];
            snprintf(pe, sizeof pe, "%s/%u", p, i);
            if (!ok) return ossa__json_number(ctx, e, pe, &d);
            return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, pe, "%g is out of float range", d);
        }
        out[i] = (float)d;
    }
    *present = true;
    return OSSA_OK;
}

static ossa_result get_typed(ossa__ctx *ctx, int32_t obj, const char *path, const char *key, ossa__jtype type,
                             int32_t *out) {
    *out = -1;
    int32_t v = ossa__json_find(ctx, obj, key);
    if (v < 0) return OSSA_OK;
    if (ctx->tok[v].type != type) {
        char p[160];
        sub(p, sizeof p, path, key);
        return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, p, "expected %s, found %s", type_name(type),
                          type_name(ctx->tok[v].type));
    }
    *out = v;
    return OSSA_OK;
}

ossa_result ossa__json_get_array(ossa__ctx *ctx, int32_t obj, const char *path, const char *key, int32_t *out) {
    return get_typed(ctx, obj, path, key, OSSA__J_ARRAY, out);
}

ossa_result ossa__json_get_object(ossa__ctx *ctx, int32_t obj, const char *path, const char *key, int32_t *out) {
    return get_typed(ctx, obj, path, key, OSSA__J_OBJECT, out);
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static bool hex4(const char *s, uint32_t *out) {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hexval(s[i]);
        if (h < 0) return false;
        v = v * 16u + (uint32_t)h;
    }
    *out = v;
    return true;
}

ossa_result ossa__json_string_dup(ossa__ctx *ctx, int32_t tok, const char *path, char **out) {
    *out = NULL;
    const ossa__jtok *t = &ctx->tok[tok];
    if (t->type != OSSA__J_STRING) return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path, "expected a string");
    size_t n = t->end - t->start;
    const char *s = ctx->json + t->start;
    char *d = ossa__ctx_alloc_raw(ctx, n + 1, 1);
    if (!d) return ctx->failed;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c != '\\') {
            d[o++] = c;
            continue;
        }
        if (++i >= n) goto bad;
        c = s[i];
        switch (c) {
        case '"': d[o++] = '"'; break;
        case '\\': d[o++] = '\\'; break;
        case '/': d[o++] = '/'; break;
        case 'b': d[o++] = '\b'; break;
        case 'f': d[o++] = '\f'; break;
        case 'n': d[o++] = '\n'; break;
        case 'r': d[o++] = '\r'; break;
        case 't': d[o++] = '\t'; break;
        case 'u': {
            uint32_t cp;
            if (n - i - 1 < 4 || !hex4(s + i + 1, &cp)) goto bad;
            i += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                uint32_t lo;
                if (n - i - 1 < 6 || s[i + 1] != '\\' || s[i + 2] != 'u' || !hex4(s + i + 3, &lo) || lo < 0xDC00 ||
                    lo > 0xDFFF)
                    goto bad;
                i += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                goto bad;
            }
            if (cp == 0) goto bad; /* embedded NUL would truncate the name silently */
            if (cp < 0x80) {
                d[o++] = (char)cp;
            } else if (cp < 0x800) {
                d[o++] = (char)(0xC0 | (cp >> 6));
                d[o++] = (char)(0x80 | (cp & 0x3F));
            } else if (cp < 0x10000) {
                d[o++] = (char)(0xE0 | (cp >> 12));
                d[o++] = (char)(0x80 | ((cp >> 6) & 0x3F));
                d[o++] = (char)(0x80 | (cp & 0x3F));
            } else {
                d[o++] = (char)(0xF0 | (cp >> 18));
                d[o++] = (char)(0x80 | ((cp >> 12) & 0x3F));
                d[o++] = (char)(0x80 | ((cp >> 6) & 0x3F));
                d[o++] = (char)(0x80 | (cp & 0x3F));
            }
            break;
        }
        default: goto bad;
        }
    }
    d[o] = 0;
    *out = d;
    return OSSA_OK;
bad:
    ossa__ctx_free(ctx, d);
    return ossa__fail(ctx, OSSA_ERROR_PARSE, path, "invalid escape sequence in string");
}

ossa_result ossa__json_get_string(ossa__ctx *ctx, int32_t obj, const char *path, const char *key, char **out) {
    *out = NULL;
    int32_t v = ossa__json_find(ctx, obj, key);
    if (v < 0) return OSSA_OK;
    char p[160];
    sub(p, sizeof p, path, key);
    if (ctx->tok[v].type != OSSA__J_STRING) {
        ossa__warn(ctx, p, "expected a string, found %s; ignored", type_name(ctx->tok[v].type));
        return OSSA_OK;
    }
    return ossa__json_string_dup(ctx, v, p, out);
}

ossa_result ossa__json_object_array(ossa__ctx *ctx, int32_t obj, const char *path, const char *key,
                                    uint32_t *count, int32_t **items) {
    *count = 0;
    *items = NULL;
    int32_t arr;
    ossa_result r = ossa__json_get_array(ctx, obj, path, key, &arr);
    if (r || arr < 0) return r;
    uint32_t n = ctx->tok[arr].size;
    if (n == 0) return OSSA_OK;
    int32_t *it = ossa__ctx_alloc(ctx, n, sizeof *it);
    if (!it) return ctx->failed;
    int32_t e = ossa__json_first(ctx, arr);
    for (uint32_t i = 0; i < n; i++, e = ossa__json_next(ctx, e)) {
        if (ctx->tok[e].type != OSSA__J_OBJECT) {
            ossa__ctx_free(ctx, it);
            char p[176];
            snprintf(p, sizeof p, "%s/%s/%u", path, key, i);
            return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, p, "expected an object, found %s",
                              type_name(ctx->tok[e].type));
        }
        it[i] = e;
    }
    *count = n;
    *items = it;
    return OSSA_OK;
}
