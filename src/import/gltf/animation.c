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

static ossa_result load_one(ossa__ctx *ctx, const ossa__doc *doc, const int32_t *joint_of_node, uint32_t joint_count,
                            float table_rate, const ossa_allocator *allocator, uint32_t a, int32_t anim, ossa_clip **out) {
    char path[64];
    snprintf(path, sizeof path, "/animations/%u", a);
    OSSA__STAGE(ctx, "/animations/%u", a);
    anim_build b;
    memset(&b, 0, sizeof b);
    char *name = NULL;
    int32_t *channels = NULL;
    uint32_t channel_count = 0;
    ossa_result r;
    if ((r = ossa__json_get_string(ctx, anim, path, "name", &name))) goto done;
    if ((r = parse_samplers(ctx, anim, path, &b))) goto done;
    if ((r = ossa__json_object_array(ctx, anim, path, "channels", &channel_count, &channels))) goto done;
    if (channel_count) {
        b.tracks = ossa__ctx_alloc(ctx, channel_count, sizeof *b.tracks);
        b.have = ossa__ctx_alloc(ctx, channel_count, 1);
        b.weights = ossa__ctx_alloc(ctx, channel_count, sizeof *b.weights);
        b.temps = ossa__ctx_alloc(ctx, (size_t)channel_count * 2, sizeof *b.temps);
        b.slot = ossa__ctx_alloc(ctx, joint_count ? joint_count : 1, sizeof *b.slot);
        b.wseen = ossa__ctx_alloc(ctx, joint_count ? joint_count : 1, 1);
        if (!b.tracks || !b.have || !b.weights || !b.temps || !b.slot || !b.wseen) {
            r = ctx->failed;
            goto done;
        }
        for (uint32_t j = 0; j < joint_count; j++) b.slot[j] = -1;
    }
    int32_t known_input = -1; /* the last input read, shared by the samplers that follow */
    float *known_times = NULL;
    for (uint32_t c = 0; c < channel_count && !r; c++) {
        char cp[96], tp[112];
        ossa__path_join(cp, sizeof cp, path, "/channels/", c);
        ossa__path_join(tp, sizeof tp, cp, "/target", -1);
        int32_t si, target, node;
        if ((r = ossa__json_get_index(ctx, channels[c], cp, "sampler", true, b.sampler_count, "samplers", &si))) break;
        if ((r = ossa__json_get_object(ctx, channels[c], cp, "target", &target))) break;
        if (target < 0) {
            r = ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, cp, "missing required 'target'");
            break;
        }
        if ((r = ossa__json_get_index(ctx, target, tp, "node", false, doc->node_count, "nodes", &node))) break;
        int32_t pt = ossa__json_find(ctx, target, "path");
        int kind = ossa__json_eq(ctx, pt, "translation") ? 0
                   : ossa__json_eq(ctx, pt, "rotation")  ? 1
                   : ossa__json_eq(ctx, pt, "scale")     ? 2
                   : ossa__json_eq(ctx, pt, "weights")   ? 3
                                                         : -1;
        if (pt < 0 || ctx->gltf->tok[pt].type != OSSA__J_STRING) {
            r = ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, tp, "missing or non-string 'path'");
            break;
        }
        if (kind < 0) {
            ossa__warn(ctx, tp, "unknown path '%.*s'; channel ignored", (int)(ctx->gltf->tok[pt].end - ctx->gltf->tok[pt].start),
                       ctx->gltf->json + ctx->gltf->tok[pt].start);
            continue;
        }
        if (node < 0) {
            ossa__warn(ctx, tp, "no target node (extension-defined target?); channel ignored");
            continue;
        }
        int32_t joint = joint_of_node ? joint_of_node[node] : -1;
        if (joint < 0 || (uint32_t)joint >= joint_count) {
            const char *nn = doc->nodes[node].name;
            ossa__warn(ctx, tp, "node %d '%s' is not a joint of the skeleton; channel dropped", node, nn ? nn : "");
            continue;
        }
        const sampler_doc *s = &b.samplers[si];
        char sp[96];
        ossa__path_join(sp, sizeof sp, path, "/samplers/", si);
        const ossa__accessor *ia = &ctx->gltf->accessors[s->input];
        if (ia->view < 0 && ia->sparse_tok < 0 && ia->count > 1) {
            /* all-zero times carry no animation; the validator accepts such files */
            ossa__warn(ctx, sp, "input accessor %d has no data (all times 0); channel ignored", s->input);
            continue;
        }
        uint32_t keys = 0;
        float *times = NULL, *values = NULL;
        if (kind == 3) {
            int32_t mesh = doc->nodes[node].mesh;
            uint32_t targets = mesh >= 0 ? doc->meshes[mesh].target_count : 0;
            if (!targets) {
                ossa__warn(ctx, tp, "weights channel on node %d without morph targets; channel ignored", node);
                continue;
            }
            if (b.wseen[joint]) {
                ossa__warn(ctx, cp, "second weights channel for node %d; the first wins", node);
                continue;
            }
            float *known = s->input == known_input ? known_times : NULL;
            if ((r = read_sampler(ctx, sp, s, targets, targets, false, "weights", &keys, known, &times, &values))) break;
            if (!known) b.temps[b.temp_count++] = times, known_input = s->input, known_times = times;
            b.temps[b.temp_count++] = values;
            b.wseen[joint] = 1;
            ossa_weight_track *wt = &b.weights[b.weight_count++];
            wt->joint = (uint32_t)joint;
            wt->weights.kind = OSSA_TRACK_VECTOR;
            wt->weights.interp = s->interp;
            wt->weights.components = targets;
            wt->weights.key_count = keys;
            wt->weights.times = times;
            wt->weights.values = values;
            continue;
        }
        int32_t slot = b.slot[joint];
        if (slot >= 0 && (b.have[slot] & (1u << kind))) {
            static const char *const kn[] = {"translation", "rotation", "scale"};
            ossa__warn(ctx, cp, "second %s channel for node %d; the first wins", kn[kind], node);
            continue;
        }
        uint32_t comps = kind == 1 ? 4 : 3;
        float *known = s->input == known_input ? known_times : NULL;
        if ((r = read_sampler(ctx, sp, s, comps, 1, kind == 1, kind == 0 ? "translation" : kind == 1 ? "rotation" : "scale",
                              &keys, known, &times, &values)))
            break;
        if (!known) b.temps[b.temp_count++] = times, known_input = s->input, known_times = times;
        b.temps[b.temp_count++] = values;
        if (slot < 0) {
            slot = (int32_t)b.track_count++;
            b.slot[joint] = slot;
            b.tracks[slot].joint = (uint32_t)joint;
        }
        b.have[slot] |= (uint8_t)(1u << kind);
        ossa_track *t = kind == 0 ? &b.tracks[slot].translation : kind == 1 ? &b.tracks[slot].rotation : &b.tracks[slot].scale;
        t->kind = kind == 1 ? OSSA_TRACK_ROTATION : OSSA_TRACK_VECTOR;
        t->interp = s->interp;
        t->components = comps;
        t->key_count = keys;
        t->times = times;
        t->values = values;
    }
    if (r) goto done;
    for (uint32_t t = 0; t < b.track_count; t++) {
        ossa_track *parts[3] = {&b.tracks[t].translation, &b.tracks[t].rotation, &b.tracks[t].scale};
        for (int k = 0; k < 3; k++) {
            if (parts[k]->key_count) continue;
            parts[k]->kind = k == 1 ? OSSA_TRACK_ROTATION : OSSA_TRACK_VECTOR;
            parts[k]->components = k == 1 ? 4 : 3;
            parts[k]->interp = OSSA_INTERP_LINEAR;
        }
    }
    {
        ossa_clip_desc cd;
        memset(&cd, 0, sizeof cd);
        cd.name = name ? name : "";
        cd.track_count = b.track_count;
        cd.tracks = b.tracks;
        cd.weight_track_count = b.weight_count;
        cd.weight_tracks = b.weights;
        r = ossa__builder_clip(ctx, allocator, path, &cd, table_rate, out);
    }
done:
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
