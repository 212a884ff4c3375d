/* bench_load: load time of one character per format (glTF, GLB, DAE, FBX), median over
 * runs, CPU time of this thread (clock_gettime(CLOCK_THREAD_CPUTIME_ID): robust on a
 * shared machine; file reads are page-cache hot after the first run).
 *   ossa glTF importer on the .gltf (the target: <= 4 ms for Woman.gltf),
 *   ossa Assimp importer (aiImportFile + conversion) on every format,
 *   aiImportFile alone (same flags and properties) on every format: the reference.
 * The GLB, DAE and FBX inputs are made at bench time from the .gltf with Assimp's
 * exporters into a temporary directory (never committed); only their load time is
 * measured, their content is not checked here (tests/test_assimp.c checks content).
 * Usage: bench_load [FILE.gltf (default ../shared/assets/Woman/Woman.gltf)] [runs (default 21)] */
#include <ossa/ossa.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef OSSA_HAVE_ASSIMP
#include <assimp/cexport.h>
#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <ossa/assimp.h>
#endif

#include "bench_util.h"

static double now_ns(void) { return bench_clock_ns(CLOCK_THREAD_CPUTIME_ID); }

typedef ossa_result (*load_fn)(const char *path);

static ossa_result load_gltf(const char *path) {
    ossa_asset *a = NULL;
    ossa_result r = ossa_gltf_load_file(path, NULL, &a, NULL);
    ossa_asset_destroy(a);
    return r;
}

/* A bump arena reset after each load: the caller-allocator case where the memory is
 * reused (no page faults, no mmap/munmap churn of fresh malloc blocks). */
static struct {
    unsigned char *base;
    size_t size, used;
} arena;

static void *arena_alloc(size_t size, void *user) {
    (void)user;
    size_t at = (arena.used + 15) & ~(size_t)15;
    if (at + size > arena.size) return NULL;
    arena.used = at + size;
    return arena.base + at;
}

static void arena_free(void *ptr, void *user) { (void)ptr, (void)user; }

static ossa_result load_gltf_arena(const char *path) {
    ossa_allocator al = {arena_alloc, arena_free, NULL};
    ossa_load_options o = {0};
    o.allocator = &al;
    arena.used = 0;
    ossa_asset *a = NULL;
    ossa_result r = ossa_gltf_load_file(path, &o, &a, NULL);
    ossa_asset_destroy(a);
    return r;
}

/* Peak of live bytes allocated during one load (what max_allocation bounds), against the file size. */
static size_t live, peak;
static void *count_alloc(size_t size, void *user) {
    (void)user;
    size_t *p = malloc(size + 16);
    if (!p) return NULL;
    p[0] = size;
    live += size;
    if (live > peak) peak = live;
    return (char *)p + 16;
}
static void count_free(void *ptr, void *user) {
    (void)user;
    if (!ptr) return;
    size_t *p = (size_t *)(void *)((char *)ptr - 16);
    live -= p[0];
    free(p);
}
static void peak_row(const char *label, const char *path) {
    ossa_allocator al = {count_alloc, count_free, NULL};
    ossa_load_options o = {0};
    o.allocator = &al;
    live = peak = 0;
    ossa_asset *a = NULL;
    if (ossa_gltf_load_file(path, &o, &a, NULL)) return;
    size_t kept = live;
    ossa_asset_destroy(a);
    FILE *f = fopen(path, "rb");
    if (!f) return;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fclose(f);
    printf("  %-40s peak %.2f MB = %.2f x the file (%.2f MB); the asset keeps %.2f MB\n", label, (double)peak / 1e6,
           (double)peak / (double)size, (double)size / 1e6, (double)kept / 1e6);
}

#ifdef OSSA_HAVE_ASSIMP
static ossa_result load_assimp(const char *path) {
    ossa_asset *a = NULL;
    ossa_result r = ossa_assimp_load_file(path, NULL, &a, NULL);
    ossa_asset_destroy(a);
    return r;
}

/* aiImportFile with the importer's flags and properties, nothing else */
static ossa_result load_ai_only(const char *path) {
    struct aiPropertyStore *p = aiCreatePropertyStore();
    aiSetImportPropertyInteger(p, AI_CONFIG_IMPORT_FBX_PRESERVE_PIVOTS, 0);
    aiSetImportPropertyInteger(p, AI_CONFIG_PP_SBP_REMOVE, aiPrimitiveType_POINT | aiPrimitiveType_LINE);
    const struct aiScene *s =
        aiImportFileExWithProperties(path, aiProcess_Triangulate | aiProcess_SortByPType, NULL, p);
    aiReleasePropertyStore(p);
    if (!s) return OSSA_ERROR_PARSE; /* Assimp says only that it failed */
    aiReleaseImport(s);
    return OSSA_OK;
}
#endif

static double time_ms(load_fn fn, const char *path, int runs) {
    double *t = malloc(sizeof *t * (size_t)runs);
    if (fn(path) != OSSA_OK) { /* warm-up and check */
        free(t);
        return -1;
    }
    for (int i = 0; i < runs; i++) {
        double t0 = now_ns();
        fn(path);
        t[i] = (now_ns() - t0) / 1e6;
    }
    double m = median(t, runs);
    free(t);
    return m;
}

static void row(const char *what, double ms, const char *note) {
    if (ms < 0) printf("  %-40s   failed to load\n", what);
    else printf("  %-40s %8.2f ms  %s\n", what, ms, note);
}

int main(int argc, char **argv) {
    const char *src = argc > 1 ? argv[1] : "../shared/assets/Woman/Woman.gltf";
    int runs = argc > 2 ? atoi(argv[2]) : 21;
    if (runs < 1) runs = 1;
    if (access(src, R_OK) != 0) {
        printf("bench_load: %s not found (pass a .gltf path); skipped\n", src);
        return 0;
    }
    printf("bench_load: %s, median of %d runs (thread CPU time)\n", src, runs);
    row("ossa glTF importer (.gltf)", time_ms(load_gltf, src, runs), "issue target <= 4 ms (Woman); was 12.4 ms");
    peak_row("peak load memory, .gltf", src);
    arena.size = (size_t)256 << 20;
    arena.base = malloc(arena.size);
    if (arena.base) {
        row("ossa glTF importer (.gltf), arena allocator", time_ms(load_gltf_arena, src, runs),
            "memory reused between loads (ossa_load_options.allocator)");
        free(arena.base);
    }
#ifdef OSSA_HAVE_ASSIMP
    printf("  Assimp %s\n", ossa_assimp_version());
    char dir[] = "/tmp/ossa-bench-load-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    const struct aiScene *scene = aiImportFile(src, 0);
    static const struct {
        const char *id, *ext, *label;
    } F[] = {{NULL, "gltf", "glTF"}, {"glb2", "glb", "GLB"}, {"collada", "dae", "DAE"}, {"fbx", "fbx", "FBX"}};
    for (size_t i = 0; i < sizeof F / sizeof F[0]; i++) {
        char path[128], label[96];
        if (!F[i].id) snprintf(path, sizeof path, "%s", src);
        else {
            snprintf(path, sizeof path, "%s/model.%s", dir, F[i].ext);
            if (!scene || aiExportScene(scene, F[i].id, path, 0) != aiReturn_SUCCESS) {
                printf("  %s: Assimp cannot export it here; skipped\n", F[i].label);
                continue;
            }
        }
        if (F[i].id && !strcmp(F[i].ext, "fbx") && load_ai_only(path)) {
            /* Assimp 5.2's binary FBX exporter can write files its importer rejects: use its ASCII FBX */
            if (aiExportScene(scene, "fbxa", path, 0) != aiReturn_SUCCESS || load_ai_only(path)) {
                printf("  FBX: Assimp cannot re-import its own FBX export here; skipped\n");
                unlink(path);
                continue;
            }
            printf("  (FBX row: ASCII FBX; Assimp's binary FBX export did not re-import)\n");
        }
        if (F[i].id && !strcmp(F[i].ext, "glb")) {
            snprintf(label, sizeof label, "ossa glTF importer (GLB)");
            row(label, time_ms(load_gltf, path, runs), "(Assimp's GLB export of the same model)");
            peak_row("peak load memory, GLB", path);
        }
        snprintf(label, sizeof label, "aiImportFile alone (%s)", F[i].label);
        row(label, time_ms(load_ai_only, path, runs), F[i].id ? "(exported at bench time)" : "issue: 19.1 ms");
        snprintf(label, sizeof label, "ossa Assimp importer (%s)", F[i].label);
        row(label, time_ms(load_assimp, path, runs), "aiImportFile + checks + conversion");
        if (F[i].id) unlink(path);
    }
    if (scene) aiReleaseImport(scene);
    rmdir(dir);
#else
    printf("  built without Assimp: GLB/DAE/FBX rows skipped\n");
#endif
    return 0;
}
