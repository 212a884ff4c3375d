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

enum { FRAMES = 2000, CROWD = 1000 };

/* What one rep measures on one side: arg is the row (frames) or the thread count (crowd). */
typedef double (*measure_fn)(const side *s, int arg);
static double frame_ns(const side *s, int row) { return s->run(row, FRAMES); }
static double crowd_per_16ms(const side *s, int threads) { return CROWD * (1000.0 / 60.0) / s->crowd_run((unsigned)threads); }

/* One row: reps measures of each side, alternated (which side goes first alternating too),
 * printed as both sides' medians, the median of the reps' ratios now / base and their range.
 * v: scratch of 3 reps doubles. */
static void compare_row(const side *sd, const char *name, measure_fn measure, int arg, int reps, double *v) {
    for (int r = 0; r < reps; r++) {
        double m[2];
        for (int k = 0; k < 2; k++) {
            int which = (r + arg + k) % 2;
            m[which] = measure(&sd[which], arg);
        }
        v[r] = m[0], v[reps + r] = m[1], v[2 * reps + r] = m[0] / m[1];
    }
    double now = median(v, reps), base = median(v + reps, reps), ratio = median(v + 2 * reps, reps);
    printf("%-42s %10.0f %10.0f %9.3fx   %.3f - %.3f\n", name, now, base, ratio, v[2 * reps], v[3 * reps - 1]);
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
    double *v = calloc(3 * (size_t)reps, sizeof *v);
    if (sd[1].rows() != n || !v) return 1;
    printf("median thread-CPU ns per character-frame over %d reps of %d frames, alternated in one process\n", reps, FRAMES);
    printf("%-42s %10s %10s %10s   %s\n", "row", "now", "baseline", "now/base", "reps' ratios, min - max");
    for (int row = 0; row < n; row++) compare_row(sd, sd[0].row_name(row), frame_ns, row, reps, v);
    if (sd[0].crowd_run && sd[1].crowd_run) {
        if (sd[0].crowd_init(argv[3], CROWD) || sd[1].crowd_init(argv[3], CROWD)) {
            fprintf(stderr, "inproc: a crowd plugin could not load %s\n", argv[3]);
            return 1;
        }
        printf("\ncrowd of %d characters, each its own context: characters per 16.7 ms (slower thread's CPU time), "
               "%d runs\n", CROWD, reps);
        compare_row(sd, "crowd, 1 thread", crowd_per_16ms, 1, reps, v);
        compare_row(sd, "crowd, 2 threads", crowd_per_16ms, 2, reps, v);
        sd[0].crowd_done();
        sd[1].crowd_done();
    }
    free(v);
    return 0;
}
