/* The clip builder (see ossa/built_clip.h; the method is described in clip_build_internal.h,
 * the format in docs/built-clips.md): the measurement grid and the exact poses, each channel's
 * tolerance, then fit (clip_fit.c), write (clip_write.c), measure and halve the tolerances of
 * the channels that cause a miss, loosen (clip_loosen.c), write again. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ossa/pose.h>

#include "anim/clip_build_internal.h"
#include "core/alloc.h"
#include "math/fast.h"

/* Local tolerances at level 0 from the exact poses: rotation (radians) = precision / reach of
 * the joint's subtree, translation = precision / parent scale, scale likewise. */
static ossa_result base_tolerances(builder *B) {
    uint32_t J = B->J, G = B->G;
    const int32_t *par = B->sk->parents;
    float *reach = ossa__alloc_array(B->alloc, (size_t)J * 4, sizeof(float));
    if (!reach) return OSSA_ERROR_OUT_OF_MEMORY;
    float *smax = reach + J, *smin = smax + J, *lsmin = smin + J;
    for (uint32_t j = 0; j < J; j++) {
        smax[j] = 0.0f;
        smin[j] = INFINITY;
        lsmin[j] = INFINITY;
    }
    float shell = B->opt.shell_distance;
    for (uint32_t g = 0; g < G; g++) {
        const float *P = B->points + (size_t)g * J * 12;
        for (uint32_t d = 0; d < J; d++) {
            for (int p = 0; p < 4; p++) {
                const float *x = P + (size_t)d * 12 + p * 3;
                for (int32_t a = (int32_t)d; a >= 0; a = par[a]) {
                    const float *o = P + (size_t)a * 12;
                    float dist = sqrtf((x[0] - o[0]) * (x[0] - o[0]) + (x[1] - o[1]) * (x[1] - o[1]) + (x[2] - o[2]) * (x[2] - o[2]));
                    if (dist > reach[a]) reach[a] = dist;
                }
            }
            int32_t pa = par[d];
            for (int k = 0; k < 3; k++) {
                float n = 1.0f;
                if (pa >= 0 && shell > 0.0f) {
                    const float *o = P + (size_t)pa * 12, *x = o + 3 + k * 3;
                    n = sqrtf((x[0] - o[0]) * (x[0] - o[0]) + (x[1] - o[1]) * (x[1] - o[1]) + (x[2] - o[2]) * (x[2] - o[2])) / shell;
                }
                if (n > smax[d]) smax[d] = n;
                if (n < smin[d]) smin[d] = n;
                float ls = fabsf((&B->exact[(size_t)g * J + d].scale.x)[k]);
                if (ls < lsmin[d]) lsmin[d] = ls;
            }
        }
    }
    float P0 = B->opt.precision * TARGET_MARGIN * LEVEL0_SHARE;
    for (uint32_t i = 0; i < B->nch; i++) {
        bchan *c = &B->ch[i];
        if (c->kind == OSSA__CH_W) continue;
        uint32_t j = c->target;
        float tol;
        if (c->kind == OSSA__CH_T) tol = smax[j] > 0.0f ? P0 / smax[j] : 1e30f;
        else if (c->kind == OSSA__CH_R) tol = reach[j] > 0.0f ? P0 / reach[j] : 1.0f;
        else {
            float ratio = smax[j] > 0.0f ? smin[j] / smax[j] : 1.0f;
            float ls = lsmin[j] > 1e-6f ? lsmin[j] : 1e-6f;
            tol = reach[j] > 0.0f ? P0 * ls * ratio / reach[j] : 1e30f;
        }
        if (c->kind == OSSA__CH_R && tol > 1.0f) tol = 1.0f;
        if (!(tol > 0.0f) || !isfinite(tol)) tol = c->kind == OSSA__CH_R ? 1.0f : 1e30f;
        c->base_tol = tol;
    }
    if (B->reach) { /* for the loosening pass */
        memcpy(B->reach, reach, J * sizeof(float));
        /* The loosening's bounds hold for ideal values; a computed vertex of joint j's subtree
         * is rounded anew on each level below j when j changes: up to about an ulp of the
         * largest coordinate per level (2 more for the matrix product), and an error computed
         * before and after may move by that twice. */
        float big = 0.0f;
        for (size_t i = 0; i < (size_t)G * J * 12; i++) {
            float v = fabsf(B->points[i]);
            big = v > big ? v : big;
        }
        for (uint32_t j = 0; j < J; j++) B->round2[j] = 0.0f;
        for (uint32_t i = J; i-- > 0;) { /* children after parents: levels below each joint */
            float below = B->round2[i] + 1.0f;
            if (par[i] >= 0 && below > B->round2[par[i]]) B->round2[par[i]] = below;
        }
        for (uint32_t j = 0; j < J; j++) B->round2[j] = 2.0f * (B->round2[j] + 3.0f) * ldexpf(big, -23);
    }
    ossa__free(B->alloc, reach);
    return OSSA_OK;
}

/* Bytes of the builder's grid scratch: B.exact + B.points per grid time and joint, B.X/B.D,
 * the candidate list and, when compressing, every channel's key and value buffers (the key
 * grid is at most the measurement grid) and the loosening pass's B.got, B.err, B.terr, B.V
 * and B.save (plus O(J)). */
double ossa__clip_build_scratch(uint32_t G, uint32_t J, size_t channels, bool lossless) {
    double per_time = (double)J * (sizeof(ossa_transform) + 12 * sizeof(float)) + 8 * sizeof(float) + sizeof(uint32_t);
    /* the loosening pass: the built pose, its errors and a candidate's, a channel's values and
     * saved keys */
    if (!lossless)
        per_time += (double)channels * 4 * sizeof(uint32_t) + (double)J * (sizeof(ossa_transform) + 2 * sizeof(float)) + 8 * sizeof(float);
    return (double)G * per_time;
}

static bool bad_option(float v) { return isnan(v) || v < 0.0f || isinf(v); }

ossa_result ossa_clip_build(const ossa_clip *clip, const ossa_skeleton *skeleton, const ossa_clip_build_options *options,
                            const ossa_allocator *allocator, ossa_built_clip **out, ossa_clip_build_stats *stats) {
    if (stats) memset(stats, 0, sizeof *stats);
    if (!out) return OSSA_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (!clip || !skeleton) return OSSA_ERROR_INVALID_ARGUMENT;
    builder B;
    memset(&B, 0, sizeof B);
    if (options) B.opt = *options;
    if (bad_option(B.opt.precision) || bad_option(B.opt.shell_distance) || bad_option(B.opt.weight_precision))
        return OSSA_ERROR_INVALID_ARGUMENT;
    if (B.opt.precision == 0.0f) B.opt.precision = 1e-4f;
    if (B.opt.shell_distance == 0.0f) B.opt.shell_distance = 0.03f;
    if (B.opt.weight_precision == 0.0f) B.opt.weight_precision = 1e-3f;
    /* the loader's magnitude rule (OSSA__BC_VALUE_MAX): a clip past it would not load back */
    _Static_assert(sizeof(ossa_transform) == 10 * sizeof(float), "a transform is 10 floats");
    for (uint32_t i = 0; i < skeleton->joint_count; i++) {
        float rest[10];
        memcpy(rest, &skeleton->rest[i], sizeof rest);
        if (!ossa__values_bounded(rest, 1, 10, false, 0.0)) return OSSA_ERROR_LIMIT;
    }
    for (uint32_t i = 0; i < clip->track_count + clip->weight_track_count; i++) {
        const ossa_transform_track *t = i < clip->track_count ? &clip->tracks[i] : NULL;
        const ossa_track *tr[3] = {t ? &t->translation : &clip->weight_tracks[i - clip->track_count].weights,
                                   t ? &t->rotation : NULL, t ? &t->scale : NULL};
        for (int c = 0; c < 3; c++) {
            if (!tr[c] || !tr[c]->key_count) continue;
            double span = (double)tr[c]->times[tr[c]->key_count - 1] - (double)tr[c]->times[0];
            if (!ossa__values_bounded(tr[c]->values, tr[c]->key_count, tr[c]->components,
                                      tr[c]->interp == OSSA_INTERP_CUBIC, span))
                return OSSA_ERROR_LIMIT;
        }
    }
    B.clip = clip;
    B.sk = skeleton;
    B.alloc = allocator;
    B.J = skeleton->joint_count;
    uint32_t J = B.J;
    size_t raw_bytes = 0;
    for (uint32_t i = 0; i < clip->track_count; i++) {
        const ossa_transform_track *t = &clip->tracks[i];
        const ossa_track *tr[3] = {&t->translation, &t->rotation, &t->scale};
        for (int c = 0; c < 3; c++) raw_bytes += (tr[c]->key_count + track_floats(tr[c])) * sizeof(float);
    }
    for (uint32_t i = 0; i < clip->weight_track_count; i++) {
        const ossa_track *w = &clip->weight_tracks[i].weights;
        raw_bytes += (w->key_count + track_floats(w)) * sizeof(float);
    }

    /* the key grid: the key times and KEY_DIV - 1 steps between them (8 per interval for
     * CUBICSPLINE clips), so a fast rotation can take an extra key instead of going raw; the
     * fit prefers key times, then midpoints (rank) */
    uint32_t substeps = ossa__clip_grid_substeps(clip);
    ossa_result r = ossa__clip_grid(clip, J, substeps, substeps > 8 ? 8 : KEY_DIV, allocator, &B.grid, &B.G, &B.candidate);
    if (r) return r;
    uint32_t G = B.G;
    size_t nmax = (size_t)clip->track_count * 3 + clip->weight_track_count;
    /* the measurement grid's scratch (exact poses, virtual vertices, per-channel values and
     * key buffers) grows with duration x 480 Hz x joints: refuse it up front past the cap */
    double scratch = ossa__clip_build_scratch(G, J, nmax, B.opt.lossless);
    size_t cap = B.opt.max_scratch_bytes ? B.opt.max_scratch_bytes : OSSA_CLIP_BUILD_SCRATCH_CAP;
    if (scratch > (double)cap) {
        ossa__free(allocator, B.grid);
        return OSSA_ERROR_LIMIT;
    }
    B.cand = ossa__alloc_array(allocator, (size_t)G + 1, sizeof(uint32_t));
    if (!B.cand) {
        ossa__free(allocator, B.grid);
        return OSSA_ERROR_OUT_OF_MEMORY;
    }
    for (uint32_t g = 0; g < G; g++)
        if (B.candidate[g] || g + 1 == G) B.cand[B.C++] = g;
    B.rank = ossa__alloc_array(allocator, (size_t)B.C + 1, 1);
    if (!B.rank) {
        ossa__free(allocator, B.cand);
        ossa__free(allocator, B.grid);
        return OSSA_ERROR_OUT_OF_MEMORY;
    }
    for (uint32_t k = 0, prev = 0; k < B.C; k++) {
        B.rank[k] = B.candidate[B.cand[k]] == 2 || k + 1 == B.C ? 2 : 0;
        if (B.rank[k] == 2) {
            if (k > prev + 1 && (k - prev) % 2 == 0) B.rank[prev + (k - prev) / 2] = 1;
            prev = k;
        }
    }
    B.ch = ossa__alloc_array(allocator, nmax + 1, sizeof(bchan));
    B.exact = ossa__alloc_array(allocator, (size_t)G * J + 1, sizeof(ossa_transform));
    B.points = ossa__alloc_array(allocator, (size_t)G * J * 12 + 1, sizeof(float));
    B.X = ossa__alloc_array(allocator, (size_t)G * 8, sizeof(float));
    if (!B.opt.lossless) {
        B.got = ossa__alloc_array(allocator, (size_t)G * J + 1, sizeof(ossa_transform));
        B.V = ossa__alloc_array(allocator, (size_t)G * 4 + 1, sizeof(float));
        B.save = ossa__alloc_array(allocator, (size_t)B.C * 4 + J + nmax + 1, sizeof(uint32_t));
        B.err = ossa__alloc_array(allocator, (size_t)G * J * 2 + (size_t)J * 22 + 1, sizeof(float));
        if (B.err) {
            B.terr = B.err + (size_t)G * J;
            B.reach = B.terr + (size_t)G * J;
            B.bound_r = B.reach + J;
            B.bound_t = B.bound_r + J;
            B.kap = B.bound_t + J;
            B.round2 = B.kap + 2 * J;
            B.mod = (ossa_mat4 *)(B.round2 + J);
        }
    }
    float *jerr = ossa__alloc_array(allocator, (size_t)J * 5 + nmax + 1, sizeof(float));
    uint32_t *jworst = jerr ? (uint32_t *)(jerr + J) : NULL;
    int32_t *chan_of = jerr ? (int32_t *)(jworst + J) : NULL;
    unsigned char *touched = jerr ? (unsigned char *)(chan_of + (size_t)J * 3) : NULL;
    ossa_mat4 *model = ossa__alloc_array(allocator, (size_t)J + 1, sizeof(ossa_mat4));
    uint32_t *keybuf = NULL;
    ossa_sampling_context *ctx = NULL;
    ossa_built_clip *bc = NULL;
    if (!B.ch || !B.exact || !B.points || !B.X || !jerr || !model ||
        (!B.opt.lossless && (!B.got || !B.err || !B.V || !B.save))) {
        r = OSSA_ERROR_OUT_OF_MEMORY;
        goto done;
    }
    B.D = B.X + (size_t)G * 4;
    for (size_t i = 0; i < (size_t)J * 3; i++) chan_of[i] = -1;
    for (uint32_t i = 0; i < clip->track_count; i++) {
        const ossa_transform_track *t = &clip->tracks[i];
        if (t->joint >= J) continue;
        const ossa_track *tr[3] = {&t->translation, &t->rotation, &t->scale};
        static const uint8_t kinds[3] = {OSSA__CH_T, OSSA__CH_R, OSSA__CH_S};
        for (int c = 0; c < 3; c++) {
            if (!tr[c]->key_count) continue;
            chan_of[(size_t)t->joint * 3 + kinds[c]] = (int32_t)B.nch;
            bchan *ch = &B.ch[B.nch++];
            ch->target = t->joint;
            ch->kind = kinds[c];
            ch->src = tr[c];
        }
    }
    for (uint32_t i = 0; i < clip->weight_track_count; i++) {
        if (!clip->weight_tracks[i].weights.key_count) continue;
        bchan *ch = &B.ch[B.nch++];
        ch->target = i;
        ch->kind = OSSA__CH_W;
        ch->src = &clip->weight_tracks[i].weights;
        ch->mode = MODE_RAW;
    }
    /* exact poses and their virtual vertices at every grid time */
    for (uint32_t g = 0; g < G; g++) {
        ossa_transform *ex = B.exact + (size_t)g * J;
        ossa__clip_sample_exact(clip, B.grid[g], false, skeleton->rest, ex, J);
        ossa__pose_points(ex, skeleton->parents, J, B.opt.shell_distance, model, B.points + (size_t)g * J * 12);
    }
    if (B.opt.lossless) {
        for (uint32_t i = 0; i < B.nch; i++) {
            bchan *c = &B.ch[i];
            if (c->kind == OSSA__CH_W) continue;
            c->mode = ossa__build_track_constant(c->src) ? MODE_FOLD : MODE_RAW;
            if (c->mode == MODE_FOLD) {
                const ossa_track *s = c->src;
                memcpy(c->fold, s->values + (s->interp == OSSA_INTERP_CUBIC ? s->components : 0), s->components * sizeof(float));
            }
        }
    } else {
        keybuf = ossa__alloc_array(allocator, (size_t)B.nch * B.C * 4 + 1, sizeof(uint32_t));
        if (!keybuf) {
            r = OSSA_ERROR_OUT_OF_MEMORY;
            goto done;
        }
        if ((r = base_tolerances(&B)) != OSSA_OK) goto done;
        for (uint32_t i = 0; i < B.nch; i++) {
            bchan *c = &B.ch[i];
            c->keys = keybuf + (size_t)i * B.C * 4;
            c->q = c->keys + B.C;
            c->level = START_LEVEL;
            if (c->kind != OSSA__CH_W) ossa__build_fit(&B, c, level_tol(c));
        }
    }
    uint32_t W = 0;
    for (uint32_t i = 0; i < clip->weight_track_count; i++) W += clip->weight_tracks[i].weights.components;
    if ((r = ossa_sampling_context_create(J, W, allocator, &ctx)) != OSSA_OK) goto done;
    float target = B.opt.precision * TARGET_MARGIN;
    ossa_clip_error e;
    float best = INFINITY;
    for (int it = 0, stalled = 0;; it++) {
        if ((r = ossa__build_write(&B, &bc)) != OSSA_OK) goto done;
        if ((r = ossa__build_measure(&B, bc, ctx, jerr, jworst, &e)) != OSSA_OK) goto done;
        if (B.opt.lossless || e.max_error <= target || it == MAX_ITERATIONS) break;
        /* halving tolerances that do not lower the worst error: leave it to the exact fallback */
        stalled = e.max_error < best ? 0 : stalled + 1;
        if (e.max_error < best) best = e.max_error;
        if (stalled == MAX_STALLED) break;
        memset(touched, 0, B.nch);
        for (uint32_t j = 0; j < J; j++)
            if (!(jerr[j] <= target) && (r = ossa__build_attribute(&B, bc, ctx, j, jworst[j], chan_of, touched)) != OSSA_OK) goto done;
        bool changed = false;
        for (uint32_t i = 0; i < B.nch; i++) {
            bchan *c = &B.ch[i];
            if (c->kind == OSSA__CH_W || c->mode == MODE_RAW || !touched[i]) continue;
            changed = true;
            if (c->half) { /* the tolerance / sqrt 2 */
                c->half = 0;
            } else {
                c->level++;
                c->half = 1;
            }
            if (c->level > MAX_LEVEL) c->mode = MODE_RAW;
            else ossa__build_fit(&B, c, level_tol(c));
        }
        if (!changed) break;
        ossa_built_clip_destroy(bc);
        bc = NULL;
    }
    /* The bound is a guarantee: whatever the tightening left above the target goes exact,
     * first the channels of each failing joint and its ancestors, as a last resort all of
     * them; re-measured after each step. */
    while (!B.opt.lossless && !(e.max_error <= target)) {
        bool changed = false;
        for (uint32_t j = 0; j < J; j++) {
            if (jerr[j] <= target) continue;
            for (int32_t a = (int32_t)j; a >= 0; a = skeleton->parents[a])
                for (int k = 0; k < 3; k++) {
                    int32_t ci = chan_of[(size_t)a * 3 + (size_t)k];
                    if (ci >= 0 && B.ch[ci].mode != MODE_RAW) {
                        B.ch[ci].mode = MODE_RAW;
                        changed = true;
                    }
                }
        }
        for (uint32_t i = 0; !changed && i < B.nch; i++)
            if (B.ch[i].mode != MODE_RAW) {
                for (uint32_t k = i; k < B.nch; k++) B.ch[k].mode = MODE_RAW;
                changed = true;
            }
        if (!changed) break;
        ossa_built_clip_destroy(bc);
        bc = NULL;
        if ((r = ossa__build_write(&B, &bc)) != OSSA_OK) goto done;
        if ((r = ossa__build_measure(&B, bc, ctx, jerr, jworst, &e)) != OSSA_OK) goto done;
    }
    if (!B.opt.lossless && e.max_error <= target) {
        /* the bound is met: drop the key-grid times no channel keeps (the samples stay the
         * same), win back what the tightening over-spent, drop the unused times again; keep
         * the result if the real measurement agrees (else the clip before the loosening) */
        ossa__build_compact_key_grid(&B);
        ossa_built_clip_destroy(bc);
        bc = NULL;
        if ((r = ossa__build_write(&B, &bc)) != OSSA_OK) goto done;
        if ((r = ossa__build_measure(&B, bc, ctx, jerr, jworst, &e)) != OSSA_OK) goto done;
    }
    if (!B.opt.lossless && e.max_error <= target) {
        ossa__build_loosen(&B, target);
        ossa__build_compact_key_grid(&B);
        ossa_built_clip *tight = bc;
        ossa_clip_error et = e;
        bc = NULL;
        r = ossa__build_write(&B, &bc);
        if (r == OSSA_OK) r = ossa__build_measure(&B, bc, ctx, jerr, jworst, &e);
        if (r != OSSA_OK || !(e.max_error <= target)) {
            ossa_built_clip_destroy(bc);
            bc = tight;
            e = et;
            if (r != OSSA_OK) goto done;
        } else {
            ossa_built_clip_destroy(tight);
        }
    }
    if (!B.opt.lossless && !(e.max_error <= B.opt.precision)) {
        /* even the exact keys miss it: float rounding of the model-space values is larger
         * than the precision asked for; say so instead of returning a clip that misses it */
        if (stats) {
            stats->max_error = e.max_error;
            stats->worst_joint = e.worst_joint;
            stats->worst_time = e.worst_time;
            stats->max_weight_error = e.max_weight_error;
        }
        r = OSSA_ERROR_LIMIT;
        goto done;
    }
    /* record what was measured in the block itself */
    ossa__bc_header *h = (ossa__bc_header *)ossa__built_clip_block(bc);
    h->raw_bytes_lo = (uint32_t)((uint64_t)raw_bytes & 0xffffffffu);
    h->raw_bytes_hi = (uint32_t)((uint64_t)raw_bytes >> 32);
    h->max_error = e.max_error;
    h->worst_joint = e.worst_joint;
    h->worst_time = e.worst_time;
    h->max_weight_error = e.max_weight_error;
    if (stats) *stats = ossa_built_clip_stats(bc);
    *out = bc;
    bc = NULL;
done:
    ossa_built_clip_destroy(bc);
    ossa_sampling_context_destroy(ctx);
    ossa__free(allocator, keybuf);
    ossa__free(allocator, model);
    ossa__free(allocator, jerr);
    ossa__free(allocator, B.X);
    ossa__free(allocator, B.got);
    ossa__free(allocator, B.err);
    ossa__free(allocator, B.V);
    ossa__free(allocator, B.save);
    ossa__free(allocator, B.points);
    ossa__free(allocator, B.exact);
    ossa__free(allocator, B.ch);
    ossa__free(allocator, B.rank);
    ossa__free(allocator, B.cand);
    ossa__free(allocator, B.grid);
    return r;
}

