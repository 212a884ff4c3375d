/* Meshes (src/anim/mesh.c): deep copy into one allocation, validation, remapping, bounds. */
#include "test_support.h"

#include <stdlib.h>
#include <string.h>

typedef struct counter { int allocs, frees; } counter;
static void *count_alloc(size_t n, void *u) { ((counter *)u)->allocs++; return malloc(n); }
static void count_free(void *p, void *u) { ((counter *)u)->frees++; free(p); }

static void deep_copy_in_one_allocation(void **state) {
    (void)state;
    float pos[9] = {0, 0, 0, 1, -2, 3, -4, 5, 0.5f};
    float nrm[9] = {0, 0, 1, 0, 0, 1, 0, 0, 1};
    float tan[12] = {1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, -1};
    float uv[6] = {0, 0, 1, 0, 0, 1};
    uint16_t joints[12] = {0, 1, 0, 0, 2, 0, 0, 0, 1, 2, 0, 0};
    float weights[12] = {0.5f, 0.5f, 0, 0, 1, 0, 0, 0, 0.25f, 0.75f, 0, 0};
    uint32_t idx[3] = {0, 1, 2};
    float dpos[9] = {1, 1, 1, 2, 2, 2, 3, 3, 3};
    ossa_morph_target target = {dpos, NULL, NULL};
    float dw[1] = {0.5f};
    ossa_mesh desc;
    memset(&desc, 0, sizeof desc);
    desc.name = "tri";
    desc.vertex_count = 3;
    desc.positions = pos;
    desc.normals = nrm;
    desc.tangents = tan;
    desc.uv0 = uv;
    desc.influences = 4;
    desc.joints = joints;
    desc.weights = weights;
    desc.index_count = 3;
    desc.indices = idx;
    desc.target_count = 1;
    desc.targets = &target;
    desc.default_weights = dw;
    desc.skin = 0;
    desc.node = 4;
    counter k = {0, 0};
    ossa_allocator a = {count_alloc, count_free, &k};
    ossa_mesh *m = NULL;
    assert_int_equal(ossa_mesh_create(&desc, &a, &m), OSSA_OK);
    assert_int_equal(k.allocs, 1);
    /* Change the source: the mesh keeps its own copy. */
    float pos_copy[9];
    memcpy(pos_copy, pos, sizeof pos);
    pos[0] = 99;
    dpos[0] = 99;
    joints[0] = 7;
    assert_memory_equal(m->positions, pos_copy, sizeof pos_copy);
    assert_float_equal(m->targets[0].positions[0], 1, 0);
    assert_null(m->targets[0].normals);
    assert_int_equal(m->joints[0], 0);
    assert_memory_equal(m->tangents, tan, sizeof tan);
    assert_memory_equal(m->uv0, uv, sizeof uv);
    assert_null(m->uv1);
    assert_memory_equal(m->weights, weights, sizeof weights);
    assert_memory_equal(m->indices, idx, sizeof idx);
    assert_float_equal(m->default_weights[0], 0.5f, 0);
    assert_string_equal(m->name, "tri");
    assert_int_equal(m->node, 4);
    /* Bounds: componentwise min/max by hand. */
    ossa_vec3 lo, hi;
    assert_true(ossa_mesh_bounds(m, &lo, &hi));
    ot_assert_near(lo.x, -4, 0); ot_assert_near(lo.y, -2, 0); ot_assert_near(lo.z, 0, 0);
    ot_assert_near(hi.x, 1, 0);  ot_assert_near(hi.y, 5, 0);  ot_assert_near(hi.z, 3, 0);
    /* Remap 0->2, 1->0, 2->1. */
    const uint32_t map[3] = {2, 0, 1};
    assert_int_equal(ossa_mesh_remap_joints(m, map, 3), OSSA_OK);
    const uint16_t expect[12] = {2, 0, 2, 2, 1, 2, 2, 2, 0, 1, 2, 2};
    assert_memory_equal(m->joints, expect, sizeof expect);
    /* Out of range: refused and unchanged. */
    const uint32_t small[2] = {0, 1};
    assert_int_equal(ossa_mesh_remap_joints(m, small, 2), OSSA_ERROR_INVALID_DATA);
    assert_memory_equal(m->joints, expect, sizeof expect);
    ossa_mesh_destroy(m);
    assert_int_equal(k.frees, 1);
    ossa_mesh_destroy(NULL);
}

static void rejects_inconsistent_desc(void **state) {
    (void)state;
    float pos[6] = {0};
    uint32_t idx[3] = {0, 1, 2};
    ossa_mesh desc;
    memset(&desc, 0, sizeof desc);
    desc.vertex_count = 2;
    ossa_mesh *m = (ossa_mesh *)1;
    assert_int_equal(ossa_mesh_create(&desc, NULL, &m), OSSA_ERROR_INVALID_ARGUMENT); /* no positions */
    assert_null(m);
    desc.positions = pos;
    desc.influences = 3;
    assert_int_equal(ossa_mesh_create(&desc, NULL, &m), OSSA_ERROR_INVALID_ARGUMENT);
    desc.influences = 4; /* joints/weights missing */
    assert_int_equal(ossa_mesh_create(&desc, NULL, &m), OSSA_ERROR_INVALID_ARGUMENT);
    desc.influences = 0;
    desc.index_count = 3;
    desc.indices = idx; /* index 2 >= vertex_count */
    assert_int_equal(ossa_mesh_create(&desc, NULL, &m), OSSA_ERROR_INVALID_ARGUMENT);
    desc.index_count = 2;
    assert_int_equal(ossa_mesh_create(&desc, NULL, &m), OSSA_OK);
    assert_string_equal(m->name, "");
    assert_null(m->joints);
    ossa_mesh_destroy(m);
    /* empty mesh: no bounds */
    memset(&desc, 0, sizeof desc);
    assert_int_equal(ossa_mesh_create(&desc, NULL, &m), OSSA_OK);
    ossa_vec3 lo, hi;
    assert_false(ossa_mesh_bounds(m, &lo, &hi));
    ossa_mesh_destroy(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(deep_copy_in_one_allocation),
        cmocka_unit_test(rejects_inconsistent_desc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
