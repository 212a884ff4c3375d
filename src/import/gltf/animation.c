/* glTF animations → ossa_clip: every sampler (STEP / LINEAR / CUBICSPLINE) and
 * channel; translation, rotation and scale channels of one node merge into one
 * transform track; `weights` channels become weight tracks. Sampler inputs must
 * be finite and strictly increasing; output counts must match exactly. */
#include "import/gltf/document.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"

typedef struct sampler_doc {
    int32_t input, output;
    ossa_interp interp;
} sampler_doc;

typedef struct anim_build {
    uint32_t track_count, weight_count, temp_count;
    ossa_transform_track *tracks;
    uint8_t *have;              /* per track: bit 0 T, 1 R, 2 S */
    int32_t *slot;              /* joint → track index or -1 */
    uint8_t *wseen;             /* joint has a weights channel */
    ossa_weight_track *weights;
    float **temps;
    sampler_doc *samplers;
    uint32_t sampler_count;
    int32_t known_input;        /* the last input accessor read (-1: none), shared by the samplers that follow */
    float *known_times;         /* its times */
} anim_build;

static const char *interp_name(ossa_interp i) {
    return i == OSSA_INTERP_STEP ? "STEP" : i == OSSA_INTERP_CUBIC ? "CUBICSPLINE" : "LINEAR";
}

static ossa_result parse_samplers(ossa__ctx *ctx, int32_t anim, const char *path, anim_build *b) {
    int32_t *items;
    ossa_result r = ossa__json_object_array(ctx, anim, path, "samplers", &b->sampler_count, &items);
    if (r || !b->sampler_count) return r;
    b->samplers = ossa__ctx_alloc(ctx, b->sampler_count, sizeof *b->samplers);
    if (!b->samplers) {
        ossa__ctx_free(ctx, items);
        return ctx->failed;
    }
    for (uint32_t s = 0; s < b->sampler_count && !r; s++) {
        char sp[96];
        ossa__path_join(sp, sizeof sp, path, "/samplers/", s);
        sampler_doc *d = &b->samplers[s];
        if ((r = ossa__json_get_index(ctx, items[s], sp, "input", true, ctx->gltf->accessor_count, "accessors", &d->input))) break;
        if ((r = ossa__json_get_index(ctx, items[s], sp, "output", true, ctx->gltf->accessor_count, "accessors", &d->output)))
            break;
        d->interp = OSSA_INTERP_LINEAR;
        int32_t it = ossa__json_find(ctx, items[s], "interpolation");
        if (it >= 0) {
            if (ossa__json_eq(ctx, it, "LINEAR")) d->interp = OSSA_INTERP_LINEAR;
            else if (ossa__json_eq(ctx, it, "STEP")) d->interp = OSSA_INTERP_STEP;
            else if (ossa__json_eq(ctx, it, "CUBICSPLINE")) d->interp = OSSA_INTERP_CUBIC;
            else {
                char ip[128];
                snprintf(ip, sizeof ip, "%s/interpolation", sp);
                r = ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, ip, "unknown interpolation (LINEAR, STEP or CUBICSPLINE)");
            }
        }
    }
    ossa__ctx_free(ctx, items);
    return r;
}

/* Reads a sampler for one channel path: times and values checked and converted. */
/* `known`: the times of s->input, already read and checked for an earlier sampler of this
 * animation (samplers usually share their input), or NULL. */
static ossa_result read_sampler(ossa__ctx *ctx, const char *spath, const sampler_doc *s, uint32_t comps,
                                uint32_t elems_per_key, bool rotation, const char *what, uint32_t *key_count,
                                float *known, float **times, float **values) {
    *times = *values = NULL;
    const ossa__accessor *in = &ctx->gltf->accessors[s->input], *out = &ctx->gltf->accessors[s->output];
    char ip[128];
    ossa__path_join(ip, sizeof ip, spath, "/input", -1);
    if (in->components != 1 || in->component_type != 5126)
        return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, ip, "accessor %d must be SCALAR FLOAT (found %s of %u)", s->input,
                          in->type_name, in->component_type);
    uint32_t mult = s->interp == OSSA_INTERP_CUBIC ? 3u : 1u;
    uint64_t expected = (uint64_t)in->count * mult * elems_per_key;
    uint32_t out_comps = out->components;
    bool type_ok = out->columns == 1 && out_comps == (elems_per_key > 1 || comps == 1 ? 1u : comps);
    if (!type_ok) {
        char op[128];
        snprintf(op, sizeof op, "%s/output", spath);
        return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, op, "accessor %d is %s, wrong type for %s", s->output,
                          out->type_name, what);
    }
    if (out->count != expected)
        return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, spath, "output count %u, expected %llu for %s", out->count,
                          (unsigned long long)expected, interp_name(s->interp));
    if (out->component_type != 5126 && !out->normalized && (rotation || elems_per_key > 1 || comps == 1)) {
        char op[128];
        snprintf(op, sizeof op, "%s/output", spath);
        return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, op, "accessor %d: %s output must be FLOAT or normalized", s->output,
                          what);
    }
    ossa_result r = OSSA_OK;
    if (known) *times = known;
    else if ((r = ossa__accessor_read_floats(ctx, (uint32_t)s->input, times))) return r;
    for (uint32_t k = 0; k < in->count && !known; k++) {
        if (k > 0 && !((*times)[k] > (*times)[k - 1])) {
            r = ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, ip, "accessor %d: times not strictly increasing at key %u (%g after %g)",
                           s->input, k, (*times)[k], (*times)[k - 1]);
            break;
        }
    }
    if (!r && (*times)[0] < 0.0f) ossa__warn(ctx, ip, "accessor %d: negative key time %g", s->input, (*times)[0]);
    if (!r) r = rotation ? ossa__accessor_read_floats_mutable(ctx, (uint32_t)s->output, values) /* normalised below */
                         : ossa__accessor_read_floats(ctx, (uint32_t)s->output, values);
    if (!r && rotation) {
        for (uint32_t k = 0; k < in->count; k++) {
            ossa__quat_normalize4(*values + ((size_t)k * mult + (mult == 3 ? 1 : 0)) * 4);
        }
    }
    if (r) {
        if (!known) ossa__ctx_free(ctx, *times);
        ossa__ctx_free(ctx, *values);
        *times = *values = NULL;
        return r;
    }
    *key_count = in->count;
    return OSSA_OK;
}

static void build_free(ossa__ctx *ctx, anim_build *b) {
    for (uint32_t i = 0; i < b->temp_count; i++) ossa__ctx_free(ctx, b->temps[i]);
    ossa__ctx_free(ctx, b->temps);
    ossa__ctx_free(ctx, b->tracks);
    ossa__ctx_free(ctx, b->have);
    ossa__ctx_free(ctx, b->slot);
    ossa__ctx_free(ctx, b->wseen);
    ossa__ctx_free(ctx, b->weights);
    ossa__ctx_free(ctx, b->samplers);
    memset(b, 0, sizeof *b);
}

/* What a channel animates: its sampler, node, path (0 T, 1 R, 2 S, 3 weights) and joint. */
typedef struct channel_target {
    int32_t sampler, node, joint;
    int kind;
} channel_target;

/* Channel object ch (path cp) resolved: its sampler and target. *use false (with a warning)
 * for a channel ossa ignores: an unknown path, no target node, a node that is no joint, a
 * sampler whose input has no data. */
static ossa_result resolve_channel(ossa__ctx *ctx, const ossa__doc *doc, const anim_build *b, const int32_t *joint_of_node,
                                   uint32_t joint_count, int32_t ch, const char *path, const char *cp, channel_target *t,
                                   bool *use) {
    char tp[112];
    ossa__path_join(tp, sizeof tp, cp, "/target", -1);
    int32_t target;
    ossa_result r;
    *use = false;
    if ((r = ossa__json_get_index(ctx, ch, cp, "sampler", true, b->sampler_count, "samplers", &t->sampler))) return r;
    if ((r = ossa__json_get_object(ctx, ch, cp, "target", &target))) return r;
    if (target < 0) return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, cp, "missing required 'target'");
    if ((r = ossa__json_get_index(ctx, target, tp, "node", false, doc->node_count, "nodes", &t->node))) return r;
    int32_t pt = ossa__json_find(ctx, target, "path");
    t->kind = ossa__json_eq(ctx, pt, "translation") ? 0
              : ossa__json_eq(ctx, pt, "rotation")  ? 1
              : ossa__json_eq(ctx, pt, "scale")     ? 2
              : ossa__json_eq(ctx, pt, "weights")   ? 3
                                                    : -1;
    if (pt < 0 || ctx->gltf->tok[pt].type != OSSA__J_STRING)
        return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, tp, "missing or non-string 'path'");
    if (t->kind < 0) {
        ossa__warn(ctx, tp, "unknown path '%.*s'; channel ignored", (int)(ctx->gltf->tok[pt].end - ctx->gltf->tok[pt].start),
                   ctx->gltf->json + ctx->gltf->tok[pt].start);
        return OSSA_OK;
    }
    if (t->node < 0) {
        ossa__warn(ctx, tp, "no target node (extension-defined target?); channel ignored");
        return OSSA_OK;
    }
    t->joint = joint_of_node ? joint_of_node[t->node] : -1;
    if (t->joint < 0 || (uint32_t)t->joint >= joint_count) {
        const char *nn = doc->nodes[t->node].name;
        ossa__warn(ctx, tp, "node %d '%s' is not a joint of the skeleton; channel dropped", t->node, nn ? nn : "");
        return OSSA_OK;
    }
    const ossa__accessor *ia = &ctx->gltf->accessors[b->samplers[t->sampler].input];
    if (ia->view < 0 && ia->sparse_tok < 0 && ia->count > 1) {
        /* all-zero times carry no animation; the validator accepts such files */
        char sp[96];
        ossa__path_join(sp, sizeof sp, path, "/samplers/", t->sampler);
        ossa__warn(ctx, sp, "input accessor %d has no data (all times 0); channel ignored", b->samplers[t->sampler].input);
        return OSSA_OK;
    }
    *use = true;
    return OSSA_OK;
}

/* Sampler si's keys (comps values a key, of which `per_target` a morph target; rotation:
 * normalised) read once per input accessor run: times shared with the sampler before when it
 * has the same input. */
static ossa_result read_channel_keys(ossa__ctx *ctx, anim_build *b, const char *path, int32_t si, uint32_t comps,
                                     uint32_t per_target, bool rotation, const char *what, uint32_t *keys, float **times,
                                     float **values) {
    char sp[96];
    ossa__path_join(sp, sizeof sp, path, "/samplers/", si);
    const sampler_doc *s = &b->samplers[si];
    float *known = s->input == b->known_input ? b->known_times : NULL;
    ossa_result r = read_sampler(ctx, sp, s, comps, per_target, rotation, what, keys, known, times, values);
    if (r) return r;
    if (!known) b->temps[b->temp_count++] = *times, b->known_input = s->input, b->known_times = *times;
    b->temps[b->temp_count++] = *values;
    return OSSA_OK;
}

/* A weights channel into a weight track of its joint (a node without morph targets, or a
 * second weights channel for it: ignored with a warning). */
static ossa_result weights_channel(ossa__ctx *ctx, const ossa__doc *doc, anim_build *b, const char *path, const char *cp,
                                   const channel_target *t) {
    char tp[112];
    ossa__path_join(tp, sizeof tp, cp, "/target", -1);
    int32_t mesh = doc->nodes[t->node].mesh;
    uint32_t targets = mesh >= 0 ? doc->meshes[mesh].target_count : 0, keys;
    if (!targets) {
        ossa__warn(ctx, tp, "weights channel on node %d without morph targets; channel ignored", t->node);
        return OSSA_OK;
    }
    if (b->wseen[t->joint]) {
        ossa__warn(ctx, cp, "second weights channel for node %d; the first wins", t->node);
        return OSSA_OK;
    }
    float *times, *values;
    ossa_result r = read_channel_keys(ctx, b, path, t->sampler, targets, targets, false, "weights", &keys, &times, &values);
    if (r) return r;
    b->wseen[t->joint] = 1;
    ossa_weight_track *wt = &b->weights[b->weight_count++];
    wt->joint = (uint32_t)t->joint;
    wt->weights.kind = OSSA_TRACK_VECTOR;
    wt->weights.interp = b->samplers[t->sampler].interp;
    wt->weights.components = targets;
    wt->weights.key_count = keys;
    wt->weights.times = times;
    wt->weights.values = values;
    return OSSA_OK;
}

/* A translation, rotation or scale channel into its joint's transform track (a second
 * channel for the same joint and path: ignored with a warning, the first wins). */
static ossa_result transform_channel(ossa__ctx *ctx, anim_build *b, const char *path, const char *cp,
                                     const channel_target *t) {
    static const char *const kn[] = {"translation", "rotation", "scale"};
    int kind = t->kind;
    int32_t slot = b->slot[t->joint];
    if (slot >= 0 && (b->have[slot] & (1u << kind))) {
        ossa__warn(ctx, cp, "second %s channel for node %d; the first wins", kn[kind], t->node);
        return OSSA_OK;
    }
    uint32_t comps = kind == 1 ? 4 : 3, keys;
    float *times, *values;
    ossa_result r = read_channel_keys(ctx, b, path, t->sampler, comps, 1, kind == 1, kn[kind], &keys, &times, &values);
    if (r) return r;
    if (slot < 0) {
        slot = (int32_t)b->track_count++;
        b->slot[t->joint] = slot;
        b->tracks[slot].joint = (uint32_t)t->joint;
    }
    b->have[slot] |= (uint8_t)(1u << kind);
    ossa_track *tr = kind == 0 ? &b->tracks[slot].translation : kind == 1 ? &b->tracks[slot].rotation : &b->tracks[slot].scale;
    tr->kind = kind == 1 ? OSSA_TRACK_ROTATION : OSSA_TRACK_VECTOR;
    tr->interp = b->samplers[t->sampler].interp;
    tr->components = comps;
    tr->key_count = keys;
    tr->times = times;
    tr->values = values;
    return OSSA_OK;
}

/* The per-channel arrays of an animation of channel_count channels (NULL arrays for none). */
static ossa_result alloc_channels(ossa__ctx *ctx, anim_build *b, uint32_t channel_count, uint32_t joint_count) {
    if (!channel_count) return OSSA_OK;
    b->tracks = ossa__ctx_alloc(ctx, channel_count, sizeof *b->tracks);
    b->have = ossa__ctx_alloc(ctx, channel_count, 1);
    b->weights = ossa__ctx_alloc(ctx, channel_count, sizeof *b->weights);
    b->temps = ossa__ctx_alloc(ctx, (size_t)channel_count * 2, sizeof *b->temps);
    b->slot = ossa__ctx_alloc(ctx, joint_count ? joint_count : 1, sizeof *b->slot);
    b->wseen = ossa__ctx_alloc(ctx, joint_count ? joint_count : 1, 1);
    if (!b->tracks || !b->have || !b->weights || !b->temps || !b->slot || !b->wseen) return ctx->failed;
    for (uint32_t j = 0; j < joint_count; j++) b->slot[j] = -1;
    return OSSA_OK;
}

/* Animation a (JSON object anim) into *out: its samplers, then each channel resolved and read
 * into a transform or weight track; the components a track has no channel for stay unkeyed
 * (the reference pose). */
static ossa_result load_one(ossa__ctx *ctx, const ossa__doc *doc, const int32_t *joint_of_node, uint32_t joint_count,
                            float table_rate, const ossa_allocator *allocator, uint32_t a, int32_t anim, ossa_clip **out) {
    char path[64];
    snprintf(path, sizeof path, "/animations/%u", a);
    OSSA__STAGE(ctx, "/animations/%u", a);
    anim_build b;
    memset(&b, 0, sizeof b);
    b.known_input = -1;
    char *name = NULL;
    int32_t *channels = NULL;
    uint32_t channel_count = 0;
    ossa_result r = ossa__json_get_string(ctx, anim, path, "name", &name);
    if (!r) r = parse_samplers(ctx, anim, path, &b);
    if (!r) r = ossa__json_object_array(ctx, anim, path, "channels", &channel_count, &channels);
    if (!r) r = alloc_channels(ctx, &b, channel_count, joint_count);
    for (uint32_t c = 0; c < channel_count && !r; c++) {
        char cp[96];
        ossa__path_join(cp, sizeof cp, path, "/channels/", c);
        channel_target t;
        bool use;
        r = resolve_channel(ctx, doc, &b, joint_of_node, joint_count, channels[c], path, cp, &t, &use);
        if (!r && use) r = t.kind == 3 ? weights_channel(ctx, doc, &b, path, cp, &t) : transform_channel(ctx, &b, path, cp, &t);
    }
    for (uint32_t t = 0; !r && t < b.track_count; t++) {
        ossa_track *parts[3] = {&b.tracks[t].translation, &b.tracks[t].rotation, &b.tracks[t].scale};
        for (int k = 0; k < 3; k++) {
            if (parts[k]->key_count) continue;
            parts[k]->kind = k == 1 ? OSSA_TRACK_ROTATION : OSSA_TRACK_VECTOR;
            parts[k]->components = k == 1 ? 4 : 3;
            parts[k]->interp = OSSA_INTERP_LINEAR;
        }
    }
    if (!r) {
        ossa_clip_desc cd = {.name = name ? name : "", .track_count = b.track_count, .tracks = b.tracks,
                             .weight_track_count = b.weight_count, .weight_tracks = b.weights};
        r = ossa__builder_clip(ctx, allocator, path, &cd, table_rate, out);
    }
    ossa__ctx_free(ctx, name);
    ossa__ctx_free(ctx, channels);
    build_free(ctx, &b);
    return r;
}

ossa_result ossa__animations_load(ossa__ctx *ctx, const ossa__doc *doc, const int32_t *joint_of_node,
                                  uint32_t joint_count, float table_rate, const ossa_allocator *allocator,
                                  uint32_t *clip_count, ossa_clip ***clips) {
    uint32_t count;
    int32_t *items;
    ossa_result r = ossa__json_object_array(ctx, 0, "", "animations", &count, &items);
    if (r || !count) return r;
    *clips = ossa__alloc_array(allocator, count, sizeof **clips);
    if (!*clips) {
        ossa__ctx_free(ctx, items);
        return ossa__fail(ctx, OSSA_ERROR_OUT_OF_MEMORY, "", "out of memory");
    }
    for (uint32_t a = 0; a < count && !r; a++) {
        ossa_clip *clip = NULL;
        r = load_one(ctx, doc, joint_of_node, joint_count, table_rate, allocator, a, items[a], &clip);
        if (!r) (*clips)[(*clip_count)++] = clip;
    }
    ossa__ctx_free(ctx, items);
    return r;
}
