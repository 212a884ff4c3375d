/* Clips: one-allocation copy with frame-index tables, clip clock, sampling, remapping
 * (see ossa/clip.h). */
#include <ossa/clip.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anim/track_internal.h"
#include "core/alloc.h"
#include "core/job.h"

#define DEFAULT_TABLE_RATE 60.0f

/* Table entries are capped near the key count so a sparse track over a long time range
 * cannot request a huge table; the rate is lowered instead (lookups stay exact). */
static uint32_t table_limit(uint32_t key_count) { return key_count * 4u + 64u; }

static float effective_rate(const ossa_track *t, float rate) {
    if (t->key_count < 2 || !(rate > 0.0f)) return 0.0f;
    uint32_t limit = table_limit(t->key_count);
    /* in double: key times of one track may span more than FLT_MAX (-3e38 .. 3e38); the
     * rate then comes out near 1e-37 entries/s, a normal float */
    double span = (double)ossa_track_end(t) - (double)ossa_track_start(t);
    while (ossa_track_table_bound(t, rate) > limit) {
        float r = (float)((double)(limit - 2) / span);
        rate = r < rate ? r * 0.999f : rate * 0.5f;
    }
    return rate;
}

static size_t value_floats(const ossa_track *t) {
    return (size_t)t->key_count * t->components * (t->interp == OSSA_INTERP_CUBIC ? 3u : 1u);
}

/* Checks one track of a desc; absent tracks (0 keys) are always fine. */
static ossa_result check_track(const ossa_track *t, ossa_track_kind kind, uint32_t components) {
    if (t->key_count == 0) return OSSA_OK;
    ossa_result r = ossa_track_validate(t);
    if (r != OSSA_OK) return r;
    if (t->kind != kind) return OSSA_ERROR_INVALID_DATA;
    if (components && t->components != components) return OSSA_ERROR_INVALID_DATA;
    return OSSA_OK;
}

/* Tracks with the same key times share one copy of the times and of the table (glTF
 * samplers of one animation usually share their input accessor): a track shares with one of
 * the last SHARE_WAYS distinct time arrays when its times are equal bit for bit (same
 * pointer, or same bytes). The layout pass and the copy pass make the same choices. */
#define SHARE_WAYS 4

typedef struct share_set {
    const ossa_track *src[SHARE_WAYS]; /* distinct time arrays seen last */
    ossa_track *dst[SHARE_WAYS];       /* their copies (copy pass) */
    uint32_t next;
} share_set;

/* The way holding times equal to t's, or -1 (then t's times take way S->next). */
static int share_find(const share_set *S, const ossa_track *t) {
    for (int w = 0; w < SHARE_WAYS; w++) {
        const ossa_track *o = S->src[w];
        if (o && o->key_count == t->key_count &&
            (o->times == t->times || !memcmp(o->times, t->times, (size_t)t->key_count * sizeof(float))))
            return w;
    }
    return -1;
}

static void layout_track(ossa__layout *L, share_set *S, const ossa_track *t, float rate) {
    if (t->key_count == 0) return;
    int w = share_find(S, t);
    if (w < 0) {
        ossa__layout_add(L, t->key_count, sizeof(float));
        S->src[S->next] = t;
        S->next = (S->next + 1) % SHARE_WAYS;
    }
    ossa__layout_add(L, value_floats(t), sizeof(float));
    float r = effective_rate(t, rate);
    if (w < 0) ossa__layout_add(L, r > 0.0f ? ossa_track_table_bound(t, r) : 0, sizeof(uint32_t));
}

/* Copies src into storage following the same layout sequence as layout_track. */
static void copy_track(ossa__layout *L, share_set *S, unsigned char *base, const ossa_track *src, ossa_track *dst,
                       ossa_track_kind kind, uint32_t components, float rate) {
    memset(dst, 0, sizeof *dst);
    dst->kind = kind;
    dst->components = components ? components : (src->components ? src->components : 1);
    dst->interp = src->interp == OSSA_INTERP_DEFAULT ? OSSA_INTERP_LINEAR : src->interp;
    if (src->key_count == 0) return;
    dst->key_count = src->key_count;
    int w = share_find(S, src);
    size_t ot = w < 0 ? ossa__layout_add(L, src->key_count, sizeof(float)) : 0;
    size_t ov = ossa__layout_add(L, value_floats(src), sizeof(float));
    float *values = (float *)(base + ov);
    memcpy(values, src->values, value_floats(src) * sizeof(float));
    dst->values = values;
    if (w >= 0) { /* the same times: the same copy and the same table */
        dst->times = S->dst[w]->times;
        dst->table = S->dst[w]->table;
        return;
    }
    float r = effective_rate(src, rate);
    uint32_t count = r > 0.0f ? ossa_track_table_bound(src, r) : 0;
    size_t ok = ossa__layout_add(L, count, sizeof(uint32_t));
    float *times = (float *)(base + ot);
    memcpy(times, src->times, src->key_count * sizeof(float));
    dst->times = times;
    if (count) ossa_track_build_table(dst, r, (uint32_t *)(base + ok), count);
    S->src[S->next] = src;
    S->dst[S->next] = dst;
    S->next = (S->next + 1) % SHARE_WAYS;
}

static int compare_tracks(const void *a, const void *b) {
    uint32_t ja = ((const ossa_transform_track *)a)->joint, jb = ((const ossa_transform_track *)b)->joint;
    return (ja > jb) - (ja < jb);
}

static void update_range(const ossa_track *t, float *lo, float *hi, bool *any) {
    if (t->key_count == 0) return;
    float s = ossa_track_start(t), e = ossa_track_end(t);
    if (!*any || s < *lo) *lo = s;
    if (!*any || e > *hi) *hi = e;
    *any = true;
}

/* start/end = min/max key time over every track (0, 0 for an empty clip). */
static void recompute_range(ossa_clip *clip) {
    float lo = 0.0f, hi = 0.0f;
    bool any = false;
    for (uint32_t i = 0; i < clip->track_count; i++) {
        update_range(&clip->tracks[i].translation, &lo, &hi, &any);
        update_range(&clip->tracks[i].rotation, &lo, &hi, &any);
        update_range(&clip->tracks[i].scale, &lo, &hi, &any);
    }
    for (uint32_t i = 0; i < clip->weight_track_count; i++) update_range(&clip->weight_tracks[i].weights, &lo, &hi, &any);
    clip->start = lo;
    clip->end = hi;
}

ossa_result ossa_clip_create(const ossa_clip_desc *desc, const ossa_allocator *allocator, ossa_clip **out) {
    if (!out) return OSSA_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (!desc) return OSSA_ERROR_INVALID_ARGUMENT;
    if ((desc->track_count && !desc->tracks) || (desc->weight_track_count && !desc->weight_tracks))
        return OSSA_ERROR_INVALID_ARGUMENT;
    if (isnan(desc->table_rate)) return OSSA_ERROR_INVALID_ARGUMENT;
    float rate = desc->table_rate == 0.0f ? DEFAULT_TABLE_RATE : desc->table_rate;
    if (!isfinite(rate)) rate = -1.0f;
    for (uint32_t i = 0; i < desc->track_count; i++) {
        const ossa_transform_track *t = &desc->tracks[i];
        ossa_result r;
        if ((r = check_track(&t->translation, OSSA_TRACK_VECTOR, 3)) != OSSA_OK) return r;
        if ((r = check_track(&t->rotation, OSSA_TRACK_ROTATION, 4)) != OSSA_OK) return r;
        if ((r = check_track(&t->scale, OSSA_TRACK_VECTOR, 3)) != OSSA_OK) return r;
    }
    for (uint32_t i = 0; i < desc->weight_track_count; i++) {
        ossa_result r = check_track(&desc->weight_tracks[i].weights, OSSA_TRACK_VECTOR, 0);
        if (r != OSSA_OK) return r;
    }

    const char *name = desc->name ? desc->name : "";
    size_t name_len = strlen(name) + 1;
    ossa__layout L = {0, false};
    size_t o_clip = ossa__layout_add(&L, 1, sizeof(ossa_clip));
    size_t o_name = ossa__layout_add(&L, name_len, 1);
    size_t o_tracks = ossa__layout_add(&L, desc->track_count, sizeof(ossa_transform_track));
    size_t o_wtracks = ossa__layout_add(&L, desc->weight_track_count, sizeof(ossa_weight_track));
    size_t o_data = L.size;
    share_set S = {{NULL}, {NULL}, 0};
    for (uint32_t i = 0; i < desc->track_count; i++) {
        layout_track(&L, &S, &desc->tracks[i].translation, rate);
        layout_track(&L, &S, &desc->tracks[i].rotation, rate);
        layout_track(&L, &S, &desc->tracks[i].scale, rate);
    }
    for (uint32_t i = 0; i < desc->weight_track_count; i++) layout_track(&L, &S, &desc->weight_tracks[i].weights, rate);
    if (L.overflow) return OSSA_ERROR_OUT_OF_MEMORY;
    unsigned char *base = ossa__alloc(allocator, L.size);
    if (!base) return OSSA_ERROR_OUT_OF_MEMORY;
    memset(base, 0, o_data); /* the key data after it is all written below */

    ossa_clip *clip = (ossa_clip *)(base + o_clip);
    clip->allocator = ossa__allocator_resolve(allocator);
    memcpy(base + o_name, name, name_len);
    clip->name = (const char *)(base + o_name);
    clip->looping = desc->looping;
    clip->track_count = desc->track_count;
    clip->tracks = desc->track_count ? (ossa_transform_track *)(base + o_tracks) : NULL;
    clip->weight_track_count = desc->weight_track_count;
    clip->weight_tracks = desc->weight_track_count ? (ossa_weight_track *)(base + o_wtracks) : NULL;
    ossa__layout D = {o_data, false};
    share_set C = {{NULL}, {NULL}, 0};
    for (uint32_t i = 0; i < desc->track_count; i++) {
        const ossa_transform_track *s = &desc->tracks[i];
        ossa_transform_track *d = &clip->tracks[i];
        d->joint = s->joint;
        copy_track(&D, &C, base, &s->translation, &d->translation, OSSA_TRACK_VECTOR, 3, rate);
        copy_track(&D, &C, base, &s->rotation, &d->rotation, OSSA_TRACK_ROTATION, 4, rate);
        copy_track(&D, &C, base, &s->scale, &d->scale, OSSA_TRACK_VECTOR, 3, rate);
    }
    for (uint32_t i = 0; i < desc->weight_track_count; i++) {
        const ossa_weight_track *s = &desc->weight_tracks[i];
        ossa_weight_track *d = &clip->weight_tracks[i];
        d->joint = s->joint;
        copy_track(&D, &C, base, &s->weights, &d->weights, OSSA_TRACK_VECTOR, 0, rate);
    }
    if (clip->track_count > 1) {
        qsort(clip->tracks, clip->track_count, sizeof(ossa_transform_track), compare_tracks);
        for (uint32_t i = 1; i < clip->track_count; i++)
            if (clip->tracks[i].joint == clip->tracks[i - 1].joint) {
                ossa__free(&clip->allocator, base);
                return OSSA_ERROR_INVALID_DATA; /* a joint may appear once */
            }
    }
    recompute_range(clip);
    *out = clip;
    return OSSA_OK;
}

void ossa_clip_destroy(ossa_clip *clip) {
    if (!clip) return;
    ossa_allocator a = clip->allocator;
    ossa__free(&a, clip);
}

float ossa_clip_duration(const ossa_clip *clip) { return clip ? clip->end - clip->start : 0.0f; }

float ossa_clip_adjust_time(const ossa_clip *clip, float t, bool loop) {
    if (!clip) return 0.0f;
    return ossa__adjust_time(clip->start, clip->end, t, loop);
}

uint32_t ossa_clip_cursor_count(const ossa_clip *clip) {
    return clip ? clip->track_count * 3u + clip->weight_track_count : 0u;
}

/* Samples one track at an already clip-adjusted time; the track clamps to its own keys. */
static inline void sample_at(const ossa_track *t, float ct, ossa_lookup lookup, uint32_t *cursor, float *out,
                             uint32_t components) {
    uint32_t k = ossa__track_find_key(t, ct, lookup, cursor);
    ossa__interpolate(t, k, ct, out, components);
}

/* Samples tracks [begin, end) at clip time ct into out (joints < joint_count only). */
static void sample_tracks(const ossa_clip *clip, float ct, ossa_lookup lookup, uint32_t *cursors, uint32_t begin,
                          uint32_t end, ossa_transform *out, uint32_t joint_count) {
    float v[4];
    for (uint32_t i = begin; i < end; i++) {
        const ossa_transform_track *tt = &clip->tracks[i];
        if (tt->joint >= joint_count) continue;
        ossa_transform *o = &out[tt->joint];
        uint32_t *cur = cursors ? cursors + (size_t)i * 3 : NULL;
        if (tt->translation.key_count) {
            sample_at(&tt->translation, ct, lookup, cur, v, 3);
            o->translation.x = v[0]; o->translation.y = v[1]; o->translation.z = v[2];
        }
        if (tt->rotation.key_count) {
            sample_at(&tt->rotation, ct, lookup, cur ? cur + 1 : NULL, v, 4);
            o->rotation.x = v[0]; o->rotation.y = v[1]; o->rotation.z = v[2]; o->rotation.w = v[3];
        }
        if (tt->scale.key_count) {
            sample_at(&tt->scale, ct, lookup, cur ? cur + 2 : NULL, v, 3);
            o->scale.x = v[0]; o->scale.y = v[1]; o->scale.z = v[2];
        }
    }
}

static bool lookup_ok(ossa_lookup lookup) { return lookup >= OSSA_LOOKUP_DEFAULT && lookup <= OSSA_LOOKUP_CURSOR; }

/* Shared checks of the lookup and the cursor span for both sampling jobs. */
static ossa_result check_cursors(const ossa_clip *clip, ossa_lookup lookup, const uint32_t *cursors,
                                 uint32_t cursor_count, ossa_diagnostic *diag) {
    if (!lookup_ok(lookup))
        return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "lookup", "unknown lookup %d", (int)lookup);
    if (lookup != OSSA_LOOKUP_CURSOR) return OSSA_OK;
    uint32_t need = ossa_clip_cursor_count(clip);
    if (!cursors && need) return ossa__job_fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "cursors", "NULL with CURSOR lookup");
    if (cursor_count < need)
        return ossa__job_fail(diag, OSSA_ERROR_BUFFER_TOO_SMALL, "cursor_count", "%u < %u the clip needs", cursor_count,
                              need);
    return OSSA_OK;
}

ossa_result ossa_clip_sample_job_validate(const ossa_clip_sample_job *job, ossa_diagnostic *diag) {
    const ossa_result bad = OSSA_ERROR_INVALID_ARGUMENT;
    if (!job) return ossa__job_fail(diag, bad, "job", "NULL");
    if (!job->clip) return ossa__job_fail(diag, bad, "clip", "NULL");
    if (!job->output) return ossa__job_fail(diag, bad, "output", "NULL");
    if (!job->reference && job->reference_count)
        return ossa__job_fail(diag, bad, "reference", "NULL with reference_count %u", job->reference_count);
    if (job->track_begin > job->track_end)
        return ossa__job_fail(diag, bad, "track_begin", "%u > track_end %u", job->track_begin, job->track_end);
    if (job->track_end > job->clip->track_count)
        return ossa__job_fail(diag, bad, "track_end", "%u > track count %u", job->track_end, job->clip->track_count);
    ossa_result r = check_cursors(job->clip, job->lookup, job->cursors, job->cursor_count, diag);
    if (r != OSSA_OK) return r;
    if (job->reference && job->output_count < job->reference_count)
        return ossa__job_fail(diag, OSSA_ERROR_BUFFER_TOO_SMALL, "output_count", "%u < reference_count %u",
                              job->output_count, job->reference_count);
    return OSSA_OK;
}

ossa_result ossa_clip_sample_job_run(ossa_clip_sample_job *job) {
    ossa_result r = ossa_clip_sample_job_validate(job, NULL);
    if (r != OSSA_OK) return r;
    const ossa_clip *clip = job->clip;
    uint32_t n = job->reference ? job->reference_count : job->output_count;
    float ct = ossa__adjust_time(clip->start, clip->end, job->time, job->loop);
    ossa_lookup lookup = job->lookup;
    uint32_t *cursors = lookup == OSSA_LOOKUP_CURSOR ? job->cursors : NULL;
    if (job->track_begin == 0 && job->track_end == 0) {
        if (job->reference) memcpy(job->output, job->reference, (size_t)n * sizeof(ossa_transform));
        else
            for (uint32_t j = 0; j < n; j++) job->output[j] = ossa_transform_identity();
        sample_tracks(clip, ct, lookup, cursors, 0, clip->track_count, job->output, n);
    } else {
        sample_tracks(clip, ct, lookup, cursors, job->track_begin, job->track_end, job->output, n);
    }
    job->sampled_time = ct;
    return OSSA_OK;
}

ossa_result ossa_clip_weights_job_validate(const ossa_clip_weights_job *job, ossa_diagnostic *diag) {
    const ossa_result bad = OSSA_ERROR_INVALID_ARGUMENT;
    if (!job) return ossa__job_fail(diag, bad, "job", "NULL");
    if (!job->clip) return ossa__job_fail(diag, bad, "clip", "NULL");
    if (!job->output) return ossa__job_fail(diag, bad, "output", "NULL");
    if (job->track >= job->clip->weight_track_count)
        return ossa__job_fail(diag, bad, "track", "%u >= weight track count %u", job->track,
                              job->clip->weight_track_count);
    ossa_result r = check_cursors(job->clip, job->lookup, job->cursors, job->cursor_count, diag);
    if (r != OSSA_OK) return r;
    uint32_t components = job->clip->weight_tracks[job->track].weights.components;
    if (job->output_count < components)
        return ossa__job_fail(diag, OSSA_ERROR_BUFFER_TOO_SMALL, "output_count", "%u < %u components",
                              job->output_count, components);
    return OSSA_OK;
}

ossa_result ossa_clip_weights_job_run(ossa_clip_weights_job *job) {
    ossa_result r = ossa_clip_weights_job_validate(job, NULL);
    if (r != OSSA_OK) return r;
    const ossa_clip *clip = job->clip;
    float ct = ossa__adjust_time(clip->start, clip->end, job->time, job->loop);
    const ossa_track *w = &clip->weight_tracks[job->track].weights;
    uint32_t *cur = job->lookup == OSSA_LOOKUP_CURSOR ? job->cursors + (size_t)clip->track_count * 3 + job->track : NULL;
    if (w->key_count == 0) memset(job->output, 0, w->components * sizeof(float));
    else sample_at(w, ct, job->lookup, cur, job->output, w->components);
    job->sampled_time = ct;
    return OSSA_OK;
}

ossa_result ossa_clip_remap_joints(ossa_clip *clip, const uint32_t *old_to_new, uint32_t count) {
    if (!clip || (!old_to_new && count)) return OSSA_ERROR_INVALID_ARGUMENT;
    /* Two kept tracks may not land on one joint: check before mutating anything. */
    for (uint32_t i = 0; i < clip->track_count; i++) {
        uint32_t a = clip->tracks[i].joint;
        if (a >= count || old_to_new[a] == UINT32_MAX) continue;
        for (uint32_t k = i + 1; k < clip->track_count; k++) {
            uint32_t b = clip->tracks[k].joint;
            if (b < count && old_to_new[b] == old_to_new[a]) return OSSA_ERROR_INVALID_DATA;
        }
    }
    uint32_t kept = 0;
    for (uint32_t i = 0; i < clip->track_count; i++) {
        ossa_transform_track t = clip->tracks[i];
        if (t.joint >= count || old_to_new[t.joint] == UINT32_MAX) continue;
        t.joint = old_to_new[t.joint];
        clip->tracks[kept++] = t;
    }
    clip->track_count = kept;
    if (kept > 1) qsort(clip->tracks, kept, sizeof(ossa_transform_track), compare_tracks);
    kept = 0;
    for (uint32_t i = 0; i < clip->weight_track_count; i++) {
        ossa_weight_track w = clip->weight_tracks[i];
        if (w.joint >= count || old_to_new[w.joint] == UINT32_MAX) continue;
        w.joint = old_to_new[w.joint];
        clip->weight_tracks[kept++] = w;
    }
    clip->weight_track_count = kept;
    recompute_range(clip);
    return OSSA_OK;
}
