/* glTF document → ossa_asset: nodes (TRS or matrix) and their hierarchy, scenes,
 * skins, the skeleton of all nodes, one ossa_mesh per (mesh node, triangle
 * primitive), and the clips (animation.c). Public entry points of gltf.h. */
#include "import/gltf/document.h"
#include "import/gltf/material_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"

/* glTF 2.0, 3.4 "Coordinate System and Units": "The units for all linear distances are meters." */
#define GLTF_METRES_PER_UNIT 1.0f

/* ---------------------------------------------------------------- helpers */

static ossa_result tok_uint(ossa__ctx *ctx, int32_t tok, const char *path, uint32_t max, uint32_t *out) {
    double d;
    ossa_result r = ossa__json_number(ctx, tok, path, &d);
    if (r) return r;
    if (d < 0 || d != floor(d) || d > (double)max)
        return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path, "%.17g is not an integer in [0, %u]", d, max);
    *out = (uint32_t)d;
    return OSSA_OK;
}

/* Optional array of numbers of any length: *out from the budget. */
static ossa_result get_float_list(ossa__ctx *ctx, int32_t obj, const char *path, const char *key, uint32_t *count,
                                  float **out) {
    *count = 0;
    *out = NULL;
    int32_t arr;
    ossa_result r = ossa__json_get_array(ctx, obj, path, key, &arr);
    if (r || arr < 0 || ctx->gltf->tok[arr].size == 0) return r;
    uint32_t n = ctx->gltf->tok[arr].size;
    float *f = ossa__ctx_alloc(ctx, n, sizeof *f);
    if (!f) return ctx->failed;
    int32_t e = ossa__json_first(ctx, arr);
    for (uint32_t i = 0; i < n; i++, e = ossa__json_next(ctx, e)) {
        char p[192];
        snprintf(p, sizeof p, "%s/%s/%u", path, key, i);
        double d;
        if ((r = ossa__json_number(ctx, e, p, &d))) {
            ossa__ctx_free(ctx, f);
            return r;
        }
        f[i] = (float)d;
    }
    *count = n;
    *out = f;
    return OSSA_OK;
}

static void doc_free(ossa__ctx *ctx, ossa__doc *doc) {
    for (uint32_t i = 0; i < doc->node_count; i++) {
        ossa__ctx_free(ctx, doc->nodes[i].name);
        ossa__ctx_free(ctx, doc->nodes[i].weights);
    }
    for (uint32_t i = 0; i < doc->mesh_count; i++) {
        ossa__ctx_free(ctx, doc->meshes[i].name);
        ossa__ctx_free(ctx, doc->meshes[i].primitives);
        ossa__ctx_free(ctx, doc->meshes[i].weights);
    }
    for (uint32_t i = 0; i < doc->skin_count; i++) {
        ossa__ctx_free(ctx, doc->skins[i].name);
        ossa__ctx_free(ctx, doc->skins[i].joints);
        ossa__ctx_free(ctx, doc->skins[i].ibm);
    }
    ossa__ctx_free(ctx, doc->nodes);
    ossa__ctx_free(ctx, doc->meshes);
    ossa__ctx_free(ctx, doc->skins);
    memset(doc, 0, sizeof *doc);
}

/* ---------------------------------------------------------------- top level */

/* A version text of n characters (not NUL-terminated) is 2.x: "2" or "2." and more. */
static bool version_is_2x(const char *text, size_t n) { return n && text[0] == '2' && (n == 1 || text[1] == '.'); }

static ossa_result check_asset_and_extensions(ossa__ctx *ctx) {
    int32_t asset;
    ossa_result r = ossa__json_get_object(ctx, 0, "", "asset", &asset);
    if (r) return r;
    if (asset < 0) {
        ossa__warn(ctx, "/asset", "missing 'asset' object; assuming glTF 2.0");
    } else {
        /* a glTF 1.0 draft wrote the version as a number: name it rather than fail later on a 1.0 field */
        int32_t vt = ossa__json_find(ctx, asset, "version");
        if (vt >= 0 && ctx->gltf->tok[vt].type == OSSA__J_PRIMITIVE) {
            const char *text = ctx->gltf->json + ctx->gltf->tok[vt].start;
            uint32_t n = ctx->gltf->tok[vt].end - ctx->gltf->tok[vt].start;
            bool number = n && (text[0] == '-' || (text[0] >= '0' && text[0] <= '9'));
            if (number && !version_is_2x(text, n))
                return ossa__fail(ctx, OSSA_ERROR_UNSUPPORTED, "/asset/version",
                                  "glTF version %.*s (a number) is not supported (2.x only)", (int)(n < 16 ? n : 16), text);
        }
        char *version = NULL;
        if ((r = ossa__json_get_string(ctx, asset, "/asset", "version", &version))) return r;
        if (!version) {
            ossa__warn(ctx, "/asset", "missing 'version'; assuming 2.0");
        } else {
            bool two = version_is_2x(version, strlen(version));
            if (!two) {
                r = ossa__fail(ctx, OSSA_ERROR_UNSUPPORTED, "/asset/version", "glTF version '%s' is not supported (2.x only)",
                               version);
            }
            ossa__ctx_free(ctx, version);
            if (r) return r;
        }
    }
    {
        /* the default scene's type is checked before any buffer is loaded */
        uint64_t scene;
        if ((r = ossa__json_get_uint(ctx, 0, "", "scene", false, UINT32_MAX, &scene, NULL))) return r;
    }
    static const char *const supported[] = {"KHR_mesh_quantization"};
    const char *lists[2] = {"extensionsRequired", "extensionsUsed"};
    for (int l = 0; l < 2; l++) {
        int32_t arr;
        char path[48];
        snprintf(path, sizeof path, "/%s", lists[l]);
        if ((r = ossa__json_get_array(ctx, 0, "", lists[l], &arr))) return r;
        if (arr < 0) continue;
        int32_t e = ossa__json_first(ctx, arr);
        for (uint32_t i = 0; i < ctx->gltf->tok[arr].size; i++, e = ossa__json_next(ctx, e)) {
            char p[64];
            snprintf(p, sizeof p, "%s/%u", path, i);
            char *name = NULL;
            if ((r = ossa__json_string_dup(ctx, e, p, &name))) return r;
            bool ok = false;
            for (size_t k = 0; k < sizeof supported / sizeof supported[0]; k++)
                if (!strcmp(name, supported[k])) ok = true;
            if (!ok && l == 0)
                r = ossa__fail(ctx, OSSA_ERROR_UNSUPPORTED, p, "required extension '%s' is not supported", name);
            else if (!ok)
                ossa__warn(ctx, p, "extension '%s' is not supported; ignored", name);
            ossa__ctx_free(ctx, name);
            if (r) return r;
        }
    }
    return OSSA_OK;
}

/* ---------------------------------------------------------------- nodes */

/* Node i (JSON object o): name, mesh and skin indices, morph weights and its local transform
 * (a matrix, decomposed into TRS when it is one, or TRS with the rotation normalised). */
static ossa_result parse_node(ossa__ctx *ctx, int32_t o, uint32_t i, uint32_t mesh_count, uint32_t skin_count,
                              ossa__node *n) {
    char path[64];
    snprintf(path, sizeof path, "/nodes/%u", i);
    ossa_result r;
    if ((r = ossa__json_get_string(ctx, o, path, "name", &n->name))) return r;
    if ((r = ossa__json_get_index(ctx, o, path, "mesh", false, mesh_count, "meshes", &n->mesh))) return r;
    if ((r = ossa__json_get_index(ctx, o, path, "skin", false, skin_count, "skins", &n->skin))) return r;
    if (n->skin >= 0 && n->mesh < 0) ossa__warn(ctx, path, "skin without a mesh; ignored");
    float m[16], t[3] = {0, 0, 0}, q[4] = {0, 0, 0, 1}, s[3] = {1, 1, 1};
    bool hm, ht, hr, hs;
    if ((r = ossa__json_get_floats(ctx, o, path, "matrix", m, 16, &hm))) return r;
    if ((r = ossa__json_get_floats(ctx, o, path, "translation", t, 3, &ht))) return r;
    if ((r = ossa__json_get_floats(ctx, o, path, "rotation", q, 4, &hr))) return r;
    if ((r = ossa__json_get_floats(ctx, o, path, "scale", s, 3, &hs))) return r;
    if ((r = get_float_list(ctx, o, path, "weights", &n->weight_count, &n->weights))) return r;
    if (hr) {
        double len = ossa__quat_normalize4(q);
        if (fabs(len - 1.0) > 1e-3)
            ossa__warn(ctx, path, "rotation has length %g; normalised%s", len, len == 0 ? " to identity" : "");
    }
    n->trs.translation = ossa_vec3_make(t[0], t[1], t[2]);
    n->trs.rotation = (ossa_quat){q[0], q[1], q[2], q[3]};
    n->trs.scale = ossa_vec3_make(s[0], s[1], s[2]);
    if (!hm) {
        n->matrix = ossa_transform_to_mat4(n->trs);
        return OSSA_OK;
    }
    if (ht || hr || hs) ossa__warn(ctx, path, "has both matrix and TRS; the matrix is used");
    n->had_matrix = true;
    memcpy(n->matrix.m, m, sizeof m);
    if (!ossa_mat4_decompose(&n->matrix, 1e-3f, &n->trs)) {
        n->matrix_not_trs = true;
        ossa__warn(ctx, path, "matrix is not a TRS (shear, perspective or zero scale); the rest pose uses the best fit");
    }
    return OSSA_OK;
}

/* Children → parents (items: the node objects): an index out of range, a node that is its
 * own child or a node with two parents is an error. */
static ossa_result link_children(ossa__ctx *ctx, ossa__doc *doc, const int32_t *items) {
    ossa_result r = OSSA_OK;
    uint32_t count = doc->node_count;
    for (uint32_t i = 0; i < count && !r; i++) {
        char path[64];
        snprintf(path, sizeof path, "/nodes/%u", i);
        int32_t ch;
        if ((r = ossa__json_get_array(ctx, items[i], path, "children", &ch)) || ch < 0) continue;
        int32_t e = ossa__json_first(ctx, ch);
        for (uint32_t k = 0; k < ctx->gltf->tok[ch].size && !r; k++, e = ossa__json_next(ctx, e)) {
            char p[96];
            snprintf(p, sizeof p, "%s/children/%u", path, k);
            uint32_t c = 0;
            if ((r = tok_uint(ctx, e, p, UINT32_MAX, &c))) break;
            if (c >= count) r = ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, p, "node index %u out of range (%u nodes)", c, count);
            else if (c == i) r = ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, p, "node is its own child (cycle)");
            else if (doc->nodes[c].parent >= 0)
                r = ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, p, "node %u has two parents (nodes %d and %u)", c,
                               doc->nodes[c].parent, i);
            else doc->nodes[c].parent = (int32_t)i;
        }
    }
    return r;
}

/* A cycle of parent links is an error naming a node on it; iterative: 0 = unvisited, 1 = on
 * the current chain, 2 = reaches a root. */
static ossa_result check_cycles(ossa__ctx *ctx, const ossa__doc *doc) {
    uint32_t count = doc->node_count;
    uint8_t *state = ossa__ctx_alloc(ctx, count, 1);
    if (!state) return ctx->failed;
    ossa_result r = OSSA_OK;
    for (uint32_t i = 0; i < count && !r; i++) {
        uint32_t j = i;
        while (state[j] == 0) {
            state[j] = 1;
            if (doc->nodes[j].parent < 0) break;
            j = (uint32_t)doc->nodes[j].parent;
        }
        if (state[j] == 1 && doc->nodes[j].parent >= 0) {
            char path[64];
            snprintf(path, sizeof path, "/nodes/%u", j);
            r = ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path, "cycle in the node hierarchy");
            break;
        }
        for (j = i; state[j] == 1; j = (uint32_t)doc->nodes[j].parent) {
            state[j] = 2;
            if (doc->nodes[j].parent < 0) break;
        }
    }
    ossa__ctx_free(ctx, state);
    return r;
}

/* "nodes": each node (parse_node), then the parent links and the cycle check. */
static ossa_result parse_nodes(ossa__ctx *ctx, ossa__doc *doc) {
    uint32_t count;
    int32_t *items;
    ossa_result r = ossa__json_object_array(ctx, 0, "", "nodes", &count, &items);
    if (r || !count) return r;
    doc->nodes = ossa__ctx_alloc(ctx, count, sizeof *doc->nodes);
    if (!doc->nodes) {
        ossa__ctx_free(ctx, items);
        return ctx->failed;
    }
    doc->node_count = count;
    for (uint32_t i = 0; i < count; i++) doc->nodes[i].parent = -1;
    uint32_t mesh_count = 0, skin_count = 0;
    int32_t arr;
    if (!(r = ossa__json_get_array(ctx, 0, "", "meshes", &arr)) && arr >= 0) mesh_count = ctx->gltf->tok[arr].size;
    if (!r && !(r = ossa__json_get_array(ctx, 0, "", "skins", &arr)) && arr >= 0) skin_count = ctx->gltf->tok[arr].size;
    for (uint32_t i = 0; i < count && !r; i++) r = parse_node(ctx, items[i], i, mesh_count, skin_count, &doc->nodes[i]);
    if (!r) r = link_children(ctx, doc, items);
    ossa__ctx_free(ctx, items);
    return r ? r : check_cycles(ctx, doc);
}

static ossa_result parse_scenes(ossa__ctx *ctx, ossa__doc *doc) {
    uint32_t count;
    int32_t *items;
    doc->scene = -1;
    ossa_result r = ossa__json_object_array(ctx, 0, "", "scenes", &count, &items);
    if (r) return r;
    r = ossa__json_get_index(ctx, 0, "", "scene", false, count, "scenes", &doc->scene);
    for (uint32_t i = 0; i < count && !r; i++) {
        char path[64];
        snprintf(path, sizeof path, "/scenes/%u", i);
        char *name = NULL;
        if ((r = ossa__json_get_string(ctx, items[i], path, "name", &name))) break;
        ossa__ctx_free(ctx, name);
        int32_t arr;
        if ((r = ossa__json_get_array(ctx, items[i], path, "nodes", &arr)) || arr < 0) continue;
        int32_t e = ossa__json_first(ctx, arr);
        for (uint32_t k = 0; k < ctx->gltf->tok[arr].size && !r; k++, e = ossa__json_next(ctx, e)) {
            char p[96];
            snprintf(p, sizeof p, "%s/nodes/%u", path, k);
            uint32_t n = 0;
            if ((r = tok_uint(ctx, e, p, UINT32_MAX, &n))) break;
            if (n >= doc->node_count)
                r = ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, p, "node index %u out of range (%u nodes)", n, doc->node_count);
            else if (doc->nodes[n].parent >= 0)
                ossa__warn(ctx, p, "scene root node %u has a parent (node %d)", n, doc->nodes[n].parent);
        }
    }
    ossa__ctx_free(ctx, items);
    return r;
}

/* ---------------------------------------------------------------- meshes (shape only) */

/* glTF primitive modes ossa imports; 0-3 (points and lines) are skipped with a warning. */
enum { MODE_TRIANGLES = 4, MODE_TRIANGLE_STRIP = 5, MODE_TRIANGLE_FAN = 6 };

static ossa_result parse_meshes(ossa__ctx *ctx, ossa__doc *doc) {
    uint32_t count;
    int32_t *items;
    ossa_result r = ossa__json_object_array(ctx, 0, "", "meshes", &count, &items);
    if (r || !count) return r;
    doc->meshes = ossa__ctx_alloc(ctx, count, sizeof *doc->meshes);
    if (!doc->meshes) {
        ossa__ctx_free(ctx, items);
        return ctx->failed;
    }
    doc->mesh_count = count;
    for (uint32_t i = 0; i < count && !r; i++) {
        char path[64];
        snprintf(path, sizeof path, "/meshes/%u", i);
        ossa__mesh_doc *m = &doc->meshes[i];
        m->tok = items[i];
        if ((r = ossa__json_get_string(ctx, items[i], path, "name", &m->name))) break;
        if ((r = ossa__json_object_array(ctx, items[i], path, "primitives", &m->primitive_count, &m->primitives))) break;
        if (!m->primitive_count) {
            r = ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path, "mesh has no primitives");
            break;
        }
        if ((r = get_float_list(ctx, items[i], path, "weights", &m->weight_count, &m->weights))) break;
        for (uint32_t p = 0; p < m->primitive_count && !r; p++) {
            char pp[96];
            snprintf(pp, sizeof pp, "%s/primitives/%u", path, p);
            int32_t attrs, targets;
            if ((r = ossa__json_get_object(ctx, m->primitives[p], pp, "attributes", &attrs))) break;
            if (attrs < 0) {
                r = ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, pp, "missing required 'attributes'");
                break;
            }
            if ((r = ossa__json_get_array(ctx, m->primitives[p], pp, "targets", &targets))) break;
            uint32_t tc = targets < 0 ? 0 : ctx->gltf->tok[targets].size;
            if (p == 0) m->target_count = tc;
            else if (tc != m->target_count)
                r = ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, pp, "%u morph targets, primitive 0 has %u", tc, m->target_count);
            uint64_t mode = MODE_TRIANGLES;
            if (!r) r = ossa__json_get_uint(ctx, m->primitives[p], pp, "mode", false, 6, &mode, NULL);
            if (!r && mode < MODE_TRIANGLES) {
                static const char *const names[] = {"POINTS", "LINES", "LINE_LOOP", "LINE_STRIP"};
                ossa__warn(ctx, pp, "mode %u (%s) is not supported; primitive skipped", (unsigned)mode, names[mode]);
            }
        }
        if (!r && m->weight_count && m->weight_count != m->target_count)
            ossa__warn(ctx, path, "%u weights for %u morph targets; weights ignored", m->weight_count, m->target_count);
        if (m->target_count > OSSA_MAX_COMPONENTS)
            r = ossa__fail(ctx, OSSA_ERROR_UNSUPPORTED, path, "%u morph targets (at most %u supported)", m->target_count,
                           OSSA_MAX_COMPONENTS);
    }
    ossa__ctx_free(ctx, items);
    return r;
}

/* ---------------------------------------------------------------- skins */

static ossa_result parse_skins(ossa__ctx *ctx, ossa__doc *doc) {
    uint32_t count;
    int32_t *items;
    ossa_result r = ossa__json_object_array(ctx, 0, "", "skins", &count, &items);
    if (r || !count) return r;
    doc->skins = ossa__ctx_alloc(ctx, count, sizeof *doc->skins);
    uint8_t *seen = doc->skins ? ossa__ctx_alloc(ctx, doc->node_count ? doc->node_count : 1, 1) : NULL;
    if (!doc->skins || !seen) {
        ossa__ctx_free(ctx, items);
        return ctx->failed;
    }
    doc->skin_count = count;
    for (uint32_t i = 0; i < count && !r; i++) {
        char path[64];
        snprintf(path, sizeof path, "/skins/%u", i);
        ossa__skin_doc *s = &doc->skins[i];
        if ((r = ossa__json_get_string(ctx, items[i], path, "name", &s->name))) break;
        if ((r = ossa__json_get_index(ctx, items[i], path, "skeleton", false, doc->node_count, "nodes", &s->root))) break;
        int32_t arr;
        if ((r = ossa__json_get_array(ctx, items[i], path, "joints", &arr))) break;
        if (arr < 0 || ctx->gltf->tok[arr].size == 0) {
            r = ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path, "skin has no joints");
            break;
        }
        s->joint_count = ctx->gltf->tok[arr].size;
        s->joints = ossa__ctx_alloc(ctx, s->joint_count, sizeof *s->joints);
        if (!s->joints) {
            r = ctx->failed;
            break;
        }
        int32_t e = ossa__json_first(ctx, arr);
        for (uint32_t k = 0; k < s->joint_count && !r; k++, e = ossa__json_next(ctx, e)) {
            char p[96];
            snprintf(p, sizeof p, "%s/joints/%u", path, k);
            if ((r = tok_uint(ctx, e, p, UINT32_MAX, &s->joints[k]))) break;
            if (s->joints[k] >= doc->node_count)
                r = ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, p, "node index %u out of range (%u nodes)", s->joints[k],
                               doc->node_count);
            else if (seen[s->joints[k]])
                r = ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, p, "node %u listed twice", s->joints[k]);
            else seen[s->joints[k]] = 1;
        }
        for (uint32_t k = 0; k < s->joint_count && s->joints; k++)
            if (s->joints[k] < doc->node_count) seen[s->joints[k]] = 0;
        if (r) break;
        int32_t ibm;
        if ((r = ossa__json_get_index(ctx, items[i], path, "inverseBindMatrices", false, ctx->gltf->accessor_count, "accessors",
                                      &ibm)))
            break;
        if (ibm >= 0) {
            const ossa__accessor *a = &ctx->gltf->accessors[ibm];
            char ap[96];
            snprintf(ap, sizeof ap, "%s/inverseBindMatrices", path);
            if (a->components != 16 || a->columns != 4 || a->component_type != 5126) {
                r = ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, ap, "accessor %d must be MAT4 of FLOAT", ibm);
                break;
            }
            if (a->count < s->joint_count) {
                r = ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, ap, "accessor %d has %u matrices for %u joints", ibm, a->count,
                               s->joint_count);
                break;
            }
            if ((r = ossa__accessor_read_floats(ctx, (uint32_t)ibm, &s->ibm))) break;
            for (uint32_t k = 0; k < s->joint_count; k++) {
                const float *m = s->ibm + 16 * k;
                if (fabsf(m[3]) > 1e-4f || fabsf(m[7]) > 1e-4f || fabsf(m[11]) > 1e-4f || fabsf(m[15] - 1.0f) > 1e-4f) {
                    ossa__warn(ctx, ap, "matrix %u is not affine (last row %g %g %g %g)", k, m[3], m[7], m[11], m[15]);
                    break;
                }
            }
        }
    }
    ossa__ctx_free(ctx, seen);
    ossa__ctx_free(ctx, items);
    return r;
}

/* ---------------------------------------------------------------- mesh primitives */

typedef struct prim_build {
    ossa_mesh desc;
    float *f[16];      /* temporaries to free */
    uint32_t nf;
    uint32_t *u[8];
    uint32_t nu;
    ossa_morph_target *targets;
    float *weights_default;
} prim_build;

static void prim_free(ossa__ctx *ctx, prim_build *b) {
    for (uint32_t i = 0; i < b->nf; i++) ossa__ctx_free(ctx, b->f[i]);
    for (uint32_t i = 0; i < b->nu; i++) ossa__ctx_free(ctx, b->u[i]);
    if (b->targets) {
        for (uint32_t t = 0; t < b->desc.target_count; t++) {
            ossa__ctx_free(ctx, b->targets[t].positions);
            ossa__ctx_free(ctx, b->targets[t].normals);
            ossa__ctx_free(ctx, b->targets[t].tangents);
        }
        ossa__ctx_free(ctx, b->targets);
    }
    ossa__ctx_free(ctx, b->weights_default);
    ossa__ctx_free(ctx, b->desc.joints);
    ossa__ctx_free(ctx, b->desc.weights);
}

/* Reads attribute `name` of attrs (or -1 absent): checks type components and count. */
static ossa_result read_attr(ossa__ctx *ctx, int32_t attrs, const char *path, const char *name, uint32_t comps,
                             uint32_t vertex_count, int32_t *acc, float **out) {
    *out = NULL;
    if (acc) *acc = -1;
    int32_t idx;
    ossa_result r = ossa__json_get_index(ctx, attrs, path, name, false, ctx->gltf->accessor_count, "accessors", &idx);
    if (r || idx < 0) return r;
    const ossa__accessor *a = &ctx->gltf->accessors[idx];
    char p[160];
    snprintf(p, sizeof p, "%s/%s", path, name);
    if (a->components != comps || a->columns != 1)
        return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, p, "accessor %d is %s, expected %u components", idx, a->type_name,
                          comps);
    if (vertex_count != UINT32_MAX && a->count != vertex_count)
        return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, p, "accessor %d has %u elements, POSITION has %u", idx, a->count,
                          vertex_count);
    if (acc) *acc = idx;
    return ossa__accessor_read_floats(ctx, (uint32_t)idx, out);
}

/* Where a primitive being built is: its JSON object, its attributes object, their paths
 * ("/meshes/M/primitives/P" and ".../attributes") and the node that instances it. */
typedef struct prim_at {
    int32_t ptok, attrs;
    const char *path, *apath;
    uint32_t node, mi, pi;
    uint32_t mode; /* MODE_TRIANGLES, MODE_TRIANGLE_STRIP or MODE_TRIANGLE_FAN */
} prim_at;

/* POSITION (its count is the vertex count; absent: *skip, the primitive is skipped with a
 * warning), NORMAL (a warning counts those not of unit length, kept as given), TANGENT,
 * TEXCOORD_0/1, COLOR_0 and the material. */
static ossa_result read_vertex_attributes(ossa__ctx *ctx, const prim_at *at, uint32_t material_count, prim_build *b,
                                          bool *skip) {
    ossa_mesh *d = &b->desc;
    int32_t pos_acc;
    ossa_result r;
    *skip = false;
    if ((r = read_attr(ctx, at->attrs, at->apath, "POSITION", 3, UINT32_MAX, &pos_acc, &d->positions))) return r;
    if (!d->positions) {
        ossa__warn(ctx, at->apath, "no POSITION; primitive skipped");
        *skip = true;
        return OSSA_OK;
    }
    b->f[b->nf++] = d->positions;
    uint32_t nv = d->vertex_count = ctx->gltf->accessors[pos_acc].count;
    if ((r = read_attr(ctx, at->attrs, at->apath, "NORMAL", 3, nv, NULL, &d->normals))) return r;
    if (d->normals) {
        b->f[b->nf++] = d->normals;
        uint32_t bad = 0;
        for (uint32_t v = 0; v < nv; v++) {
            const float *n = d->normals + 3 * v;
            if (fabsf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2] - 1.0f) > 1e-2f) bad++;
        }
        if (bad) {
            char np[160];
            snprintf(np, sizeof np, "%s/NORMAL", at->apath);
            ossa__warn(ctx, np, "%u of %u normals are not unit length (kept as given)", bad, nv);
        }
    }
    if ((r = read_attr(ctx, at->attrs, at->apath, "TANGENT", 4, nv, NULL, &d->tangents))) return r;
    if (d->tangents) b->f[b->nf++] = d->tangents;
    if ((r = read_attr(ctx, at->attrs, at->apath, "TEXCOORD_0", 2, nv, NULL, &d->uv0))) return r;
    if (d->uv0) b->f[b->nf++] = d->uv0;
    if ((r = read_attr(ctx, at->attrs, at->apath, "TEXCOORD_1", 2, nv, NULL, &d->uv1))) return r;
    if (d->uv1) b->f[b->nf++] = d->uv1;
    if ((r = ossa__read_colors(ctx, at->attrs, at->apath, nv, &d->colors))) return r;
    if (d->colors) b->f[b->nf++] = d->colors;
    d->material = ossa__primitive_material(ctx, at->ptok, at->path, material_count);
    return OSSA_OK;
}

/* A triangle strip's or fan's n vertices (seq: their indices, NULL: 0 .. n - 1) as a list of
 * n - 2 triangles into *out (allocated; *count = 3 (n - 2), 0 for n < 3), as the glTF
 * specification numbers them: triangle i of a strip is (v_i, v_(i + 1 + i % 2), v_(i + 2 - i % 2)),
 * so every triangle keeps the first one's winding; of a fan, (v_(i + 1), v_(i + 2), v_0). */
static ossa_result unroll_triangles(ossa__ctx *ctx, const char *path, uint32_t mode, const uint32_t *seq, uint32_t n,
                                    uint32_t **out, uint32_t *count) {
    *out = NULL;
    *count = 0;
    if (n < 3) return OSSA_OK;
    uint64_t total = 3ull * (n - 2u);
    if (total > UINT32_MAX) return ossa__fail(ctx, OSSA_ERROR_LIMIT, path, "%u vertices make more than 2^32 - 1 indices", n);
    uint32_t *t = ossa__ctx_alloc_raw(ctx, (size_t)total, sizeof *t);
    if (!t) return ctx->failed;
    for (uint32_t i = 0; i + 2u < n; i++) {
        uint32_t a = i + 1u, b = i + 2u, c = 0; /* a fan */
        if (mode == MODE_TRIANGLE_STRIP) a = i, b = i + 1u + i % 2u, c = i + 2u - i % 2u;
        t[3 * (size_t)i] = seq ? seq[a] : a;
        t[3 * (size_t)i + 1] = seq ? seq[b] : b;
        t[3 * (size_t)i + 2] = seq ? seq[c] : c;
    }
    *out = t;
    *count = (uint32_t)total;
    return OSSA_OK;
}

/* The primitive's strip or fan of n vertices (seq: their indices, NULL: none) as its triangle
 * list; *skip when it has no triangle. */
static ossa_result unroll(ossa__ctx *ctx, const prim_at *at, prim_build *b, const uint32_t *seq, uint32_t n, bool *skip) {
    ossa_mesh *d = &b->desc;
    ossa_result r = unroll_triangles(ctx, at->path, at->mode, seq, n, &d->indices, &d->index_count);
    if (d->indices) b->u[b->nu++] = d->indices;
    *skip = !r && !d->index_count;
    if (*skip) ossa__warn(ctx, at->path, "a triangle %s of %u vertices has no triangle; primitive skipped",
                          at->mode == MODE_TRIANGLE_STRIP ? "strip" : "fan", n);
    return r;
}

/* The indices (a SCALAR accessor, each below the vertex count); a strip or fan, indexed or
 * not, becomes a triangle list (unroll_triangles; with fewer than 3 vertices, *skip: the
 * primitive is skipped with a warning). For TRIANGLES, a count that is not a multiple of 3
 * warns, as does a non-indexed vertex count. */
static ossa_result read_indices(ossa__ctx *ctx, const prim_at *at, prim_build *b, bool *skip) {
    ossa_mesh *d = &b->desc;
    *skip = false;
    uint32_t nv = d->vertex_count;
    bool list = at->mode == MODE_TRIANGLES;
    int32_t ia;
    ossa_result r;
    if ((r = ossa__json_get_index(ctx, at->ptok, at->path, "indices", false, ctx->gltf->accessor_count, "accessors", &ia)))
        return r;
    if (ia < 0) {
        if (list && nv % 3)
            ossa__warn(ctx, at->path, "%u vertices is not a multiple of 3 for TRIANGLES; the last %u are unused", nv, nv % 3);
        return list ? OSSA_OK : unroll(ctx, at, b, NULL, nv, skip);
    }
    const ossa__accessor *a = &ctx->gltf->accessors[ia];
    char ip[128];
    snprintf(ip, sizeof ip, "%s/indices", at->path);
    if (a->components != 1)
        return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, ip, "accessor %d is %s, expected SCALAR", ia, a->type_name);
    if ((r = ossa__accessor_read_uints(ctx, (uint32_t)ia, &d->indices))) return r;
    b->u[b->nu++] = d->indices;
    d->index_count = a->count;
    for (uint32_t k = 0; k < a->count; k++)
        if (d->indices[k] >= nv) {
            char acc_path[48], place[160];
            snprintf(acc_path, sizeof acc_path, "/accessors/%d", ia);
            ossa__path_to_place(ip, place, sizeof place);
            return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, acc_path, "index %u at element %u >= vertex count %u (%s)",
                              d->indices[k], k, nv, place);
        }
    if (!list) return unroll(ctx, at, b, d->indices, a->count, skip);
    if (a->count % 3)
        ossa__warn(ctx, ip, "%u indices is not a multiple of 3 for TRIANGLES; the last %u are unused", a->count, a->count % 3);
    return OSSA_OK;
}

/* The JOINTS_n / WEIGHTS_n pairs (n = 0, 1; a half pair ends them with a warning): each VEC4
 * of the allowed component types, one element per vertex, into j[n], w[n] (jacc: their
 * accessors); *sets: the pairs read. */
static ossa_result read_influence_sets(ossa__ctx *ctx, const prim_at *at, prim_build *b, uint32_t *j[2], float *w[2],
                                       int32_t jacc[2], uint32_t *sets) {
    uint32_t nv = b->desc.vertex_count;
    ossa_result r;
    *sets = 0;
    for (uint32_t s = 0; s < 2; s++) {
        char jn[16], wn[16];
        snprintf(jn, sizeof jn, "JOINTS_%u", s);
        snprintf(wn, sizeof wn, "WEIGHTS_%u", s);
        int32_t ja, wa;
        if ((r = ossa__json_get_index(ctx, at->attrs, at->apath, jn, false, ctx->gltf->accessor_count, "accessors", &ja)))
            return r;
        if ((r = ossa__json_get_index(ctx, at->attrs, at->apath, wn, false, ctx->gltf->accessor_count, "accessors", &wa)))
            return r;
        if (ja < 0 && wa < 0) break;
        if (ja < 0 || wa < 0) {
            ossa__warn(ctx, at->apath, "%s without %s; influence set %u ignored", ja < 0 ? wn : jn, ja < 0 ? jn : wn, s);
            break;
        }
        char jp[160], wp[160];
        snprintf(jp, sizeof jp, "%s/%s", at->apath, jn);
        snprintf(wp, sizeof wp, "%s/%s", at->apath, wn);
        const ossa__accessor *A = &ctx->gltf->accessors[ja], *W = &ctx->gltf->accessors[wa];
        if (A->components != 4 || A->columns != 1 || (A->component_type != 5121 && A->component_type != 5123))
            return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, jp, "accessor %d must be VEC4 of UNSIGNED_BYTE or UNSIGNED_SHORT", ja);
        if (W->components != 4 || W->columns != 1 ||
            !(W->component_type == 5126 || ((W->component_type == 5121 || W->component_type == 5123) && W->normalized)))
            return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, wp, "accessor %d must be VEC4 of FLOAT or normalized UNSIGNED_BYTE/SHORT",
                              wa);
        if (A->count != nv || W->count != nv)
            return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, A->count != nv ? jp : wp, "%u elements, POSITION has %u",
                              A->count != nv ? A->count : W->count, nv);
        if ((r = ossa__accessor_read_uints(ctx, (uint32_t)ja, &j[s]))) return r;
        b->u[b->nu++] = j[s];
        if ((r = ossa__accessor_read_floats(ctx, (uint32_t)wa, &w[s]))) return r;
        b->f[b->nf++] = w[s];
        jacc[s] = ja;
        (*sets)++;
    }
    return OSSA_OK;
}

/* The mesh's influences (4 per influence set) from the sets read: each joint index within
 * skin `skin` and mapped to its skeleton joint, each weight >= 0, the weights renormalised
 * with a warning when they do not sum to 1. */
static ossa_result fill_influences(ossa__ctx *ctx, const ossa__doc *doc, const ossa_skeleton *skel, const prim_at *at,
                                   int32_t skin, uint32_t *const j[2], float *const w[2], const int32_t jacc[2],
                                   uint32_t sets, ossa_mesh *d) {
    const ossa__skin_doc *sd = &doc->skins[skin];
    uint32_t nv = d->vertex_count;
    d->influences = sets == 1 ? 4 : 8;
    d->skin = skin;
    d->joints = ossa__ctx_alloc(ctx, (size_t)nv * d->influences, sizeof *d->joints);
    d->weights = ossa__ctx_alloc(ctx, (size_t)nv * d->influences, sizeof *d->weights);
    if (!d->joints || !d->weights) return ctx->failed;
    for (uint32_t v = 0; v < nv; v++)
        for (uint32_t k = 0; k < d->influences; k++) {
            uint32_t s = k / 4, c = k % 4;
            uint32_t raw = j[s][v * 4 + c];
            float wt = w[s][v * 4 + c];
            if (raw >= sd->joint_count) {
                char ap[48], place[160];
                snprintf(ap, sizeof ap, "/accessors/%d", jacc[s]);
                ossa__path_to_place(at->apath, place, sizeof place);
                return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, ap,
                                  "JOINTS index %u at vertex %u >= skin %d joint count %u (%s.JOINTS_%u)", raw, v, skin,
                                  sd->joint_count, place, s);
            }
            if (!(wt >= 0.0f)) {
                char ap[160];
                snprintf(ap, sizeof ap, "%s/WEIGHTS_%u", at->apath, s);
                return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, ap, "negative weight %g at vertex %u", wt, v);
            }
            uint32_t sj = skel->joint_of_source[sd->joints[raw]];
            if (sj > UINT16_MAX)
                return ossa__fail(ctx, OSSA_ERROR_UNSUPPORTED, at->apath, "skeleton joint %u does not fit 16 bits", sj);
            d->joints[(size_t)v * d->influences + k] = (uint16_t)sj;
            d->weights[(size_t)v * d->influences + k] = wt;
        }
    double worst = 0;
    uint32_t off = ossa__normalize_weights(d->weights, nv, d->influences, &worst);
    if (off)
        ossa__warn(ctx, at->apath, "WEIGHTS: %u of %u vertices had weights not summing to 1 (off by up to %.3g); renormalised",
                   off, nv, worst);
    return OSSA_OK;
}

/* Skinning: the influence sets, used when the node has a skin (a skin without sets, or sets
 * without a skin, leave the primitive rigid with a warning). */
static ossa_result read_skinning(ossa__ctx *ctx, const ossa__doc *doc, const ossa_skeleton *skel, const prim_at *at,
                                 prim_build *b) {
    int32_t skin = doc->nodes[at->node].skin;
    float *w[2] = {NULL, NULL};
    uint32_t *j[2] = {NULL, NULL}, sets;
    int32_t jacc[2] = {-1, -1};
    ossa_result r = read_influence_sets(ctx, at, b, j, w, jacc, &sets);
    if (r) return r;
    if (sets && skin >= 0) return fill_influences(ctx, doc, skel, at, skin, j, w, jacc, sets, &b->desc);
    char np[48];
    snprintf(np, sizeof np, "/nodes/%u", at->node);
    if (sets)
        ossa__warn(ctx, np, "mesh %u primitive %u has JOINTS_0 but the node has no skin; left rigid", at->mi, at->pi);
    else if (skin >= 0)
        ossa__warn(ctx, np, "has skin %d but mesh %u primitive %u has no JOINTS_0/WEIGHTS_0; left rigid", skin, at->mi, at->pi);
    return OSSA_OK;
}

/* The morph targets (POSITION / NORMAL / TANGENT deltas) and their default weights: the
 * node's, else the mesh's, else zeros. */
static ossa_result read_morph_targets(ossa__ctx *ctx, const ossa__doc *doc, const prim_at *at, prim_build *b) {
    const ossa__mesh_doc *md = &doc->meshes[at->mi];
    const ossa__node *nd = &doc->nodes[at->node];
    int32_t targets = ossa__json_find(ctx, at->ptok, "targets");
    if (!md->target_count || targets < 0) return OSSA_OK;
    ossa_mesh *d = &b->desc;
    uint32_t nv = d->vertex_count;
    d->target_count = md->target_count;
    b->targets = ossa__ctx_alloc(ctx, md->target_count, sizeof *b->targets);
    b->weights_default = ossa__ctx_alloc(ctx, md->target_count, sizeof(float));
    if (!b->targets || !b->weights_default) return ctx->failed;
    d->targets = b->targets;
    d->default_weights = b->weights_default;
    if (nd->weight_count == md->target_count)
        memcpy(b->weights_default, nd->weights, md->target_count * sizeof(float));
    else if (md->weight_count == md->target_count && md->weights)
        memcpy(b->weights_default, md->weights, md->target_count * sizeof(float));
    int32_t t = ossa__json_first(ctx, targets);
    ossa_result r;
    for (uint32_t k = 0; k < md->target_count; k++, t = ossa__json_next(ctx, t)) {
        char tp[128];
        snprintf(tp, sizeof tp, "%s/targets/%u", at->path, k);
        if (ctx->gltf->tok[t].type != OSSA__J_OBJECT) return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, tp, "expected an object");
        if ((r = read_attr(ctx, t, tp, "POSITION", 3, nv, NULL, &b->targets[k].positions))) return r;
        if ((r = read_attr(ctx, t, tp, "NORMAL", 3, nv, NULL, &b->targets[k].normals))) return r;
        if ((r = read_attr(ctx, t, tp, "TANGENT", 3, nv, NULL, &b->targets[k].tangents))) return r;
    }
    return OSSA_OK;
}

/* Primitive pi of mesh mi (`mode`: triangles, a strip or a fan), instanced by `node`, into
 * the asset: its vertex attributes, indices, skinning and morph targets. */
static ossa_result build_primitive(ossa__ctx *ctx, const ossa__doc *doc, ossa_asset *asset, uint32_t node, uint32_t mi,
                                   uint32_t pi, uint32_t mode) {
    OSSA__STAGE(ctx, "/meshes/%u", mi);
    const ossa__mesh_doc *md = &doc->meshes[mi];
    char path[96], apath[128];
    snprintf(path, sizeof path, "/meshes/%u/primitives/%u", mi, pi);
    snprintf(apath, sizeof apath, "%s/attributes", path);
    int32_t ptok = md->primitives[pi];
    prim_at at = {ptok, ossa__json_find(ctx, ptok, "attributes"), path, apath, node, mi, pi, mode};
    prim_build b;
    memset(&b, 0, sizeof b);
    ossa_mesh *d = &b.desc;
    d->name = md->name ? md->name : "";
    d->skin = -1;
    d->node = (int32_t)asset->skeleton->joint_of_source[node];
    d->source_mesh = mi;
    d->source_primitive = pi;
    bool skip;
    ossa_result r = read_vertex_attributes(ctx, &at, asset->material_count, &b, &skip);
    if (!r && !skip) r = read_indices(ctx, &at, &b, &skip);
    if (!r && !skip) {
        r = read_skinning(ctx, doc, asset->skeleton, &at, &b);
        if (!r) r = read_morph_targets(ctx, doc, &at, &b);
        if (!r) r = ossa__builder_add_mesh(ctx, asset, d, path); /* budget for the runtime copy, then build it */
    }
    prim_free(ctx, &b);
    return r;
}

/* ---------------------------------------------------------------- asset assembly */

/* The glTF document, fully parsed, goes through the format-neutral builder. */
static ossa_result load(ossa__ctx *ctx, const ossa_load_options *options, const ossa_skeleton *bind_to,
                        ossa_asset **out) {
    ossa__doc doc;
    memset(&doc, 0, sizeof doc);
    ossa_asset *asset = NULL;
    int32_t *joint_of_node = NULL;
    ossa_skin_desc *skins = NULL;
    ossa_mesh_info *infos = NULL;
    ossa_result r;
    const ossa_allocator *al = options ? options->allocator : NULL;
    float rate = options ? options->table_rate : 0.0f;

    OSSA__STAGE(ctx, NULL, 0); /* the JSON tokens */
    if ((r = ossa__json_parse(ctx))) goto fail;
    if ((r = check_asset_and_extensions(ctx))) goto fail;
    if ((r = ossa__buffers_load(ctx))) goto fail;
    if ((r = ossa__views_parse(ctx))) goto fail;
    if ((r = ossa__accessors_parse(ctx))) goto fail;
    if ((r = parse_nodes(ctx, &doc))) goto fail;
    if ((r = parse_scenes(ctx, &doc))) goto fail;
    if ((r = parse_meshes(ctx, &doc))) goto fail;
    if (!bind_to) {
        if ((r = parse_skins(ctx, &doc))) goto fail;
    }
    OSSA__STAGE(ctx, "/nodes", 0);
    if ((r = ossa__builder_begin(ctx, al, doc.scene, &asset))) goto fail;
    uint32_t n = doc.node_count;
    uint32_t joint_count = 0;

    if (!bind_to && n) {
        skins = ossa__ctx_alloc(ctx, doc.skin_count ? doc.skin_count : 1, sizeof *skins);
        if (!skins) {
            r = ctx->failed;
            goto fail;
        }
        for (uint32_t s = 0; s < doc.skin_count; s++) {
            skins[s].name = doc.skins[s].name;
            skins[s].joint_count = doc.skins[s].joint_count;
            skins[s].joints = doc.skins[s].joints;
            skins[s].inverse_bind = (const ossa_mat4 *)doc.skins[s].ibm;
            skins[s].root = doc.skins[s].root;
        }
        if ((r = ossa__builder_skeleton(ctx, asset, n, doc.nodes, doc.skin_count, skins, GLTF_METRES_PER_UNIT, "/nodes",
                                        &joint_of_node)))
            goto fail;
        joint_count = n;
    } else if (bind_to && n) {
        joint_count = bind_to->joint_count;
        if ((r = ossa__builder_bind_names(ctx, bind_to, n, doc.nodes, &joint_of_node))) goto fail;
    }

    if (!bind_to && (r = ossa__materials_load(ctx, al, asset))) goto fail;

    /* mesh infos: one block, names stored after the array */
    /* mesh infos: one block, names stored after the array */
    if (!bind_to && doc.mesh_count) {
        infos = ossa__ctx_alloc(ctx, doc.mesh_count, sizeof *infos);
        if (!infos) {
            r = ctx->failed;
            goto fail;
        }
        for (uint32_t m = 0; m < doc.mesh_count; m++) {
            infos[m].name = doc.meshes[m].name;
            infos[m].primitive_count = doc.meshes[m].primitive_count;
            infos[m].target_count = doc.meshes[m].target_count;
        }
        if ((r = ossa__builder_mesh_infos(ctx, asset, doc.mesh_count, infos))) goto fail;
        /* meshes: one per (node with mesh, triangle primitive), glTF node order. The sum is
         * 64-bit: 65536 nodes instancing a mesh of 65537 primitives wrapped a 32-bit total
         * to 65536 and the array was overrun. */
        uint64_t total = 0;
        for (uint32_t i = 0; i < n; i++)
            if (doc.nodes[i].mesh >= 0) total += doc.meshes[doc.nodes[i].mesh].primitive_count;
        if ((r = ossa__builder_reserve_meshes(ctx, asset, total, "/nodes"))) goto fail;
        for (uint32_t i = 0; i < n && !r; i++) {
            int32_t m = doc.nodes[i].mesh;
            if (m < 0) continue;
            for (uint32_t pi = 0; pi < doc.meshes[m].primitive_count; pi++) {
                uint64_t mode = MODE_TRIANGLES;
                ossa__json_get_uint(ctx, doc.meshes[m].primitives[pi], "", "mode", false, 6, &mode, NULL);
                if (mode < MODE_TRIANGLES) continue; /* points and lines (parse_meshes warned) */
                if ((r = build_primitive(ctx, &doc, asset, i, (uint32_t)m, pi, (uint32_t)mode))) break;
            }
        }
        if (r) goto fail;
    }

    if ((r = ossa__animations_load(ctx, &doc, joint_of_node, joint_count, rate, al, &asset->clip_count, &asset->clips)))
        goto fail;
    r = ossa__builder_finish(ctx, &asset, out);
fail:
    ossa__ctx_free(ctx, skins);
    ossa__ctx_free(ctx, infos);
    ossa__ctx_free(ctx, joint_of_node);
    doc_free(ctx, &doc);
    ossa_asset_destroy(asset);
    if (!r && ctx->failed) r = ctx->failed;
    return r;
}

static ossa_result load_memory(ossa__ctx *ctx, const void *data, size_t size, const ossa_load_options *options,
                               const ossa_skeleton *bind_to, ossa_asset **out) {
    ossa_result r = ossa__container_open(ctx, data, size);
    if (!r) r = load(ctx, options, bind_to, out);
    return r;
}

static ossa_result load_path(const char *path, const ossa_load_options *options, const ossa_skeleton *bind_to,
                             ossa_asset **out, ossa_diagnostic *diag) {
    ossa__ctx ctx;
    ossa__gltf_doc doc;
    ossa__ctx_init(&ctx, options, diag);
    ossa__gltf_attach(&ctx, &doc, options);
    /* base dir = the file's directory (options->base_dir is for memory loads) */
    char dir[1024];
    const char *slash = strrchr(path, '/');
    if (slash) {
        size_t l = (size_t)(slash - path);
        if (l >= sizeof dir) return ossa__fail(&ctx, OSSA_ERROR_IO, "", "path too long");
        memcpy(dir, path, l);
        dir[l] = 0;
        if (l == 0) strcpy(dir, "/");
    } else {
        strcpy(dir, ".");
    }
    ctx.gltf->base_dir = dir;
    uint8_t *bytes = NULL;
    size_t size = 0;
    bool mapped = false;
    ossa_result r = ossa__read_file(&ctx, path, "", &bytes, &size, &mapped);
    if (!r) r = load_memory(&ctx, bytes, size, options, bind_to, out);
    ossa__release_file(&ctx, bytes, size, mapped);
    ossa__ctx_done(&ctx);
    return r;
}

ossa_result ossa_gltf_load_file(const char *path, const ossa_load_options *options, ossa_asset **out,
                                ossa_diagnostic *diag) {
    if (diag) memset(diag, 0, sizeof *diag);
    if (!out) return OSSA_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (!path) return OSSA_ERROR_INVALID_ARGUMENT;
    return load_path(path, options, NULL, out, diag);
}

ossa_result ossa_gltf_load_memory(const void *data, size_t size, const ossa_load_options *options, ossa_asset **out,
                                  ossa_diagnostic *diag) {
    if (diag) memset(diag, 0, sizeof *diag);
    if (out) *out = NULL;
    if (!out || !data || !size) {
        if (diag)
            snprintf(diag->message, sizeof diag->message, "%s", !out ? "out is NULL" : !data ? "data is NULL"
                                                                                             : "empty input (size 0)");
        return OSSA_ERROR_INVALID_ARGUMENT;
    }
    ossa__ctx ctx;
    ossa__gltf_doc doc;
    ossa__ctx_init(&ctx, options, diag);
    ossa__gltf_attach(&ctx, &doc, options);
    ossa_result r = load_memory(&ctx, data, size, options, NULL, out);
    ossa__ctx_done(&ctx);
    return r;
}

ossa_result ossa_gltf_load_clips(const char *path, const ossa_skeleton *skeleton, const ossa_load_options *options,
                                 ossa_asset **out, ossa_diagnostic *diag) {
    if (diag) memset(diag, 0, sizeof *diag);
    if (!out) return OSSA_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (!path || !skeleton) return OSSA_ERROR_INVALID_ARGUMENT;
    return load_path(path, options, skeleton, out, diag);
}
