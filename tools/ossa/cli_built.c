/* Built clips for the tool's commands (see cli_common.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli_common.h"

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

size_t cli_default_build_scratch(void) {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    double half = pages > 0 && page > 0 ? (double)pages * (double)page / 2 : 0;
    if (!(half > (double)OSSA_CLIP_BUILD_SCRATCH_CAP)) return OSSA_CLIP_BUILD_SCRATCH_CAP;
    return half < (double)(SIZE_MAX / 2) ? (size_t)half : SIZE_MAX / 2;
}

/* ---- progress on stderr (cli_build_clip): on a terminal one line rewritten in place once a
 * clip has built for PROGRESS_AFTER; with --progress off a terminal a line every PROGRESS_EVERY
 * after that, and one line per clip when it is built */

#define PROGRESS_AFTER 1.0  /* seconds a clip builds before its progress shows */
#define PROGRESS_EVERY 1.0  /* seconds between lines when stderr is not a terminal */
#define PROGRESS_TTY_EVERY 0.1

typedef struct build_progress {
    const char *cmd, *clip_name;
    double start, last;     /* when the clip's build started, when a line was last printed */
    bool tty, shown;        /* stderr is a terminal; a line was printed for this clip */
} build_progress;

static void progress_line(void *user, uint32_t index, uint32_t count, float fraction) {
    build_progress *p = user;
    double t = now_seconds(), elapsed = t - p->start;
    if (fraction >= 1.0f) { /* --progress off a terminal: one line per clip built */
        if (!p->tty) fprintf(stderr, "ossa %s: built clip %u/%u '%s' in %.2f s\n", p->cmd, index + 1, count,
                             p->clip_name, elapsed);
        return;
    }
    if (elapsed < PROGRESS_AFTER || t - p->last < (p->tty ? PROGRESS_TTY_EVERY : PROGRESS_EVERY)) return;
    p->last = t;
    p->shown = true;
    fprintf(stderr, "%sossa %s: building clip %u/%u '%s': %3.0f %% (%.1f s)%s", p->tty ? "\r" : "", p->cmd, index + 1,
            count, p->clip_name, 100.0 * (double)fraction, elapsed, p->tty ? "\033[K" : "\n");
    fflush(stderr);
}

static double build_seconds_total;

double cli_build_seconds(void) { return build_seconds_total; }

/* After a failed build: the check's diagnostic names the cap (or says the precision is out of
 * reach), then the command line's way past it. */
static void explain_build_failure(const char *cmd, const ossa_clip *clip, const ossa_skeleton *sk,
                                  const ossa_clip_build_options *o, ossa_result r, const ossa_clip_build_stats *st) {
    ossa_diagnostic d;
    bool why = ossa_clip_build_check(clip, sk, o, &d) == r && r != OSSA_OK;
    fprintf(stderr, "ossa %s: building clip '%s' failed (%s)%s%s\n", cmd, clip->name, ossa_result_string(r),
            why ? ": " : "", why ? d.message : "");
    if (why && !strcmp(d.path, "max_scratch_bytes")) {
        fprintf(stderr, "ossa %s: raise the cap with --max-build-scratch SIZE (now %.3g GB)%s\n", cmd,
                (double)o->max_scratch_bytes / 1e9, o->lossless ? "" : ", or build losslessly (--lossless)");
    } else if (!why && r == OSSA_ERROR_LIMIT && !o->lossless && st->max_error > o->precision) {
        fprintf(stderr, "ossa %s: clip '%s': even the exact keys measure %.3g model units at joint %u, t=%.4g s: the "
                        "precision %.3g is below the float rounding of the model's coordinates; use a larger "
                        "--precision or --lossless\n", cmd, clip->name, (double)st->max_error, st->worst_joint,
                (double)st->worst_time, (double)(o->precision > 0 ? o->precision : 1e-4f));
    } else if (!why && r == OSSA_ERROR_LIMIT) {
        fprintf(stderr, "ossa %s: clip '%s': a built block's format cap (4 GiB, or 65,535 distinct key masks) was "
                        "reached: build it %s, or split the clip\n", cmd, clip->name,
                o->lossless ? "compressed" : "losslessly (--lossless)");
    }
}

ossa_result cli_build_clip(const char *cmd, const ossa_clip *clip, const ossa_skeleton *skeleton,
                           const ossa_clip_build_options *options, uint32_t index, uint32_t count,
                           ossa_built_clip **out, ossa_clip_build_stats *stats, double *seconds) {
    ossa_clip_build_options o;
    memset(&o, 0, sizeof o);
    if (options) o = *options;
    if (!o.max_scratch_bytes)
        o.max_scratch_bytes = cli_load.max_build_scratch ? cli_load.max_build_scratch : cli_default_build_scratch();
    build_progress p = {cmd, clip->name ? clip->name : "", now_seconds(), 0.0, isatty(2) != 0, false};
    if (p.tty || cli_load.progress) {
        o.progress = progress_line;
        o.progress_user = &p;
        o.progress_clip_index = index;
        o.progress_clip_count = count;
    }
    ossa_clip_build_stats st;
    ossa_result r = ossa_clip_build(clip, skeleton, &o, NULL, out, &st);
    double took = now_seconds() - p.start;
    build_seconds_total += took;
    if (seconds) *seconds = took;
    if (p.shown && p.tty) fprintf(stderr, "\r\033[K"); /* the line is rewritten in place: clear it */
    if (r) explain_build_failure(cmd, clip, skeleton, &o, r, &st);
    if (stats) *stats = st;
    return r;
}

bool cli_refuse_rebuild(const ossa_asset *asset, const ossa_clip_build_options *options, const char *cmd) {
    if (asset->clip_count || !asset->built_clip_count || !options || !(options->lossless || options->precision > 0))
        return false;
    fprintf(stderr, "ossa %s: the file's clips are built already (a packed .ossa): --precision / --lossless cannot "
                    "rebuild them; use the source model, or drop the flag to use the clips as stored\n", cmd);
    return true;
}

/* The report ossa pack stores for a built clip (ossa_clip_report): the precision used and the
 * final check's findings, the worst place all zero ("none") when no vertex error was measured. */
static ossa_clip_report report_of(const ossa_asset *asset, uint32_t c, const ossa_clip_build_stats *st) {
    const ossa_built_clip *b = asset->built_clips[c];
    ossa_clip_report r;
    memset(&r, 0, sizeof r);
    r.precision = ossa_built_clip_lossless(b) ? 0.0f : ossa_built_clip_options(b).precision;
    r.character_height = st->character_height > 0 ? st->character_height
                                                  : (asset->skeleton ? ossa_skeleton_bind_height(asset->skeleton) : 0.0f);
    if (!st->vertex_meshes) return r;
    r.vertex_meshes = st->vertex_meshes;
    r.max_vertex_error = st->max_vertex_error;
    r.vertex_times = st->vertex_times;
    r.vertex_times_unchecked = st->vertex_times_unchecked;
    if (!(st->max_vertex_error > 0)) return r;
    r.worst_mesh = st->worst_mesh;
    r.worst_vertex = st->worst_vertex;
    r.worst_vertex_joint = st->worst_vertex_joint;
    r.worst_vertex_time = st->worst_vertex_time;
    return r;
}

void cli_print_clip_report(const ossa_asset *asset, const ossa_clip_report *r) {
    if (!r) {
        printf(", no build report in the file");
        return;
    }
    if (!r->vertex_meshes) {
        printf(", no mesh checked");
        return;
    }
    const ossa_skeleton *sk = asset->skeleton;
    printf(", vertex error %.3g", (double)r->max_vertex_error);
    if (r->max_vertex_error > 0) {
        printf(" at mesh %u vertex %u", r->worst_mesh, r->worst_vertex);
        if (sk && r->worst_vertex_joint < sk->joint_count)
            printf(" joint %u '%s'", r->worst_vertex_joint, sk->names[r->worst_vertex_joint]);
        printf(" t=%.4g s", (double)r->worst_vertex_time);
    }
    if (r->vertex_times_unchecked) printf(" (%u grid times not skinned: budget)", r->vertex_times_unchecked);
}

void cli_print_clip_report_json(const ossa_asset *asset, const ossa_clip_report *r) {
    if (!r) {
        printf("null");
        return;
    }
    const ossa_skeleton *sk = asset->skeleton;
    printf("{\"precision\": ");
    json_put_num(r->precision);
    printf(", \"character_height\": ");
    json_put_num(r->character_height);
    printf(", \"precision_of_height\": ");
    json_put_num(r->character_height > 0 ? (double)r->precision / (double)r->character_height : 0.0);
    printf(", \"mesh_checked\": %s, \"vertex_meshes\": %u, \"max_vertex_error\": ", r->vertex_meshes ? "true" : "false",
           r->vertex_meshes);
    json_put_num(r->max_vertex_error);
    printf(", \"worst_mesh\": %u, \"worst_vertex\": %u, \"worst_vertex_joint\": %u, \"worst_vertex_joint_name\": ",
           r->worst_mesh, r->worst_vertex, r->worst_vertex_joint);
    json_put_str(sk && r->vertex_meshes && r->worst_vertex_joint < sk->joint_count ? sk->names[r->worst_vertex_joint] : "");
    printf(", \"worst_vertex_time\": ");
    json_put_num(r->worst_vertex_time);
    printf(", \"vertex_times\": %u, \"vertex_times_unchecked\": %u}", r->vertex_times, r->vertex_times_unchecked);
}

/* One line per clip: raw / built bytes, ratio, measured max error and where, the precision in
 * model units and of the character's height, and the final check's skinned-vertex error
 * (`report`, NULL for a packed file without reports). */
static void print_clip(const ossa_asset *asset, uint32_t c, const ossa_clip_build_stats *st,
                       const ossa_clip_report *report) {
    const ossa_skeleton *sk = asset->skeleton;
    const ossa_built_clip *b = asset->built_clips[c];
    printf("clip %u '%s': raw %zu B, built %zu B, ratio %.1fx", c, ossa_built_clip_name(b), st->raw_bytes, st->bytes,
           st->bytes ? (double)st->raw_bytes / (double)st->bytes : 0.0);
    if (!ossa_built_clip_lossless(b)) {
        double p = ossa_built_clip_options(b).precision, h = sk ? ossa_skeleton_bind_height(sk) : 0.0;
        printf(", precision %.3g", p);
        if (h > 0) printf(" (%.3g of height %.4g)", p / h, h);
    }
    printf(", shell error %.3g", (double)st->max_error);
    if (sk && st->worst_joint < sk->joint_count)
        printf(" at joint %u '%s' t=%.4g s", st->worst_joint, sk->names[st->worst_joint], (double)st->worst_time);
    if (report && (report->vertex_meshes || (!ossa_built_clip_lossless(b) && st->bytes && st->raw_bytes)))
        cli_print_clip_report(asset, report);
    else if (!report) cli_print_clip_report(asset, NULL);
    if (ossa_built_clip_weight_track_count(b)) printf(", weights %.3g", (double)st->max_weight_error);
    printf("%s\n", ossa_built_clip_lossless(b) ? " (lossless)" : "");
}

int cli_build_clips(ossa_asset *asset, const ossa_clip_build_options *options, const char *cmd, bool print) {
    if (asset->built_clip_count) { /* a packed file: its clips as stored */
        if (cli_refuse_rebuild(asset, options, cmd)) return 1;
        for (uint32_t c = 0; print && c < asset->built_clip_count; c++) {
            ossa_clip_build_stats st = ossa_built_clip_stats(asset->built_clips[c]);
            print_clip(asset, c, &st, c < asset->clip_report_count ? &asset->clip_reports[c] : NULL);
        }
        return 0;
    }
    if (!asset->clip_count) return 0;
    if (!asset->skeleton) {
        fprintf(stderr, "ossa %s: clips without a skeleton cannot be built\n", cmd);
        return 1;
    }
    asset->built_clips = calloc(asset->clip_count, sizeof *asset->built_clips);
    asset->clip_reports = calloc(asset->clip_count, sizeof *asset->clip_reports);
    if (!asset->built_clips || !asset->clip_reports) {
        fprintf(stderr, "ossa %s: out of memory\n", cmd);
        return 1;
    }
    size_t raw = 0, built = 0;
    const ossa_skeleton *sk = asset->skeleton;
    /* the asset's skinned meshes bound the error on the skin (ossa_clip_build_options.meshes) */
    ossa_clip_build_options with_meshes = {0};
    if (options) with_meshes = *options;
    if (!with_meshes.meshes) {
        with_meshes.meshes = (const ossa_mesh *const *)asset->meshes;
        with_meshes.mesh_count = asset->mesh_count;
    }
    options = &with_meshes;
    for (uint32_t c = 0; c < asset->clip_count; c++) {
        const ossa_clip *clip = asset->clips[c];
        ossa_clip_build_stats st;
        if (cli_build_clip(cmd, clip, sk, options, c, asset->clip_count, &asset->built_clips[c], &st, NULL)) return 1;
        asset->built_clip_count = c + 1;
        asset->clip_reports[c] = report_of(asset, c, &st);
        asset->clip_report_count = c + 1; /* always equal to built_clip_count */
        raw += st.raw_bytes;
        built += st.bytes;
        if (print) print_clip(asset, c, &st, &asset->clip_reports[c]);
    }
    if (print)
        printf("clips: %u, raw %zu B, built %zu B, ratio %.1fx (%s)\n", asset->clip_count, raw, built,
               built ? (double)raw / (double)built : 0.0, options && options->lossless ? "lossless" : "compressed");
    return 0;
}

int32_t cli_find_built_clip(const ossa_asset *asset, const char *arg) {
    for (uint32_t c = 0; c < asset->built_clip_count; c++)
        if (!strcmp(ossa_built_clip_name(asset->built_clips[c]), arg)) return (int32_t)c;
    char *end;
    long v = strtol(arg, &end, 10);
    if (*arg && !*end && v >= 0 && (uint64_t)v < asset->built_clip_count) return (int32_t)v;
    return -1;
}

int cli_built_sampler_init(cli_built_sampler *s, const ossa_built_clip *clip, const ossa_skeleton *skeleton) {
    memset(s, 0, sizeof *s);
    if (!clip) return 0;
    s->clip = clip;
    s->joint_count = skeleton ? skeleton->joint_count : 0;
    s->reference = skeleton ? skeleton->rest : NULL;
    s->weight_count = ossa_built_clip_weight_count(clip);
    s->weights = calloc((size_t)s->weight_count + 1, sizeof *s->weights);
    ossa_result r = s->weights ? ossa_sampling_context_create(ossa_built_clip_joint_count(clip), s->weight_count, NULL,
                                                              &s->context)
                               : OSSA_ERROR_OUT_OF_MEMORY;
    if (r) fprintf(stderr, "ossa: cannot create a sampling context (%s)\n", ossa_result_string(r));
    return r ? 1 : 0;
}

int cli_built_sampler_run(cli_built_sampler *s, float t, bool loop, ossa_transform *pose) {
    ossa_sample_job job;
    memset(&job, 0, sizeof job);
    job.clip = s->clip;
    job.context = s->context;
    job.time = t;
    job.loop = loop;
    job.output = pose;
    job.output_count = s->joint_count;
    job.weights = s->weight_count ? s->weights : NULL;
    job.weights_count = s->weight_count;
    job.reference = s->reference;
    job.reference_count = s->joint_count;
    ossa_result r = ossa_sample_job_run(&job);
    if (r) fprintf(stderr, "ossa: sampling clip '%s' failed (%s)\n", ossa_built_clip_name(s->clip), ossa_result_string(r));
    s->sampled_time = job.sampled_time;
    return r ? 1 : 0;
}

void cli_built_sampler_weights(const cli_built_sampler *s, uint32_t joint, uint32_t count, float *w) {
    uint32_t offset = 0;
    for (uint32_t k = 0; s->clip && k < ossa_built_clip_weight_track_count(s->clip); k++) {
        uint32_t n = ossa_built_clip_weight_track_components(s->clip, k);
        if (ossa_built_clip_weight_track_joint(s->clip, k) == joint && n == count)
            memcpy(w, s->weights + offset, n * sizeof *w);
        offset += n;
    }
}

void cli_built_sampler_free(cli_built_sampler *s) {
    ossa_sampling_context_destroy(s->context);
    free(s->weights);
    memset(s, 0, sizeof *s);
}
