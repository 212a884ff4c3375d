/* bench_pack: loading a packed .ossa file (pack.h) against loading the glTF it came from.
 *
 * Woman.gltf (../shared/assets, or the path given) is loaded, its clips are built at the
 * default precision (as `ossa pack` does), and the asset is packed once into
 * memory and into a file. Rows (medians over runs, wall clock, the file in the page
 * cache): ossa_pack_load_file, ossa_pack_load_memory, the checksum alone (XXH64 over
 * the file), and ossa_gltf_load_file for reference. The target: loading
 * Woman.ossa <= 0.2 ms (ozz's own archive: 0.13-0.20 ms on this machine class).
 * Usage: bench_pack [Woman.gltf] [runs (default 51)] */
#include <ossa/ossa.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

static double now_ns(void) { return bench_clock_ns(CLOCK_MONOTONIC); }

static volatile uint64_t sink;

typedef ossa_result (*load_fn)(const void *arg, size_t size, ossa_asset **out);

static ossa_result load_packed_file(const void *arg, size_t size, ossa_asset **out) {
    (void)size;
    return ossa_pack_load_file(arg, NULL, out, NULL);
}
static ossa_result load_packed_memory(const void *arg, size_t size, ossa_asset **out) {
    return ossa_pack_load_memory(arg, size, NULL, out, NULL);
}
static ossa_result load_gltf(const void *arg, size_t size, ossa_asset **out) {
    (void)size;
    return ossa_gltf_load_file(arg, NULL, out, NULL);
}

static double time_load(load_fn fn, const void *arg, size_t size, int runs) {
    double *v = malloc(sizeof(double) * (size_t)runs);
    for (int r = 0; r < runs; r++) {
        ossa_asset *a = NULL;
        double t0 = now_ns();
        ossa_result res = fn(arg, size, &a);
        double t1 = now_ns();
        if (res != OSSA_OK) {
            fprintf(stderr, "bench_pack: load failed (%s)\n", ossa_result_string(res));
            exit(1);
        }
        sink += a->mesh_count;
        ossa_asset_destroy(a);
        v[r] = t1 - t0;
    }
    double m = median(v, runs);
    free(v);
    return m;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "../shared/assets/Woman/Woman.gltf";
    int runs = argc > 2 ? atoi(argv[2]) : 51;
    if (runs < 1) runs = 1;
    ossa_asset *asset = NULL;
    ossa_diagnostic diag;
    if (ossa_gltf_load_file(path, NULL, &asset, &diag) != OSSA_OK) {
        fprintf(stderr, "bench_pack: %s: %s (pass the path of Woman.gltf)\n", path, diag.message);
        return 1;
    }
    /* the clips as `ossa pack` stores them: built at the default precision */
    if (asset->clip_count) {
        asset->built_clips = calloc(asset->clip_count, sizeof *asset->built_clips);
        for (uint32_t c = 0; c < asset->clip_count; c++) {
            if (ossa_clip_build(asset->clips[c], asset->skeleton, NULL, NULL, &asset->built_clips[c], NULL) != OSSA_OK) {
                fprintf(stderr, "bench_pack: building clip %u failed\n", c);
                return 1;
            }
            asset->built_clip_count++;
        }
    }
    size_t size = 0;
    if (ossa_pack_write(asset, NULL, NULL, 0, &size) != OSSA_OK) return 1;
    void *bytes = malloc(size);
    if (!bytes || ossa_pack_write(asset, NULL, bytes, size, &size) != OSSA_OK) return 1;
    const char *out = "bench_pack.ossa";
    if (ossa_pack_write_file(asset, NULL, out) != OSSA_OK) {
        fprintf(stderr, "bench_pack: cannot write %s\n", out);
        return 1;
    }
    printf("bench_pack: %s, %u joints, %u meshes, %u built clips; packed file %zu bytes; %d runs, medians\n", path,
           asset->skeleton ? asset->skeleton->joint_count : 0, asset->mesh_count, asset->built_clip_count, size, runs);

    double *v = malloc(sizeof(double) * (size_t)runs);
    for (int r = 0; r < runs; r++) {
        double t0 = now_ns();
        sink += ossa_pack_checksum(bytes, size);
        v[r] = now_ns() - t0;
    }
    double sum_ns = median(v, runs);
    free(v);
    double file_ns = time_load(load_packed_file, out, size, runs);
    double mem_ns = time_load(load_packed_memory, bytes, size, runs);
    double gltf_ns = time_load(load_gltf, path, 0, runs < 11 ? runs : 11);
    printf("  %-40s %10.3f ms   (target <= 0.2 ms; ozz archive 0.13-0.20 ms)\n", "ossa_pack_load_file", file_ns / 1e6);
    printf("  %-40s %10.3f ms\n", "ossa_pack_load_memory", mem_ns / 1e6);
    printf("  %-40s %10.3f ms   (%.1f GB/s)\n", "  of which the checksum (XXH64)", sum_ns / 1e6, (double)size / sum_ns);
    printf("  %-40s %10.3f ms   (reference)\n", "ossa_gltf_load_file (the source)", gltf_ns / 1e6);
    remove(out);
    free(bytes);
    ossa_asset_destroy(asset);
    return 0;
}
