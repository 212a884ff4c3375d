/* Built clips for the tool's commands (see cli_common.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"

/* One line per clip: raw / built bytes, ratio, measured max error and where, the precision in
 * model units and of the character's height, and the final check's skinned-vertex error. */
static void print_clip(const ossa_asset *asset, uint32_t c, const ossa_clip_build_stats *st) {
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
    if (st->vertex_meshes) {
        printf(", vertex error %.3g at mesh %u vertex %u", (double)st->max_vertex_error, st->worst_mesh, st->worst_vertex);
        if (sk && st->worst_vertex_joint < sk->joint_count)
            printf(" joint %u '%s'", st->worst_vertex_joint, sk->names[st->worst_vertex_joint]);
        printf(" t=%.4g s", (double)st->worst_vertex_time);
        if (st->vertex_times_unchecked) printf(" (%u grid times not skinned: budget)", st->vertex_times_unchecked);
    } else if (!ossa_built_clip_lossless(b) && st->bytes && st->raw_bytes) {
        printf(", no mesh checked");
    }
    if (ossa_built_clip_weight_track_count(b)) printf(", weights %.3g", (double)st->max_weight_error);
    printf("%s\n", ossa_built_clip_lossless(b) ? " (lossless)" : "");
}

int cli_build_clips(ossa_asset *asset, const ossa_clip_build_options *options, const char *cmd, bool print) {
    if (asset->built_clip_count) { /* a packed file: its clips as stored */
        for (uint32_t c = 0; print && c < asset->built_clip_count; c++) {
            ossa_clip_build_stats st = ossa_built_clip_stats(asset->built_clips[c]);
            print_clip(asset, c, &st);
        }
        if (print && options && (options->lossless || options->precision > 0))
            fprintf(stderr, "ossa %s: the clips are already built: kept as stored (--precision / --lossless ignored)\n", cmd);
        return 0;
    }
    if (!asset->clip_count) return 0;
    if (!asset->skeleton) {
        fprintf(stderr, "ossa %s: clips without a skeleton cannot be built\n", cmd);
        return 1;
    }
    asset->built_clips = calloc(asset->clip_count, sizeof *asset->built_clips);
    if (!asset->built_clips) {
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
        ossa_result r = ossa_clip_build(clip, sk, options, NULL, &asset->built_clips[c], &st);
        if (r) {
            ossa_diagnostic d;
            bool why = ossa_clip_build_check(clip, sk, options, &d) == r; /* the up-front checks say why */
            fprintf(stderr, "ossa %s: building clip %u '%s' failed (%s)%s%s\n", cmd, c, clip->name, ossa_result_string(r),
                    why ? ": " : "", why ? d.message : "");
            return 1;
        }
        asset->built_clip_count = c + 1;
        raw += st.raw_bytes;
        built += st.bytes;
        if (print) print_clip(asset, c, &st);
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
