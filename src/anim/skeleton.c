/* Skeletons: parents-first reordering, rest and bind poses, skins (see ossa/skeleton.h). */
#include <ossa/skeleton.h>

#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "math/fast.h"

#define UNPLACED UINT32_MAX

ossa_result ossa_joint_order(const int32_t *parents, uint32_t joint_count, uint32_t *order, uint32_t *old_to_new) {
    if (joint_count == 0) return OSSA_OK;
    if (!parents || !order || !old_to_new) return OSSA_ERROR_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < joint_count; i++) {
        if (parents[i] < -1 || (parents[i] >= 0 && (uint32_t)parents[i] >= joint_count)) return OSSA_ERROR_INVALID_DATA;
        old_to_new[i] = UNPLACED;
    }
    /* Stable: joints keep desc order unless an ancestor listed later must be pulled
     * in front of them. The chain of unplaced ancestors is pushed onto the free tail of
     * `order` (a chain longer than the unplaced count is a cycle), then popped root-first. */
    uint32_t placed = 0, n = joint_count;
    for (uint32_t i = 0; i < n; i++) {
        if (old_to_new[i] != UNPLACED) continue;
        uint32_t len = 0;
        int32_t j = (int32_t)i;
        while (j >= 0 && old_to_new[j] == UNPLACED) {
            if (len >= n - placed) return OSSA_ERROR_INVALID_DATA; /* cycle */
            order[n - 1 - len] = (uint32_t)j;
            len++;
            j = parents[j];
        }
        for (uint32_t l = len; l-- > 0;) {
            uint32_t joint = order[n - 1 - l];
            order[placed] = joint;
            old_to_new[joint] = placed;
            placed++;
        }
    }
    return OSSA_OK;
}

void ossa_skeleton_destroy(ossa_skeleton *skeleton) {
    if (!skeleton) return;
    ossa_allocator a = skeleton->allocator;
    ossa__free(&a, skeleton);
}

int32_t ossa_skeleton_find_joint(const ossa_skeleton *skeleton, const char *name) {
    if (!skeleton || !name) return -1;
    for (uint32_t i = 0; i < skeleton->joint_count; i++)
        if (strcmp(skeleton->names[i], name) == 0) return (int32_t)i;
    return -1;
}

/* Rebuilds skeleton->bind from the skins' inverse bind matrices (see header). `world`
 * is joint_count scratch matrices, `covered` joint_count flags. */
static void build_bind_pose(ossa_skeleton *s, ossa_mat4 *world, const ossa_mat4 **ibm_of) {
    for (uint32_t j = 0; j < s->joint_count; j++) {
        int32_t p = s->parents[j];
        ossa_mat4 parent_world = p >= 0 ? world[p] : ossa_mat4_identity();
        ossa_mat4 w;
        if (ibm_of[j] && ossa_mat4_inverse(ibm_of[j], &w)) {
            ossa_mat4 inv_parent, local;
            if (!ossa_mat4_inverse_affine(&parent_world, &inv_parent)) ossa_mat4_inverse(&parent_world, &inv_parent);
            ossa__mat4_mul(&inv_parent, &w, &local);
            ossa_transform t;
            ossa_mat4_decompose(&local, 1e-3f, &t); /* best fit even with shear */
            s->bind[j] = t;
            world[j] = w;
        } else {
            ossa_mat4 local;
            s->bind[j] = s->rest[j];
            ossa__trs_to_mat4(&s->rest[j], &local);
            ossa__mat4_mul(&parent_world, &local, &w);
            world[j] = w;
        }
    }
}

/* The description's arrays are there for its counts, metres_per_unit is finite and >= 0,
 * and every skin joint and root names a joint. */
static ossa_result check_desc(const ossa_skeleton_desc *desc) {
    uint32_t n = desc->joint_count;
    if (n > 0 && !desc->parents) return OSSA_ERROR_INVALID_ARGUMENT;
    if (desc->skin_count > 0 && !desc->skins) return OSSA_ERROR_INVALID_ARGUMENT;
    if (!(desc->metres_per_unit >= 0.0f) || !isfinite(desc->metres_per_unit)) return OSSA_ERROR_INVALID_ARGUMENT;
    if (n > (uint32_t)INT32_MAX) return OSSA_ERROR_LIMIT;
    for (uint32_t k = 0; k < desc->skin_count; k++) {
        const ossa_skin_desc *sk = &desc->skins[k];
        if (sk->joint_count > 0 && !sk->joints) return OSSA_ERROR_INVALID_ARGUMENT;
        for (uint32_t i = 0; i < sk->joint_count; i++)
            if (sk->joints[i] >= n) return OSSA_ERROR_INVALID_DATA;
        if (sk->root < -1 || (sk->root >= 0 && (uint32_t)sk->root >= n)) return OSSA_ERROR_INVALID_DATA;
    }
    return OSSA_OK;
}

/* Per skin, how many joints it does not list (their palette entries are identity) into
 * *unused_counts, and *listed: scratch of one byte a joint (both NULL without skins or
 * joints; the caller frees them). */
static ossa_result count_unused(const ossa_skeleton_desc *desc, const ossa_allocator *allocator,
                                uint32_t **unused_counts, uint8_t **listed) {
    uint32_t n = desc->joint_count;
    *unused_counts = NULL;
    *listed = NULL;
    if (!desc->skin_count || !n) return OSSA_OK;
    *unused_counts = ossa__alloc_array(allocator, desc->skin_count, sizeof(uint32_t));
    *listed = ossa__alloc(allocator, n);
    if (!*unused_counts || !*listed) return OSSA_ERROR_OUT_OF_MEMORY;
    for (uint32_t k = 0; k < desc->skin_count; k++) {
        memset(*listed, 0, n);
        uint32_t distinct = 0;
        for (uint32_t i = 0; i < desc->skins[k].joint_count; i++) {
            uint32_t j = desc->skins[k].joints[i];
            distinct += !(*listed)[j];
            (*listed)[j] = 1;
        }
        (*unused_counts)[k] = n - distinct;
    }
    return OSSA_OK;
}

/* The skins in skeleton joint order (their joints, inverse binds, root and the joints they do
 * not list, in skeleton order), laid out from V in the block at base. */
static void copy_skins(ossa_skeleton *s, const ossa_skeleton_desc *desc, unsigned char *base, ossa__layout *V,
                       const uint32_t *unused_counts, uint8_t *listed) {
    for (uint32_t k = 0; k < desc->skin_count; k++) {
        const ossa_skin_desc *sd = &desc->skins[k];
        ossa_skin *sk = &s->skins[k];
        size_t oj = ossa__layout_add(V, sd->joint_count, sizeof(uint32_t));
        size_t om = ossa__layout_add(V, sd->joint_count, sizeof(ossa_mat4));
        size_t ou = ossa__layout_add(V, unused_counts ? unused_counts[k] : 0, sizeof(uint32_t));
        sk->joint_count = sd->joint_count;
        sk->joints = (uint32_t *)(base + oj);
        sk->inverse_bind = (ossa_mat4 *)(base + om);
        sk->root = sd->root < 0 ? -1 : (int32_t)s->joint_of_source[sd->root];
        for (uint32_t i = 0; i < sd->joint_count; i++) {
            sk->joints[i] = s->joint_of_source[sd->joints[i]];
            sk->inverse_bind[i] = sd->inverse_bind ? sd->inverse_bind[i] : ossa_mat4_identity();
        }
        sk->unused = (uint32_t *)(base + ou);
        if (!listed) continue;
        memset(listed, 0, s->joint_count);
        for (uint32_t i = 0; i < sk->joint_count; i++) listed[sk->joints[i]] = 1;
        for (uint32_t j = 0; j < s->joint_count; j++)
            if (!listed[j]) sk->unused[sk->unused_count++] = j;
    }
}

/* The joint and skin names copied after the skins' arrays (NULL names become ""). */
static void copy_names(ossa_skeleton *s, const ossa_skeleton_desc *desc, unsigned char *base, ossa__layout *V) {
    for (uint32_t i = 0; i < s->joint_count; i++) {
        const char *nm = (desc->names && desc->names[i]) ? desc->names[i] : "";
        size_t len = strlen(nm) + 1, o = ossa__layout_add(V, len, 1);
        memcpy(base + o, nm, len);
        s->names[s->joint_of_source[i]] = (const char *)(base + o);
    }
    for (uint32_t k = 0; k < desc->skin_count; k++) {
        const char *nm = desc->skins[k].name ? desc->skins[k].name : "";
        size_t len = strlen(nm) + 1, o = ossa__layout_add(V, len, 1);
        memcpy(base + o, nm, len);
        s->skins[k].name = (const char *)(base + o);
    }
}

/* The bind pose (build_bind_pose), from each joint's first skin inverse bind that names it,
 * with scratch from the allocator. */
static ossa_result make_bind_pose(ossa_skeleton *s, const ossa_allocator *allocator) {
    uint32_t n = s->joint_count;
    if (!n) return OSSA_OK;
    ossa__layout S = {0, false};
    size_t ow = ossa__layout_add(&S, n, sizeof(ossa_mat4));
    size_t oi = ossa__layout_add(&S, n, sizeof(ossa_mat4 *));
    unsigned char *scratch = S.overflow ? NULL : ossa__alloc(allocator, S.size);
    if (!scratch) return OSSA_ERROR_OUT_OF_MEMORY;
    ossa_mat4 *world = (ossa_mat4 *)(scratch + ow);
    const ossa_mat4 **ibm_of = (const ossa_mat4 **)(scratch + oi);
    for (uint32_t j = 0; j < n; j++) ibm_of[j] = NULL;
    for (uint32_t k = 0; k < s->skin_count; k++)
        for (uint32_t i = 0; i < s->skins[k].joint_count; i++) {
            uint32_t j = s->skins[k].joints[i];
            if (!ibm_of[j]) ibm_of[j] = &s->skins[k].inverse_bind[i];
        }
    build_bind_pose(s, world, ibm_of);
    ossa__free(allocator, scratch);
    return OSSA_OK;
}

ossa_result ossa_skeleton_create(const ossa_skeleton_desc *desc, const ossa_allocator *allocator,
                                 ossa_skeleton **out) {
    if (!out) return OSSA_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (!desc) return OSSA_ERROR_INVALID_ARGUMENT;
    ossa_result r = check_desc(desc);
    if (r != OSSA_OK) return r;
    uint32_t n = desc->joint_count, *unused_counts;
    uint8_t *listed;
    if ((r = count_unused(desc, allocator, &unused_counts, &listed)) != OSSA_OK) {
        ossa__free(allocator, unused_counts);
        ossa__free(allocator, listed);
        return r;
    }

    /* one block: the skeleton, its per-joint arrays, the skins, the per-skin arrays, the names */
    ossa__layout L = {0, false};
    size_t o_s = ossa__layout_add(&L, 1, sizeof(ossa_skeleton));
    size_t o_par = ossa__layout_add(&L, n, sizeof(int32_t));
    size_t o_rest = ossa__layout_add(&L, n, sizeof(ossa_transform));
    size_t o_bind = ossa__layout_add(&L, n, sizeof(ossa_transform));
    size_t o_names = ossa__layout_add(&L, n, sizeof(char *));
    size_t o_src = ossa__layout_add(&L, n, sizeof(uint32_t));
    size_t o_jos = ossa__layout_add(&L, n, sizeof(uint32_t));
    size_t o_skins = ossa__layout_add(&L, desc->skin_count, sizeof(ossa_skin));
    size_t o_var = L.size; /* per-skin arrays, then strings */
    for (uint32_t k = 0; k < desc->skin_count; k++) {
        ossa__layout_add(&L, desc->skins[k].joint_count, sizeof(uint32_t));
        ossa__layout_add(&L, desc->skins[k].joint_count, sizeof(ossa_mat4));
        ossa__layout_add(&L, unused_counts ? unused_counts[k] : 0, sizeof(uint32_t));
    }
    for (uint32_t i = 0; i < n; i++) {
        const char *nm = (desc->names && desc->names[i]) ? desc->names[i] : "";
        ossa__layout_add(&L, strlen(nm) + 1, 1);
    }
    for (uint32_t k = 0; k < desc->skin_count; k++)
        ossa__layout_add(&L, strlen(desc->skins[k].name ? desc->skins[k].name : "") + 1, 1);
    unsigned char *base = L.overflow ? NULL : ossa__alloc(allocator, L.size);
    if (!base) {
        ossa__free(allocator, unused_counts);
        ossa__free(allocator, listed);
        return OSSA_ERROR_OUT_OF_MEMORY;
    }
    memset(base, 0, L.size);
    ossa_skeleton *s = (ossa_skeleton *)(base + o_s);
    s->allocator = ossa__allocator_resolve(allocator);
    s->metres_per_unit = desc->metres_per_unit;
    s->joint_count = n;
    s->parents = (int32_t *)(base + o_par);
    s->rest = (ossa_transform *)(base + o_rest);
    s->bind = (ossa_transform *)(base + o_bind);
    s->names = (const char **)(base + o_names);
    s->source_index = (uint32_t *)(base + o_src);
    s->joint_of_source = (uint32_t *)(base + o_jos);
    s->skin_count = desc->skin_count;
    s->skins = desc->skin_count ? (ossa_skin *)(base + o_skins) : NULL;

    r = ossa_joint_order(desc->parents, n, s->source_index, s->joint_of_source);
    if (r == OSSA_OK) {
        for (uint32_t j = 0; j < n; j++) {
            uint32_t src = s->source_index[j];
            int32_t p = desc->parents[src];
            s->parents[j] = p < 0 ? -1 : (int32_t)s->joint_of_source[p];
            s->rest[j] = desc->rest ? desc->rest[src] : ossa_transform_identity();
        }
        ossa__layout V = {o_var, false};
        copy_skins(s, desc, base, &V, unused_counts, listed);
        copy_names(s, desc, base, &V);
    }
    ossa__free(allocator, unused_counts);
    ossa__free(allocator, listed);
    if (r == OSSA_OK) r = make_bind_pose(s, allocator);
    if (r != OSSA_OK) {
        ossa__free(&s->allocator, base);
        return r;
    }
    *out = s;
    return OSSA_OK;
}
