/* ossa/skeleton.h: joint hierarchy, rest and bind poses, skins, joint reordering.
 * Provided by library ossa (runtime; CMake ossa::ossa, pkg-config ossa).
 *
 * A skeleton is immutable after creation: one allocation from
 * ossa_skeleton_create, freed by ossa_skeleton_destroy. Joints are stored
 * parents-first (parents[i] < i); the builder reorders the caller's joints and
 * keeps both maps (source_index: new → desc index; ossa_skeleton_joint_of_source:
 * desc index → new). All glTF nodes become joints (docs/architecture.md).
 *
 * Skins: each lists skeleton joint indices and one inverse bind matrix each.
 * The bind pose is rebuilt from the inverse bind matrices: world bind =
 * inverse(IBM), local = inverse(parent world) ∘ world; joints no skin covers
 * keep the rest pose. */
#ifndef OSSA_SKELETON_H
#define OSSA_SKELETON_H

#include "math.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ossa_skin {
    const char *name;
    uint32_t joint_count;
    uint32_t *joints;          /* skeleton joint indices */
    ossa_mat4 *inverse_bind;   /* joint_count matrices (identity when the file gave none) */
    int32_t root;              /* skeleton joint index of glTF skin.skeleton, or -1 */
    uint32_t unused_count;     /* skeleton joints this skin does not list, ascending: they get */
    uint32_t *unused;          /* identity in skeleton-indexed palettes (ossa_palette_job) */
} ossa_skin;

typedef struct ossa_skin_desc {
    const char *name;                 /* copied; NULL = "" */
    uint32_t joint_count;
    const uint32_t *joints;           /* indices into the DESC's joint order */
    const ossa_mat4 *inverse_bind;    /* joint_count matrices; NULL = identity */
    int32_t root;                     /* desc joint index or -1 */
} ossa_skin_desc;

typedef struct ossa_skeleton_desc {
    uint32_t joint_count;
    const int32_t *parents;           /* desc joint index of each parent, -1 = root; any order */
    const ossa_transform *rest;       /* local rest pose; NULL = identity */
    const char *const *names;         /* NULL or joint_count names (NULL entries = "") */
    uint32_t skin_count;
    const ossa_skin_desc *skins;
    float metres_per_unit;            /* the length of one model unit in metres, as the source
                                       * declares it (glTF: 1); 0 = not declared. Finite, >= 0 */
} ossa_skeleton_desc;

typedef struct ossa_skeleton {
    uint32_t joint_count;
    int32_t *parents;              /* parents[i] < i, -1 = root */
    ossa_transform *rest;          /* local rest pose */
    ossa_transform *bind;          /* local bind pose (from the skins' inverse bind matrices) */
    const char **names;            /* never NULL entries */
    uint32_t *source_index;        /* joint → desc joint index */
    uint32_t *joint_of_source;     /* desc joint index → joint */
    uint32_t skin_count;
    ossa_skin *skins;
    ossa_allocator allocator;
    float metres_per_unit;         /* from the desc: metres per model unit, 0 = not declared */
} ossa_skeleton;

/* Builds a skeleton: validates parents (in range, no cycles -> INVALID_DATA), reorders
 * parents-first (stable: keeps desc order where it can), copies everything, remaps
 * skins, rebuilds the bind pose. A negative or non-finite metres_per_unit ->
 * INVALID_ARGUMENT. On failure *out is NULL. */
ossa_result ossa_skeleton_create(const ossa_skeleton_desc *desc, const ossa_allocator *allocator,
                                 ossa_skeleton **out);
/* Frees a skeleton; NULL is a no-op. */
void ossa_skeleton_destroy(ossa_skeleton *skeleton);

/* Index of the first joint named `name`, or -1. */
int32_t ossa_skeleton_find_joint(const ossa_skeleton *skeleton, const char *name);

/* Computes a parents-first order for an arbitrary hierarchy: order[new] = old and
 * old_to_new[old] = new (both joint_count entries, caller-owned). INVALID_DATA on
 * cycles or out-of-range parents. The seed's RearrangeSkeleton, as a pure function. */
ossa_result ossa_joint_order(const int32_t *parents, uint32_t joint_count, uint32_t *order, uint32_t *old_to_new);

#ifdef __cplusplus
}
#endif
#endif
