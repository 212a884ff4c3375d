/* ossa_import_file / ossa_import_clips (import.h): the importer each file goes to, in every
 * build. A file whose signature says packed goes to the .ossa loader whatever its name, glTF
 * to the glTF importer, anything else to Assimp when the build has it, and otherwise fails
 * with UNSUPPORTED naming the detected format and the build option. */
#include "test_support.h"

#include <stdio.h>
#include <string.h>

#include <ossa/import.h>

static const char ARM_GLTF[] =
    "{\"asset\": {\"version\": \"2.0\"}, \"nodes\": [{\"name\": \"shoulder\", \"children\": [1]},"
    " {\"name\": \"elbow\", \"translation\": [0, 1, 0], \"children\": [2]},"
    " {\"name\": \"hand\", \"translation\": [0, 0.5, 0]}]}";

static const char *write_text(const char *name, const char *text) {
    const char *path = ot_tmp(name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
    return path;
}

/* glTF by its text: the same asset as the glTF importer's. */
static void test_gltf_goes_to_gltf(void **state) {
    (void)state;
    const char *path = write_text("import_arm.gltf", ARM_GLTF);
    ossa_asset *a = NULL;
    ossa_diagnostic d;
    assert_int_equal(ossa_import_file(path, OSSA_IMPORTER_AUTO, NULL, &a, &d), OSSA_OK);
    assert_int_equal(a->node_count, 3);
    assert_string_equal(a->nodes[1].name, "elbow");
    assert_int_equal(a->nodes[2].parent, 1);
    ot_assert_near(a->skeleton->rest[a->nodes[2].joint].translation.y, 0.5, 0);
    ossa_asset_destroy(a);
    assert_int_equal(ossa_import_file(path, OSSA_IMPORTER_GLTF, NULL, &a, &d), OSSA_OK);
    assert_int_equal(a->node_count, 3);
    ossa_asset_destroy(a);
}

/* A packed file named .gltf still goes to the packed loader (the signature decides); its
 * clips cannot be bound by name (UNSUPPORTED, nothing returned). */
static void test_pack_goes_to_pack(void **state) {
    (void)state;
    ossa_asset *src = NULL, *a = NULL;
    ossa_diagnostic d;
    assert_int_equal(ossa_gltf_load_memory(ARM_GLTF, sizeof ARM_GLTF - 1, NULL, &src, &d), OSSA_OK);
    const char *path = ot_tmp("import_packed_named.gltf");
    assert_int_equal(ossa_pack_write_file(src, NULL, path), OSSA_OK);
    for (int explicit_pack = 0; explicit_pack < 2; explicit_pack++) {
        ossa_importer importer = explicit_pack ? OSSA_IMPORTER_PACK : OSSA_IMPORTER_AUTO;
        assert_int_equal(ossa_import_file(path, importer, NULL, &a, &d), OSSA_OK);
        assert_int_equal(a->skeleton->joint_count, 3);
        assert_int_equal(a->node_count, 3);
        assert_string_equal(a->nodes[2].name, "hand");
        assert_int_equal(a->clip_count, 0); /* packed assets hold built clips only */
        ossa_asset_destroy(a);
    }
    a = (ossa_asset *)&d; /* must be reset */
    assert_int_equal(ossa_import_clips(path, OSSA_IMPORTER_AUTO, src->skeleton, NULL, &a, &d), OSSA_ERROR_UNSUPPORTED);
    assert_null(a);
    assert_non_null(strstr(d.message, "packed .ossa"));
    ossa_asset_destroy(src);
}

/* A Wavefront OBJ triangle: Assimp's when built, else UNSUPPORTED naming format and option. */
static void test_other_formats_need_assimp(void **state) {
    (void)state;
    const char *path = write_text("import_triangle.obj", "o tri\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    ossa_asset *a = NULL;
    ossa_diagnostic d;
    ossa_result r = ossa_import_file(path, OSSA_IMPORTER_AUTO, NULL, &a, &d);
#ifdef OSSA_HAVE_ASSIMP
    assert_int_equal(r, OSSA_OK);
    assert_true(a->mesh_count >= 1);
    assert_int_equal(a->meshes[0]->vertex_count, 3);
    ossa_asset_destroy(a);
#else
    assert_int_equal(r, OSSA_ERROR_UNSUPPORTED);
    assert_null(a);
    assert_non_null(strstr(d.message, "OSSA_WITH_ASSIMP"));
    assert_non_null(strstr(d.message, "Wavefront OBJ"));
    assert_int_equal(ossa_import_file(path, OSSA_IMPORTER_ASSIMP, NULL, &a, &d), OSSA_ERROR_UNSUPPORTED);
#endif
}

static void test_bad_arguments(void **state) {
    (void)state;
    ossa_asset *a = NULL;
    ossa_diagnostic d;
    const char *path = write_text("import_arm2.gltf", ARM_GLTF);
    assert_int_equal(ossa_import_file(NULL, OSSA_IMPORTER_AUTO, NULL, &a, &d), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_import_file(path, OSSA_IMPORTER_AUTO, NULL, NULL, &d), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_import_file(path, (ossa_importer)99, NULL, &a, &d), OSSA_ERROR_INVALID_ARGUMENT);
    assert_null(a);
    assert_int_equal(ossa_import_file(ot_tmp("import_missing.fbx"), OSSA_IMPORTER_AUTO, NULL, &a, &d), OSSA_ERROR_IO);
    assert_null(a);
    assert_int_equal(ossa_import_clips(path, OSSA_IMPORTER_AUTO, NULL, NULL, &a, &d), OSSA_ERROR_INVALID_ARGUMENT);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gltf_goes_to_gltf),
        cmocka_unit_test(test_pack_goes_to_pack),
        cmocka_unit_test(test_other_formats_need_assimp),
        cmocka_unit_test(test_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
