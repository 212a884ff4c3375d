/* inproc: the single-character frame rows of two trees in one process. Loads two frame_plugin
 * builds (this tree's and a baseline commit's, each linking its own static libraries with
 * their symbols hidden) and alternates them rep by rep, which side goes first alternating too,
 * so the machine's slow and fast phases fall on both alike; prints each row's medians and the
 * median of the reps' ratios with their range.
 *
 * usage: inproc NOW.so BASE.so WOMAN.gltf [REPS] */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_util.h"

typedef struct side {
    int (*rows)(void);
    const char *(*row_name)(int);
    int (*init)(const char *);
    double (*run)(int, int);
} side;

static int open_side(const char *path, const char *gltf, side *s) {
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "inproc: %s\n", dlerror());
        return -1;
    }
    *(void **)&s->rows = dlsym(h, "frame_rows");
    *(void **)&s->row_name = dlsym(h, "frame_row_name");
    *(void **)&s->init = dlsym(h, "frame_init");
    *(void **)&s->run = dlsym(h, "frame_run");
    if (!s->rows || !s->row_name || !s->init || !s->run) {
        fprintf(stderr, "inproc: %s lacks the frame_* functions\n", path);
        return -1;
    }
    if (s->init(gltf) != 0) {
        fprintf(stderr, "inproc: %s could not load or build %s\n", path, gltf);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: inproc NOW.so BASE.so WOMAN.gltf [REPS]\n");
        return 2;
    }
    int reps = argc > 4 ? atoi(argv[4]) : 31;
    if (reps < 1 || reps > 1000) reps = 31;
    side sd[2];
    if (open_side(argv[1], argv[3], &sd[0]) || open_side(argv[2], argv[3], &sd[1])) return 1;
    int n = sd[0].rows();
    if (sd[1].rows() != n) return 1;
    enum { FRAMES = 2000 };
    double *v = calloc((size_t)n * 3 * (size_t)reps, sizeof *v); /* per row: now, base, now / base */
    if (!v) return 1;
    for (int r = 0; r < reps; r++)
        for (int row = 0; row < n; row++) {
            double t[2];
            for (int k = 0; k < 2; k++) {
                int which = (r + row + k) % 2;
                t[which] = sd[which].run(row, FRAMES);
            }
            double *w = v + ((size_t)row * 3) * (size_t)reps;
            w[r] = t[0];
            w[reps + r] = t[1];
            w[2 * reps + r] = t[0] / t[1];
        }
    printf("median thread-CPU ns per character-frame over %d reps of %d frames, alternated in one process\n", reps, FRAMES);
    printf("%-36s %10s %10s %10s   %s\n", "row", "now", "baseline", "now/base", "reps' ratios, min - max");
    for (int row = 0; row < n; row++) {
        double *w = v + ((size_t)row * 3) * (size_t)reps;
        double now = median(w, reps), base = median(w + reps, reps), ratio = median(w + 2 * reps, reps);
        printf("%-36s %10.0f %10.0f %9.3fx   %.3f - %.3f\n", sd[0].row_name(row), now, base, ratio, w[2 * reps],
               w[3 * reps - 1]);
    }
    free(v);
    return 0;
}
