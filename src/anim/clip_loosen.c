/* The clip builder's measurement and loosening (see clip_build_internal.h): the built clip's
 * model-space error at every grid time, the channels that cause a miss, and the pass that
 * gives back what halving whole tolerances over-spent. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ossa/pose.h>

#include "anim/clip_build_internal.h"
#include "core/alloc.h"
#include "math/fast.h"

ossa_result ossa__build_measure(builder *B, const ossa_built_clip *bc, ossa_sampling_context *ctx, float *jerr,
                           uint32_t *jworst, ossa_clip_error *e) {
    uint32_t J = B->J, W = bc->h->weight_count;
    size_t bytes = (size_t)J * (sizeof(ossa_transform) + sizeof(ossa_mat4) + 13 * sizeof(float)) + (size_t)W * 2 * sizeof(float) + 16;
    unsigned char *s = ossa__alloc_array(B->alloc, 1, bytes);
    if (!s) return OSSA_ERROR_OUT_OF_MEMORY;
    ossa_transform *got = (ossa_transform *)s;
    ossa_mat4 *model = (ossa_mat4 *)(got + J);
    float *pts = (float *)(model + J), *wb = pts + (size_t)J * 12, *we = wb + W, *now = we + W;
    memset(jerr, 0, J * sizeof(float));
    memset(e, 0, sizeof *e);
    ossa_sample_job job = {.clip = bc, .context = ctx, .output = got, .output_count = J, .weights = W ? wb : NULL,
                           .weights_count = W, .reference = B->sk->rest, .reference_count = J};
    ossa_result r = OSSA_OK;
    for (uint32_t g = 0; g < B->G; g++) {
        job.time = B->grid[g];
        if (B->got) got = job.output = B->got + (size_t)g * J; /* kept for the loosening pass */
        if ((r = ossa_sample_job_run(&job)) != OSSA_OK) break;
        ossa__pose_points(got, B->sk->parents, J, B->opt.shell_distance, model, pts);
        uint32_t wj = 0;
        memset(now, 0, J * sizeof(float));
        float err = ossa__points_error(pts, B->points + (size_t)g * J * 12, J, &wj, now);
        if (B->err) memcpy(B->err + (size_t)g * J, now, J * sizeof(float));
        for (uint32_t j = 0; j < J; j++)
            if (!(now[j] <= jerr[j])) {
                jerr[j] = now[j];
                jworst[j] = g;
            }
        if (!(err <= e->max_error)) {
            e->max_error = err;
            e->worst_joint = wj;
            e->worst_time = B->grid[g];
        }
        for (uint32_t i = 0; i < B->clip->weight_track_count; i++) {
            ossa__clip_weights_exact(B->clip, i, B->grid[g], false, we, B->clip->weight_tracks[i].weights.components);
            const ossa__bc_wtrack *w = &bc->wtracks[i];
            for (uint32_t c = 0; c < w->components; c++) {
                float d = fabsf(we[c] - wb[w->offset + c]);
                if (!(d <= e->max_weight_error)) e->max_weight_error = d;
            }
        }
    }
    e->sample_count = B->G;
    ossa__free(B->alloc, s);
    return r;
}

ossa_result ossa__build_attribute(builder *B, const ossa_built_clip *bc, ossa_sampling_context *ctx, uint32_t j, uint32_t g,
                             const int32_t *chan_of, unsigned char *mark) {
    uint32_t J = B->J;
    ossa_transform *buf = ossa__alloc_array(B->alloc, (size_t)J * 2, sizeof(ossa_transform));
    float *cerr = ossa__alloc_array(B->alloc, (size_t)B->nch + 1, sizeof(float));
    if (!buf || !cerr) {
        ossa__free(B->alloc, buf);
        ossa__free(B->alloc, cerr);
        return OSSA_ERROR_OUT_OF_MEMORY;
    }
    ossa_transform *got = buf, *tmp = buf + J;
    ossa_sample_job job = {0};
    job.clip = bc;
    job.context = ctx;
    job.time = B->grid[g];
    job.output = got;
    job.output_count = J;
    job.reference = B->sk->rest;
    job.reference_count = J;
    ossa_result r = ossa_sample_job_run(&job);
    if (r == OSSA_OK) {
        memcpy(tmp, B->exact + (size_t)g * J, J * sizeof *tmp);
        const float *ex = B->points + ((size_t)g * J + j) * 12;
        float worst = 0.0f;
        for (int32_t a = (int32_t)j; a >= 0; a = B->sk->parents[a])
            for (int k = 0; k < 3; k++) {
                int32_t ci = chan_of[(size_t)a * 3 + (size_t)k];
                if (ci < 0 || B->ch[ci].mode == MODE_RAW) continue;
                ossa_transform save = tmp[a];
                memcpy(field(&tmp[a], k), field(&got[a], k), (k == OSSA__CH_R ? 4 : 3) * sizeof(float));
                ossa_mat4 m = ossa_pose_joint_to_model(tmp, B->sk->parents, J, j);
                float e = 0.0f;
                for (int p = 0; p < 4; p++)
                    for (int c = 0; c < 3; c++) {
                        float v = m.m[12 + c] + (p ? m.m[(p - 1) * 4 + c] * B->opt.shell_distance : 0.0f);
                        e = fmaxf(e, fabsf(v - ex[p * 3 + c]));
                    }
                tmp[a] = save;
                cerr[ci] = e;
                worst = fmaxf(worst, e);
            }
        for (int32_t a = (int32_t)j; a >= 0; a = B->sk->parents[a])
            for (int k = 0; k < 3; k++) {
                int32_t ci = chan_of[(size_t)a * 3 + (size_t)k];
                if (ci >= 0 && B->ch[ci].mode != MODE_RAW && (cerr[ci] >= 0.5f * worst || !(worst > 0.0f))) mark[ci] = 1;
            }
    }
    ossa__free(B->alloc, buf);
    ossa__free(B->alloc, cerr);
    return r;
}

/* ---------------------------------------------------------------- loosen */

/* The stored components of a packed channel: the three around the dropped one (rotations). */
static void stored_comps(const bchan *ch, int comp[3]) {
    for (int c = 0, k = 0; c < 4 && k < 3; c++)
        if (ch->kind != OSSA__CH_R || c != ch->drop) comp[k++] = c;
}

/* The exact values of packed channel ch at every grid time, rotations with the sign that keeps
 * the dropped component >= 0 (what fit quantised): into X. */
static void packed_values(const builder *B, const bchan *ch, float *X) {
    ossa__build_channel_values(B, ch, X);
    if (ch->kind != OSSA__CH_R) return;
    for (uint32_t g = 0; g < B->G; g++) {
        float *x = X + (size_t)g * 4;
        if (x[ch->drop] < 0.0f)
            for (int c = 0; c < 4; c++) x[c] = -x[c];
    }
}

/* Requantises packed channel ch's keys from X with its bits on its range (min .. min + ext),
 * the same arithmetic as fit. */
static void quantise(const builder *B, bchan *ch, const float *X) {
    int comp[3];
    stored_comps(ch, comp);
    qrange pq;
    memset(&pq, 0, sizeof pq);
    pq.kind = ch->kind;
    pq.drop = ch->drop;
    for (int c = 0; c < 3; c++) {
        pq.bits[c] = ch->bits[c];
        pq.min[c] = ch->min[c];
        pq.step[c] = ch->step[c] = qstep(ch->ext[c], ch->bits[c]);
    }
    for (uint32_t k = 0; k < ch->key_count; k++) {
        float v[4];
        ossa__build_quantise_key(&pq, X + (size_t)B->cand[ch->keys[k]] * 4, comp, ch->q + (size_t)k * 3, v);
    }
}

/* Channel ch (FOLD or PACKED) at every grid time as the sampling job gives it: into V. Packed
 * channels run the sampler's own scalar lerp kernel (the SIMD ones give its bits) on the keys
 * and segments the job sets up: t0 / dt of the segment (dt = INFINITY after the last key and
 * for STEP), rotations placed into V by the kernel as into the job's pose (the rebuilt
 * component at `drop`); t - t0 is formed as the job forms it. */
static void decode_channel(builder *B, const bchan *ch, float *V) {
    uint32_t G = B->G;
    if (ch->mode == MODE_FOLD) {
        for (uint32_t g = 0; g < G; g++) memcpy(V + (size_t)g * 4, ch->fold, sizeof ch->fold);
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
            mn[c][i] = ch->min[c];
            st[c][i] = ch->step[c];
        }
        ka[i] = 8u * i, kb[i] = 8u * i + 4u;
        dst[i] = 4u * i;
        drop[i] = (float)ch->drop;
    }
    const uint32_t *cand = B->cand;
    uint32_t k = 0;
    for (uint32_t g0 = 0; g0 < G; g0 += N) {
        uint32_t n = G - g0 < N ? G - g0 : N;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t g = g0 + i;
            while (k + 1 < ch->key_count && cand[ch->keys[k + 1]] <= g) k++;
            bool hold = k + 1 == ch->key_count;
            float ta = B->grid[cand[ch->keys[k]]];
            t0[i] = -(B->grid[g] - ta); /* the kernel's (0 - t0) is the job's (t - t0) */
            dt[i] = hold || ch->interp == OSSA_INTERP_STEP ? INFINITY : B->grid[cand[ch->keys[k + 1]]] - ta;
            const uint32_t *a = ch->q + (size_t)k * 3, *b = hold ? a : a + 3;
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

/* Whether the model-space error at every grid time stays within limit over the subtree of joint
 * j = ch->target when ch takes the values V and every other channel its current built values
 * (B->got). B->err holds, per grid time and joint, the current error or a bound above it: where
 * that error plus how far the change can move the subtree's vertices (the channel's change x
 * the subtree's reach, x the parent scale for translations) stays within the limit, the time
 * needs no evaluation; elsewhere the subtree's matrices are computed (its ancestors first, one
 * joint at a time, with the same kernel as the measurement). The grid is scanned from ch->probe
 * on, a failure moves it there. If it holds, the pose and the errors (or bounds) are stored. */
static bool eval_subtree(builder *B, bchan *ch, const float *V, float limit) {
    uint32_t J = B->J, j = ch->target, e = j + 1, nanc = 0;
    const int32_t *par = B->sk->parents;
    bool contiguous = true;
    for (uint32_t i = j + 1; i < J; i++) {
        int32_t a = par[i];
        while (a > (int32_t)j) a = par[a];
        if (a == (int32_t)j) {
            if (e != i) contiguous = false;
            e = i + 1;
        }
    }
    uint32_t begin = contiguous ? j : 0, *anc = B->save + (size_t)B->C * 4; /* j's ancestors, root first */
    if (contiguous) {
        for (int32_t a = par[j]; a >= 0; a = par[a]) nanc++;
        uint32_t k = nanc;
        for (int32_t a = par[j]; a >= 0; a = par[a]) anc[--k] = (uint32_t)a;
    }
    size_t n = (ch->kind == OSSA__CH_R ? 4 : 3) * sizeof(float);
    /* how far a change of d (channel units) can move a vertex of the subtree (B->bound_*) */
    float R = ch->kind == OSSA__CH_R ? B->bound_r[j] : ch->kind == OSSA__CH_T ? B->bound_t[j] : INFINITY;
    float shell = B->opt.shell_distance, skip = limit * 0.99f;
    double lim2 = (double)limit * limit;
    ossa_local_to_model_job job = {0};
    job.skeleton = B->sk;
    job.input_count = J;
    job.output = B->mod;
    job.output_count = J;
    uint32_t G = B->G, g = ch->probe < G ? ch->probe : 0;
    for (uint32_t step = 0; step < G; step++, g = g + 1 < G ? g + 1 : 0) {
        ossa_transform *gp = B->got + (size_t)g * J, keep = gp[j];
        const float *err = B->err + (size_t)g * J;
        float *terr = B->terr + (size_t)g * J;
        float d = chan_err(ch->kind, field(&gp[j], ch->kind), V + (size_t)g * 4), worst = 0.0f;
        for (uint32_t i = j; i < e; i++) worst = err[i] > worst ? err[i] : worst;
        if (worst + d * R + B->round2[j] <= skip) {
            for (uint32_t i = j; i < e; i++) terr[i] = err[i] + d * R + B->round2[j];
            continue;
        }
        memcpy(field(&gp[j], ch->kind), V + (size_t)g * 4, n); /* the candidate, in place for the job */
        job.input = gp;
        for (uint32_t k = 0; k < nanc; k++) {
            job.begin = anc[k];
            job.end = anc[k] + 1;
            ossa_local_to_model_job_run(&job);
        }
        job.begin = begin;
        job.end = e;
        ossa_local_to_model_job_run(&job);
        gp[j] = keep;
        bool over = false;
        for (uint32_t i = j; i < e; i++) {
            const float *m = B->mod[i].m, *x = B->points + ((size_t)g * J + i) * 12;
            double w2 = 0.0;
            for (int p = 0; p < 4; p++) {
                double d2 = 0.0;
                for (int r = 0; r < 3; r++) {
                    float v = m[12 + r] + (p ? m[(p - 1) * 4 + r] * shell : 0.0f);
                    double dd = (double)v - x[p * 3 + r];
                    d2 += dd * dd;
                }
                w2 = d2 > w2 ? d2 : w2;
            }
            if (!(w2 <= lim2)) {
                over = true;
                break;
            }
            terr[i] = (float)sqrt(w2);
        }
        if (over) {
            ch->probe = g;
            return false;
        }
    }
    for (g = 0; g < G; g++) {
        memcpy(B->err + (size_t)g * J + j, B->terr + (size_t)g * J + j, (e - j) * sizeof(float));
        memcpy(field(&B->got[(size_t)g * J + j], ch->kind), V + (size_t)g * 4, n);
    }
    return true;
}

/* Bytes a channel adds to the clip, roughly (the comparison of two choices for it). */
static double chan_bytes(const builder *B, const bchan *c) {
    if (c->mode == MODE_FOLD) return 0.0;
    if (c->mode == MODE_PACKED)
        return sizeof(ossa__bc_packed) + (B->C + (double)ossa__build_stream_bits(c)) / 8.0;
    ossa__bc_lane lanes[12];
    uint32_t per = 0;
    return sizeof(ossa__bc_raw) + (double)ossa__build_raw_lanes(c, lanes, &per);
}

static void save_chan(builder *B, const bchan *c, bchan *saved) {
    *saved = *c;
    memcpy(B->save, c->keys, c->key_count * sizeof(uint32_t));
    memcpy(B->save + B->C, c->q, (size_t)c->key_count * 3 * sizeof(uint32_t));
}

static void restore_chan(builder *B, bchan *c, const bchan *saved) {
    uint32_t probe = c->probe;
    *c = *saved;
    c->probe = probe;
    memcpy(c->keys, B->save, c->key_count * sizeof(uint32_t));
    memcpy(c->q, B->save + B->C, (size_t)c->key_count * 3 * sizeof(uint32_t));
}

/* How far a change of d (channel units) of joint j's rotation or translation can move a vertex
 * of its subtree, from the built pose (B->got): the parent's model frame is the product of the
 * ancestors' rotations and scales, so it stretches a vector by at most sigma = the product of
 * their largest |scale| and by at least the product of their smallest; a rotation change of d
 * moves a vertex by at most d x its distance from the joint x kappa (that ratio, 1 for uniform
 * scales): bound_r = kappa x (the subtree's reach + 2 precision: the built pose is within the
 * precision of the exact one); a translation change by at most d x sigma = bound_t. */
static void loosen_bounds(builder *B) {
    uint32_t J = B->J;
    const int32_t *par = B->sk->parents;
    float *kap = B->kap, *sig = B->kap + J; /* per joint at one time */
    for (uint32_t j = 0; j < J; j++) B->bound_r[j] = B->bound_t[j] = 0.0f;
    for (uint32_t g = 0; g < B->G; g++) {
        const ossa_transform *gp = B->got + (size_t)g * J;
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
            if (!(kap[j] <= B->bound_r[j])) B->bound_r[j] = kap[j];
            if (!(sig[j] <= B->bound_t[j])) B->bound_t[j] = sig[j];
        }
    }
    for (uint32_t j = 0; j < J; j++) {
        B->bound_r[j] *= (B->reach[j] + 2.0f * B->opt.precision) * 1.0001f;
        B->bound_t[j] *= 1.0001f;
        if (!isfinite(B->bound_r[j])) B->bound_r[j] = INFINITY;
        if (!isfinite(B->bound_t[j])) B->bound_t[j] = INFINITY;
    }
}

/* Folds channel c into the base pose with its mean exact value over the grid (rotations:
 * normalised, on the hemisphere of the first). */
static void fold_mean(builder *B, bchan *c) {
    float *X = B->X;
    ossa__build_channel_values(B, c, X);
    double m[4] = {0, 0, 0, 0};
    for (uint32_t g = 0; g < B->G; g++) {
        const float *x = X + (size_t)g * 4;
        double sg = c->kind == OSSA__CH_R && x[0] * X[0] + x[1] * X[1] + x[2] * X[2] + x[3] * X[3] < 0.0f ? -1.0 : 1.0;
        for (int i = 0; i < 4; i++) m[i] += sg * x[i];
    }
    for (int i = 0; i < 4; i++) c->fold[i] = (float)(m[i] / B->G);
    if (c->kind == OSSA__CH_R) ossa__quat_normalize4(c->fold);
    else c->fold[3] = 0.0f;
    c->mode = MODE_FOLD;
}

/* Keeps channel c's new form if the model-space error stays within target at every grid time
 * (then its values are in B->got and the errors in B->err). */
static bool try_chan(builder *B, bchan *c, float target) {
    decode_channel(B, c, B->V);
    if (!eval_subtree(B, c, B->V, target)) return false;
    if (c->kind == OSSA__CH_S) loosen_bounds(B); /* the scales changed */
    return true;
}

/* The loosening's order: bits saved per step (keys) over the error a step adds (the largest
 * quantisation step x how far the channel moves its subtree); raw channels first. */
static double loosen_priority(const builder *B, const bchan *c) {
    if (c->mode != MODE_PACKED) return INFINITY;
    double R = c->kind == OSSA__CH_R ? B->bound_r[c->target] : c->kind == OSSA__CH_T ? B->bound_t[c->target] : 1.0;
    double st = fmax(fmax(c->step[0], c->step[1]), fmax(c->step[2], 1e-12));
    return c->key_count / (st * R);
}

void ossa__build_loosen(builder *B, float target) {
    bchan saved;
    loosen_bounds(B);
    for (uint32_t i = 0; i < B->nch; i++) B->ch[i].done = 0;
    uint32_t *order = B->save + (size_t)B->C * 4 + B->J; /* the channels by loosen_priority, per round */
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t i = 0, n = 0; i < B->nch; i++) { /* insertion sort: few channels */
            uint32_t k = n++;
            double ci = loosen_priority(B, &B->ch[i]);
            while (k > 0 && loosen_priority(B, &B->ch[order[k - 1]]) < ci) {
                order[k] = order[k - 1];
                k--;
            }
            order[k] = i;
        }
        for (uint32_t oi = 0; oi < B->nch; oi++) {
            bchan *c = &B->ch[order[oi]];
            if (c->kind == OSSA__CH_W) continue;
            if (c->mode == MODE_FOLD) { /* folded to another value: the reference's saves its base entry */
                if (!(c->done & 32) && !ossa__build_fold_is_rest(B, c)) {
                    c->done |= 32;
                    save_chan(B, c, &saved);
                    ossa__build_rest_value(B, c, c->fold);
                    if (try_chan(B, c, target)) changed = true;
                    else restore_chan(B, c, &saved);
                }
                continue;
            }
            if (!(c->done & 16) && c->mode == MODE_PACKED &&
                c->key_count * ((uint32_t)c->bits[0] + c->bits[1] + c->bits[2]) <= FOLD_TRY_BITS) {
                /* a small channel folded into the base pose (the reference's value, else its
                 * mean) saves its record */
                c->done |= 16 | 32;
                save_chan(B, c, &saved);
                c->mode = MODE_FOLD;
                ossa__build_rest_value(B, c, c->fold);
                if (try_chan(B, c, target)) {
                    changed = true;
                    continue;
                }
                fold_mean(B, c);
                if (try_chan(B, c, target)) {
                    changed = true;
                    continue;
                }
                restore_chan(B, c, &saved);
            }
            if (!(c->done & 1)) { /* one coarser tolerance (a raw channel: the first that packs) */
                bool kept = false;
                for (int level = c->level; level > MIN_LEVEL;) {
                    double before = chan_bytes(B, c);
                    save_chan(B, c, &saved);
                    if (saved.mode != MODE_RAW && !c->half) c->half = 1; /* x sqrt 2 */
                    else {
                        c->half = 0;
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
                if (kept) {
                    c->done &= 16;
                    changed = true;
                } else {
                    c->done |= 1;
                }
            }
            if (c->mode != MODE_PACKED) continue;
            bool values = false;
            for (int k = 0; k < 3; k++) { /* one bit less per component */
                if ((c->done & (2u << k)) || c->bits[k] == 0) continue;
                if (!values) packed_values(B, c, B->X);
                values = true;
                save_chan(B, c, &saved);
                c->bits[k]--;
                quantise(B, c, B->X);
                if (try_chan(B, c, target)) {
                    changed = true;
                } else {
                    restore_chan(B, c, &saved);
                    c->done |= (uint8_t)(2u << k);
                }
            }
        }
    }
}

void ossa__build_compact_key_grid(builder *B) {
    uint32_t *map = B->save, n = 0; /* map[k]: new index of key-grid time k, UINT32_MAX = unused */
    for (uint32_t k = 0; k < B->C; k++) map[k] = UINT32_MAX;
    for (uint32_t i = 0; i < B->nch; i++)
        if (B->ch[i].mode == MODE_PACKED)
            for (uint32_t k = 0; k < B->ch[i].key_count; k++) map[B->ch[i].keys[k]] = 0;
    for (uint32_t k = 0; k < B->C; k++)
        if (map[k] == 0 || k == 0) {
            map[k] = n;
            B->rank[n] = B->rank[k];
            B->cand[n++] = B->cand[k];
        }
    for (uint32_t i = 0; i < B->nch; i++) {
        if (B->ch[i].mode != MODE_PACKED) B->ch[i].key_count = 0; /* stale keys of the larger grid */
        for (uint32_t k = 0; k < B->ch[i].key_count; k++) B->ch[i].keys[k] = map[B->ch[i].keys[k]];
    }
    B->C = n;
}

