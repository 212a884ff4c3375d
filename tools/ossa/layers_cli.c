/* Layer flags of `ossa sample` / `ossa render` (see layers_cli.h, docs/layers.md). */
#include "layers_cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"

static cli_layer *push(cli_layers *L, const char *cmd) {
    cli_layer *n = realloc(L->items, sizeof *n * (size_t)(L->count + 1));
    if (!n) {
        fprintf(stderr, "ossa %s: out of memory\n", cmd);
        return NULL;
    }
    L->items = n;
    cli_layer *l = &n[L->count++];
    memset(l, 0, sizeof *l);
    l->weight = 1.0f;
    l->index = -1;
    return l;
}

int cli_layers_arg(cli_layers *L, const char *cmd, int argc, char **argv, int *i) {
    const char *a = argv[*i];
    bool more = *i + 1 < argc;
    if (!strcmp(a, "--clip") && more) {
        cli_layer *l = push(L, cmd);
        if (!l) return -1;
        l->clip_arg = argv[++*i];
        if (L->count > 1) L->flags = true;
        return 1;
    }
    if (!strcmp(a, "--additive") && more) {
        cli_layer *l = push(L, cmd);
        if (!l) return -1;
        l->additive = true;
        l->clip_arg = argv[++*i];
        /* CLIP:WEIGHT when the text after the last ':' is a number; else all of it names the clip. */
        const char *colon = strrchr(l->clip_arg, ':');
        if (colon && colon[1]) {
            char *end;
            double w = strtod(colon + 1, &end);
            if (!*end && isfinite(w)) {
                l->weight = (float)w;
                l->name_length = (size_t)(colon - l->clip_arg);
            }
        }
        L->flags = true;
        return 1;
    }
    if (!strcmp(a, "--mask") && more) {
        if (!L->count) {
            fprintf(stderr, "ossa %s: --mask %s must follow a --clip or --additive\n", cmd, argv[*i + 1]);
            return -1;
        }
        L->items[L->count - 1].mask = argv[++*i];
        L->flags = true;
        return 1;
    }
    if (!strcmp(a, "--weights") && more) {
        L->weights_arg = argv[++*i];
        L->flags = true;
        return 1;
    }
    if (!strcmp(a, "--sync")) return L->sync = L->flags = true, 1;
    if (!strcmp(a, "--root-motion")) return L->root_motion = L->flags = true, 1;
    return 0;
}

const char *cli_layers_first_clip(const cli_layers *L) {
    for (int i = 0; i < L->count; i++)
        if (!L->items[i].additive) return L->items[i].clip_arg;
    return NULL;
}

bool cli_layers_active(const cli_layers *L) { return L->flags; }

/* Clip by name, or by index when all digits; -1 when absent. */
static int32_t find_clip(const ossa_asset *a, const char *arg) {
    int32_t ci = ossa_asset_find_clip(a, arg);
    if (ci >= 0) return ci;
    char *end;
    long v = strtol(arg, &end, 10);
    if (!*end && *arg && v >= 0 && (uint64_t)v < a->clip_count) return (int32_t)v;
    return -1;
}

/* A layer's clip range: its editable clip's, or its built clip's. */
static float layer_start(const cli_layer *l) { return l->built ? ossa_built_clip_start(l->built) : l->clip->start; }
static float layer_duration(const cli_layer *l) {
    return l->built ? ossa_built_clip_duration(l->built) : ossa_clip_duration(l->clip);
}

float cli_layers_sync_cycle(const cli_layers *L) {
    if (!L->sync || !L->over) return 0; /* L->over: allocated by cli_layers_resolve */
    float *d = malloc(sizeof *d * 2 * (size_t)L->count), *w = d ? d + L->count : NULL;
    uint32_t n = 0;
    for (int i = 0; d && i < L->count; i++)
        if (!L->items[i].additive && (L->items[i].clip || L->items[i].built)) {
            d[n] = layer_duration(&L->items[i]);
            w[n++] = L->items[i].weight;
        }
    float cycle = ossa_sync_duration(d, w, n);
    free(d);
    return cycle;
}

/* The clip's first frame over the rest pose: ossa_clip_make_additive's reference (NULL on OOM). */
static ossa_transform *first_frame(const ossa_clip *clip, const ossa_skeleton *sk) {
    uint32_t n = sk->joint_count;
    ossa_transform *f = calloc(n ? n : 1, sizeof *f);
    ossa_clip_sample_job job = {.clip = clip, .time = clip->start, .lookup = OSSA_LOOKUP_BINARY, .reference = sk->rest,
                                .reference_count = n, .output = f, .output_count = n};
    if (f) ossa_clip_sample_job_run(&job);
    return f;
}

/* A sampled pose made the delta against `ref` in place, as ossa_clip_make_additive makes its keys:
 * dt = t - t_ref, dq = conjugate(q_ref) * q, ds = s / s_ref (a zero s_ref divides nothing). */
static void make_deltas(ossa_transform *pose, const ossa_transform *ref, uint32_t n) {
    for (uint32_t j = 0; j < n; j++) {
        ossa_transform *x = &pose[j];
        const ossa_transform *r = &ref[j];
        x->translation = ossa_vec3_sub(x->translation, r->translation);
        x->rotation = ossa_quat_mul((ossa_quat){-r->rotation.x, -r->rotation.y, -r->rotation.z, r->rotation.w},
                                    x->rotation);
        float *s = &x->scale.x;
        const float *rs = &r->scale.x;
        for (int c = 0; c < 3; c++) s[c] = rs[c] != 0.0f ? s[c] / rs[c] : s[c];
    }
}

/* With build options: the layer samples a built clip, the asset's own for an underived clip,
 * else l->clip built here. false (printed) on error. */
static bool build_layer(cli_layer *l, int i, const cli_layers *L, const ossa_asset *asset,
                        const ossa_clip_build_options *build, const char *cmd) {
    bool derived = l->owned != NULL;
    if (!derived && (uint32_t)l->index < asset->built_clip_count && asset->built_clips[l->index])
        l->built = asset->built_clips[l->index];
    else if (cli_build_clip(cmd, l->clip, asset->skeleton, build, (uint32_t)i, (uint32_t)L->count, &l->owned_built,
                            NULL, NULL))
        return false;
    else
        l->built = l->owned_built;
    return cli_built_sampler_init(&l->sampler, l->built, asset->skeleton) == 0;
}

bool cli_layers_resolve(cli_layers *L, const ossa_asset *asset, const ossa_clip_build_options *build,
                        const char *cmd) {
    const ossa_skeleton *sk = asset->skeleton;
    uint32_t n = sk ? sk->joint_count : 0;
    L->joint_count = n;
    L->root = ossa_transform_identity();
    if (!sk) {
        fprintf(stderr, "ossa %s: layers need a skeleton\n", cmd);
        return false;
    }
    if (!cli_layers_first_clip(L)) {
        fprintf(stderr, "ossa %s: layer flags need at least one --clip\n", cmd);
        return false;
    }
    /* a packed file: built clips only, sampled as stored; nothing can be derived from them */
    bool built = !asset->clip_count && asset->built_clip_count;
    for (int i = 0; built && i < L->count; i++)
        if (L->items[i].additive || L->root_motion) {
            fprintf(stderr,
                    "ossa %s: %s needs editable clips to derive %s from, and this file has built clips only "
                    "(a packed .ossa): use the source glTF, or plain --clip layers (--weights, --mask, --sync)\n",
                    cmd, L->items[i].additive ? "--additive" : "--root-motion",
                    L->items[i].additive ? "the additive delta" : "the root motion");
            return false;
        }
    L->over = calloc((size_t)L->count, sizeof *L->over);
    L->add = calloc((size_t)L->count, sizeof *L->add);
    if (!L->over || !L->add) return false;
    /* --weights: one per override layer, in order. */
    if (L->weights_arg) {
        const char *p = L->weights_arg;
        for (int i = 0; i < L->count; i++) {
            if (L->items[i].additive) continue;
            char *end;
            double w = strtod(p, &end);
            if (end == p || !isfinite(w) || w < 0 || (*end && *end != ',')) {
                fprintf(stderr, "ossa %s: --weights '%s': one finite weight >= 0 per --clip, comma-separated\n", cmd,
                        L->weights_arg);
                return false;
            }
            L->items[i].weight = (float)w;
            p = *end ? end + 1 : end;
        }
        if (*p) {
            fprintf(stderr, "ossa %s: --weights '%s' has more weights than --clip layers\n", cmd, L->weights_arg);
            return false;
        }
    }
    for (int i = 0; i < L->count; i++) {
        cli_layer *l = &L->items[i];
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(l->name_length ? l->name_length : strlen(l->clip_arg)), l->clip_arg);
        l->index = built ? cli_find_built_clip(asset, name) : find_clip(asset, name);
        if (l->index < 0) {
            fprintf(stderr, "ossa %s: no clip '%s' (%u clips)\n", cmd, name,
                    built ? asset->built_clip_count : asset->clip_count);
            return false;
        }
        if (built) l->built = asset->built_clips[l->index];
        else l->clip = asset->clips[l->index];
        l->pose = calloc(n ? n : 1, sizeof *l->pose);
        l->joint_weights = calloc(n ? n : 1, sizeof *l->joint_weights);
        if (!l->pose || !l->joint_weights) return false;
        if (built && cli_built_sampler_init(&l->sampler, l->built, sk)) return false;
        ossa_result r = OSSA_OK;
        if (l->additive && build && !built) {
            /* the source clip is built (its error bounded as a pose), its samples made deltas */
            if (!(l->additive_reference = first_frame(l->clip, sk))) return false;
        } else if (l->additive) {
            r = ossa_clip_make_additive(l->clip, sk, NULL, NULL, &l->owned);
        } else if (L->root_motion) {
            r = ossa_root_motion_extract(l->clip, sk, NULL, NULL, &l->owned, &l->motion);
        }
        if (r != OSSA_OK) {
            fprintf(stderr, "ossa %s: clip '%s': %s\n", cmd, name, ossa_result_string(r));
            return false;
        }
        if (l->owned) l->clip = l->owned;
        if (!built && build && !build_layer(l, i, L, asset, build, cmd)) return false;
        for (uint32_t j = 0; j < n; j++) l->joint_weights[j] = l->weight;
        if (l->mask) {
            float *m = malloc(sizeof(float) * (n ? n : 1));
            if (!m) return false;
            r = ossa_blend_mask_from_name(sk, l->mask, 1.0f, 0.0f, m, n);
            if (r != OSSA_OK) {
                fprintf(stderr, "ossa %s: --mask '%s': no such joint\n", cmd, l->mask);
                free(m);
                return false;
            }
            for (uint32_t j = 0; j < n; j++) l->joint_weights[j] *= m[j];
            /* A masked override layer replaces the override layers before it inside its subtree. */
            for (int k = 0; k < i && !l->additive; k++)
                if (!L->items[k].additive)
                    for (uint32_t j = 0; j < n; j++) L->items[k].joint_weights[j] *= 1.0f - m[j];
            free(m);
        }
    }
    return true;
}

void cli_layers_pose(cli_layers *L, const ossa_skeleton *sk, float t, bool loop, ossa_transform *out) {
    uint32_t n = L->joint_count;
    /* Synced: the shared phase on the weight-averaged cycle, measured from the first layer's start. */
    double dsum = 0, wsum = 0, phase = 0, unwrapped = 0;
    const cli_layer *first = NULL;
    for (int i = 0; i < L->count; i++) {
        const cli_layer *l = &L->items[i];
        if (l->additive) continue;
        if (!first) first = l;
        dsum += (double)l->weight * layer_duration(l);
        wsum += l->weight;
    }
    double cycle = wsum > 0 ? dsum / wsum : 0;
    if (L->sync && first && cycle > 0) {
        unwrapped = (t - layer_start(first)) / cycle;
        phase = loop ? unwrapped - floor(unwrapped) : fmin(fmax(unwrapped, 0.0), 1.0);
        if (!loop) unwrapped = phase;
    }
    uint32_t over = 0, add = 0;
    ossa_vec3 rt = {0, 0, 0};
    ossa_quat rq = {0, 0, 0, 0};
    float rw = 0;
    for (int i = 0; i < L->count; i++) {
        cli_layer *l = &L->items[i];
        float d = layer_duration(l), advance = t - layer_start(l);
        float ti = t;
        if (L->sync && !l->additive && cycle > 0) {
            ti = layer_start(l) + (float)(phase * d);
            advance = (float)(unwrapped * d);
        }
        if (l->built) { /* a packed file's built clip (override layers only) */
            if (cli_built_sampler_run(&l->sampler, ti, loop, l->pose)) memcpy(l->pose, sk->rest, sizeof *l->pose * n);
            if (l->additive_reference) make_deltas(l->pose, l->additive_reference, n);
            l->time = l->sampler.sampled_time;
        } else {
            ossa_clip_sample_job sj = {.clip = l->clip, .time = ti, .loop = loop, .reference = sk->rest,
                                       .reference_count = n, .output = l->pose, .output_count = n};
            ossa_clip_sample_job_run(&sj);
            l->time = sj.sampled_time;
        }
        ossa_blend_layer b = {l->pose, n, 1.0f, l->joint_weights, n};
        if (l->additive) L->add[add++] = b;
        else L->over[over++] = b;
        if (l->motion && l->weight > 0) { /* the character's motion since the start */
            ossa_transform dlt;
            ossa_root_motion_job job = {l->motion, l->clip->start, advance, loop, &dlt};
            if (ossa_root_motion_job_run(&job) == OSSA_OK) {
                if (ossa_quat_dot(rq, dlt.rotation) < 0)
                    dlt.rotation = (ossa_quat){-dlt.rotation.x, -dlt.rotation.y, -dlt.rotation.z, -dlt.rotation.w};
                rt = ossa_vec3_add(rt, ossa_vec3_scale(dlt.translation, l->weight));
                rq.x += l->weight * dlt.rotation.x, rq.y += l->weight * dlt.rotation.y;
                rq.z += l->weight * dlt.rotation.z, rq.w += l->weight * dlt.rotation.w;
                rw += l->weight;
            }
        }
    }
    ossa_blend_job job = {L->over, over, L->add, add, sk->rest, n, 0.0f, out, n};
    if (ossa_blend_job_run(&job) != OSSA_OK) memcpy(out, sk->rest, sizeof *out * n);
    ossa_transform last_root = L->root;
    L->root = ossa_transform_identity();
    if (L->root_motion && first && first->motion) {
        ossa_transform delta = ossa_transform_identity();
        if (rw > 0) {
            delta.translation = ossa_vec3_scale(rt, 1.0f / rw);
            delta.rotation = ossa_quat_normalize(rq);
        }
        /* Start where the first clip starts, then move by the blended motion. */
        L->root = ossa_transform_combine(ossa_root_motion_sample(first->motion, first->clip->start), delta);
        if (L->has_root && ossa_quat_dot(L->root.rotation, last_root.rotation) < 0.0f) /* JSON: no sign jump */
            L->root.rotation = (ossa_quat){-L->root.rotation.x, -L->root.rotation.y, -L->root.rotation.z, -L->root.rotation.w};
        L->has_root = true;
        for (uint32_t j = 0; j < n; j++)
            if (sk->parents[j] < 0) out[j] = ossa_transform_combine(L->root, out[j]);
    }
}

void cli_layers_print_json(const cli_layers *L) {
    printf("\"layers\": [");
    for (int i = 0; i < L->count; i++) {
        const cli_layer *l = &L->items[i];
        printf("%s{\"clip\": ", i ? ", " : "");
        json_put_str(l->built ? ossa_built_clip_name(l->built) : l->clip ? l->clip->name : "");
        printf(", \"index\": %d, \"mode\": \"%s\", \"weight\": ", l->index, l->additive ? "additive" : "override");
        json_put_num(l->weight);
        printf(", \"mask\": ");
        if (l->mask) json_put_str(l->mask);
        else printf("null");
        printf(", \"time\": ");
        json_put_num(l->time);
        printf("}");
    }
    printf("]");
    if (L->root_motion) {
        printf(", \"root\": {\"translation\": [");
        json_put_num(L->root.translation.x), printf(", "), json_put_num(L->root.translation.y), printf(", ");
        json_put_num(L->root.translation.z);
        printf("], \"rotation\": [");
        json_put_num(L->root.rotation.x), printf(", "), json_put_num(L->root.rotation.y), printf(", ");
        json_put_num(L->root.rotation.z), printf(", "), json_put_num(L->root.rotation.w);
        printf("]}");
    }
}

void cli_layers_free(cli_layers *L) {
    for (int i = 0; i < L->count; i++) {
        cli_layer *l = &L->items[i];
        ossa_clip_destroy(l->owned);
        cli_built_sampler_free(&l->sampler);
        ossa_built_clip_destroy(l->owned_built);
        free(l->additive_reference);
        ossa_root_motion_destroy(l->motion);
        free(l->joint_weights);
        free(l->pose);
    }
    free(L->items);
    free(L->over);
    free(L->add);
    memset(L, 0, sizeof *L);
}
