/* The load context every importer shares (src/import, not installed): budgeted
 * allocation (options->max_allocation), the first error with its place, warnings, and
 * the importer's own document state behind a pointer. Format-neutral: the glTF
 * importer's state (struct ossa__gltf_doc) is defined in gltf_internal.h; the asset
 * builder (asset_builder.h) and the Assimp importer need only this header. */
#ifndef OSSA_IMPORT_CONTEXT_H
#define OSSA_IMPORT_CONTEXT_H

#include <ossa/asset.h>

#include <stdarg.h>

#define OSSA__MAX_WARNINGS 256

struct ossa__gltf_doc; /* gltf_internal.h */

typedef struct ossa__ctx {
    ossa_allocator allocator; /* resolved */
    size_t limit, used;
    ossa_diagnostic *diag;
    ossa_result failed;       /* first error (OK while none) */

    uint32_t warning_count;
    char **warnings;
    bool warnings_truncated;

    /* what is being loaded, for LIMIT diagnostics: a JSON pointer format with one %u
     * ("/accessors/%u") and its index; NULL = the document itself. Formatted only on failure. */
    const char *stage;
    uint32_t stage_index;

    /* Importer hooks (NULL = none): `borrowed` says ptr lies in memory the importer's
     * state owns (ossa__ctx_free leaves it alone), `release` frees that state
     * (ossa__ctx_release, ossa__ctx_done). */
    bool (*borrowed)(const struct ossa__ctx *ctx, const void *ptr);
    void (*release)(struct ossa__ctx *ctx);
    struct ossa__gltf_doc *gltf; /* the glTF importer's document; NULL for other importers */
} ossa__ctx;

#define OSSA__STAGE(ctx, fmt, index) ((ctx)->stage = (fmt), (ctx)->stage_index = (uint32_t)(index))

/* Load context life cycle shared by importers: allocator, max_allocation (0 = 1 GiB),
 * diagnostic (cleared). ossa__ctx_done frees what the context still holds. */
void ossa__ctx_init(ossa__ctx *ctx, const ossa_load_options *options, ossa_diagnostic *diag);
void ossa__ctx_done(ossa__ctx *ctx);

/* ---- context: budgeted allocation, errors, warnings ---- */
void *ossa__ctx_alloc(ossa__ctx *ctx, size_t count, size_t size); /* zeroed; sets LIMIT/OOM error */
/* Same without zeroing (large byte buffers that are filled right away). */
void *ossa__ctx_alloc_raw(ossa__ctx *ctx, size_t count, size_t size);
void ossa__ctx_free(ossa__ctx *ctx, void *ptr); /* NULL and ctx->borrowed memory (accessor views): no-op */
/* Reserves bytes from the budget without allocating (runtime objects built elsewhere). */
bool ossa__ctx_reserve(ossa__ctx *ctx, size_t bytes);
/* Records the first error: path is a JSON pointer ("/accessors/3"); the message is
 * prefixed with the dotted place ("accessors[3]: "). Returns result. */
ossa_result ossa__fail(ossa__ctx *ctx, ossa_result result, const char *path, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
void ossa__warn(ossa__ctx *ctx, const char *path, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* snprintf(out, size, "%s%s%lld", base, seg, index) without printf (index < 0: no number),
 * for the JSON pointers formatted per item of a load. */
void ossa__path_join(char *out, size_t size, const char *base, const char *seg, int64_t index);
/* "/a/3/b" → "a[3].b" into out. */
void ossa__path_to_place(const char *path, char *out, size_t size);
void ossa__ctx_release(ossa__ctx *ctx); /* the importer's release hook (not warnings) */
/* Fails with a diagnostic recorded earlier (a deferred error, now that it matters). */
ossa_result ossa__fail_again(ossa__ctx *ctx, ossa_result result, const ossa_diagnostic *diag);

/* Normalises q in place in double precision after scaling by its largest component
 * (huge and tiny keys stay exact); zero or non-finite gives identity. Returns the
 * original length (0 for zero/non-finite). */
double ossa__quat_normalize4(float q[4]);

#endif
