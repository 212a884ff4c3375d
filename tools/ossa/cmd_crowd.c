/* ossa crowd [FILE] [--count N] [--clips A,B,...] [--out crowd.png|gif] [--size WxH] [--fps N]
 *            [--duration S] [--time T] [--threads N] [--seed N] [--ssaa N] [--quiet]
 * N instances of a skinned character, each with its own clip, phase and speed, drawn
 * with one instanced draw call per mesh; every instance's palette is packed in one
 * float texture per frame (support/crowd.h says why), sampled on CPU threads.
 * Also `ossa bench --crowd N [--json]` (crowd_bench): CPU and GPU milliseconds per frame.
 * Every instance has its own sampling state (support/crowd.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "commands.h"
#include "crowd.h"
#include "render_common.h"
#include "thread_pool.h"

/* The CPU side of a frame: each scratch slot (a fixed share of the instances, their contexts
 * contiguous, its own pose buffers: support/crowd.h) ordered by clip time and sampled by the
 * pool thread that claims it; every instance steps its own sampling state. */
typedef struct crowd_frame {
    crowd *c;
    float t;
} crowd_frame;

static void update_slots(uint32_t begin, uint32_t end, void *user) {
    crowd_frame *f = user;
    for (uint32_t slot = begin; slot < end; slot++) {
        crowd_order_slot_by_time(f->c, slot, f->t);
        crowd_update_slot(f->c, slot, f->t);
    }
}

static void crowd_update(crowd *c, thread_pool *pool, float t) {
    crowd_frame f = {c, t};
    if (pool && c->scratch_slots > 1)
        thread_pool_parallel_for(pool, 0, c->scratch_slots, 1, update_slots, &f);
    else
        update_slots(0, c->scratch_slots, &f);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, uint32_t n) {
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Median CPU ms of a crowd frame (order by time, sample, model space, palettes) over `frames`
 * frames at 60 Hz after 10 warm-up ones, on the pool (NULL: this thread); ms: frames scratch. */
static double crowd_cpu_ms(crowd *c, thread_pool *pool, uint32_t frames, double *ms) {
    for (uint32_t f = 0; f < 10; f++) crowd_update(c, pool, (float)f / 60); /* warm up */
    for (uint32_t f = 0; f < frames; f++) {
        double t0 = now_seconds();
        crowd_update(c, pool, (float)(f + 10) / 60);
        ms[f] = (now_seconds() - t0) * 1000.0;
    }
    return median(ms, frames);
}

/* Characters a 60 Hz frame (16.667 ms) holds at `ms` per frame of `count`. */
static double characters_per_frame(uint32_t count, double ms) { return count * (1000.0 / 60.0) / ms; }

/* The CPU's model name (/proc/cpuinfo) into buf, or "unknown". */
static const char *cpu_model(char *buf, size_t size) {
    FILE *f = fopen("/proc/cpuinfo", "r");
    snprintf(buf, size, "unknown");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        const char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) || !colon) continue;
        snprintf(buf, size, "%s", colon + 1 + (colon[1] == ' '));
        buf[strcspn(buf, "\n")] = 0;
        break;
    }
    if (f) fclose(f);
    return buf;
}

/* `ossa bench --crowd N --json`: one JSON object, the built-clip crowd (every instance its own
 * context) on 1 thread and on the pool's. */
static void crowd_bench_json(const scene *s, const crowd *c, uint32_t nthreads, uint32_t frames, const double cpu[2]) {
    char model[256];
    printf("{\"file\": ");
    json_put_str(s->label);
    printf(", \"joints\": %u, \"clips\": %u, \"sampling\": \"built\", \"instances\": %u, \"threads\": %u, "
           "\"frames\": %u, \"context_bytes\": %zu, \"context_bytes_total\": %zu,\n \"ms_per_frame_1t\": ",
           c->joint_count, c->clip_count, c->count, nthreads, frames, c->context_bytes, c->context_bytes * c->count);
    json_put_num(cpu[0]);
    printf(", \"ms_per_frame_nt\": ");
    json_put_num(cpu[1]);
    printf(", \"characters_per_16ms_1t\": ");
    json_put_num(characters_per_frame(c->count, cpu[0]));
    printf(", \"characters_per_16ms_nt\": ");
    json_put_num(characters_per_frame(c->count, cpu[1]));
    printf(",\n \"cpu\": ");
    json_put_str(cpu_model(model, sizeof model));
    printf(", \"simd\": ");
    json_put_str(ossa_skin_kernel_name(ossa_skin_kernel_best()));
    printf("}\n");
}

#ifndef OSSA_TOOL_GL /* -DOSSA_BUILD_GL=OFF */
int cmd_crowd(int argc, char **argv) {
    (void)argc, (void)argv;
    return cli_no_gl("crowd");
}

static int crowd_gpu_bench(scene *s, crowd *c, thread_pool *pool, uint32_t frames, double *ms) {
    (void)s, (void)c, (void)pool, (void)frames, (void)ms;
    printf("  GPU: this ossa was built without GL (skipped)\n");
    return 0;
}
#else
#include <epoxy/gl.h>
#include <unistd.h>

#include "image_io.h"

/* Clip list "A,B,2": names or indices; fills out (max entries); returns the count or -1. */
static int parse_clips(const scene *s, const char *list, uint32_t *out, uint32_t max) {
    int n = 0;
    char buf[256];
    const char *p = list;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t l = comma ? (size_t)(comma - p) : strlen(p);
        if (l == 0 || l >= sizeof buf || (uint32_t)n >= max) return -1;
        memcpy(buf, p, l);
        buf[l] = 0;
        int idx = scene_find_clip(s, buf, "crowd");
        if (idx < 0) return -1;
        out[n++] = (uint32_t)idx;
        p += l + (comma ? 1 : 0);
    }
    return n;
}

typedef struct crowd_gl {
    scene_gl g;
    float vp[16];
} crowd_gl;

/* Uploads the palettes and draws every mesh of the crowd's skin instanced. */
static bool crowd_draw(crowd_gl *cg, scene *s, const crowd *c, const float bg[3], uint32_t w, uint32_t h) {
    glViewport(0, 0, (GLsizei)w, (GLsizei)h);
    glClearColor(bg[0], bg[1], bg[2], 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glEnable(GL_DEPTH_TEST);
    ossa_result r = ossa_gl_crowd_upload(cg->g.renderer, c->palettes, c->count, c->joint_count);
    if (r != OSSA_OK) {
        fprintf(stderr, "ossa crowd: palette upload failed: %s\n", ossa_result_string(r));
        return false;
    }
    for (uint32_t i = 0; i < cg->g.mesh_count; i++) {
        const ossa_mesh *m = s->asset->meshes[i];
        if (!cg->g.meshes[i] || m->skin != (int32_t)c->skin || !m->influences) continue;
        ossa_gl_draw_desc d = scene_gl_material(&cg->g, s, i);
        d.view_proj = cg->vp;
        d.joint_count = c->joint_count;
        r = ossa_gl_crowd_draw(cg->g.renderer, cg->g.meshes[i], &d, c->count);
        if (r != OSSA_OK) {
            fprintf(stderr, "ossa crowd: instanced draw of mesh %u failed: %s\n", i, ossa_result_string(r));
            return false;
        }
    }
    return true;
}

static int usage(FILE *f) {
    fprintf(f,
            "usage: ossa crowd [FILE|demo] [--count N] [--clips A,B,...] [--out crowd.png|crowd.gif] [--size WxH]\n"
            "                  [--fps N] [--duration S] [--time T] [--threads N] [--seed N] [--spacing M] [--ssaa N]\n"
            "                  [--sampling built|lossless|editable] [--quiet]\n"
            "  N instances of the character on a grid, each with its own clip, phase and speed; one instanced\n"
            "  draw call per mesh, all palettes in one float texture per frame, sampled on CPU threads.\n"
            "  --count N    instances (default 100)\n"
            "  --clips L    comma-separated clip names or indices to deal out (default: every clip)\n"
            "  --out        .png = one frame at --time (default 1 s), .gif = --duration seconds (default 2)\n"
            "  --size       image size (default 640x360); --fps GIF rate (default 15); --ssaa N (default 2)\n"
            "  --threads N  CPU sampling threads (default: all cores); --seed N phases and speeds\n"
            "  --spacing M  grid spacing in metres (default: from the character's size)\n"
            "  --sampling   built (default: clips built compressed, 0.1 mm bound, or the file's built clips),\n"
            "               lossless (built without loss) or editable (the clips as loaded, with cursors)\n");
    return f == stdout ? 0 : 2;
}

/* The most instances of a `joints`-joint skeleton the GPU path holds: the palette texture has
 * 256 matrices per row and GL_MAX_TEXTURE_SIZE rows (gl.h, ossa_gl_crowd_upload). Needs a
 * current context. */
static uint64_t crowd_max_instances(uint32_t joints) {
    GLint max_size = 0;
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_size);
    if (max_size < 1024 || !joints) return 0; /* the renderer needs 1024-texel rows */
    return (uint64_t)max_size * 256u / joints;
}

/* False after saying, before any instance is sampled, that --count exceeds what the GPU holds. */
static bool crowd_count_fits(uint32_t count, const scene *s) {
    uint32_t joints = s->asset->skeleton ? s->asset->skeleton->joint_count : 0;
    uint64_t max = crowd_max_instances(joints);
    if (count <= max || !joints) return true;
    GLint max_size = 0;
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_size);
    fprintf(stderr,
            "ossa crowd: --count %u is more than this GPU holds: at most %llu instances of this %u-joint skeleton "
            "(one palette texture of 256 x GL_MAX_TEXTURE_SIZE = 256 x %d matrices)\n",
            count, (unsigned long long)max, joints, (int)max_size);
    return false;
}

static bool parse_uint(const char *opt, const char *text, uint32_t lo, uint32_t hi, uint32_t *out) {
    char *end = NULL;
    long v = strtol(text, &end, 10);
    if (!*text || *end || v < (long)lo || v > (long)hi) {
        fprintf(stderr, "ossa crowd: %s expects an integer in %u..%u, got '%s'\n", opt, lo, hi, text);
        return false;
    }
    *out = (uint32_t)v;
    return true;
}

/* The command line. */
typedef struct crowd_args {
    const char *file, *clips_arg;
    uint32_t count, threads, seed;
    float duration, time, spacing;
    bool has_duration, has_time, gif;
    crowd_sampling sampling;
    render_options o;
} crowd_args;

static bool parse_sampling(const char *v, crowd_sampling *out) {
    if (!strcmp(v, "built")) *out = CROWD_SAMPLING_BUILT;
    else if (!strcmp(v, "lossless")) *out = CROWD_SAMPLING_LOSSLESS;
    else if (!strcmp(v, "editable")) *out = CROWD_SAMPLING_EDITABLE;
    else {
        fprintf(stderr, "ossa crowd: --sampling expects built, lossless or editable, got '%s'\n", v);
        return false;
    }
    return true;
}

/* argv[*i] and its value (*i moves past it): CLI_GO_ON, or the exit code. */
static int parse_crowd_arg(crowd_args *c, int argc, char **argv, int *i) {
    const char *a = argv[*i];
    bool more = *i + 1 < argc;
    int taken = render_options_parse(&c->o, "crowd", argc, argv, i);
    if (taken) return taken < 0 ? 2 : CLI_GO_ON;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) return usage(stdout);
    bool ok = true;
    if (!strcmp(a, "--count") && more) {
        ok = parse_uint(a, argv[++*i], 1, 1000000, &c->count);
    } else if (!strcmp(a, "--clips") && more) {
        c->clips_arg = argv[++*i];
    } else if (!strcmp(a, "--threads") && more) {
        ok = parse_uint(a, argv[++*i], 1, 256, &c->threads);
    } else if (!strcmp(a, "--seed") && more) {
        ok = parse_uint(a, argv[++*i], 0, 1000000000, &c->seed);
    } else if (!strcmp(a, "--duration") && more) {
        ok = parse_float("crowd", a, argv[++*i], &c->duration);
        c->has_duration = true;
        if (ok && !(c->duration > 0 && c->duration <= 600)) {
            fprintf(stderr, "ossa crowd: --duration must be in (0, 600] seconds\n");
            ok = false;
        }
    } else if (!strcmp(a, "--sampling") && more) {
        ok = parse_sampling(argv[++*i], &c->sampling);
    } else if (!strcmp(a, "--spacing") && more) {
        ok = parse_float("crowd", a, argv[++*i], &c->spacing);
        if (ok && !(c->spacing > 0)) {
            fprintf(stderr, "ossa crowd: --spacing must be positive (metres)\n");
            ok = false;
        }
    } else if (!strcmp(a, "--time") && more) {
        ok = parse_float("crowd", a, argv[++*i], &c->time);
        c->has_time = true;
    } else if (!take_file_arg("crowd", a, !more, &c->file)) {
        return usage(stderr);
    }
    return ok ? CLI_GO_ON : 2;
}

static int parse_crowd_args(int argc, char **argv, crowd_args *c) {
    *c = (crowd_args){.count = 100, .seed = 1, .duration = 2.0f, .time = 1.0f, .sampling = CROWD_SAMPLING_BUILT};
    render_options_init(&c->o, "crowd.png");
    c->o.width = 640, c->o.height = 360;
    for (int i = 1; i < argc; i++) {
        int rc = parse_crowd_arg(c, argc, argv, &i);
        if (rc != CLI_GO_ON) return rc;
    }
    if (!render_out_ext_ok("crowd", c->o.out) || !render_options_consistent(&c->o, "crowd")) return 2;
    c->gif = path_has_ext(c->o.out, ".gif");
    if ((c->gif && c->has_time) || (!c->gif && c->has_duration)) { /* refused, not ignored */
        fprintf(stderr, "ossa crowd: %s applies to a %s output (--out %s): a .png is one frame at --time, "
                        "a .gif plays --duration seconds\n", c->gif ? "--time" : "--duration", c->gif ? ".png" : ".gif",
                c->o.out);
        return 2;
    }
    return CLI_GO_ON;
}

/* What a run draws with: the frame output (its GL context), the thread pool, the crowd and
 * its GL scene. */
typedef struct crowd_run {
    frame_output out;
    thread_pool *pool;
    uint32_t slots;
    crowd c;
    bool crowd_made, gl_made;
    crowd_gl cg;
} crowd_run;

/* The GL context first (--count is checked against its texture limit before any sampling),
 * then the crowd (clip_list: clip_n indices, 0 = every clip) and its GL scene framed by the
 * camera. CLI_GO_ON, or the exit code (after printing why). */
static int crowd_setup(crowd_run *run, const crowd_args *a, scene *s, const uint32_t *clip_list, int clip_n) {
    const render_options *o = &a->o;
    if (!frame_output_open(&run->out, o->out, o->width, o->height, o->ssaa, "crowd")) return 1;
    if (!crowd_count_fits(a->count, s)) return 2;
    run->pool = thread_pool_create(a->threads);
    run->slots = run->pool ? thread_pool_size(run->pool) : 1;
    char err[256];
    crowd_desc cd = {.asset = s->asset, .count = a->count, .clips = clip_n ? clip_list : NULL,
                     .clip_count = (uint32_t)clip_n, .seed = a->seed, .scratch_slots = run->slots,
                     .spacing = a->spacing, .sampling = a->sampling};
    if (!crowd_create(&run->c, &cd, err, sizeof err)) {
        fprintf(stderr, "ossa crowd: %s: %s\n", s->label, err);
        return 1;
    }
    run->crowd_made = true;
    float aspect = (float)o->width / (float)o->height;
    camera cam = camera_frame_at(run->c.lo, run->c.hi, aspect, 0.2f, 0.5f);
    camera_view_proj(&cam, aspect, run->cg.vp);
    run->gl_made = scene_gl_create(&run->cg.g, s, "crowd");
    if (!run->gl_made) return 1;
    camera_eye(&cam, run->cg.g.eye);
    run->cg.g.has_eye = true;
    return CLI_GO_ON;
}

static void crowd_run_free(crowd_run *run) {
    if (run->gl_made) scene_gl_destroy(&run->cg.g);
    frame_output_free(&run->out);
    if (run->crowd_made) crowd_destroy(&run->c);
    thread_pool_destroy(run->pool);
}

/* Updates, draws, reads back and writes each frame (one PNG, or every GIF frame); *cpu: the
 * seconds spent sampling, *wall: in all. False after printing why. */
static bool crowd_frames(crowd_run *run, const crowd_args *a, scene *s, uint32_t frames, double *cpu, double *wall) {
    const render_options *o = &a->o;
    if (!frame_output_begin(&run->out, o->fps, "crowd")) return false;
    double t0 = now_seconds();
    progress_state ps = {isatty(2), t0, t0};
    bool ok = true;
    for (uint32_t f = 0; ok && f < frames; f++) {
        float t = a->gif ? (float)f / o->fps : a->time;
        double c0 = now_seconds();
        crowd_update(&run->c, run->pool, t);
        *cpu += now_seconds() - c0;
        ok = crowd_draw(&run->cg, s, &run->c, o->draw.background, run->out.rw, run->out.rh) &&
             frame_output_write(&run->out, "crowd");
        if (ok && frames > 1 && !o->draw.quiet) progress(&ps, "crowd", f + 1, frames);
    }
    ok = frame_output_end(&run->out, "crowd") && ok;
    *wall = now_seconds() - t0;
    return ok;
}

int cmd_crowd(int argc, char **argv) {
    crowd_args a;
    int rc = parse_crowd_args(argc, argv, &a);
    if (rc != CLI_GO_ON) return rc;
    scene s;
    if (!scene_load(&s, a.file, "crowd")) return 1;
    uint32_t clip_list[64];
    int clip_n = 0;
    if (a.clips_arg && (clip_n = parse_clips(&s, a.clips_arg, clip_list, 64)) <= 0) {
        if (clip_n == 0 || strlen(a.clips_arg) == 0) fprintf(stderr, "ossa crowd: --clips expects NAME[,NAME...]\n");
        scene_free(&s);
        return 2;
    }
    crowd_run run;
    memset(&run, 0, sizeof run);
    double cpu = 0, wall = 0;
    uint32_t frames = a.gif ? (uint32_t)ceilf(a.duration * a.o.fps - 1e-3f) : 1;
    if (frames < 1) frames = 1;
    rc = crowd_setup(&run, &a, &s, clip_list, clip_n);
    if (rc == CLI_GO_ON) rc = crowd_frames(&run, &a, &s, frames, &cpu, &wall) ? 0 : 1;
    if (rc == 0)
        printf("ossa crowd: %s, %u instances x %u frame%s %ux%u in %.2f s (CPU sampling %.2f ms/frame on %u "
               "thread%s) -> %s\n",
               s.label, a.count, frames, frames == 1 ? "" : "s", a.o.width, a.o.height, wall,
               cpu * 1000.0 / frames, run.slots, run.slots == 1 ? "" : "s", a.o.out);
    crowd_run_free(&run);
    scene_free(&s);
    return rc;
}

/* GPU ms per frame (palette upload + instanced draws, glFinish) at 640x360 in a headless
 * context, median of min(frames, 5) after 2 warm-up frames; 1 on a GL failure. */
static int crowd_gpu_bench(scene *s, crowd *c, thread_pool *pool, uint32_t frames, double *ms) {
    ossa_gl_headless *ctx = NULL;
    if (ossa_gl_headless_create(640, 360, &ctx) != OSSA_OK) {
        printf("  GPU: no offscreen OpenGL context (skipped)\n");
        return 0;
    }
    int rc = 0;
    crowd_gl cg;
    memset(&cg, 0, sizeof cg);
    camera cam = camera_frame_at(c->lo, c->hi, 640.0f / 360.0f, 0.2f, 0.5f);
    camera_view_proj(&cam, 640.0f / 360.0f, cg.vp);
    if (!scene_gl_create(&cg.g, s, "bench")) {
        rc = 1;
    } else {
        const float bg[3] = {0.16f, 0.18f, 0.22f};
        uint32_t gframes = frames < 5 ? frames : 5;
        for (uint32_t f = 0; f < gframes + 2 && rc == 0; f++) {
            crowd_update(c, pool, (float)f / 60);
            double t0 = now_seconds();
            if (!crowd_draw(&cg, s, c, bg, 640, 360)) rc = 1;
            glFinish();
            if (f >= 2) ms[f - 2] = (now_seconds() - t0) * 1000.0;
        }
        if (rc == 0)
            printf("  GPU palette upload + instanced draw (%s): %8.3f ms/frame (640x360, %u frames)\n",
                   (const char *)glGetString(GL_RENDERER), median(ms, gframes), gframes);
        scene_gl_destroy(&cg.g);
    }
    ossa_gl_headless_destroy(ctx);
    return rc;
}
#endif

/* One sampling mode's CPU figures (1 thread, then the pool's) printed as text unless json. */
static void crowd_bench_mode(crowd *c, thread_pool *pool, uint32_t nthreads, uint32_t frames, double *ms,
                             bool json, double cpu[2]) {
    const char *name = c->built ? "built clips" : "editable clips";
    if (!json && c->build_seconds > 0) printf("  built clips (compressed, 0.1 mm bound): built in %.2f s\n", c->build_seconds);
    if (!json && c->built)
        printf("  every instance its own sampling context: %zu bytes each, %.1f MB in all\n", c->context_bytes,
               (double)c->context_bytes * c->count / 1e6);
    for (uint32_t k = 0; k < 2; k++) {
        uint32_t threads = k ? nthreads : 1;
        cpu[k] = k && nthreads == 1 ? cpu[0] : crowd_cpu_ms(c, k ? pool : NULL, frames, ms);
        if (!json && (k == 0 || nthreads > 1))
            printf("  CPU sampling + model + palettes, %s, %u thread%s: %8.3f ms/frame (%.2f us per character)\n",
                   name, threads, threads == 1 ? " " : "s", cpu[k], cpu[k] * 1000.0 / c->count);
    }
    if (!json)
        printf("  characters per 16.7 ms, %s: %.0f on 1 thread, %.0f on %u thread%s\n", name,
               characters_per_frame(c->count, cpu[0]), characters_per_frame(c->count, cpu[1]), nthreads,
               nthreads == 1 ? "" : "s");
}

/* CPU ms per frame (sampling + local-to-model + palettes of every instance, each instance with
 * its own sampling state) on 1 and `threads` threads, characters per 16.7 ms, and (text only)
 * the editable clips' figures and GPU ms per frame. Medians of `frames`. json: one object, the
 * built clips' figures only (crowd_bench_json). */
int crowd_bench(const char *file, uint32_t count, uint32_t threads, uint32_t frames, bool json) {
    scene s;
    if (!scene_load(&s, file, "bench")) return 1;
    thread_pool *pool = thread_pool_create(threads);
    uint32_t nthreads = pool ? thread_pool_size(pool) : 1;
    double *ms = malloc(sizeof(double) * frames), cpu[2];
    crowd c;
    memset(&c, 0, sizeof c);
    char err[256];
    if (!json)
        printf("crowd: %s, %u instances, %u joints, %u clips, medians of %u frames at 60 Hz\n", s.label, count,
               s.joint_count, s.asset->clip_count, frames);
    int rc = 0;
    for (int mode = json ? 1 : 0; mode < 2 && rc == 0; mode++) {
        crowd_desc cd = {.asset = s.asset, .count = count, .seed = 1, .scratch_slots = nthreads,
                         .sampling = mode ? CROWD_SAMPLING_BUILT : CROWD_SAMPLING_EDITABLE};
        if (!ms || !crowd_create(&c, &cd, err, sizeof err)) {
            fprintf(stderr, "ossa bench: %s: %s\n", s.label, ms ? err : "out of memory");
            rc = 1;
            break;
        }
        crowd_bench_mode(&c, pool, nthreads, frames, ms, json, cpu);
        if (mode == 0) crowd_destroy(&c);
    }
    if (rc == 0) {
        if (json) crowd_bench_json(&s, &c, nthreads, frames, cpu);
        else rc = crowd_gpu_bench(&s, &c, pool, frames, ms);
        crowd_destroy(&c);
    }
    free(ms);
    thread_pool_destroy(pool);
    scene_free(&s);
    return rc;
}
