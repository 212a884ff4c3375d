/* Assimp aiScene → ossa_asset through the format-neutral builder (assimp.h).
 *
 * The aiScene is untrusted: every pointer, count, index and float is checked
 * before use, and the node tree is walked without recursion (a node listed twice,
 * shared or cyclic, is an error, not a loop; walk_nodes says how mParent is read). */
#include <ossa/assimp.h>

#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <assimp/version.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "build/asset_builder.h"
#include "import/assimp/assimp_internal.h"

#define MAX_NODES (1u << 20)
#define MAX_KEYS (1u << 26)
#define DEFAULT_TPS 25.0 /* Assimp: mTicksPerSecond 0 means 25 */
/* No declared unit: Assimp's data model has none (an FBX's UnitScaleFactor is metadata whose use
 * depends on post-processing flags, COLLADA's <unit> is folded into the root node, BVH has none),
 * so the builder's defaults scale with the character's height alone. */
#define ASSIMP_METRES_PER_UNIT 0.0f

typedef struct ai_load {
    ossa__ctx *ctx;
    const struct aiScene *scene;
    const ossa_allocator *al;
    float table_rate;
    uint32_t node_count;
    ossa__node *nodes;
    const struct aiNode **ai_nodes; /* node index → aiNode */
    const char **names;             /* node names ("" when unnamed) */
    ossa__name_map node_names;
    int32_t *skin_of_mesh;          /* aiMesh → skin index or -1 */
    uint32_t skin_count;
    ossa_skin_desc *skins;
    int32_t **bone_joint;           /* per aiMesh: bone → slot in its skin, or -1 (dropped) */
    uint32_t *mesh_targets;         /* per aiMesh: morph target count */
} ai_load;

static ossa_result fail(ossa__ctx *ctx, ossa_result r, const char *path, const char *msg) {
    return ossa__fail(ctx, r, path, "%s", msg);
}

/* aiString → NUL-terminated copy from the budget ("" when empty or malformed). */
static char *dup_name(ossa__ctx *ctx, const struct aiString *s) {
    uint32_t len = s->length < MAXLEN ? s->length : 0;
    const char *nul = memchr(s->data, 0, len);
    if (nul) len = (uint32_t)(nul - s->data);
    char *out = ossa__ctx_alloc(ctx, (size_t)len + 1, 1);
    if (out) memcpy(out, s->data, len);
    return out;
}

/* Temporary NUL-terminated view of an aiString in a caller buffer. */
static const char *name_of(const struct aiString *s, char buf[MAXLEN + 1]) {
    uint32_t len = s->length < MAXLEN ? s->length : 0;
    memcpy(buf, s->data, len);
    buf[len] = 0;
    return buf;
}

static bool finite_n(const float *f, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isfinite(f[i])) return false;
    return true;
}

static ossa_mat4 mat_from_ai(const struct aiMatrix4x4 *a) {
    /* aiMatrix4x4 is row-major (a1..a4 = first row, translation in a4 b4 c4); ossa is column-major */
    const float r[4][4] = {{(float)a->a1, (float)a->a2, (float)a->a3, (float)a->a4},
                           {(float)a->b1, (float)a->b2, (float)a->b3, (float)a->b4},
                           {(float)a->c1, (float)a->c2, (float)a->c3, (float)a->c4},
                           {(float)a->d1, (float)a->d2, (float)a->d3, (float)a->d4}};
    ossa_mat4 m;
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 4; row++) m.m[c * 4 + row] = r[row][c];
    return m;
}

/* ---------------------------------------------------------------- nodes */

/* The node hierarchy. Assimp's data model gives it twice: each node's mChildren and its mParent.
 * They agree for every importer but one: the HL1 MDL importer (Assimp 5.2) lists every bone
 * under one "<MDL_bones>" node and names each bone's parent bone in mParent, and a bone's
 * mTransformation is relative to that parent. So the nodes are those reached from the root
 * through mChildren (each reached once: a node listed twice, shared or cyclic, is an error),
 * and a node's parent is the node its mParent names when that is another node of the scene,
 * else the node that lists it; a cycle of mParent links is an error. */
typedef struct ai_tree {
    const struct aiNode **node; /* count nodes, in the order they are reached (breadth first) */
    int32_t *parent;            /* per node: the node that lists it (-1: the root), then its parent */
    uint32_t count;
} ai_tree;

typedef struct ai_node_key {
    uintptr_t ptr;
    uint32_t index;
} ai_node_key;

static int cmp_node_key(const void *a, const void *b) {
    uintptr_t x = ((const ai_node_key *)a)->ptr, y = ((const ai_node_key *)b)->ptr;
    return (x > y) - (x < y);
}

/* The nodes sorted by address into *keys (freed by the caller); an error when one is listed twice. */
static ossa_result sort_nodes(ossa__ctx *ctx, const ai_tree *t, ai_node_key **keys) {
    ai_node_key *k = ossa__ctx_alloc(ctx, t->count, sizeof *k);
    if (!k) return ctx->failed;
    for (uint32_t i = 0; i < t->count; i++) k[i] = (ai_node_key){(uintptr_t)t->node[i], i};
    qsort(k, t->count, sizeof *k, cmp_node_key);
    for (uint32_t i = 1; i < t->count; i++)
        if (k[i].ptr == k[i - 1].ptr) {
            const struct aiNode *twice = t->node[k[i].index];
            ossa__ctx_free(ctx, k);
            char name[MAXLEN + 1];
            return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, "/nodes", "node '%s' is listed twice (shared by two parents, or cyclic)",
                              name_of(&twice->mName, name));
        }
    *keys = k;
    return OSSA_OK;
}

/* Phase 1: every node reached from the root through mChildren, breadth first (children in file
 * order), and the node that lists each. A cycle lists nodes without end: each time the arrays
 * fill up (64, 128, ... nodes) they are checked for a node listed twice before they grow. */
static ossa_result collect_nodes(ossa__ctx *ctx, const struct aiNode *root, ai_tree *t) {
    uint32_t cap = 64;
    t->node = ossa__ctx_alloc(ctx, cap, sizeof *t->node);
    t->parent = ossa__ctx_alloc(ctx, cap, sizeof *t->parent);
    if (!t->node || !t->parent) return ctx->failed;
    t->node[0] = root;
    t->parent[0] = -1;
    t->count = 1;
    for (uint32_t next = 0; next < t->count; next++) {
        const struct aiNode *n = t->node[next];
        char path[48];
        snprintf(path, sizeof path, "/nodes/%u", next);
        if (n->mNumChildren && !n->mChildren) return fail(ctx, OSSA_ERROR_INVALID_DATA, path, "children count without children");
        for (uint32_t c = 0; c < n->mNumChildren; c++) {
            if (!n->mChildren[c]) return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path, "child %u is NULL", c);
            if (t->count == cap) {
                ai_node_key *keys;
                ossa_result r = sort_nodes(ctx, t, &keys);
                if (r) return r;
                ossa__ctx_free(ctx, keys);
                if (cap >= MAX_NODES) return ossa__fail(ctx, OSSA_ERROR_LIMIT, "/nodes", "more than %u nodes", MAX_NODES);
                const struct aiNode **gn = ossa__ctx_alloc(ctx, (size_t)cap * 2, sizeof *gn);
                int32_t *gp = ossa__ctx_alloc(ctx, (size_t)cap * 2, sizeof *gp);
                if (!gn || !gp) {
                    ossa__ctx_free(ctx, gn);
                    ossa__ctx_free(ctx, gp);
                    return ctx->failed;
                }
                memcpy(gn, t->node, cap * sizeof *gn);
                memcpy(gp, t->parent, cap * sizeof *gp);
                ossa__ctx_free(ctx, t->node);
                ossa__ctx_free(ctx, t->parent);
                t->node = gn, t->parent = gp, cap *= 2;
            }
            t->node[t->count] = n->mChildren[c];
            t->parent[t->count++] = (int32_t)next;
        }
    }
    return OSSA_OK;
}

/* Phase 2: each node's parent becomes the node its mParent names, when that is another node of
 * the scene (looked up by address among the collected ones). */
static ossa_result resolve_parents(ossa__ctx *ctx, ai_tree *t) {
    ai_node_key *keys;
    ossa_result r = sort_nodes(ctx, t, &keys);
    if (r) return r;
    for (uint32_t i = 1; i < t->count; i++) {
        const struct aiNode *named = t->node[i]->mParent;
        if (!named || named == t->node[t->parent[i]]) continue;
        ai_node_key key = {(uintptr_t)named, 0};
        const ai_node_key *hit = bsearch(&key, keys, t->count, sizeof *keys, cmp_node_key);
        if (hit && hit->index != i) t->parent[i] = (int32_t)hit->index;
    }
    ossa__ctx_free(ctx, keys);
    return OSSA_OK;
}

/* Phase 3: the depth-first pre-order of the parent links from the root (siblings in the order
 * they were reached) into order[count]; an error when a node is not reached (a cycle of mParent
 * links). */
static ossa_result order_nodes(ossa__ctx *ctx, const ai_tree *t, uint32_t *order) {
    int32_t *first = ossa__ctx_alloc(ctx, t->count, sizeof *first), *sibling = ossa__ctx_alloc(ctx, t->count, sizeof *sibling);
    uint32_t *stack = ossa__ctx_alloc(ctx, t->count, sizeof *stack);
    ossa_result r = ctx->failed;
    if (first && sibling && stack) {
        enum { NONE = -1, DONE = -2 }; /* first[n]: its first child, NONE, or DONE once n is placed */
        for (uint32_t i = 0; i < t->count; i++) first[i] = NONE;
        for (uint32_t i = 1; i < t->count; i++) { /* prepended: each list runs from the last reached */
            sibling[i] = first[t->parent[i]];
            first[t->parent[i]] = (int32_t)i;
        }
        uint32_t top = 0, placed = 0;
        stack[top++] = 0;
        while (top) { /* each node is pushed once; its first-reached child is pushed last, so pops first */
            uint32_t n = stack[--top];
            order[placed++] = n;
            for (int32_t c = first[n]; c >= 0; c = sibling[c]) stack[top++] = (uint32_t)c;
            first[n] = DONE;
        }
        r = OSSA_OK;
        for (uint32_t i = 0; placed < t->count && i < t->count; i++)
            if (first[i] != DONE) { /* off the root's tree: on a cycle of mParent links */
                char path[48];
                snprintf(path, sizeof path, "/nodes/%u", i);
                r = fail(ctx, OSSA_ERROR_INVALID_DATA, path, "the parent links (mParent) form a cycle");
                break;
            }
    }
    ossa__ctx_free(ctx, first);
    ossa__ctx_free(ctx, sibling);
    ossa__ctx_free(ctx, stack);
    return r;
}

/* One node's fields (index i, its parent's index): name, matrix (and its TRS), first mesh. */
static ossa_result read_node(ai_load *L, uint32_t i, const struct aiNode *an, int32_t parent) {
    ossa__ctx *ctx = L->ctx;
    ossa__node *n = &L->nodes[i];
    L->ai_nodes[i] = an;
    n->parent = parent;
    n->mesh = n->skin = -1;
    char path[48];
    snprintf(path, sizeof path, "/nodes/%u", i);
    if (!(n->name = dup_name(ctx, &an->mName))) return ctx->failed;
    L->names[i] = n->name;
    L->node_count = i + 1; /* names so far are freed on failure */
    n->matrix = mat_from_ai(&an->mTransformation);
    if (!finite_n(n->matrix.m, 16))
        return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path, "node '%s': non-finite transformation", n->name);
    n->had_matrix = true;
    if (!ossa_mat4_decompose(&n->matrix, 1e-3f, &n->trs)) {
        n->matrix_not_trs = true;
        ossa__warn(ctx, path, "node '%s': matrix is not a TRS (shear, perspective or zero scale); the rest pose uses the best fit",
                   n->name);
    }
    if (an->mNumMeshes && !an->mMeshes)
        return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path, "node '%s': mesh count without meshes", n->name);
    for (uint32_t k = 0; k < an->mNumMeshes; k++)
        if (an->mMeshes[k] >= L->scene->mNumMeshes)
            return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path, "node '%s': mesh index %u out of range (%u meshes)", n->name,
                              an->mMeshes[k], L->scene->mNumMeshes);
    if (an->mNumMeshes) n->mesh = (int32_t)an->mMeshes[0];
    return OSSA_OK;
}

static ossa_result walk_nodes(ai_load *L) {
    ossa__ctx *ctx = L->ctx;
    const struct aiNode *root = L->scene->mRootNode;
    if (!root) return fail(ctx, OSSA_ERROR_INVALID_DATA, "/nodes", "scene has no root node");
    OSSA__STAGE(ctx, "/nodes", 0);
    ai_tree t = {0};
    uint32_t *order = NULL, *index_of = NULL;
    ossa_result r = collect_nodes(ctx, root, &t);
    if (!r) r = resolve_parents(ctx, &t); /* also refuses a node listed twice */
    if (!r) {
        order = ossa__ctx_alloc(ctx, t.count, sizeof *order);
        index_of = ossa__ctx_alloc(ctx, t.count, sizeof *index_of);
        L->nodes = ossa__ctx_alloc(ctx, t.count, sizeof *L->nodes);
        L->ai_nodes = ossa__ctx_alloc(ctx, t.count, sizeof *L->ai_nodes);
        L->names = ossa__ctx_alloc(ctx, t.count, sizeof *L->names);
        r = order && index_of && L->nodes && L->ai_nodes && L->names ? order_nodes(ctx, &t, order) : ctx->failed;
    }
    for (uint32_t i = 0; !r && i < t.count; i++) { /* node i of the asset is order[i]: its parent was placed before it */
        uint32_t at = order[i];
        index_of[at] = i;
        r = read_node(L, i, t.node[at], i ? (int32_t)index_of[t.parent[at]] : -1);
    }
    ossa__ctx_free(ctx, t.node);
    ossa__ctx_free(ctx, t.parent);
    ossa__ctx_free(ctx, order);
    ossa__ctx_free(ctx, index_of);
    if (r) return r;
    L->node_count = t.count;
    return ossa__name_map_init(ctx, &L->node_names, L->names, t.count);
}

/* ---------------------------------------------------------------- skins */

static ossa_result check_mesh_header(ossa__ctx *ctx, const struct aiMesh *m, uint32_t mi) {
    char path[48];
    snprintf(path, sizeof path, "/meshes/%u", mi);
    if (!m) return fail(ctx, OSSA_ERROR_INVALID_DATA, path, "mesh is NULL");
    if (m->mNumVertices && !m->mVertices) return fail(ctx, OSSA_ERROR_INVALID_DATA, path, "vertex count without vertices");
    if (m->mNumFaces && !m->mFaces) return fail(ctx, OSSA_ERROR_INVALID_DATA, path, "face count without faces");
    if (m->mNumBones && !m->mBones) return fail(ctx, OSSA_ERROR_INVALID_DATA, path, "bone count without bones");
    if (m->mNumAnimMeshes && !m->mAnimMeshes)
        return fail(ctx, OSSA_ERROR_INVALID_DATA, path, "anim mesh count without anim meshes");
    if (m->mNumAnimMeshes > OSSA_MAX_COMPONENTS)
        return ossa__fail(ctx, OSSA_ERROR_UNSUPPORTED, path, "%u morph targets (at most %u supported)", m->mNumAnimMeshes,
                          OSSA_MAX_COMPONENTS);
    return OSSA_OK;
}

/* Bone b of mesh mi into the mesh's skin (joints, ibm: jc so far; slot_of_node: each node's
 * slot in it, -1 = none): a bone naming no node is dropped and one naming a node already in
 * the skin merges into it, with warnings; bj[b] = the bone's slot or -1. */
static ossa_result read_bone(ai_load *L, const struct aiMesh *m, uint32_t mi, uint32_t b, int32_t *slot_of_node,
                             uint32_t *joints, ossa_mat4 *ibm, uint32_t *jc, int32_t *bj) {
    ossa__ctx *ctx = L->ctx;
    char bp[64], nbuf[MAXLEN + 1];
    snprintf(bp, sizeof bp, "/meshes/%u/bones/%u", mi, b);
    const struct aiBone *bone = m->mBones[b];
    bj[b] = -1;
    if (!bone) return fail(ctx, OSSA_ERROR_INVALID_DATA, bp, "bone is NULL");
    if (bone->mNumWeights && !bone->mWeights) return fail(ctx, OSSA_ERROR_INVALID_DATA, bp, "weight count without weights");
    const char *bn = name_of(&bone->mName, nbuf);
    int32_t node = bn[0] ? ossa__name_map_find(&L->node_names, bn) : -1;
    if (node < 0) {
        ossa__warn(ctx, bp, "bone '%s' names no node; its %u weights are dropped", bn, bone->mNumWeights);
        return OSSA_OK;
    }
    if (slot_of_node[node] >= 0) { /* the same node twice in one mesh: weights merge into the first */
        ossa__warn(ctx, bp, "bone '%s' listed twice; merged into the first", bn);
        bj[b] = slot_of_node[node];
        return OSSA_OK;
    }
    ossa_mat4 off = mat_from_ai(&bone->mOffsetMatrix);
    if (!finite_n(off.m, 16)) return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, bp, "bone '%s': non-finite offset matrix", bn);
    if (fabsf(off.m[3]) > 1e-4f || fabsf(off.m[7]) > 1e-4f || fabsf(off.m[11]) > 1e-4f || fabsf(off.m[15] - 1.0f) > 1e-4f)
        ossa__warn(ctx, bp, "bone '%s': offset matrix is not affine", bn);
    slot_of_node[node] = (int32_t)*jc;
    bj[b] = (int32_t)*jc;
    joints[*jc] = (uint32_t)node;
    ibm[*jc] = off;
    (*jc)++;
    return OSSA_OK;
}

/* Mesh mi's skin from its bones (read_bone), as the next of L->skins, when it has a usable
 * bone; else the mesh stays rigid. slot_of_node: all -1 on entry and on return. */
static ossa_result mesh_skin(ai_load *L, const struct aiMesh *m, uint32_t mi, int32_t *slot_of_node) {
    ossa__ctx *ctx = L->ctx;
    uint32_t nb = m->mNumBones;
    int32_t *bj = ossa__ctx_alloc(ctx, nb, sizeof *bj);
    uint32_t *joints = ossa__ctx_alloc(ctx, nb, sizeof *joints);
    ossa_mat4 *ibm = ossa__ctx_alloc(ctx, nb, sizeof *ibm);
    L->bone_joint[mi] = bj;
    ossa_result r = !bj || !joints || !ibm ? ctx->failed : OSSA_OK;
    uint32_t jc = 0;
    for (uint32_t b = 0; b < nb && !r; b++) r = read_bone(L, m, mi, b, slot_of_node, joints, ibm, &jc, bj);
    for (uint32_t k = 0; k < jc; k++) slot_of_node[joints[k]] = -1;
    if (r || !jc) { /* no usable bone: the mesh stays rigid */
        ossa__ctx_free(ctx, joints);
        ossa__ctx_free(ctx, ibm);
        return r;
    }
    ossa_skin_desc *sd = &L->skins[L->skin_count];
    sd->joints = joints;
    sd->inverse_bind = ibm;
    sd->root = -1;
    sd->name = "";
    sd->joint_count = jc;
    L->skin_of_mesh[mi] = (int32_t)L->skin_count++;
    return OSSA_OK;
}

/* Every mesh's header checked, its morph target count and its skin (mesh_skin); each node
 * with a mesh takes its mesh's skin. */
static ossa_result build_skins(ai_load *L) {
    ossa__ctx *ctx = L->ctx;
    const struct aiScene *sc = L->scene;
    uint32_t nm = sc->mNumMeshes;
    if (nm && !sc->mMeshes) return fail(ctx, OSSA_ERROR_INVALID_DATA, "/meshes", "mesh count without meshes");
    if (!nm) return OSSA_OK;
    L->skin_of_mesh = ossa__ctx_alloc(ctx, nm, sizeof *L->skin_of_mesh);
    L->bone_joint = ossa__ctx_alloc(ctx, nm, sizeof *L->bone_joint);
    L->skins = ossa__ctx_alloc(ctx, nm, sizeof *L->skins);
    L->mesh_targets = ossa__ctx_alloc(ctx, nm, sizeof *L->mesh_targets);
    if (!L->skin_of_mesh || !L->bone_joint || !L->skins || !L->mesh_targets) return ctx->failed;
    int32_t *slot_of_node = ossa__ctx_alloc(ctx, L->node_count ? L->node_count : 1, sizeof *slot_of_node);
    if (!slot_of_node) return ctx->failed;
    for (uint32_t i = 0; i < L->node_count; i++) slot_of_node[i] = -1;
    ossa_result r = OSSA_OK;
    for (uint32_t mi = 0; mi < nm && !r; mi++) {
        const struct aiMesh *m = sc->mMeshes[mi];
        L->skin_of_mesh[mi] = -1;
        if ((r = check_mesh_header(ctx, m, mi))) break;
        L->mesh_targets[mi] = m->mNumAnimMeshes;
        if (m->mNumBones) r = mesh_skin(L, m, mi, slot_of_node);
    }
    ossa__ctx_free(ctx, slot_of_node);
    if (r) return r;
    for (uint32_t i = 0; i < L->node_count; i++)
        if (L->nodes[i].mesh >= 0) L->nodes[i].skin = L->skin_of_mesh[L->nodes[i].mesh];
    return OSSA_OK;
}

/* ---------------------------------------------------------------- meshes */

typedef struct mesh_tmp {
    ossa_mesh d;
    float *positions, *normals;
    float *tangents;
    float *uv[2];
    float *weights;
    uint16_t *joints;
    uint32_t *indices;
    ossa_morph_target *targets;
    float *default_weights;
} mesh_tmp;

static void mesh_tmp_free(ossa__ctx *ctx, mesh_tmp *t) {
    ossa__ctx_free(ctx, t->positions);
    ossa__ctx_free(ctx, t->normals);
    ossa__ctx_free(ctx, t->tangents);
    ossa__ctx_free(ctx, t->uv[0]);
    ossa__ctx_free(ctx, t->uv[1]);
    ossa__ctx_free(ctx, t->weights);
    ossa__ctx_free(ctx, t->joints);
    ossa__ctx_free(ctx, t->indices);
    if (t->targets)
        for (uint32_t k = 0; k < t->d.target_count; k++) {
            ossa__ctx_free(ctx, t->targets[k].positions);
            ossa__ctx_free(ctx, t->targets[k].normals);
            ossa__ctx_free(ctx, t->targets[k].tangents);
        }
    ossa__ctx_free(ctx, t->targets);
    ossa__ctx_free(ctx, t->default_weights);
}

/* Up to OSSA_MAX_INFLUENCES largest weights per vertex; *dropped counts vertices that had more. */
static ossa_result mesh_weights(ai_load *L, const struct aiMesh *m, uint32_t mi, const ossa_skeleton *skel,
                                mesh_tmp *t, uint32_t *dropped) {
    ossa__ctx *ctx = L->ctx;
    uint32_t nv = m->mNumVertices, K = OSSA_MAX_INFLUENCES;
    const ossa_skin *skin = &skel->skins[L->skin_of_mesh[mi]];
    float *w = ossa__ctx_alloc(ctx, (size_t)nv * K, sizeof *w);
    uint16_t *j = ossa__ctx_alloc(ctx, (size_t)nv * K, sizeof *j);
    uint8_t *cnt = ossa__ctx_alloc(ctx, nv, 1);
    ossa_result r = OSSA_OK;
    uint32_t max_used = 0;
    *dropped = 0;
    if (!w || !j || !cnt) {
        r = ctx->failed;
        goto done;
    }
    for (uint32_t b = 0; b < m->mNumBones && !r; b++) {
        const struct aiBone *bone = m->mBones[b];
        int32_t slot = L->bone_joint[mi][b];
        if (slot < 0) continue;
        uint32_t sj = skin->joints[slot];
        if (sj > UINT16_MAX) {
            r = ossa__fail(ctx, OSSA_ERROR_UNSUPPORTED, "/nodes", "skeleton joint %u does not fit 16 bits", sj);
            break;
        }
        for (uint32_t k = 0; k < bone->mNumWeights; k++) {
            uint32_t v = bone->mWeights[k].mVertexId;
            float wt = (float)bone->mWeights[k].mWeight;
            if (v >= nv || !(wt >= 0.0f) || !isfinite(wt)) {
                char p[96];
                snprintf(p, sizeof p, "/meshes/%u/bones/%u/weights/%u", mi, b, k);
                r = v >= nv ? ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, p, "vertex %u >= vertex count %u", v, nv)
                            : ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, p, "weight %g is negative or not finite", wt);
                break;
            }
            if (wt == 0.0f) continue;
            float *vw = w + (size_t)v * K;
            uint16_t *vj = j + (size_t)v * K;
            /* the same joint twice (merged duplicate bones): add up */
            uint32_t c = cnt[v] & 0x7f, e;
            for (e = 0; e < c && vj[e] != sj; e++) continue;
            if (e < c) {
                vw[e] += wt;
                continue;
            }
            if (c < K) {
                vj[c] = (uint16_t)sj;
                vw[c] = wt;
                cnt[v] = (uint8_t)((cnt[v] & 0x80) | (c + 1));
                if (c + 1 > max_used) max_used = c + 1;
                continue;
            }
            /* full: replace the smallest if this one is larger */
            uint32_t mn = 0;
            for (e = 1; e < K; e++)
                if (vw[e] < vw[mn]) mn = e;
            if (!(cnt[v] & 0x80)) (*dropped)++;
            cnt[v] |= 0x80;
            if (wt > vw[mn]) {
                vw[mn] = wt;
                vj[mn] = (uint16_t)sj;
            }
        }
    }
    if (r) goto done;
    uint32_t inf = max_used <= 4 ? 4 : 8;
    t->weights = ossa__ctx_alloc(ctx, (size_t)nv * inf, sizeof *t->weights);
    t->joints = ossa__ctx_alloc(ctx, (size_t)nv * inf, sizeof *t->joints);
    if (!t->weights || !t->joints) {
        r = ctx->failed;
        goto done;
    }
    for (uint32_t v = 0; v < nv; v++)
        for (uint32_t k = 0; k < inf; k++) {
            t->weights[(size_t)v * inf + k] = w[(size_t)v * K + k];
            t->joints[(size_t)v * inf + k] = j[(size_t)v * K + k];
        }
    double worst = 0;
    uint32_t off = ossa__normalize_weights(t->weights, nv, inf, &worst);
    if (off) {
        char p[48];
        snprintf(p, sizeof p, "/meshes/%u", mi);
        ossa__warn(ctx, p, "%u of %u vertices had weights not summing to 1 (off by up to %.3g); renormalised", off,
                   nv, worst);
    }
    t->d.influences = inf;
    t->d.weights = t->weights;
    t->d.joints = t->joints;
    t->d.skin = L->skin_of_mesh[mi];
done:
    ossa__ctx_free(ctx, w);
    ossa__ctx_free(ctx, j);
    ossa__ctx_free(ctx, cnt);
    return r;
}

/* ai_real arrays are copied with a finiteness check; `what` names the stream. */
static ossa_result copy_vec3(ossa__ctx *ctx, const char *path, const char *what, const struct aiVector3D *src,
                             const struct aiVector3D *base, uint32_t n, uint32_t comps, float **out) {
    *out = NULL;
    if (!src) return OSSA_OK;
    float *f = ossa__ctx_alloc_raw(ctx, (size_t)n * comps, sizeof *f);
    if (!f) return ctx->failed;
    for (uint32_t v = 0; v < n; v++) {
        float x[3] = {(float)src[v].x, (float)src[v].y, (float)src[v].z};
        if (base) x[0] -= (float)base[v].x, x[1] -= (float)base[v].y, x[2] -= (float)base[v].z;
        if (!finite_n(x, 3)) {
            ossa__ctx_free(ctx, f);
            return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path, "%s: non-finite value at vertex %u", what, v);
        }
        memcpy(f + (size_t)v * comps, x, (comps < 3 ? comps : 3) * sizeof(float));
        if (comps == 4) f[(size_t)v * comps + 3] = 1.0f;
    }
    *out = f;
    return OSSA_OK;
}

/* The normals flagged in `bad` (n vertices) rebuilt from the triangle faces that use their
 * vertex: the sum of those faces' cross products (area-weighted), normalised, or (0, 0, 1) when
 * the faces have no area. pos: n finite positions (3 floats each). */
static void rebuild_normals(const struct aiMesh *m, const float *pos, const uint8_t *bad, float *nrm) {
    uint32_t n = m->mNumVertices;
    for (uint32_t v = 0; v < n; v++)
        if (bad[v]) nrm[3 * (size_t)v] = nrm[3 * (size_t)v + 1] = nrm[3 * (size_t)v + 2] = 0.0f;
    for (uint32_t f = 0; f < m->mNumFaces; f++) {
        const struct aiFace *fc = &m->mFaces[f];
        if (fc->mNumIndices != 3 || !fc->mIndices) continue;
        const unsigned *ix = fc->mIndices;
        if (ix[0] >= n || ix[1] >= n || ix[2] >= n || !(bad[ix[0]] | bad[ix[1]] | bad[ix[2]])) continue;
        const float *a = pos + 3 * (size_t)ix[0], *b = pos + 3 * (size_t)ix[1], *c = pos + 3 * (size_t)ix[2];
        float u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, w[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        float x[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]};
        for (int k = 0; k < 3; k++)
            if (bad[ix[k]])
                for (int i = 0; i < 3; i++) nrm[3 * (size_t)ix[k] + (size_t)i] += x[i];
    }
    for (uint32_t v = 0; v < n; v++) {
        if (!bad[v]) continue;
        float *q = nrm + 3 * (size_t)v, len = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
        if (len > 0.0f && isfinite(len)) q[0] /= len, q[1] /= len, q[2] /= len;
        else q[0] = 0.0f, q[1] = 0.0f, q[2] = 1.0f;
    }
}

/* Normals, as copy_vec3 but for a non-finite one: some readers compute normals themselves
 * and a degenerate face gives NaN (Assimp's Q3D reader), so such a normal is rebuilt from its
 * faces (rebuild_normals) with a warning that counts them. pos: the finite positions. */
static ossa_result copy_normals(ossa__ctx *ctx, const char *path, const struct aiMesh *m, const float *pos, float **out) {
    *out = NULL;
    if (!m->mNormals) return OSSA_OK;
    uint32_t n = m->mNumVertices, bad = 0;
    float *f = ossa__ctx_alloc_raw(ctx, (size_t)n * 3, sizeof *f);
    if (!f) return ctx->failed;
    for (uint32_t v = 0; v < n; v++) {
        float *x = f + 3 * (size_t)v;
        x[0] = (float)m->mNormals[v].x, x[1] = (float)m->mNormals[v].y, x[2] = (float)m->mNormals[v].z;
        bad += !finite_n(x, 3);
    }
    if (bad) {
        uint8_t *flag = ossa__ctx_alloc(ctx, n, 1);
        if (!flag) {
            ossa__ctx_free(ctx, f);
            return ctx->failed;
        }
        for (uint32_t v = 0; v < n; v++) flag[v] = !finite_n(f + 3 * (size_t)v, 3);
        rebuild_normals(m, pos, flag, f);
        ossa__ctx_free(ctx, flag);
        ossa__warn(ctx, path, "normals: %u of %u are not finite (degenerate faces); rebuilt from the faces", bad, n);
    }
    *out = f;
    return OSSA_OK;
}

/* Positions, normals, tangents (the handedness sign from Assimp's bitangent: glTF's w) and
 * the first two UV sets of m into t. */
static ossa_result copy_vertex_streams(ossa__ctx *ctx, const char *path, const struct aiMesh *m, mesh_tmp *t) {
    uint32_t nv = m->mNumVertices;
    ossa_result r;
    if ((r = copy_vec3(ctx, path, "positions", m->mVertices, NULL, nv, 3, &t->positions))) return r;
    if ((r = copy_normals(ctx, path, m, t->positions, &t->normals))) return r;
    t->d.positions = t->positions;
    t->d.normals = t->normals;
    if (m->mTangents && m->mNormals && m->mBitangents) {
        if ((r = copy_vec3(ctx, path, "tangents", m->mTangents, NULL, nv, 4, &t->tangents))) return r;
        for (uint32_t v = 0; v < nv; v++) {
            const struct aiVector3D *n = &m->mNormals[v], *b = &m->mBitangents[v];
            const float *tg = t->tangents + 4 * (size_t)v;
            float cx = (float)n->y * tg[2] - (float)n->z * tg[1], cy = (float)n->z * tg[0] - (float)n->x * tg[2],
                  cz = (float)n->x * tg[1] - (float)n->y * tg[0];
            t->tangents[4 * (size_t)v + 3] = cx * (float)b->x + cy * (float)b->y + cz * (float)b->z < 0 ? -1.0f : 1.0f;
        }
        t->d.tangents = t->tangents;
    }
    for (int s = 0; s < 2; s++) {
        if (!m->mTextureCoords[s] || m->mNumUVComponents[s] < 2) continue;
        if ((r = copy_vec3(ctx, path, "texture coordinates", m->mTextureCoords[s], NULL, nv, 2, &t->uv[s]))) return r;
    }
    t->d.uv0 = t->uv[0];
    t->d.uv1 = t->uv[1];
    return OSSA_OK;
}

/* The triangle faces' indices into t (points and lines are removed by aiProcess_SortByPType;
 * other faces are skipped with a warning); an index past the vertices is an error naming its
 * face. t->d.index_count stays 0 when there is no triangle. */
static ossa_result copy_triangles(ossa__ctx *ctx, const char *path, const struct aiMesh *m, mesh_tmp *t) {
    uint32_t nv = m->mNumVertices;
    uint64_t tris = 0;
    for (uint32_t f = 0; f < m->mNumFaces; f++) {
        const struct aiFace *fc = &m->mFaces[f];
        if (fc->mNumIndices == 3 && fc->mIndices) tris++;
    }
    if (tris * 3 > UINT32_MAX) return fail(ctx, OSSA_ERROR_LIMIT, path, "more than 2^32 - 1 indices");
    if (tris < m->mNumFaces)
        ossa__warn(ctx, path, "%llu of %u faces are not triangles; skipped", (unsigned long long)(m->mNumFaces - tris),
                   m->mNumFaces);
    if (!tris) return OSSA_OK;
    t->indices = ossa__ctx_alloc_raw(ctx, (size_t)tris * 3, sizeof *t->indices);
    if (!t->indices) return ctx->failed;
    uint32_t o = 0;
    for (uint32_t f = 0; f < m->mNumFaces; f++) {
        const struct aiFace *fc = &m->mFaces[f];
        if (fc->mNumIndices != 3 || !fc->mIndices) continue;
        for (int k = 0; k < 3; k++) {
            if (fc->mIndices[k] >= nv) {
                char fp[80];
                snprintf(fp, sizeof fp, "%s/faces/%u", path, f);
                return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, fp, "index %u >= vertex count %u", fc->mIndices[k], nv);
            }
            t->indices[o++] = fc->mIndices[k];
        }
    }
    t->d.indices = t->indices;
    t->d.index_count = o;
    return OSSA_OK;
}

/* Morph targets: each aiAnimMesh's streams replace the base ones; ossa stores deltas (and the
 * anim mesh's weight as the default, 0 when not finite). */
static ossa_result copy_morph_targets(ossa__ctx *ctx, const char *path, const struct aiMesh *m, mesh_tmp *t) {
    uint32_t tc = m->mNumAnimMeshes, nv = m->mNumVertices;
    if (!tc) return OSSA_OK;
    t->targets = ossa__ctx_alloc(ctx, tc, sizeof *t->targets);
    t->default_weights = ossa__ctx_alloc(ctx, tc, sizeof(float));
    if (!t->targets || !t->default_weights) return ctx->failed;
    t->d.target_count = tc;
    t->d.targets = t->targets;
    t->d.default_weights = t->default_weights;
    ossa_result r;
    for (uint32_t k = 0; k < tc; k++) {
        const struct aiAnimMesh *am = m->mAnimMeshes[k];
        char tp[80];
        snprintf(tp, sizeof tp, "%s/targets/%u", path, k);
        if (!am || am->mNumVertices != nv)
            return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, tp, "morph target %s (mesh has %u vertices)",
                              am ? "vertex count differs" : "is NULL", nv);
        float dw = (float)am->mWeight;
        t->default_weights[k] = isfinite(dw) ? dw : 0.0f;
        if ((r = copy_vec3(ctx, tp, "positions", am->mVertices, m->mVertices, nv, 3, &t->targets[k].positions))) return r;
        if (m->mNormals && (r = copy_vec3(ctx, tp, "normals", am->mNormals, m->mNormals, nv, 3, &t->targets[k].normals)))
            return r;
        if (m->mTangents &&
            (r = copy_vec3(ctx, tp, "tangents", am->mTangents, m->mTangents, nv, 3, &t->targets[k].tangents)))
            return r;
    }
    return OSSA_OK;
}

/* Assimp mesh mi, on skeleton node `node`, into the asset: its vertex streams, triangles,
 * skin weights (when a skin uses it) and morph targets. A mesh without triangles is skipped
 * with a warning. */
static ossa_result build_mesh(ai_load *L, ossa_asset *asset, uint32_t node, uint32_t mi) {
    ossa__ctx *ctx = L->ctx;
    const struct aiMesh *m = L->scene->mMeshes[mi];
    char path[48];
    snprintf(path, sizeof path, "/meshes/%u", mi);
    OSSA__STAGE(ctx, "/meshes/%u", mi);
    if (!(m->mPrimitiveTypes & aiPrimitiveType_TRIANGLE) || !m->mNumVertices) {
        ossa__warn(ctx, path, "no triangles; mesh skipped");
        return OSSA_OK;
    }
    mesh_tmp t;
    memset(&t, 0, sizeof t);
    char name[MAXLEN + 1];
    t.d.name = name_of(&m->mName, name);
    t.d.vertex_count = m->mNumVertices;
    t.d.skin = -1;
    t.d.node = (int32_t)asset->skeleton->joint_of_source[node];
    t.d.source_mesh = mi;
    ossa_result r = copy_vertex_streams(ctx, path, m, &t);
    if (!r) r = copy_triangles(ctx, path, m, &t);
    if (!r && !t.d.index_count) {
        ossa__warn(ctx, path, "no triangle faces; mesh skipped");
        mesh_tmp_free(ctx, &t);
        return OSSA_OK;
    }
    if (!r && L->skin_of_mesh[mi] >= 0) {
        uint32_t dropped = 0;
        r = mesh_weights(L, m, mi, asset->skeleton, &t, &dropped);
        if (!r && dropped)
            ossa__warn(ctx, path, "%u vertices had more than %u influences; the smallest were dropped and the rest renormalised",
                       dropped, OSSA_MAX_INFLUENCES);
    }
    if (!r) r = copy_morph_targets(ctx, path, m, &t);
    if (!r) r = ossa__builder_add_mesh(ctx, asset, &t.d, path);
    mesh_tmp_free(ctx, &t);
    return r;
}

/* ---------------------------------------------------------------- animations */

typedef struct key_src {
    const void *keys;  /* aiVectorKey or aiQuatKey: double mTime first */
    size_t stride;
    uint32_t count;
    bool rotation;
} key_src;

static double key_time(const key_src *s, uint32_t k) {
    double t;
    memcpy(&t, (const uint8_t *)s->keys + (size_t)k * s->stride, sizeof t);
    return t;
}

static void key_value(const key_src *s, uint32_t k, float *out) {
    const uint8_t *p = (const uint8_t *)s->keys + (size_t)k * s->stride;
    if (s->rotation) {
        const struct aiQuatKey *q = (const struct aiQuatKey *)(const void *)p;
        out[0] = (float)q->mValue.x, out[1] = (float)q->mValue.y, out[2] = (float)q->mValue.z, out[3] = (float)q->mValue.w;
    } else {
        const struct aiVectorKey *v = (const struct aiVectorKey *)(const void *)p;
        out[0] = (float)v->mValue.x, out[1] = (float)v->mValue.y, out[2] = (float)v->mValue.z;
    }
}

typedef struct clip_tmp {
    uint32_t track_count, weight_count, temp_count, temp_cap;
    ossa_transform_track *tracks;
    int32_t *slot;          /* joint → track or -1 */
    uint8_t *wseen;
    ossa_weight_track *weights;
    float **temps;
} clip_tmp;

static float *tmp_floats(ossa__ctx *ctx, clip_tmp *c, size_t n) {
    if (c->temp_count == c->temp_cap) {
        ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, "", "internal: too many temporaries");
        return NULL;
    }
    float *f = ossa__ctx_alloc_raw(ctx, n ? n : 1, sizeof(float));
    if (f) c->temps[c->temp_count++] = f;
    return f;
}

/* Keys → track (seconds, strictly increasing; equal times keep the later key). */
static ossa_result convert_keys(ossa__ctx *ctx, clip_tmp *c, const char *path, const key_src *s, double tps,
                                ossa_track *t) {
    uint32_t comps = s->rotation ? 4 : 3;
    if (!s->count) return OSSA_OK;
    if (!s->keys) return fail(ctx, OSSA_ERROR_INVALID_DATA, path, "key count without keys");
    if (s->count > MAX_KEYS) return ossa__fail(ctx, OSSA_ERROR_LIMIT, path, "%u keys (at most %u)", s->count, MAX_KEYS);
    float *times = tmp_floats(ctx, c, s->count);
    float *values = tmp_floats(ctx, c, (size_t)s->count * comps);
    if (!times || !values) return ctx->failed;
    uint32_t n = 0, dups = 0;
    for (uint32_t k = 0; k < s->count; k++) {
        double tt = key_time(s, k) / tps;
        float v[4];
        key_value(s, k, v);
        if (!isfinite(tt) || fabs(tt) > 1e9 || !finite_n(v, comps))
            return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path, "key %u: non-finite time or value", k);
        if (s->rotation) ossa__quat_normalize4(v);
        float ft = (float)tt;
        if (n && !(ft > times[n - 1])) {
            if (ft < times[n - 1])
                return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path, "key %u: time %g s before the previous key (%g s)", k,
                                  ft, times[n - 1]);
            n--; /* same time: the later key wins */
            dups++;
        }
        times[n] = ft;
        memcpy(values + (size_t)n * comps, v, comps * sizeof(float));
        n++;
    }
    if (dups) ossa__warn(ctx, path, "%u keys share a time with the previous key; the later one is kept", dups);
    t->kind = s->rotation ? OSSA_TRACK_ROTATION : OSSA_TRACK_VECTOR;
    t->interp = OSSA_INTERP_LINEAR;
    t->components = comps;
    t->key_count = n;
    t->times = times;
    t->values = values;
    return OSSA_OK;
}

/* Pre/post states over the clip's [start, end]: LINEAR extrapolates vector keys,
 * REPEAT repeats the key range; DEFAULT and CONSTANT hold the end keys. */
static ossa_result apply_behaviour(ossa__ctx *ctx, clip_tmp *c, const char *path, ossa_track *t, int pre, int post,
                                   float start, float end) {
    if (t->key_count < 2) return OSSA_OK;
    uint32_t comps = t->components, n = t->key_count;
    float t0 = t->times[0], t1 = t->times[n - 1];
    bool lin_pre = pre == aiAnimBehaviour_LINEAR && t->kind == OSSA_TRACK_VECTOR && start < t0;
    bool lin_post = post == aiAnimBehaviour_LINEAR && t->kind == OSSA_TRACK_VECTOR && end > t1;
    bool rep = (pre == aiAnimBehaviour_REPEAT && start < t0) || (post == aiAnimBehaviour_REPEAT && end > t1);
    if (rep) {
        /* whole copies of the keys shifted by the period to cover [start, end]; where a copy's
         * last key meets the next copy's first, equal values merge and different ones jump
         * (one float step apart, as Assimp's "(t - t0) mod period" does); then trimmed to
         * [start, end] with interpolated end keys */
        double period = (double)t1 - t0;
        double k0 = pre == aiAnimBehaviour_REPEAT ? floor((start - t0) / period) : 0;
        double k1 = post == aiAnimBehaviour_REPEAT ? ceil((end - t0) / period) : 1;
        double copies = k1 - k0;
        if (!(copies >= 1) || copies * n + 2 > MAX_KEYS) {
            ossa__warn(ctx, path, "REPEAT over %g periods is too long; the keys are held", copies);
            return OSSA_OK;
        }
        uint32_t cap = (uint32_t)copies * n;
        float *times = tmp_floats(ctx, c, cap), *values = tmp_floats(ctx, c, (size_t)cap * comps);
        if (!times || !values) return ctx->failed;
        uint32_t o = 0;
        for (double p = k0; p < k1; p++)
            for (uint32_t k = 0; k < n; k++) {
                float tk = (float)(t->times[k] + p * period);
                const float *v = t->values + (size_t)k * comps;
                if (o && !(tk > times[o - 1])) {
                    if (!memcmp(v, values + (size_t)(o - 1) * comps, comps * sizeof(float))) continue;
                    tk = nextafterf(times[o - 1], INFINITY);
                }
                times[o] = tk;
                memcpy(values + (size_t)o * comps, v, comps * sizeof(float));
                o++;
            }
        ossa_track rt = *t;
        rt.times = times;
        rt.values = values;
        rt.key_count = o;
        rt.table.keys = NULL;
        /* trim to [start, end]: the first key at or after start and the last at or before end are
         * replaced by the sampled values at start and end */
        uint32_t first = 0, last = o - 1;
        while (first + 1 < o && times[first + 1] <= start) first++;
        while (last > first + 1 && times[last - 1] >= end) last--;
        float vs[4], ve[4];
        ossa_track_sample(&rt, start, false, OSSA_LOOKUP_BINARY, NULL, vs);
        ossa_track_sample(&rt, end, false, OSSA_LOOKUP_BINARY, NULL, ve);
        if (times[first] < start) {
            times[first] = start;
            memcpy(values + (size_t)first * comps, vs, comps * sizeof(float));
        }
        if (times[last] > end) {
            times[last] = end;
            memcpy(values + (size_t)last * comps, ve, comps * sizeof(float));
        }
        t->times = times + first;
        t->values = values + (size_t)first * comps;
        t->key_count = last - first + 1;
        for (uint32_t k = 1; k < t->key_count; k++)
            if (!(t->times[k] > t->times[k - 1])) return fail(ctx, OSSA_ERROR_INVALID_DATA, path, "REPEAT key times collapse");
        return OSSA_OK;
    }
    if (!lin_pre && !lin_post) return OSSA_OK;
    uint32_t total = n + (lin_pre ? 1u : 0u) + (lin_post ? 1u : 0u);
    float *times = tmp_floats(ctx, c, total), *values = tmp_floats(ctx, c, (size_t)total * comps);
    if (!times || !values) return ctx->failed;
    uint32_t o = 0;
    if (lin_pre) {
        float a = (start - t0) / (t->times[1] - t0);
        times[o] = start;
        for (uint32_t i = 0; i < comps; i++) values[i] = t->values[i] + a * (t->values[comps + i] - t->values[i]);
        o++;
    }
    memcpy(times + o, t->times, n * sizeof(float));
    memcpy(values + (size_t)o * comps, t->values, (size_t)n * comps * sizeof(float));
    o += n;
    if (lin_post) {
        const float *p = t->values + (size_t)(n - 2) * comps, *q = t->values + (size_t)(n - 1) * comps;
        float a = (end - t1) / (t1 - t->times[n - 2]);
        times[o] = end;
        for (uint32_t i = 0; i < comps; i++) values[(size_t)o * comps + i] = q[i] + a * (q[i] - p[i]);
        o++;
    }
    if (!finite_n(values, (size_t)o * comps)) return fail(ctx, OSSA_ERROR_INVALID_DATA, path, "extrapolation overflows");
    t->times = times;
    t->values = values;
    t->key_count = o;
    return OSSA_OK;
}

/* target(name) → joint: model loads go through the node map, clip loads through the skeleton's names. */
typedef struct binder {
    const ossa__name_map *map;
    const int32_t *joint_of_index; /* NULL: the map's index is the joint */
    uint32_t joint_count;
} binder;

static int32_t bind(const binder *b, const char *name) {
    if (!name[0]) return -1;
    int32_t i = ossa__name_map_find(b->map, name);
    if (i < 0) return -1;
    return b->joint_of_index ? b->joint_of_index[i] : i;
}

/* A clip's time range so far: the first and last key of every track read. */
typedef struct key_range {
    float start, end;
} key_range;

/* Node channel na (path cp) into the clip's next transform track, bound to its joint by node
 * name (none, or a second channel for the joint: dropped with a warning); its pre/post states
 * into states[2 track], states[2 track + 1]. */
static ossa_result node_channel(ai_load *L, const binder *bd, clip_tmp *c, const struct aiNodeAnim *na, const char *cp,
                                double tps, int *states, key_range *range) {
    ossa__ctx *ctx = L->ctx;
    char nbuf[MAXLEN + 1];
    if (!na) return fail(ctx, OSSA_ERROR_INVALID_DATA, cp, "channel is NULL");
    const char *nn = name_of(&na->mNodeName, nbuf);
    int32_t joint = bind(bd, nn);
    if (joint < 0 || (uint32_t)joint >= bd->joint_count) {
        ossa__warn(ctx, cp, "node '%s' is not a joint of the skeleton; channel dropped", nn);
        return OSSA_OK;
    }
    if (c->slot[joint] >= 0) {
        ossa__warn(ctx, cp, "second channel for node '%s'; the first wins", nn);
        return OSSA_OK;
    }
    ossa_transform_track *tt = &c->tracks[c->track_count];
    memset(tt, 0, sizeof *tt);
    tt->joint = (uint32_t)joint;
    key_src ks[3] = {{na->mPositionKeys, sizeof(struct aiVectorKey), na->mNumPositionKeys, false},
                     {na->mRotationKeys, sizeof(struct aiQuatKey), na->mNumRotationKeys, true},
                     {na->mScalingKeys, sizeof(struct aiVectorKey), na->mNumScalingKeys, false}};
    ossa_track *parts[3] = {&tt->translation, &tt->rotation, &tt->scale};
    static const char *const kn[3] = {"position", "rotation", "scaling"};
    for (int k = 0; k < 3; k++) {
        char kp[112];
        snprintf(kp, sizeof kp, "%s/%s_keys", cp, kn[k]);
        ossa_result r = convert_keys(ctx, c, kp, &ks[k], tps, parts[k]);
        if (r) return r;
        if (parts[k]->key_count) {
            range->start = fminf(range->start, parts[k]->times[0]);
            range->end = fmaxf(range->end, parts[k]->times[parts[k]->key_count - 1]);
        } else {
            parts[k]->kind = k == 1 ? OSSA_TRACK_ROTATION : OSSA_TRACK_VECTOR;
            parts[k]->components = k == 1 ? 4 : 3;
            parts[k]->interp = OSSA_INTERP_LINEAR;
        }
    }
    states[2 * c->track_count] = (int)na->mPreState;
    states[2 * c->track_count + 1] = (int)na->mPostState;
    c->slot[joint] = (int32_t)c->track_count++;
    return OSSA_OK;
}

/* A morph channel's keys as times (seconds, increasing; an equal time replaces the key
 * before) and tc weights each (targets not named are 0); *n keys. */
static ossa_result morph_keys(ossa__ctx *ctx, const struct aiMeshMorphAnim *ma, const char *cp, double tps, uint32_t tc,
                              float *times, float *values, uint32_t *n) {
    *n = 0;
    for (uint32_t k = 0; k < ma->mNumKeys; k++) {
        const struct aiMeshMorphKey *mk = &ma->mKeys[k];
        float ft = (float)(mk->mTime / tps);
        if (!isfinite(ft) || (mk->mNumValuesAndWeights && (!mk->mValues || !mk->mWeights)))
            return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, cp, "key %u: non-finite time or missing values", k);
        if (*n && !(ft > times[*n - 1])) {
            if (ft < times[*n - 1])
                return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, cp, "key %u: time before the previous key", k);
            (*n)--;
        }
        times[*n] = ft;
        float *v = values + (size_t)*n * tc;
        memset(v, 0, tc * sizeof *v);
        for (uint32_t i = 0; i < mk->mNumValuesAndWeights; i++) {
            float wv = (float)mk->mWeights[i];
            if (mk->mValues[i] >= tc || !isfinite(wv))
                return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, cp, "key %u: target %u of %u or weight not finite", k,
                                  mk->mValues[i], tc);
            v[mk->mValues[i]] = wv;
        }
        (*n)++;
    }
    return OSSA_OK;
}

/* Morph channel ma (path cp) into the clip's next weight track, on the joint its node name
 * binds to when that joint's mesh has morph targets (else, or a second channel for the
 * joint: dropped with a warning). */
static ossa_result morph_channel(ai_load *L, const binder *bd, clip_tmp *c, const uint32_t *targets_of_joint,
                                 const struct aiMeshMorphAnim *ma, const char *cp, double tps, key_range *range) {
    ossa__ctx *ctx = L->ctx;
    char nbuf[MAXLEN + 1];
    if (!ma || (ma->mNumKeys && !ma->mKeys))
        return fail(ctx, OSSA_ERROR_INVALID_DATA, cp, "morph channel is NULL or has no keys array");
    const char *nn = name_of(&ma->mName, nbuf);
    int32_t joint = bind(bd, nn);
    uint32_t tc = joint >= 0 && targets_of_joint ? targets_of_joint[joint] : 0;
    if (joint < 0 || !tc || !ma->mNumKeys) {
        ossa__warn(ctx, cp, "node '%s' has no morph targets in the skeleton; channel dropped", nn);
        return OSSA_OK;
    }
    if (c->wseen[joint]) {
        ossa__warn(ctx, cp, "second morph channel for node '%s'; the first wins", nn);
        return OSSA_OK;
    }
    if (ma->mNumKeys > MAX_KEYS || (uint64_t)ma->mNumKeys * tc > MAX_KEYS)
        return ossa__fail(ctx, OSSA_ERROR_LIMIT, cp, "%u keys x %u targets is too many", ma->mNumKeys, tc);
    float *times = tmp_floats(ctx, c, ma->mNumKeys), *values = tmp_floats(ctx, c, (size_t)ma->mNumKeys * tc);
    if (!times || !values) return ctx->failed;
    uint32_t n;
    ossa_result r = morph_keys(ctx, ma, cp, tps, tc, times, values, &n);
    if (r) return r;
    c->wseen[joint] = 1;
    ossa_weight_track *wt = &c->weights[c->weight_count++];
    wt->joint = (uint32_t)joint;
    wt->weights.kind = OSSA_TRACK_VECTOR;
    wt->weights.interp = OSSA_INTERP_LINEAR;
    wt->weights.components = tc;
    wt->weights.key_count = n;
    wt->weights.times = times;
    wt->weights.values = values;
    range->start = fminf(range->start, times[0]);
    range->end = fmaxf(range->end, times[n - 1]);
    return OSSA_OK;
}

/* When no track reaches `end`, the one that ends last gets an extra key at `end` holding its
 * last value. */
static ossa_result hold_to_end(ossa__ctx *ctx, clip_tmp *c, float end) {
    float reach = -INFINITY;
    ossa_track *last = NULL;
    for (uint32_t k = 0; k < c->track_count; k++) {
        ossa_track *parts[3] = {&c->tracks[k].translation, &c->tracks[k].rotation, &c->tracks[k].scale};
        for (int q = 0; q < 3; q++)
            if (parts[q]->key_count && parts[q]->times[parts[q]->key_count - 1] >= reach) {
                reach = parts[q]->times[parts[q]->key_count - 1];
                last = parts[q];
            }
    }
    for (uint32_t w = 0; w < c->weight_count; w++) {
        ossa_track *tr = &c->weights[w].weights;
        if (tr->times[tr->key_count - 1] >= reach) reach = tr->times[tr->key_count - 1], last = tr;
    }
    if (!last || !(end > reach)) return OSSA_OK;
    uint32_t n = last->key_count, comps = last->components;
    float *times = tmp_floats(ctx, c, n + 1), *values = tmp_floats(ctx, c, (size_t)(n + 1) * comps);
    if (!times || !values) return ctx->failed;
    memcpy(times, last->times, n * sizeof(float));
    memcpy(values, last->values, (size_t)n * comps * sizeof(float));
    times[n] = end;
    memcpy(values + (size_t)n * comps, last->values + (size_t)(n - 1) * comps, comps * sizeof(float));
    last->times = times;
    last->values = values;
    last->key_count = n + 1;
    return OSSA_OK;
}

/* The clip's range: at least the animation's mDuration (held with the last key of the track
 * that ends last); each track's pre/post states applied over it (apply_behaviour). */
static ossa_result finish_range(ossa__ctx *ctx, clip_tmp *c, const struct aiAnimation *an, const char *path, double tps,
                                const int *states, key_range range) {
    double dur = an->mDuration / tps;
    if (isfinite(dur) && dur > 0 && dur < 1e9 && (float)dur > range.end && range.start <= (float)dur) range.end = (float)dur;
    for (uint32_t k = 0; k < c->track_count; k++) {
        ossa_track *parts[3] = {&c->tracks[k].translation, &c->tracks[k].rotation, &c->tracks[k].scale};
        for (int q = 0; q < 3; q++) {
            char tp[80];
            snprintf(tp, sizeof tp, "%s/channels/%u", path, k);
            ossa_result r = apply_behaviour(ctx, c, tp, parts[q], states[2 * k], states[2 * k + 1], range.start, range.end);
            if (r) return r;
        }
    }
    return hold_to_end(ctx, c, range.end);
}

/* Animation a into *out: its node channels (transform tracks) and morph channels (weight
 * tracks) bound by node name, its ticks per second (0: Assimp's default 25), range and
 * pre/post states. */
static ossa_result load_animation(ai_load *L, const binder *bd, const uint32_t *targets_of_joint, uint32_t a,
                                  ossa_clip **out) {
    ossa__ctx *ctx = L->ctx;
    const struct aiAnimation *an = L->scene->mAnimations[a];
    char path[48];
    snprintf(path, sizeof path, "/animations/%u", a);
    OSSA__STAGE(ctx, "/animations/%u", a);
    if (!an) return fail(ctx, OSSA_ERROR_INVALID_DATA, path, "animation is NULL");
    if (an->mNumChannels && !an->mChannels) return fail(ctx, OSSA_ERROR_INVALID_DATA, path, "channel count without channels");
    if (an->mNumMorphMeshChannels && !an->mMorphMeshChannels)
        return fail(ctx, OSSA_ERROR_INVALID_DATA, path, "morph channel count without channels");
    double tps = an->mTicksPerSecond;
    if (tps == 0) tps = DEFAULT_TPS;
    else if (!(tps > 0) || !isfinite(tps)) {
        ossa__warn(ctx, path, "ticks per second %g is not positive; 25 used", tps);
        tps = DEFAULT_TPS;
    }
    clip_tmp c;
    memset(&c, 0, sizeof c);
    uint32_t nch = an->mNumChannels, nmc = an->mNumMorphMeshChannels;
    ossa_result r = OSSA_OK;
    char *name = dup_name(ctx, &an->mName);
    c.temp_cap = nch * 6 + nmc * 2 + 2;
    c.temps = ossa__ctx_alloc(ctx, c.temp_cap, sizeof *c.temps);
    c.tracks = ossa__ctx_alloc(ctx, nch ? nch : 1, sizeof *c.tracks);
    c.weights = ossa__ctx_alloc(ctx, nmc ? nmc : 1, sizeof *c.weights);
    c.slot = ossa__ctx_alloc(ctx, bd->joint_count ? bd->joint_count : 1, sizeof *c.slot);
    c.wseen = ossa__ctx_alloc(ctx, bd->joint_count ? bd->joint_count : 1, 1);
    int *states = ossa__ctx_alloc(ctx, nch ? nch : 1, 2 * sizeof(int));
    if (!name || !c.temps || !c.tracks || !c.weights || !c.slot || !c.wseen || !states) r = ctx->failed;
    for (uint32_t j = 0; !r && j < bd->joint_count; j++) c.slot[j] = -1;
    key_range range = {INFINITY, -INFINITY};
    for (uint32_t ch = 0; ch < nch && !r; ch++) {
        char cp[80];
        snprintf(cp, sizeof cp, "%s/channels/%u", path, ch);
        r = node_channel(L, bd, &c, an->mChannels[ch], cp, tps, states, &range);
    }
    for (uint32_t mc = 0; mc < nmc && !r; mc++) {
        char cp[80];
        snprintf(cp, sizeof cp, "%s/morph_channels/%u", path, mc);
        r = morph_channel(L, bd, &c, targets_of_joint, an->mMorphMeshChannels[mc], cp, tps, &range);
    }
    if (!r && (c.track_count || c.weight_count)) r = finish_range(ctx, &c, an, path, tps, states, range);
    if (!r) {
        ossa_clip_desc cd = {.name = name, .track_count = c.track_count, .tracks = c.tracks,
                             .weight_track_count = c.weight_count, .weight_tracks = c.weights};
        r = ossa__builder_clip(ctx, L->al, path, &cd, L->table_rate, out);
    }
    for (uint32_t i = 0; i < c.temp_count; i++) ossa__ctx_free(ctx, c.temps[i]);
    ossa__ctx_free(ctx, c.temps);
    ossa__ctx_free(ctx, c.tracks);
    ossa__ctx_free(ctx, c.weights);
    ossa__ctx_free(ctx, c.slot);
    ossa__ctx_free(ctx, c.wseen);
    ossa__ctx_free(ctx, states);
    ossa__ctx_free(ctx, name);
    return r;
}

static ossa_result load_animations(ai_load *L, ossa_asset *asset, const binder *bd, const uint32_t *targets_of_joint) {
    const struct aiScene *sc = L->scene;
    if (!sc->mNumAnimations) return OSSA_OK;
    if (!sc->mAnimations) return fail(L->ctx, OSSA_ERROR_INVALID_DATA, "/animations", "animation count without animations");
    if (!ossa__ctx_reserve(L->ctx, (size_t)sc->mNumAnimations * sizeof *asset->clips)) return L->ctx->failed;
    asset->clips = ossa__alloc_array(&asset->allocator, sc->mNumAnimations, sizeof *asset->clips);
    if (!asset->clips) return fail(L->ctx, OSSA_ERROR_OUT_OF_MEMORY, "", "out of memory");
    ossa_result r = OSSA_OK;
    for (uint32_t a = 0; a < sc->mNumAnimations && !r; a++) {
        ossa_clip *clip = NULL;
        r = load_animation(L, bd, targets_of_joint, a, &clip);
        if (!r) asset->clips[asset->clip_count++] = clip;
    }
    return r;
}

/* ---------------------------------------------------------------- scene → asset */

static void ai_load_free(ai_load *L) {
    ossa__ctx *ctx = L->ctx;
    for (uint32_t i = 0; i < L->node_count; i++) ossa__ctx_free(ctx, L->nodes ? L->nodes[i].name : NULL);
    ossa__ctx_free(ctx, L->nodes);
    ossa__ctx_free(ctx, L->ai_nodes);
    ossa__ctx_free(ctx, L->names);
    ossa__name_map_free(ctx, &L->node_names);
    if (L->scene)
        for (uint32_t m = 0; m < L->scene->mNumMeshes && L->bone_joint; m++) ossa__ctx_free(ctx, L->bone_joint[m]);
    for (uint32_t s = 0; s < L->skin_count; s++) {
        ossa__ctx_free(ctx, (void *)L->skins[s].joints);
        ossa__ctx_free(ctx, (void *)L->skins[s].inverse_bind);
    }
    ossa__ctx_free(ctx, L->bone_joint);
    ossa__ctx_free(ctx, L->skins);
    ossa__ctx_free(ctx, L->skin_of_mesh);
    ossa__ctx_free(ctx, L->mesh_targets);
}

static ossa_result convert(ossa__ctx *ctx, const struct aiScene *scene, const ossa_load_options *options,
                           const ossa_skeleton *bind_to, ossa_asset **out) {
    ai_load L;
    memset(&L, 0, sizeof L);
    L.ctx = ctx;
    L.scene = scene;
    L.al = options ? options->allocator : NULL;
    L.table_rate = options ? options->table_rate : 0.0f;
    ossa_asset *asset = NULL;
    int32_t *joint_of_node = NULL;
    uint32_t *targets_of_joint = NULL;
    ossa_mesh_info *infos = NULL;
    ossa__name_map skel_names = {0, NULL, NULL};
    ossa_result r;
    if ((r = ossa__builder_begin(ctx, L.al, -1, &asset))) goto done;
    if (!bind_to) {
        if ((r = walk_nodes(&L))) goto done;
        if ((r = build_skins(&L))) goto done;
        if ((r = ossa__builder_skeleton(ctx, asset, L.node_count, L.nodes, L.skin_count, L.skins,
                                        ASSIMP_METRES_PER_UNIT, "/nodes", &joint_of_node)))
            goto done;
        uint32_t nm = scene->mNumMeshes;
        if (nm) {
            infos = ossa__ctx_alloc(ctx, nm, sizeof *infos);
            char **mnames = (char **)ossa__ctx_alloc(ctx, nm, sizeof(char *));
            if (!infos || !mnames) {
                ossa__ctx_free(ctx, mnames);
                r = ctx->failed;
                goto done;
            }
            for (uint32_t m = 0; m < nm && !r; m++) {
                if (!(mnames[m] = dup_name(ctx, &scene->mMeshes[m]->mName))) r = ctx->failed;
                infos[m].name = mnames[m];
                infos[m].primitive_count = 1;
                infos[m].target_count = scene->mMeshes[m]->mNumAnimMeshes;
            }
            if (!r) r = ossa__builder_mesh_infos(ctx, asset, nm, infos);
            for (uint32_t m = 0; m < nm; m++) ossa__ctx_free(ctx, mnames[m]);
            ossa__ctx_free(ctx, mnames);
            if (r) goto done;
            uint64_t total = 0;
            for (uint32_t i = 0; i < L.node_count; i++) total += L.ai_nodes[i]->mNumMeshes;
            if ((r = ossa__builder_reserve_meshes(ctx, asset, total, "/nodes"))) goto done;
            for (uint32_t i = 0; i < L.node_count && !r; i++)
                for (uint32_t k = 0; k < L.ai_nodes[i]->mNumMeshes && !r; k++)
                    r = build_mesh(&L, asset, i, L.ai_nodes[i]->mMeshes[k]);
            if (r) goto done;
        }
        uint32_t jc = asset->skeleton ? asset->skeleton->joint_count : 0;
        targets_of_joint = ossa__ctx_alloc(ctx, jc ? jc : 1, sizeof *targets_of_joint);
        if (!targets_of_joint) {
            r = ctx->failed;
            goto done;
        }
        for (uint32_t i = 0; i < L.node_count; i++)
            if (L.nodes[i].mesh >= 0) targets_of_joint[joint_of_node[i]] = L.mesh_targets[L.nodes[i].mesh];
        binder bd = {&L.node_names, joint_of_node, jc};
        r = load_animations(&L, asset, &bd, targets_of_joint);
    } else {
        if ((r = ossa__name_map_init(ctx, &skel_names, bind_to->names, bind_to->joint_count))) goto done;
        binder bd = {&skel_names, NULL, bind_to->joint_count};
        r = load_animations(&L, asset, &bd, NULL);
    }
    if (!r) r = ossa__builder_finish(ctx, &asset, out);
done:
    ossa__name_map_free(ctx, &skel_names);
    ossa__ctx_free(ctx, targets_of_joint);
    ossa__ctx_free(ctx, joint_of_node);
    ossa__ctx_free(ctx, infos);
    ai_load_free(&L);
    ossa_asset_destroy(asset);
    if (!r && ctx->failed) r = ctx->failed;
    return r;
}

/* The import properties; remove_points_lines: points and lines are dropped by Assimp (ossa
 * meshes are triangles), else kept as their own meshes (build_mesh skips them). */
static struct aiPropertyStore *make_props(bool remove_points_lines) {
    struct aiPropertyStore *p = aiCreatePropertyStore();
    if (!p) return NULL;
    /* fold FBX pivot chains into one node transform (no "$AssimpFbx$" helper nodes) */
    aiSetImportPropertyInteger(p, AI_CONFIG_IMPORT_FBX_PRESERVE_PIVOTS, 0);
    if (remove_points_lines)
        aiSetImportPropertyInteger(p, AI_CONFIG_PP_SBP_REMOVE, aiPrimitiveType_POINT | aiPrimitiveType_LINE);
    /* a file without meshes (a COLLADA or BVH skeleton) stays without: no invented mesh of bone
     * pyramids skinned to every node, cameras and lights included (the tools draw the skeleton) */
    aiSetImportPropertyInteger(p, AI_CONFIG_IMPORT_NO_SKELETON_MESHES, 1);
    return p;
}

#define AI_FLAGS (aiProcess_Triangulate | aiProcess_SortByPType)

/* Assimp's scene of the file (path) or the memory (data, size, hint), or NULL (its error
 * string says why; *no_props: the property store could not be made). */
static const struct aiScene *read_scene(const char *path, const void *data, size_t size, const char *hint,
                                        bool remove_points_lines, bool *no_props) {
    struct aiPropertyStore *props = make_props(remove_points_lines);
    *no_props = !props;
    if (!props) return NULL;
    const struct aiScene *scene = path ? aiImportFileExWithProperties(path, AI_FLAGS, NULL, props)
                                       : aiImportFileFromMemoryWithProperties(data, (unsigned)size, AI_FLAGS,
                                                                              hint ? hint : "", props);
    aiReleasePropertyStore(props);
    return scene;
}

static ossa_result import(ossa__ctx *ctx, const char *path, const void *data, size_t size, const char *hint,
                          const ossa_load_options *options, const ossa_skeleton *bind_to, ossa_asset **out) {
    bool no_props;
    const struct aiScene *scene = read_scene(path, data, size, hint, true, &no_props);
    const char *why = scene || no_props ? NULL : aiGetErrorString();
    if (why && strstr(why, "No meshes remaining")) {
        /* every mesh is points or lines, which Assimp refuses to remove all of: read again
         * keeping them, so the file's nodes and animations load and its meshes are skipped */
        ossa__warn(ctx, "", "the file has only point and line meshes, which ossa does not import");
        scene = read_scene(path, data, size, hint, false, &no_props);
    }
    if (no_props) return fail(ctx, OSSA_ERROR_OUT_OF_MEMORY, "", "out of memory (Assimp property store)");
    ossa_result r;
    if (!scene) {
        const char *msg = aiGetErrorString();
        ossa_file_format f = OSSA_FORMAT_UNKNOWN;
        if (path) ossa_format_detect_file(path, &f);
        else f = ossa_format_detect(data, size, NULL);
        bool unknown = msg && (strstr(msg, "No suitable reader") || strstr(msg, "Unable to open"));
        if (msg && strstr(msg, "Unable to open")) r = OSSA_ERROR_IO;
        else r = unknown ? OSSA_ERROR_UNSUPPORTED : OSSA_ERROR_PARSE;
        return ossa__fail(ctx, r, "", "Assimp cannot read this file (detected format: %s): %s", ossa_format_name(f),
                          msg && msg[0] ? msg : "no message");
    }
    bool skeleton = scene->mRootNode && scene->mRootNode->mNumChildren; /* nodes without meshes: a skeleton */
    if (scene->mFlags & AI_SCENE_FLAGS_INCOMPLETE && !bind_to && !scene->mNumMeshes && !scene->mNumAnimations &&
        !skeleton) {
        aiReleaseImport(scene);
        return fail(ctx, OSSA_ERROR_INVALID_DATA, "", "Assimp returned an incomplete scene without meshes or animations");
    }
    r = convert(ctx, scene, options, bind_to, out);
    aiReleaseImport(scene);
    return r;
}

ossa_result ossa_assimp_load_file(const char *path, const ossa_load_options *options, ossa_asset **out,
                                  ossa_diagnostic *diag) {
    if (diag) memset(diag, 0, sizeof *diag);
    if (!out) return OSSA_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (!path) return OSSA_ERROR_INVALID_ARGUMENT;
    ossa__ctx ctx;
    ossa__ctx_init(&ctx, options, diag);
    ossa_result r = import(&ctx, path, NULL, 0, NULL, options, NULL, out);
    ossa__ctx_done(&ctx);
    return r;
}

ossa_result ossa_assimp_load_memory(const void *data, size_t size, const char *hint, const ossa_load_options *options,
                                    ossa_asset **out, ossa_diagnostic *diag) {
    if (diag) memset(diag, 0, sizeof *diag);
    if (!out) return OSSA_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (!data || !size || size > UINT32_MAX) return OSSA_ERROR_INVALID_ARGUMENT;
    ossa__ctx ctx;
    ossa__ctx_init(&ctx, options, diag);
    ossa_result r = import(&ctx, NULL, data, size, hint, options, NULL, out);
    ossa__ctx_done(&ctx);
    return r;
}

ossa_result ossa_assimp_load_clips(const char *path, const ossa_skeleton *skeleton, const ossa_load_options *options,
                                   ossa_asset **out, ossa_diagnostic *diag) {
    if (diag) memset(diag, 0, sizeof *diag);
    if (!out) return OSSA_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (!path || !skeleton) return OSSA_ERROR_INVALID_ARGUMENT;
    ossa__ctx ctx;
    ossa__ctx_init(&ctx, options, diag);
    ossa_result r = import(&ctx, path, NULL, 0, NULL, options, skeleton, out);
    ossa__ctx_done(&ctx);
    return r;
}

ossa_result ossa__assimp_scene_load(const struct aiScene *scene, const ossa_load_options *options,
                                    const ossa_skeleton *bind_to, ossa_asset **out, ossa_diagnostic *diag) {
    if (diag) memset(diag, 0, sizeof *diag);
    if (!out) return OSSA_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (!scene) return OSSA_ERROR_INVALID_ARGUMENT;
    ossa__ctx ctx;
    ossa__ctx_init(&ctx, options, diag);
    ossa_result r = convert(&ctx, scene, options, bind_to, out);
    ossa__ctx_done(&ctx);
    return r;
}

const char *ossa_assimp_version(void) {
    static _Thread_local char buf[32]; /* per thread: no shared state */
    if (!buf[0])
        snprintf(buf, sizeof buf, "%u.%u.%u", aiGetVersionMajor(), aiGetVersionMinor(), aiGetVersionPatch());
    return buf;
}
