/* The load context shared by the importers (context.h): budgeted allocation
 * (options->max_allocation), the first error with its place, and warnings. */
#include "build/context.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"

/* Every allocation carries a 16-byte header with its size so frees return budget. */
#define HDR 16u
#define DEFAULT_LIMIT ((size_t)1 << 30)

static void *ctx_alloc(ossa__ctx *ctx, size_t count, size_t size, bool zero);

void ossa__ctx_init(ossa__ctx *ctx, const ossa_load_options *options, ossa_diagnostic *diag) {
    memset(ctx, 0, sizeof *ctx);
    ctx->allocator = ossa__allocator_resolve(options ? options->allocator : NULL);
    ctx->limit = options && options->max_allocation ? options->max_allocation : DEFAULT_LIMIT;
    ctx->diag = diag;
    if (diag) memset(diag, 0, sizeof *diag);
}

void ossa__ctx_done(ossa__ctx *ctx) {
    ossa__ctx_release(ctx);
    for (uint32_t i = 0; i < ctx->warning_count; i++) ctx->allocator.free(ctx->warnings[i], ctx->allocator.user);
    if (ctx->warnings) ctx->allocator.free(ctx->warnings, ctx->allocator.user);
    ctx->warnings = NULL;
    ctx->warning_count = 0;
}

static const char *stage_path(const ossa__ctx *ctx, char *buf, size_t size) {
    if (!ctx->stage) return "";
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#endif
    snprintf(buf, size, ctx->stage, ctx->stage_index);
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
    return buf;
}

void *ossa__ctx_alloc(ossa__ctx *ctx, size_t count, size_t size) { return ctx_alloc(ctx, count, size, true); }

void *ossa__ctx_alloc_raw(ossa__ctx *ctx, size_t count, size_t size) { return ctx_alloc(ctx, count, size, false); }

static void *ctx_alloc(ossa__ctx *ctx, size_t count, size_t size, bool zero) {
    size_t bytes;
    if (ctx->failed) return NULL;
    if (!ossa__size_mul_add(count, size, HDR, &bytes) || bytes > ctx->limit - ctx->used) {
        char stage[64];
        ossa__fail(ctx, OSSA_ERROR_LIMIT, stage_path(ctx, stage, sizeof stage),
                   "allocation of %zu x %zu bytes exceeds max_allocation (%zu bytes): the load already holds %zu bytes "
                   "(raise max_allocation; ossa --max-memory)",
                   count, size, ctx->limit, ctx->used);
        return NULL;
    }
    uint8_t *p = ctx->allocator.alloc(bytes, ctx->allocator.user);
    if (!p) {
        ossa__fail(ctx, OSSA_ERROR_OUT_OF_MEMORY, "", "out of memory (%zu bytes)", bytes);
        return NULL;
    }
    if (zero) memset(p, 0, bytes);
    memcpy(p, &bytes, sizeof bytes);
    ctx->used += bytes;
    return p + HDR;
}

void ossa__ctx_free(ossa__ctx *ctx, void *ptr) {
    if (!ptr) return;
    if (ctx->borrowed && ctx->borrowed(ctx, ptr)) return; /* e.g. accessor data used in place */
    uint8_t *p = (uint8_t *)ptr - HDR;
    size_t bytes;
    memcpy(&bytes, p, sizeof bytes);
    ctx->used -= bytes;
    ctx->allocator.free(p, ctx->allocator.user);
}

bool ossa__ctx_reserve(ossa__ctx *ctx, size_t bytes) {
    if (ctx->failed) return false;
    if (bytes > ctx->limit - ctx->used) {
        char stage[64];
        ossa__fail(ctx, OSSA_ERROR_LIMIT, stage_path(ctx, stage, sizeof stage),
                   "%zu more bytes exceed max_allocation (%zu bytes): the load already holds %zu bytes "
                   "(raise max_allocation; ossa --max-memory)",
                   bytes, ctx->limit, ctx->used);
        return false;
    }
    ctx->used += bytes;
    return true;
}

void ossa__path_join(char *out, size_t size, const char *base, const char *seg, int64_t index) {
    if (!size) return;
    char num[24];
    size_t nl = 0;
    if (index >= 0) {
        char rev[24];
        uint64_t v = (uint64_t)index;
        do rev[nl++] = (char)('0' + v % 10), v /= 10;
        while (v);
        for (size_t i = 0; i < nl; i++) num[i] = rev[nl - 1 - i];
    }
    const char *parts[3] = {base, seg, num};
    size_t lens[3] = {strlen(base), strlen(seg), nl}, o = 0;
    for (int p = 0; p < 3; p++) {
        size_t n = lens[p] < size - 1 - o ? lens[p] : size - 1 - o;
        memcpy(out + o, parts[p], n);
        o += n;
    }
    out[o] = 0;
}

void ossa__path_to_place(const char *path, char *out, size_t size) {
    size_t o = 0;
    if (!size) return;
    out[0] = 0;
    const char *s = path;
    while (*s == '/') {
        s++;
        const char *e = s;
        while (*e && *e != '/') e++;
        size_t n = (size_t)(e - s);
        bool numeric = n > 0;
        for (size_t i = 0; i < n; i++)
            if (s[i] < '0' || s[i] > '9') numeric = false;
        char seg[96];
        if (n > 80) n = 80;
        if (numeric) snprintf(seg, sizeof seg, "[%.*s]", (int)n, s);
        else snprintf(seg, sizeof seg, "%s%.*s", o ? "." : "", (int)n, s);
        size_t sl = strlen(seg);
        if (o + sl + 1 > size) break;
        memcpy(out + o, seg, sl + 1);
        o += sl;
        s = e;
    }
}

static void format_place(char *out, size_t size, const char *path, const char *fmt, va_list ap) {
    char place[160];
    ossa__path_to_place(path ? path : "", place, sizeof place);
    int n = 0;
    if (place[0]) n = snprintf(out, size, "%s: ", place);
    if (n < 0 || (size_t)n >= size) n = 0;
    vsnprintf(out + n, size - (size_t)n, fmt, ap);
}

ossa_result ossa__fail(ossa__ctx *ctx, ossa_result result, const char *path, const char *fmt, ...) {
    if (ctx->failed) return ctx->failed;
    ctx->failed = result;
    if (ctx->diag) {
        snprintf(ctx->diag->path, sizeof ctx->diag->path, "%s", path ? path : "");
        va_list ap;
        va_start(ap, fmt);
        format_place(ctx->diag->message, sizeof ctx->diag->message, path, fmt, ap);
        va_end(ap);
    }
    return result;
}

void ossa__warn(ossa__ctx *ctx, const char *path, const char *fmt, ...) {
    if (ctx->failed) return;
    if (ctx->warning_count >= OSSA__MAX_WARNINGS) {
        ctx->warnings_truncated = true;
        return;
    }
    if (!ctx->warnings) {
        /* warnings count against max_allocation like everything else the load leaves allocated */
        if (!ossa__ctx_reserve(ctx, OSSA__MAX_WARNINGS * sizeof(char *))) return;
        ctx->warnings = ctx->allocator.alloc(OSSA__MAX_WARNINGS * sizeof(char *), ctx->allocator.user);
        if (!ctx->warnings) {
            ossa__fail(ctx, OSSA_ERROR_OUT_OF_MEMORY, path, "out of memory recording a warning");
            return;
        }
    }
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    format_place(buf, sizeof buf, path, fmt, ap);
    va_end(ap);
    size_t n = strlen(buf) + 1;
    if (!ossa__ctx_reserve(ctx, n)) return;
    char *w = ctx->allocator.alloc(n, ctx->allocator.user);
    if (!w) {
        ossa__fail(ctx, OSSA_ERROR_OUT_OF_MEMORY, path, "out of memory recording a warning");
        return;
    }
    memcpy(w, buf, n);
    ctx->warnings[ctx->warning_count++] = w;
}

ossa_result ossa__fail_again(ossa__ctx *ctx, ossa_result result, const ossa_diagnostic *diag) {
    if (ctx->failed) return ctx->failed;
    ctx->failed = result;
    if (ctx->diag && diag) *ctx->diag = *diag;
    return result;
}

void ossa__ctx_release(ossa__ctx *ctx) {
    if (ctx->release) ctx->release(ctx);
}

double ossa__quat_normalize4(float q[4]) {
    /* finite floats squared cannot overflow or underflow a double, so no scaling is needed */
    double l2 = 0;
    for (int i = 0; i < 4; i++) l2 += (double)q[i] * q[i];
    if (!(l2 > 0) || !isfinite(l2)) {
        q[0] = q[1] = q[2] = 0, q[3] = 1;
        return 0;
    }
    double l = sqrt(l2);
    for (int i = 0; i < 4; i++) q[i] = (float)(q[i] / l);
    return l;
}
