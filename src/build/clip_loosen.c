/* The clip builder's measurement and loosening (see clip_build_internal.h): the built clip's
 * model-space error at every grid time, the channels that cause a miss, and the pass that
 * gives back what halving whole tolerances over-spent. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ossa/pose.h>

#include "build/clip_build_internal.h"
#include "core/alloc.h"
#include "math/fast.h"

ossa_result ossa__build_measure(builder *B, const ossa_built_clip *bc, ossa_sampling_context *ctx, float *joint_max_error,
                                uint32_t *joint_worst_time, ossa_clip_error *e) {
    uint32_t J = B->joint_count, W = bc->h->weight_count;
    size_t bytes = (size_t)J * (sizeof(ossa_transform) + sizeof(ossa_mat4) + 13 * sizeof(float)) + (size_t)W * 2 * sizeof(float) + 16;
    unsigned char *s = ossa__alloc_array(B->allocator, 1, bytes);
    if (!s) return OSSA_ERROR_OUT_OF_MEMORY;
    ossa_transform *got = (ossa_transform *)s;
    ossa_mat4 *model = (ossa_mat4 *)(got + J);
    float *pts = (float *)(model + J), *wb = pts + (size_t)J * 12, *we = wb + W, *now = we + W;
    memset(joint_max_error, 0, J * sizeof(float));
    memset(e, 0, sizeof *e);
    ossa_sample_job job = {.clip = bc, .context = ctx, .output = got, .output_count = J, .weights = W ? wb : NULL,
                           .weights_count = W, .reference = B->skeleton->rest, .reference_count = J};
    ossa_result r = OSSA_OK;
    for (uint32_t g = 0; g < B->grid_count; g++) {
        job.time = B->grid_times[g];
        if (B->built_pose) got = job.output = B->built_pose + (size_t)g * J; /* kept for the loosening pass */
        if ((r = ossa_sample_job_run(&job)) != OSSA_OK) break;
        ossa__pose_points(got, B->skeleton->parents, J, B->axis_shell, model, pts);
        uint32_t wj = 0;
        memset(now, 0, J * sizeof(float));
        float err = ossa__points_error(pts, B->exact_points + (size_t)g * J * 12, J, &wj, now);
        if (B->joint_error) memcpy(B->joint_error + (size_t)g * J, now, J * sizeof(float));
        for (uint32_t j = 0; j < J; j++)
            if (!(now[j] <= joint_max_error[j])) {
                joint_max_error[j] = now[j];
                joint_worst_time[j] = g;
            }
        if (!(err <= e->max_error)) {
            e->max_error = err;
            e->worst_joint = wj;
            e->worst_time = B->grid_times[g];
        }
        for (uint32_t i = 0; i < B->clip->weight_track_count; i++) {
            ossa__clip_weights_exact(B->clip, i, B->grid_times[g], false, we, B->clip->weight_tracks[i].weights.components);
            const ossa__bc_wtrack *w = &bc->wtracks[i];
            for (uint32_t c = 0; c < w->components; c++) {
                float d = fabsf(we[c] - wb[w->offset + c]);
                if (!(d <= e->max_weight_error)) e->max_weight_error = d;
            }
        }
    }
    e->sample_count = B->grid_count;
    ossa__free(B->allocator, s);
    return r;
}

ossa_result ossa__build_attribute(builder *B, const ossa_built_clip *bc, ossa_sampling_context *ctx, uint32_t j,
                                  uint32_t g, const int32_t *channel_of, unsigned char *mark) {
    uint32_t J = B->joint_count;
    ossa_transform *buf = ossa__alloc_array(B->allocator, (size_t)J * 2, sizeof(ossa_transform));
    float *cerr = ossa__alloc_array(B->allocator, (size_t)B->channel_count + 1, sizeof(float));
    if (!buf || !cerr) {
        ossa__free(B->allocator, buf);
        ossa__free(B->allocator, cerr);
        return OSSA_ERROR_OUT_OF_MEMORY;
    }
    ossa_transform *got = buf, *tmp = buf + J;
    ossa_sample_job job = {0};
    job.clip = bc;
    job.context = ctx;
    job.time = B->grid_times[g];
    job.output = got;
    job.output_count = J;
    job.reference = B->skeleton->rest;
    job.reference_count = J;
    ossa_result r = ossa_sample_job_run(&job);
    if (r == OSSA_OK) {
        memcpy(tmp, B->exact_pose + (size_t)g * J, J * sizeof *tmp);
        const float *ex = B->exact_points + ((size_t)g * J + j) * 12;
        float worst = 0.0f;
        for (int32_t a = (int32_t)j; a >= 0; a = B->skeleton->parents[a])
            for (int k = 0; k < 3; k++) {
                int32_t ci = channel_of[(size_t)a * 3 + (size_t)k];
                if (ci < 0 || B->channels[ci].mode == MODE_RAW) continue;
                ossa_transform save = tmp[a];
                memcpy(field(&tmp[a], k), field(&got[a], k), (k == OSSA__CH_R ? 4 : 3) * sizeof(float));
                ossa_mat4 m = ossa_pose_joint_to_model(tmp, B->skeleton->parents, J, j);
                float e = 0.0f;
                for (int p = 0; p < 4; p++)
                    for (int c = 0; c < 3; c++) {
                        float v = m.m[12 + c] + (p ? m.m[(p - 1) * 4 + c] * B->axis_shell[(size_t)j * 3 + (size_t)(p - 1)] : 0.0f);
                        e = fmaxf(e, fabsf(v - ex[p * 3 + c]));
                    }
                tmp[a] = save;
                cerr[ci] = e;
                worst = fmaxf(worst, e);
            }
        for (int32_t a = (int32_t)j; a >= 0; a = B->skeleton->parents[a])
            for (size_t k = 0; k < 3; k++) {
                int32_t ci = channel_of[(size_t)a * 3 + k];
                if (ci >= 0 && B->channels[ci].mode != MODE_RAW && (cerr[ci] >= 0.5f * worst || !(worst > 0.0f)))
                    mark[ci] = 1;
            }
    }
    ossa__free(B->allocator, buf);
    ossa__free(B->allocator, cerr);
    return r;
}

/* ---------------------------------------------------------------- loosen */

/* The stored components of a packed channel: the three around the dropped one (rotations). */
static void stored_comps(const build_channel *ch, int comp[3]) {
    for (int c = 0, k = 0; c < 4 && k < 3; c++)
        if (ch->kind != OSSA__CH_R || c != ch->dropped) comp[k++] = c;
}

/* The exact values of packed channel ch at every grid time, rotations with the sign that keeps
 * the dropped component >= 0 (what fit quantised): into X. */
static void packed_values(const builder *B, const build_channel *ch, float *X) {
    ossa__build_channel_values(B, ch, X);
    if (ch->kind != OSSA__CH_R) return;
    for (uint32_t g = 0; g < B->grid_count; g++) {
        float *x = X + (size_t)g * 4;
        if (x[ch->dropped] < 0.0f)
            for (int c = 0; c < 4; c++) x[c] = -x[c];
    }
}

/* Requantises packed channel ch's keys from X with its bits on its range (min .. min + ext),
 * the same arithmetic as fit. */
static void quantise(const builder *B, build_channel *ch, const float *X) {
    int comp[3];
    stored_comps(ch, comp);
    quant_range pq;
    memset(&pq, 0, sizeof pq);
    pq.kind = ch->kind;
    pq.dropped = ch->dropped;
    for (int c = 0; c < 3; c++) {
        pq.bits[c] = ch->bits[c];
        pq.range_min[c] = ch->range_min[c];
        pq.step[c] = ch->step[c] = qstep(ch->extent[c], ch->bits[c]);
    }
    for (uint32_t k = 0; k < ch->key_count; k++) {
        float v[4];
        ossa__build_quantise_key(&pq, X + (size_t)B->key_grid[ch->keys[k]] * 4, comp, ch->quantised + (size_t)k * 3, v);
    }
}

/* Channel ch (FOLD or PACKED) at every grid time as the sampling job gives it: into V. Packed
 * channels run the sampler's own scalar lerp kernel (the SIMD ones give its bits) on the keys
 * and segments the job sets up: t0 / dt of the segment (dt = INFINITY after the last key and
 * for STEP), rotations placed into V by the kernel as into the job's pose (the rebuilt
 * component at `drop`); t - t0 is formed as the job forms it. */
static void decode_channel(builder *B, const build_channel *ch, float *V) {
    uint32_t G = B->grid_count;
    if (ch->mode == MODE_FOLD) {
        for (uint32_t g = 0; g < G; g++) memcpy(V + (size_t)g * 4, ch->fold_value, sizeof ch->fold_value);
        return;
    }
    enum { N = 64 };
    float t0[N], dt[N], keys[N][8]; /* channel i's key a at keys[i], key b at keys[i] + 4 */
    uint32_t ka[N], kb[N], dst[N];
    float mn[3][N], st[3][N], o[3][N], drop[N];
    bool rot = ch->kind == OSSA__CH_R;
    ossa__lerp_soa soa = {t0, dt, keys[0], ka, kb, {mn[0], mn[1], mn[2]}, {st[0], st[1], st[2]}, {o[0], o[1], o[2], NULL},
                          NULL, dst, drop};
    for (uint32_t i = 0; i < N; i++) {
        for (int c = 0; c < 3; c++) {
            mn[c][i] = ch->range_min[c];
            st[c][i] = ch->step[c];
        }
        ka[i] = 8u * i, kb[i] = 8u * i + 4u;
        dst[i] = 4u * i;
        drop[i] = (float)ch->dropped;
    }
    const uint32_t *cand = B->key_grid;
    uint32_t k = 0;
    for (uint32_t g0 = 0; g0 < G; g0 += N) {
        uint32_t n = G - g0 < N ? G - g0 : N;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t g = g0 + i;
            while (k + 1 < ch->key_count && cand[ch->keys[k + 1]] <= g) k++;
            bool hold = k + 1 == ch->key_count;
            float ta = B->grid_times[cand[ch->keys[k]]];
            t0[i] = -(B->grid_times[g] - ta); /* the kernel's (0 - t0) is the job's (t - t0) */
            dt[i] = hold || ch->interp == OSSA_INTERP_STEP ? INFINITY : B->grid_times[cand[ch->keys[k + 1]]] - ta;
            const uint32_t *a = ch->quantised + (size_t)k * 3, *b = hold ? a : a + 3;
            for (int c = 0; c < 3; c++) {
                keys[i][c] = (float)a[c];
                keys[i][4 + c] = (float)b[c];
            }
        }
        soa.pose = rot ? V + (size_t)g0 * 4 : NULL;
        ossa__lerp_scalar(&soa, 0.0f, 0, n, rot);
        for (uint32_t i = 0; !rot && i < n; i++) {
            float *v = V + (size_t)(g0 + i) * 4;
            v[0] = o[0][i];
            v[1] = o[1][i];
            v[2] = o[2][i];
            v[3] = 0.0f;
        }
    }
}

/* Joint j's subtree: joints j .. end - 1 if they are contiguous (then begin = j and its
 * ancestors, root first, are recomputed one at a time before it), else begin = 0 (the whole
 * prefix is recomputed). */
typedef struct subtree {
    uint32_t joint, begin, end;
    uint32_t ancestor_count;
    const uint32_t *ancestors; /* in B->index_scratch */
} subtree;

static subtree find_subtree(builder *B, uint32_t j) {
    uint32_t J = B->joint_count;
    const int32_t *par = B->skeleton->parents;
    subtree st = {j, j, j + 1, 0, NULL};
    bool contiguous = true;
    for (uint32_t i = j + 1; i < J; i++) {
        int32_t a = par[i];
        while (a > (int32_t)j) a = par[a];
        if (a == (int32_t)j) {
            if (st.end != i) contiguous = false;
            st.end = i + 1;
        }
    }
    uint32_t *anc = B->index_scratch + (size_t)B->key_grid_count * 4; /* j's ancestors, root first */
    st.ancestors = anc;
    if (!contiguous) {
        st.begin = 0;
        return st;
    }
    for (int32_t a = par[j]; a >= 0; a = par[a]) st.ancestor_count++;
    uint32_t k = st.ancestor_count;
    for (int32_t a = par[j]; a >= 0; a = par[a]) anc[--k] = (uint32_t)a;
    return st;
}

/* The subtree's model matrices from local pose `pose` into B->subtree_model (its ancestors
 * first, one joint at a time, with the same kernel as the measurement). */
static void subtree_to_model(const builder *B, const subtree *st, const ossa_transform *pose) {
    ossa_local_to_model_job job = {0};
    job.skeleton = B->skeleton;
    job.input = pose;
    job.input_count = B->joint_count;
    job.output = B->subtree_model;
    job.output_count = B->joint_count;
    for (uint32_t k = 0; k < st->ancestor_count; k++) {
        job.begin = st->ancestors[k];
        job.end = st->ancestors[k] + 1;
        ossa_local_to_model_job_run(&job);
    }
    job.begin = st->begin;
    job.end = st->end;
    ossa_local_to_model_job_run(&job);
}

/* Whether every virtual vertex of the subtree (B->subtree_model) is within sqrt(limit2) of the
 * exact one at grid time g; the subtree joints' errors into error (per joint of the pose). */
static bool subtree_within(const builder *B, const subtree *st, uint32_t g, double limit2, float *error) {
    for (uint32_t i = st->joint; i < st->end; i++) {
        const float *shell = B->axis_shell + (size_t)i * 3;
        const float *m = B->subtree_model[i].m, *x = B->exact_points + ((size_t)g * B->joint_count + i) * 12;
        double w2 = 0.0;
        for (int p = 0; p < 4; p++) {
            double d2 = 0.0;
            for (int r = 0; r < 3; r++) {
                float v = m[12 + r] + (p ? m[(p - 1) * 4 + r] * shell[p - 1] : 0.0f);
                double dd = (double)v - x[p * 3 + r];
                d2 += dd * dd;
            }
            w2 = d2 > w2 ? d2 : w2;
        }
        if (!(w2 <= limit2)) return false;
        error[i] = (float)sqrt(w2);
    }
    return true;
}

/* Whether the model-space error at every grid time stays within limit over the subtree of joint
 * j = ch->target when ch takes the values V and every other channel its current built values
 * (B->built_pose). B->joint_error holds, per grid time and joint, the current error or a bound
 * above it: where that error plus how far the change can move the subtree's vertices (the
 * channel's change x the subtree's reach, x the parent scale for translations) stays within the
 * limit, the time needs no evaluation; elsewhere the subtree's matrices are computed. The grid
 * is scanned from ch->probe_time on, a failure moves it there. If it holds, the pose and the
 * errors (or bounds) are stored. */
/* Grid times the scans fetch ahead. */
#define PREFETCH_AHEAD 8u

static bool eval_subtree(builder *B, build_channel *ch, const float *V, float limit) {
    uint32_t J = B->joint_count, j = ch->target;
    subtree st = find_subtree(B, j);
    size_t n = (ch->kind == OSSA__CH_R ? 4 : 3) * sizeof(float);
    /* how far a change of d (channel units) can move a vertex of the subtree (B->*_bound) */
    float R = ch->kind == OSSA__CH_R   ? B->rotation_bound[j]
              : ch->kind == OSSA__CH_T ? B->translation_bound[j]
                                       : INFINITY;
    float skip = limit * 0.99f, slack = B->rounding_slack[j];
    double lim2 = (double)limit * limit;
    uint32_t G = B->grid_count, g = ch->probe_time < G ? ch->probe_time : 0;
    for (uint32_t step = 0; step < G; step++, g = g + 1 < G ? g + 1 : 0) {
        uint32_t ahead = g + PREFETCH_AHEAD;
        while (ahead >= G) ahead -= G;
        BUILD_PREFETCH(B->built_pose + (size_t)ahead * J + j);
        BUILD_PREFETCH(B->joint_error + (size_t)ahead * J + j);
        BUILD_PREFETCH(B->candidate_error + (size_t)ahead * J + j);
        ossa_transform *gp = B->built_pose + (size_t)g * J, keep = gp[j];
        const float *err = B->joint_error + (size_t)g * J;
        float *terr = B->candidate_error + (size_t)g * J;
        float d = chan_err(ch->kind, field(&gp[j], ch->kind), V + (size_t)g * 4), worst = 0.0f;
        for (uint32_t i = j; i < st.end; i++) worst = err[i] > worst ? err[i] : worst;
        if (worst + d * R + slack <= skip) {
            for (uint32_t i = j; i < st.end; i++) terr[i] = err[i] + d * R + slack;
            continue;
        }
        memcpy(field(&gp[j], ch->kind), V + (size_t)g * 4, n); /* the candidate, in place for the job */
        const char *ex = (const char *)(B->exact_points + ((size_t)g * J + j) * 12);
        for (size_t at = 0; at < (size_t)(st.end - j) * 12 * sizeof(float); at += 64) BUILD_PREFETCH(ex + at);
        subtree_to_model(B, &st, gp);
        gp[j] = keep;
        if (!subtree_within(B, &st, g, lim2, terr)) {
            ch->probe_time = g;
            return false;
        }
    }
    for (g = 0; g < G; g++) {
        size_t at = (size_t)g * J + j;
        memcpy(B->joint_error + at, B->candidate_error + at, (st.end - j) * sizeof(float));
        memcpy(field(&B->built_pose[(size_t)g * J + j], ch->kind), V + (size_t)g * 4, n);
    }
    return true;
}

/* Bytes a channel adds to the clip, roughly (the comparison of two choices for it). */
static double chan_bytes(const builder *B, const build_channel *c) {
    if (c->mode == MODE_FOLD) return 0.0;
    if (c->mode == MODE_PACKED)
        return sizeof(ossa__bc_packed) + (B->key_grid_count + (double)ossa__build_stream_bits(c)) / 8.0;
    ossa__bc_lane lanes[12];
    uint32_t per = 0;
    return sizeof(ossa__bc_raw) + (double)ossa__build_raw_lanes(c, lanes, &per);
}

static void save_chan(builder *B, const build_channel *c, build_channel *saved) {
    *saved = *c;
    memcpy(B->index_scratch, c->keys, c->key_count * sizeof(uint32_t));
    memcpy(B->index_scratch + B->key_grid_count, c->quantised, (size_t)c->key_count * 3 * sizeof(uint32_t));
}

static void restore_chan(builder *B, build_channel *c, const build_channel *saved) {
    uint32_t probe = c->probe_time;
    *c = *saved;
    c->probe_time = probe;
    memcpy(c->keys, B->index_scratch, c->key_count * sizeof(uint32_t));
    memcpy(c->quantised, B->index_scratch + B->key_grid_count, (size_t)c->key_count * 3 * sizeof(uint32_t));
}

/* How far a change of d (channel units) of joint j's rotation or translation can move a vertex
 * of its subtree, from the built pose (B->built_pose): the parent's model frame is the product of the
 * ancestors' rotations and scales, so it stretches a vector by at most sigma = the product of
 * their largest |scale| and by at least the product of their smallest; a rotation change of d
 * moves a vertex by at most d x its distance from the joint x kappa (that ratio, 1 for uniform
 * scales): bound_r = kappa x (the subtree's reach + 2 precision: the built pose is within the
 * precision of the exact one); a translation change by at most d x sigma = bound_t. */
static void loosen_bounds(builder *B) {
    uint32_t J = B->joint_count;
    const int32_t *par = B->skeleton->parents;
    float *kap = B->bound_scratch, *sig = B->bound_scratch + J; /* per joint at one time */
    for (uint32_t j = 0; j < J; j++) B->rotation_bound[j] = B->translation_bound[j] = 0.0f;
    for (uint32_t g = 0; g < B->grid_count; g++) {
        const ossa_transform *gp = B->built_pose + (size_t)g * J;
        for (uint32_t j = 0; j < J; j++) {
            int32_t a = par[j];
            kap[j] = sig[j] = 1.0f;
            if (a >= 0) {
                const float *s = &gp[a].scale.x;
                float x = fabsf(s[0]), y = fabsf(s[1]), z = fabsf(s[2]); /* ternaries: fminf is a call here */
                float lo = x < y ? (x < z ? x : z) : (y < z ? y : z), hi = x > y ? (x > z ? x : z) : (y > z ? y : z);
                kap[j] = kap[a] * (lo > 0.0f ? hi / lo : INFINITY);
                sig[j] = sig[a] * hi;
            }
            if (!(kap[j] <= B->rotation_bound[j])) B->rotation_bound[j] = kap[j];
            if (!(sig[j] <= B->translation_bound[j])) B->translation_bound[j] = sig[j];
        }
    }
    for (uint32_t j = 0; j < J; j++) {
        B->rotation_bound[j] *= (B->subtree_reach[j] + 2.0f * B->options.precision) * 1.0001f;
        B->translation_bound[j] *= 1.0001f;
        if (!isfinite(B->rotation_bound[j])) B->rotation_bound[j] = INFINITY;
        if (!isfinite(B->translation_bound[j])) B->translation_bound[j] = INFINITY;
    }
}

/* Folds channel c into the base pose with its mean exact value over the grid (rotations:
 * normalised, on the hemisphere of the first). */
static void fold_mean(builder *B, build_channel *c) {
    float *X = B->channel_values;
    ossa__build_channel_values(B, c, X);
    double m[4] = {0, 0, 0, 0};
    for (uint32_t g = 0; g < B->grid_count; g++) {
        const float *x = X + (size_t)g * 4;
        double sg = c->kind == OSSA__CH_R && x[0] * X[0] + x[1] * X[1] + x[2] * X[2] + x[3] * X[3] < 0.0f ? -1.0 : 1.0;
        for (int i = 0; i < 4; i++) m[i] += sg * x[i];
    }
    for (int i = 0; i < 4; i++) c->fold_value[i] = (float)(m[i] / B->grid_count);
    if (c->kind == OSSA__CH_R) ossa__quat_normalize4(c->fold_value);
    else c->fold_value[3] = 0.0f;
    c->mode = MODE_FOLD;
}

/* Keeps channel c's new form if the model-space error stays within target at every grid time
 * (then its values are in B->built_pose and the errors in B->joint_error). */
static bool try_chan(builder *B, build_channel *c, float target) {
    decode_channel(B, c, B->candidate_values);
    if (!eval_subtree(B, c, B->candidate_values, target)) return false;
    if (c->kind == OSSA__CH_S) loosen_bounds(B); /* the scales changed */
    return true;
}

/* The loosening's order: bits saved per step (keys) over the error a step adds (the largest
 * quantisation step x how far the channel moves its subtree); raw channels first. */
static double loosen_priority(const builder *B, const build_channel *c) {
    if (c->mode != MODE_PACKED) return INFINITY;
    double R = c->kind == OSSA__CH_R   ? B->rotation_bound[c->target]
               : c->kind == OSSA__CH_T ? B->translation_bound[c->target]
                                       : 1.0;
    double st = fmax(fmax(c->step[0], c->step[1]), fmax(c->step[2], 1e-12));
    return c->key_count / (st * R);
}

/* The channels by loosen_priority, highest first, into order (insertion sort: few channels). */
static void order_by_priority(const builder *B, uint32_t *order) {
    for (uint32_t i = 0, n = 0; i < B->channel_count; i++) {
        uint32_t k = n++;
        double ci = loosen_priority(B, &B->channels[i]);
        while (k > 0 && loosen_priority(B, &B->channels[order[k - 1]]) < ci) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = i;
    }
}

/* A channel folded to another value: the reference's saves its base entry (tried once). */
static bool try_fold_to_rest(builder *B, build_channel *c, float target) {
    if ((c->loosen_tried & LOOSEN_REST_FOLD_TRIED) || ossa__build_fold_is_rest(B, c)) return false;
    build_channel saved;
    c->loosen_tried |= LOOSEN_REST_FOLD_TRIED;
    save_chan(B, c, &saved);
    ossa__build_rest_value(B, c, c->fold_value);
    if (try_chan(B, c, target)) return true;
    restore_chan(B, c, &saved);
    return false;
}

/* A small packed channel folded into the base pose (the reference's value, else its mean)
 * saves its record (tried once). Whether it folded. */
static bool try_fold_small(builder *B, build_channel *c, float target) {
    if ((c->loosen_tried & LOOSEN_FOLD_TRIED) || c->mode != MODE_PACKED ||
        c->key_count * ((uint32_t)c->bits[0] + c->bits[1] + c->bits[2]) > FOLD_TRY_BITS)
        return false;
    build_channel saved;
    c->loosen_tried |= LOOSEN_FOLD_TRIED | LOOSEN_REST_FOLD_TRIED;
    save_chan(B, c, &saved);
    c->mode = MODE_FOLD;
    ossa__build_rest_value(B, c, c->fold_value);
    if (try_chan(B, c, target)) return true;
    fold_mean(B, c);
    if (try_chan(B, c, target)) return true;
    restore_chan(B, c, &saved);
    return false;
}

/* One coarser tolerance (x sqrt 2; a raw channel: the first doubling that packs it), kept if
 * it is smaller and within target; until one is kept, not tried again. Whether it was kept. */
static bool try_coarser_tolerance(builder *B, build_channel *c, float target) {
    if (c->loosen_tried & LOOSEN_NO_COARSER) return false;
    build_channel saved;
    bool kept = false;
    for (int level = c->level; level > MIN_LEVEL;) {
        double before = chan_bytes(B, c);
        save_chan(B, c, &saved);
        if (saved.mode != MODE_RAW && !c->half_level) c->half_level = 1; /* x sqrt 2 */
        else {
            c->half_level = 0;
            c->level = --level;
        }
        ossa__build_fit(B, c, level_tol(c));
        if (c->mode == MODE_RAW) {
            restore_chan(B, c, &saved);
            if (saved.mode == MODE_RAW) continue;
            break;
        }
        if (chan_bytes(B, c) < before && try_chan(B, c, target)) kept = true;
        else restore_chan(B, c, &saved);
        break;
    }
    if (kept) c->loosen_tried &= LOOSEN_FOLD_TRIED; /* a new tolerance: every other step again */
    else c->loosen_tried |= LOOSEN_NO_COARSER;
    return kept;
}

/* One bit less per component of a packed channel, each kept if within target (a component
 * that fails is not tried again). Whether any was kept. */
static bool try_fewer_bits(builder *B, build_channel *c, float target) {
    build_channel saved;
    bool values = false, changed = false;
    for (int k = 0; k < 3; k++) {
        if ((c->loosen_tried & LOOSEN_NO_FEWER_BITS(k)) || c->bits[k] == 0) continue;
        if (!values) packed_values(B, c, B->channel_values);
        values = true;
        save_chan(B, c, &saved);
        c->bits[k]--;
        quantise(B, c, B->channel_values);
        if (try_chan(B, c, target)) {
            changed = true;
        } else {
            restore_chan(B, c, &saved);
            c->loosen_tried |= (uint8_t)LOOSEN_NO_FEWER_BITS(k);
        }
    }
    return changed;
}

/* One round's steps for channel c (see ossa__build_loosen). Whether any was kept. */
static bool loosen_channel(builder *B, build_channel *c, float target) {
    if (c->mode == MODE_FOLD) return try_fold_to_rest(B, c, target);
    if (try_fold_small(B, c, target)) return true;
    bool changed = try_coarser_tolerance(B, c, target);
    if (c->mode == MODE_PACKED && try_fewer_bits(B, c, target)) changed = true;
    return changed;
}

void ossa__build_loosen(builder *B, float target) {
    loosen_bounds(B);
    for (uint32_t i = 0; i < B->channel_count; i++) B->channels[i].loosen_tried = 0;
    /* the channels by loosen_priority, per round */
    uint32_t *order = B->index_scratch + (size_t)B->key_grid_count * 4 + B->joint_count;
    for (bool changed = true; changed;) {
        changed = false;
        order_by_priority(B, order);
        for (uint32_t oi = 0; oi < B->channel_count; oi++) {
            build_channel *c = &B->channels[order[oi]];
            if (c->kind != OSSA__CH_W && loosen_channel(B, c, target)) changed = true;
        }
    }
}

void ossa__build_compact_key_grid(builder *B) {
    uint32_t *map = B->index_scratch, n = 0; /* map[k]: new index of key-grid time k, UINT32_MAX = unused */
    for (uint32_t k = 0; k < B->key_grid_count; k++) map[k] = UINT32_MAX;
    for (uint32_t i = 0; i < B->channel_count; i++)
        if (B->channels[i].mode == MODE_PACKED)
            for (uint32_t k = 0; k < B->channels[i].key_count; k++) map[B->channels[i].keys[k]] = 0;
    for (uint32_t k = 0; k < B->key_grid_count; k++)
        if (map[k] == 0 || k == 0) {
            map[k] = n;
            B->key_grid_rank[n] = B->key_grid_rank[k];
            B->key_grid[n++] = B->key_grid[k];
        }
    for (uint32_t i = 0; i < B->channel_count; i++) {
        if (B->channels[i].mode != MODE_PACKED) B->channels[i].key_count = 0; /* stale keys of the larger grid */
        for (uint32_t k = 0; k < B->channels[i].key_count; k++) B->channels[i].keys[k] = map[B->channels[i].keys[k]];
    }
    B->key_grid_count = n;
}

