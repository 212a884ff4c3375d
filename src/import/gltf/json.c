/* JSON layer of the glTF importer: Debian's jsmn tokeniser (strict mode), then
 * an iterative pass that records each token's subtree end so lookups and skips
 * never recurse, plus typed getters whose errors name the JSON place. */
#include "import/gltf/gltf_internal.h"

#include <math.h>
#include <stdio.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <stdlib.h>
#include <string.h>

#define JSMN_STATIC
#define JSMN_STRICT
/* Parent links make closing brackets O(1); without them jsmn scans back over all
 * earlier tokens, which is quadratic on long arrays of objects and deep nesting. */
#define JSMN_PARENT_LINKS
#include <jsmn.h>

_Static_assert(sizeof(ossa__jtok) == sizeof(jsmntok_t), "tokens are converted in place");

/* A string is "long" when jsmn's character loop over it is worth skipping: at least this
 * many characters (embedded base64 data: URIs are megabytes). */
#define LONG_STRING 4096

/* Offset of the first '"', backslash or NUL in s[0, n), or n. */
static size_t special(const char *s, size_t n) {
    size_t i = 0;
#if defined(__SSE2__)
    const __m128i q = _mm_set1_epi8('"'), b = _mm_set1_epi8('\\'), z = _mm_setzero_si128();
    for (; i + 64 <= n; i += 64) { /* long strings: 64 bytes per test */
        __m128i hit = z;
        for (int k = 0; k < 4; k++) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 16 * k));
            hit = _mm_or_si128(hit, _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, b)),
                                                 _mm_cmpeq_epi8(v, z)));
        }
        if (_mm_movemask_epi8(hit)) break;
    }
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, b)), _mm_cmpeq_epi8(v, z));
        unsigned m = (unsigned)_mm_movemask_epi8(hit);
        if (m) return i + (size_t)__builtin_ctz(m);
    }
#endif
    for (; i < n; i++)
        if (s[i] == '"' || s[i] == '\\' || s[i] == 0) return i;
    return n;
}

#if defined(__SSE2__)
/* Bit mask of the bytes among s[0, 16) the pre-pass looks at: , : " [ { ] } */
static unsigned structural16(const char *s) {
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
    __m128i w = _mm_or_si128(v, _mm_set1_epi8(0x20)); /* [ ] become { } */
    __m128i m = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(',')), _mm_cmpeq_epi8(v, _mm_set1_epi8(':')));
    m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8('"')));
    m = _mm_or_si128(m, _mm_or_si128(_mm_cmpeq_epi8(w, _mm_set1_epi8('{')), _mm_cmpeq_epi8(w, _mm_set1_epi8('}'))));
    return (unsigned)_mm_movemask_epi8(m);
}
#endif

size_t ossa__json_scan(const char *js, size_t len, size_t *bound, ossa__json_skip *skips, uint32_t *skip_count) {
    /* Token bound without a counting pass: every token but the first follows one of
     * , : [ { (commas inside strings only over-count). Large embedded base64 strings
     * contain none, so this halves the parse time of typical files. */
    /* 0: nothing to do; 1: , :  2: [ {  3: ] }  4: " */
    static const uint8_t CLS[256] = {[','] = 1, [':'] = 1, ['['] = 2, ['{'] = 2, [']'] = 3, ['}'] = 3, ['"'] = 4};
    size_t b = 1, i = 0;
    uint32_t depth = 0, nskip = 0;
    while (i < len) {
        /* m: the bytes at base + bit that matter (whitespace, numbers and literals are
         * passed 16 bytes at a time) */
        unsigned m;
        size_t base = i;
#if defined(__SSE2__)
        if (len - i >= 16) {
            m = structural16(js + i);
            i += 16;
        } else
#endif
        {
            m = CLS[(unsigned char)js[i]] ? 1u : 0u;
            i += 1;
        }
        while (m) {
            size_t at = base + (size_t)__builtin_ctz(m);
            m &= m - 1;
            uint8_t k = CLS[(unsigned char)js[at]];
            b += k <= 2;
            if (k == 2) {
                /* jsmn closes a bracket by walking up the closed tokens: bounded depth keeps it linear */
                if (++depth > OSSA__JSON_MAX_DEPTH) {
                    *bound = b;
                    *skip_count = nskip;
                    return at;
                }
            } else if (k == 3) {
                if (depth) depth--;
            } else if (k == 4) {
                /* skip the string: the next quote not escaped by a backslash */
                size_t j = at + 1, lim = len - at > 33 ? at + 33 : len;
                while (j < lim && js[j] != '"' && js[j] != '\\' && js[j]) j++; /* short plain strings (keys) */
                bool plain = true; /* no escape, no NUL */
                while (j < len && js[j] != '"') {
                    j += special(js + j, len - j);
                    if (j >= len || js[j] == '"') break;
                    plain = false;
                    j += js[j] == '\\' ? 2 : 1; /* the escaped character cannot close the string */
                }
                if (j >= len) { /* unterminated: jsmn reports it */
                    *bound = b;
                    *skip_count = nskip;
                    return SIZE_MAX;
                }
                /* A long string without escapes or NULs is tokenised here instead of by jsmn's
                 * character loop (ossa__json_tokenize). Each skip costs jsmn one walk back over
                 * the tokens since the innermost open container, so only strings longer than
                 * the tokens so far are skipped: the walks stay linear in the text. */
                size_t n = j - at - 1;
                if (plain && nskip < OSSA__JSON_MAX_SKIPS && n >= LONG_STRING && n >= b) {
                    skips[nskip].open = at;
                    skips[nskip].close = j;
                    nskip++;
                }
                i = j + 1; /* go on after the closing quote */
                m = 0;
            }
        }
    }
    *bound = b;
    *skip_count = nskip;
    return SIZE_MAX;
}

int ossa__json_tokenize(const char *js, size_t len, const ossa__json_skip *skips, uint32_t skip_count, void *tokens,
                        unsigned capacity, unsigned *pos) {
    jsmntok_t *jt = tokens;
    jsmn_parser p;
    jsmn_init(&p);
    int n = 0;
    for (uint32_t s = 0; s < skip_count && (n >= 0 || n == JSMN_ERROR_PART); s++) {
        size_t open = skips[s].open, close = skips[s].close;
        if (open < p.pos) continue; /* inside what jsmn already read */
        n = jsmn_parse(&p, js, open, jt, capacity);
        /* jsmn resumes after JSMN_ERROR_PART (open containers). Unless it stopped before the
         * quote (a NUL, or a primitive running into the quote) or has no token left, it is now
         * between values at the quote: do exactly what its '"' case does for a string
         * without escapes, then go on after the closing quote. */
        if (!(n >= 0 || n == JSMN_ERROR_PART) || p.pos != open || p.toknext >= capacity) continue;
        jsmntok_t *t = &jt[p.toknext++];
        t->type = JSMN_STRING;
        t->start = (int)open + 1;
        t->end = (int)close;
        t->size = 0;
        t->parent = p.toksuper;
        if (p.toksuper != -1) jt[p.toksuper].size++;
        p.pos = (unsigned)close + 1;
    }
    if (n >= 0 || n == JSMN_ERROR_PART) n = jsmn_parse(&p, js, len, jt, capacity);
    *pos = p.pos;
    return n;
}

/* The token count to allocate for the document (js, len) in *bound: the scan's bound, or
 * jsmn's exact count when that bound does not fit a quarter of the allocation budget; the
 * scan's skipped strings into skips. */
static ossa_result token_bound(ossa__ctx *ctx, const char *js, size_t len, size_t *bound, ossa__json_skip *skips,
                               uint32_t *skip_count) {
    size_t deep = ossa__json_scan(js, len, bound, skips, skip_count);
    if (deep != SIZE_MAX)
        return ossa__fail(ctx, OSSA_ERROR_PARSE, "", "JSON: nesting deeper than %d levels at byte %zu",
                          OSSA__JSON_MAX_DEPTH, deep);
    if (*bound > (size_t)INT32_MAX || *bound * sizeof(jsmntok_t) > (ctx->limit - ctx->used) / 4) {
        jsmn_parser p;
        jsmn_init(&p);
        int n = jsmn_parse(&p, js, len, NULL, 0);
        if (n < 0)
            return ossa__fail(ctx, OSSA_ERROR_PARSE, "", "JSON: %s near byte %u",
                              n == JSMN_ERROR_PART ? "truncated document" : "invalid syntax", p.pos);
        *bound = (size_t)n;
    }
    if (*bound == 0) return ossa__fail(ctx, OSSA_ERROR_PARSE, "", "JSON: no value");
    return OSSA_OK;
}

/* jsmn's count tokens at mem converted in place to ossa__jtok (the same size; memcpy in and
 * out: the same bytes change type). False, with *bad the start of the token (jsmn's: may be
 * -1), when a token's range is not inside the len-byte document. */
static bool convert_tokens(void *mem, uint32_t count, size_t len, int *bad) {
    for (uint32_t i = 0; i < count; i++) {
        jsmntok_t s;
        memcpy(&s, (const char *)mem + (size_t)i * sizeof s, sizeof s);
        if (s.start < 0 || s.end < s.start || s.size < 0 || (size_t)s.end > len) {
            *bad = s.start;
            return false;
        }
        ossa__jtok d;
        d.type = s.type == JSMN_OBJECT      ? OSSA__J_OBJECT
                 : s.type == JSMN_ARRAY     ? OSSA__J_ARRAY
                 : s.type == JSMN_STRING    ? OSSA__J_STRING
                 : s.type == JSMN_PRIMITIVE ? OSSA__J_PRIMITIVE
                                            : OSSA__J_NONE;
        d.start = (uint32_t)s.start;
        d.end = (uint32_t)s.end;
        d.size = (uint32_t)s.size;
        d.next = 0;
        memcpy((char *)mem + (size_t)i * sizeof d, &d, sizeof d);
    }
    return true;
}

/* Each token's subtree end (next), computed backwards (children of i start at i + 1), and its
 * shape checked: objects hold string keys with one value each, strings one child at most
 * (a key), primitives none. UINT32_MAX, or the start of the first malformed token. */
static uint32_t link_subtrees(ossa__jtok *t, uint32_t count) {
    for (uint32_t i = count; i-- > 0;) {
        uint32_t j = i + 1;
        for (uint32_t c = 0; c < t[i].size; c++) {
            if (j >= count) return t[i].start;
            j = t[j].next;
        }
        t[i].next = j;
        bool bad = t[i].type == OSSA__J_NONE || (t[i].type == OSSA__J_STRING && t[i].size > 1) ||
                   (t[i].type == OSSA__J_PRIMITIVE && t[i].size > 0);
        if (t[i].type == OSSA__J_OBJECT) {
            uint32_t k = i + 1;
            for (uint32_t c = 0; c < t[i].size && !bad; c++) {
                if (t[k].type != OSSA__J_STRING || t[k].size != 1) bad = true;
                k = t[k].next;
            }
        }
        if (bad) return t[i].start;
    }
    return UINT32_MAX;
}

ossa_result ossa__json_parse(ossa__ctx *ctx) {
    if (ctx->gltf->json_size == 0) return ossa__fail(ctx, OSSA_ERROR_PARSE, "", "JSON: empty document");
    if (ctx->gltf->json_size >= (size_t)INT32_MAX)
        return ossa__fail(ctx, OSSA_ERROR_LIMIT, "", "JSON: %zu bytes is too large", ctx->gltf->json_size);
    const char *js = ctx->gltf->json;
    size_t len = ctx->gltf->json_size, bound;
    ossa__json_skip skips[OSSA__JSON_MAX_SKIPS];
    uint32_t skip_count;
    ossa_result r = token_bound(ctx, js, len, &bound, skips, &skip_count);
    if (r) return r;
    /* one array: jsmn's tokens, then converted in place to ossa__jtok (same size) */
    void *mem = ossa__ctx_alloc_raw(ctx, bound, sizeof(jsmntok_t));
    if (!mem) return ctx->failed;
    unsigned pos;
    int n = ossa__json_tokenize(js, len, skips, skip_count, mem, (unsigned)bound, &pos);
    if (n <= 0) {
        ossa__ctx_free(ctx, mem);
        if (n == 0) return ossa__fail(ctx, OSSA_ERROR_PARSE, "", "JSON: no value");
        return ossa__fail(ctx, OSSA_ERROR_PARSE, "", "JSON: %s near byte %u",
                          n == JSMN_ERROR_PART ? "truncated document"
                          : n == JSMN_ERROR_NOMEM ? "too many tokens" : "invalid syntax", pos);
    }
    uint32_t count = (uint32_t)n;
    int unterminated;
    if (!convert_tokens(mem, count, len, &unterminated)) {
        ossa__ctx_free(ctx, mem);
        return ossa__fail(ctx, OSSA_ERROR_PARSE, "", "JSON: unterminated value near byte %d", unterminated);
    }
    ossa__jtok *t = mem;
    uint32_t malformed = link_subtrees(t, count);
    if (malformed != UINT32_MAX) {
        ossa__ctx_free(ctx, t);
        return ossa__fail(ctx, OSSA_ERROR_PARSE, "", "JSON: malformed structure near byte %u", malformed);
    }
    ctx->gltf->tok = t;
    ctx->gltf->tok_count = count;
    if (t[0].type != OSSA__J_OBJECT) return ossa__fail(ctx, OSSA_ERROR_PARSE, "", "JSON: top level is not an object");
    if (t[0].next != count) return ossa__fail(ctx, OSSA_ERROR_PARSE, "", "JSON: trailing data after the top-level object");
    return OSSA_OK;
}

bool ossa__json_eq(const ossa__ctx *ctx, int32_t tok, const char *s) {
    if (tok < 0) return false;
    const ossa__jtok *t = &ctx->gltf->tok[tok];
    if (t->type != OSSA__J_STRING) return false;
    size_t n = strlen(s);
    return t->end - t->start == n && memcmp(ctx->gltf->json + t->start, s, n) == 0;
}

int32_t ossa__json_find(const ossa__ctx *ctx, int32_t obj, const char *key) {
    if (obj < 0 || ctx->gltf->tok[obj].type != OSSA__J_OBJECT) return -1;
    uint32_t k = (uint32_t)obj + 1;
    for (uint32_t c = 0; c < ctx->gltf->tok[obj].size; c++) {
        if (ossa__json_eq(ctx, (int32_t)k, key)) return (int32_t)k + 1;
        k = ctx->gltf->tok[k].next;
    }
    return -1;
}

int32_t ossa__json_first(const ossa__ctx *ctx, int32_t container) {
    if (container < 0 || ctx->gltf->tok[container].size == 0) return -1;
    return container + 1;
}

int32_t ossa__json_next(const ossa__ctx *ctx, int32_t tok) { return (int32_t)ctx->gltf->tok[tok].next; }

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
    const ossa__jtok *t = &ctx->gltf->tok[tok];
    char buf[64];
    size_t n = t->end - t->start;
    const char *s = ctx->gltf->json + t->start;
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
    const ossa__jtok *t = &ctx->gltf->tok[tok];
    char buf[64];
    size_t n = t->end - t->start;
    const char *s = ctx->gltf->json + t->start;
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
    const ossa__jtok *t = &ctx->gltf->tok[v];
    size_t n = t->end - t->start;
    if (t->type == OSSA__J_PRIMITIVE && n == 4 && !memcmp(ctx->gltf->json + t->start, "true", 4)) *out = true;
    else if (t->type == OSSA__J_PRIMITIVE && n == 5 && !memcmp(ctx->gltf->json + t->start, "false", 5)) *out = false;
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
    if (ctx->gltf->tok[v].type != OSSA__J_ARRAY || ctx->gltf->tok[v].size != n)
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
    if (ctx->gltf->tok[v].type != type) {
        char p[160];
        sub(p, sizeof p, path, key);
        return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, p, "expected %s, found %s", type_name(type),
                          type_name(ctx->gltf->tok[v].type));
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
    const ossa__jtok *t = &ctx->gltf->tok[tok];
    if (t->type != OSSA__J_STRING) return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path, "expected a string");
    size_t n = t->end - t->start;
    const char *s = ctx->gltf->json + t->start;
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
    if (ctx->gltf->tok[v].type != OSSA__J_STRING) {
        ossa__warn(ctx, p, "expected a string, found %s; ignored", type_name(ctx->gltf->tok[v].type));
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
    uint32_t n = ctx->gltf->tok[arr].size;
    if (n == 0) return OSSA_OK;
    int32_t *it = ossa__ctx_alloc(ctx, n, sizeof *it);
    if (!it) return ctx->failed;
    int32_t e = ossa__json_first(ctx, arr);
    for (uint32_t i = 0; i < n; i++, e = ossa__json_next(ctx, e)) {
        if (ctx->gltf->tok[e].type != OSSA__J_OBJECT) {
            ossa__ctx_free(ctx, it);
            char p[176];
            snprintf(p, sizeof p, "%s/%s/%u", path, key, i);
            return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, p, "expected an object, found %s",
                              type_name(ctx->gltf->tok[e].type));
        }
        it[i] = e;
    }
    *count = n;
    *items = it;
    return OSSA_OK;
}
