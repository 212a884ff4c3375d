/* inproc: the single-character frame rows of two trees in one process, and their crowds of
 * 1,000 characters where the plugins have them. Loads two plugins (this tree's and a baseline
 * commit's frame_plugin.c, and bench_crowd.c built with BENCH_CROWD_PLUGIN, each linking its own
 * static libraries with their symbols hidden) and alternates them rep by rep, which side goes
 * first alternating too, so the machine's slow and fast phases fall on both alike; prints each
 * row's medians and the median of the reps' ratios with their range. A crowd run after the
 * other side's starts with caches that side filled (the baseline's contexts are 57 MB): each run
 * is 30 frames, so its first frame is most of what that costs.
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
    int (*crowd_init)(const char *, unsigned); /* NULL: no crowd in this plugin */
    double (*crowd_run)(unsigned);
    void (*crowd_done)(void);
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
    *(void **)&s->crowd_init = dlsym(h, "crowd_init");
    *(void **)&s->crowd_run = dlsym(h, "crowd_run");
    *(void **)&s->crowd_done = dlsym(h, "crowd_done");
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

/* The crowd of 1,000 on 1 and 2 threads, alternated run by run: characters per 16.7 ms from the
 * slower thread's CPU time. */
static void crowd_rows(side *sd, const char *gltf, int reps) {
    enum { COUNT = 1000 };
    if (sd[0].crowd_init(gltf, COUNT) || sd[1].crowd_init(gltf, COUNT)) {
        fprintf(stderr, "inproc: a crowd plugin could not load %s\n", gltf);
        return;
    }
    double *v = calloc(3 * (size_t)reps, sizeof *v);
    if (!v) return;
    printf("\ncrowd of %d characters, each its own context: characters per 16.7 ms (slower thread's CPU time), %d runs\n",
           COUNT, reps);
    for (unsigned threads = 1; threads <= 2; threads++) {
        for (int r = 0; r < reps; r++) {
            double per[2];
            for (int k = 0; k < 2; k++) {
                int which = (r + k) % 2;
                per[which] = COUNT * (1000.0 / 60.0) / sd[which].crowd_run(threads);
            }
            v[r] = per[0], v[reps + r] = per[1], v[2 * reps + r] = per[0] / per[1];
        }
        double now = median(v, reps), base = median(v + reps, reps), ratio = median(v + 2 * reps, reps);
        printf("crowd, %u thread(s)                   %10.0f %10.0f %9.3fx   %.3f - %.3f\n", threads, now, base, ratio,
               v[2 * reps], v[3 * reps - 1]);
    }
    sd[0].crowd_done();
    sd[1].crowd_done();
    free(v);
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
    if (sd[0].crowd_run && sd[1].crowd_run) crowd_rows(sd, argv[3], reps);
    return 0;
}
