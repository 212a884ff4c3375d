/* `ossa retarget` and `--anim SOURCE --retarget`, driving the built tool (issue 26's CLI):
 *   - Woman's Walking onto the built-in demo character packs; the packed file loads with
 *     `ossa info`, has the demo's 17 joints and the clip 'Walking', and `ossa sample` of it gives,
 *     at several times, bone lengths equal to the demo's (|rest local translation|, taken from
 *     support/demo_character.c's skeleton, not from the tool) while the legs do move;
 *   - --report and --json give the quality report (bone-length change 0);
 *   - --print-map lists every required bone with the demo's own joint names;
 *   - a map file with an unknown joint, a broken one and one unmapping a required bone are
 *     refused with the file, the JSON path or the bone named;
 *   - onto a packed target the output holds the retargeted clip only; a packed source is refused;
 *   - CMU's 01_01.bvh (Debian's assimp-testmodels) onto Woman when the file is installed;
 *   - `render --anim demo --retarget --side-by-side` of the demo onto itself: both halves equal.
 * Cases needing Woman.gltf skip without the shared assets; those that draw skip without GL. */
#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ossa/retarget.h>

#include "demo_character.h" /* support/ */
#include "gltf_writer.h"
#include "image_read.h"

#define NEED_TOOL()                                                                                                    \
    do {                                                                                                               \
        if (!ot_tool()) skip();                                                                                        \
    } while (0)

/* Woman.gltf's path (copied), or skips the case with the reason. */
static void need_woman(char *path, size_t size) {
    const char *p = ot_asset("Woman/Woman.gltf");
    if (!p) skip();
    snprintf(path, size, "%s", p);
}

static double json_num(const gj *j, const char *pointer) {
    int t = gj_find(j, pointer);
    if (t < 0) fail_msg("no %s", pointer);
    return gj_num(j, t);
}

/* World positions of the demo's joints (skeleton order, by name) in sample `s` of a parsed
 * `ossa sample` output. */
static void sampled_positions(const gj *j, int s, const ossa_skeleton *demo, double (*pos)[3]) {
    int nodes = gj_findf(j, "/samples/%d/nodes", s);
    if (gj_size(j, nodes) != (int)demo->joint_count) fail_msg("%d nodes, not %u", gj_size(j, nodes), demo->joint_count);
    for (uint32_t k = 0; k < demo->joint_count; k++) {
        const char *name = gj_str(j, gj_findf(j, "/samples/%d/nodes/%u/name", s, k));
        uint32_t joint = demo->joint_count;
        for (uint32_t d = 0; d < demo->joint_count; d++)
            if (!strcmp(demo->names[d], name)) joint = d;
        if (joint == demo->joint_count) fail_msg("sampled node '%s' is no joint of the demo", name);
        for (int c = 0; c < 3; c++) pos[joint][c] = gj_num(j, gj_findf(j, "/samples/%d/nodes/%u/world/%d", s, k, 12 + c));
    }
}

static double distance(const double *a, const double *b) {
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

/* Bone lengths of the sampled file at 4 times equal the demo's rest bone lengths; the lower
 * legs move (by more than 5 cm between two of the times). */
static void check_sampled_bone_lengths(const char *packed, const ossa_skeleton *demo) {
    char args[4096], *out = NULL;
    snprintf(args, sizeof args, "sample '%s' --clip Walking --time 0 --time 0.3 --time 0.6 --time 0.9 --vertices 0 "
             "2>/dev/null", packed);
    assert_int_equal(ot_tool_run(args, &out), 0);
    gj *j = gj_parse(out, strlen(out));
    if (!j) fail_msg("not JSON: %.400s", out);
    double pos[4][DEMO_JOINT_COUNT][3];
    for (int s = 0; s < 4; s++) {
        sampled_positions(j, s, demo, pos[s]);
        for (uint32_t b = 0; b < demo->joint_count; b++) {
            int32_t p = demo->parents[b];
            if (p < 0) continue;
            const ossa_vec3 t = demo->rest[b].translation;
            double expected = sqrt((double)t.x * t.x + (double)t.y * t.y + (double)t.z * t.z);
            ot_assert_near(distance(pos[s][b], pos[s][p]), expected, 2e-4); /* the clip built at 1e-4 */
        }
    }
    int32_t shin = -1;
    for (uint32_t d = 0; d < demo->joint_count; d++)
        if (!strcmp(demo->names[d], "foot_L")) shin = (int32_t)d;
    assert_true(shin >= 0);
    double moved = 0;
    for (int s = 1; s < 4; s++) moved = fmax(moved, distance(pos[s][shin], pos[0][shin]));
    if (!(moved > 0.05)) fail_msg("the left foot moves only %g m over the walk", moved);
    gj_free(j);
    free(out);
}

/* Woman's Walking onto the demo: packs; info shows 17 joints and 'Walking'; bone lengths exact;
 * the report (text and JSON) says the bone lengths did not change. */
static void walking_onto_demo_packs(void **state) {
    (void)state;
    NEED_TOOL();
    char woman[1024], packed[1024], json[1024], args[8192], *out = NULL;
    need_woman(woman, sizeof woman);
    snprintf(packed, sizeof packed, "%s", ot_tmp("retarget_walking.ossa"));
    snprintf(json, sizeof json, "%s", ot_tmp("retarget_walking.json"));
    snprintf(args, sizeof args, "retarget '%s' --to demo --clip Walking --tpose-fix --out '%s' --report --json '%s'",
             woman, packed, json);
    if (ot_tool_run(args, &out) != 0) fail_msg("%s:\n%s", args, out);
    if (!strstr(out, "report 'Walking'") || !strstr(out, "bone length change  0 model units"))
        fail_msg("no report:\n%s", out);
    free(out);
    ossa_asset *demo = demo_character_create();
    assert_non_null(demo);
    /* info: the demo's joints (its one skin covers all of them) and the clip's name */
    snprintf(args, sizeof args, "info '%s' --json 2>/dev/null", packed);
    assert_int_equal(ot_tool_run(args, &out), 0);
    gj *j = gj_parse(out, strlen(out));
    if (!j) fail_msg("not JSON: %.400s", out);
    assert_int_equal(gj_size(j, gj_find(j, "/nodes")), (int)demo->skeleton->joint_count);
    assert_int_equal(gj_size(j, gj_find(j, "/skins/0/joints")), DEMO_JOINT_COUNT);
    assert_int_equal(gj_size(j, gj_find(j, "/clips")), 1);
    assert_string_equal(gj_str(j, gj_find(j, "/clips/0/name")), "Walking");
    gj_free(j);
    free(out);
    check_sampled_bone_lengths(packed, demo->skeleton);
    ossa_asset_destroy(demo);
    /* the JSON report: the source, the clip, bone_length_change 0 */
    FILE *f = fopen(json, "rb");
    assert_non_null(f);
    char text[65536];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    j = gj_parse(text, n);
    if (!j) fail_msg("%s is not JSON: %.400s", json, text);
    assert_string_equal(gj_str(j, gj_find(j, "/clips/0/name")), "Walking");
    ot_assert_near(json_num(j, "/clips/0/report/bone_length_change"), 0, 1e-5);
    assert_true(json_num(j, "/clips/0/report/frame_count") >= 2);
    gj_free(j);
}

/* --print-map demo: every required bone maps to the demo's joint of that role. */
static void print_map_lists_every_required_bone(void **state) {
    (void)state;
    NEED_TOOL();
    /* the demo's names for the required bones, in profile order (support/demo_character.c) */
    static const struct { const char *bone, *joint; } expected[] = {
        {"hips", "hips"}, {"spine", "spine"}, {"head", "head"}, {"left_upper_arm", "upper_arm_L"},
        {"left_lower_arm", "lower_arm_L"}, {"left_hand", "hand_L"}, {"right_upper_arm", "upper_arm_R"},
        {"right_lower_arm", "lower_arm_R"}, {"right_hand", "hand_R"}, {"left_upper_leg", "upper_leg_L"},
        {"left_lower_leg", "lower_leg_L"}, {"left_foot", "foot_L"}, {"right_upper_leg", "upper_leg_R"},
        {"right_lower_leg", "lower_leg_R"}, {"right_foot", "foot_R"}};
    char *out = NULL;
    assert_int_equal(ot_tool_run("retarget --print-map demo demo", &out), 0);
    uint32_t required = 0;
    for (uint32_t b = 0; b < OSSA_HUMANOID_BONE_COUNT; b++) required += ossa_humanoid_bone_required((ossa_humanoid_bone)b);
    assert_int_equal(required, sizeof expected / sizeof expected[0]);
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
        char line[256];
        snprintf(line, sizeof line, "\n%s", expected[i].bone);
        const char *at = strstr(out, line);
        if (!at) fail_msg("no line for %s:\n%s", expected[i].bone, out);
        const char *end = strchr(at + 1, '\n');
        char row[256];
        snprintf(row, sizeof row, "%.*s", (int)(end ? end - at - 1 : 200), at + 1);
        char bone[64], star[8], a[64], b[64];
        if (sscanf(row, "%63s %7s %63s %63s", bone, star, a, b) != 4 || strcmp(star, "*") || strcmp(a, expected[i].joint) ||
            strcmp(b, expected[i].joint))
            fail_msg("row '%s': expected %s * %s %s", row, expected[i].bone, expected[i].joint, expected[i].joint);
    }
    if (!strstr(out, "demo: map complete (17 joints)")) fail_msg("no completeness line:\n%s", out);
    free(out);
}

/* Writes text to a scratch file; returns its path (static). */
static const char *scratch_file(const char *name, const char *text) {
    const char *path = ot_tmp(name);
    assert_int_equal(gw_write_file(path, text, strlen(text)), 0);
    return path;
}

/* Bad map files: an unknown joint (its JSON path), broken JSON (the file), a required bone
 * unmapped (the bone); each exits 1 and writes no output file. */
static void bad_map_files_are_named(void **state) {
    (void)state;
    NEED_TOOL();
    static const struct { const char *file, *text, *expect; } cases[] = {
        {"map_unknown_joint.json", "{\"target\": {\"left_foot\": \"NoSuchJoint\"}}", "/target/left_foot"},
        {"map_broken.json", "{\"target\": {\"left_foot\": ", "map_broken.json"},
        {"map_unmapped.json", "{\"source\": {\"right_hand\": null}}", "right_hand"},
        {"map_unknown_bone.json", "{\"source\": {\"left_tail\": \"hips\"}}", "/source/left_tail"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char map[1024], packed[1024], args[4096], *out = NULL;
        snprintf(map, sizeof map, "%s", scratch_file(cases[i].file, cases[i].text));
        snprintf(packed, sizeof packed, "%s", ot_tmp("retarget_bad_map.ossa"));
        unlink(packed);
        snprintf(args, sizeof args, "retarget demo --to demo --map '%s' --out '%s'", map, packed);
        int rc = ot_tool_run(args, &out);
        if (rc != 1 || !strstr(out, "ossa retarget: ") || !strstr(out, cases[i].expect))
            fail_msg("%s (%s) exited %d, expected 1 naming '%s':\n%s", cases[i].file, cases[i].text, rc, cases[i].expect,
                     out);
        if (!strstr(out, map)) fail_msg("the message does not name %s:\n%s", map, out);
        assert_int_not_equal(access(packed, F_OK), 0);
        free(out);
    }
}

/* Usage errors name what is missing; a missing source file is named with the reason. */
static void usage_errors_name_the_problem(void **state) {
    (void)state;
    NEED_TOOL();
    char *out = NULL, args[2048];
    assert_int_equal(ot_tool_run("retarget demo --out x.ossa", &out), 2);
    assert_non_null(strstr(out, "needs SOURCE, --to TARGET and --out OUT.ossa"));
    free(out);
    snprintf(args, sizeof args, "retarget '%s' --to demo --out '%s'", ot_tmp("no_such_file.glb"),
             ot_tmp("retarget_none.ossa"));
    assert_int_equal(ot_tool_run(args, &out), 1);
    assert_non_null(strstr(out, "no_such_file.glb"));
    free(out);
    assert_int_equal(ot_tool_run("retarget demo --to demo --clip nope --out x.ossa", &out), 1);
    if (!strstr(out, "demo has no clip 'nope'") || !strstr(out, "0:'walk'")) fail_msg("%s", out);
    free(out);
    assert_int_equal(ot_tool_run("retarget --frobnicate", &out), 2);
    if (!strstr(out, "ossa retarget: unknown option '--frobnicate'") || !strstr(out, "usage: ossa retarget"))
        fail_msg("%s", out);
    free(out);
    assert_int_equal(ot_tool_run("info demo --tpose-fix", &out), 2);
    assert_non_null(strstr(out, "go with --anim SOURCE --retarget"));
    free(out);
}

/* CMU 01_01 (31 joints with motion, 22.9 s) onto Woman: packs with Woman's 43 nodes and the
 * clip 'Motion'. Skips when assimp-testmodels is not installed or the tool lacks Assimp. */
static void cmu_onto_woman(void **state) {
    (void)state;
    NEED_TOOL();
    char woman[1024], packed[1024], args[8192], *out = NULL;
    need_woman(woman, sizeof woman);
    const char *cmu = ot_assimp_model("BVH/01_01.bvh");
    if (!cmu) skip();
    assert_int_equal(ot_tool_run("--help", &out), 0);
    bool assimp = strstr(out, "via Assimp") != NULL;
    free(out);
    if (!assimp) {
        ot_skip_reason("the tool was built without Assimp: BVH does not load");
        skip();
    }
    snprintf(packed, sizeof packed, "%s", ot_tmp("retarget_cmu.ossa"));
    /* lossless: compressing 22.9 s of 43 joints would take most of the time */
    snprintf(args, sizeof args, "retarget '%s' --to '%s' --tpose-fix --rest-reference --lossless --out '%s'", cmu,
             woman, packed);
    if (ot_tool_run(args, &out) != 0) fail_msg("%s:\n%s", args, out);
    free(out);
    snprintf(args, sizeof args, "info '%s' --json 2>/dev/null", packed);
    assert_int_equal(ot_tool_run(args, &out), 0);
    gj *j = gj_parse(out, strlen(out));
    if (!j) fail_msg("not JSON: %.400s", out);
    assert_int_equal(gj_size(j, gj_find(j, "/nodes")), 43); /* Woman.gltf's nodes */
    assert_int_equal(gj_size(j, gj_find(j, "/clips")), 1);
    assert_string_equal(gj_str(j, gj_find(j, "/clips/0/name")), "Motion");
    ot_assert_near(json_num(j, "/clips/0/duration"), 22.9, 0.05);
    gj_free(j);
    free(out);
}

/* A packed target (the demo packed with its walk and wave): the output holds the retargeted clip
 * only, and a packed file is refused as the source. */
static void packed_target_holds_only_the_retargeted_clips(void **state) {
    (void)state;
    NEED_TOOL();
    char packed[1024], out_file[1024], args[4096], *out = NULL;
    snprintf(packed, sizeof packed, "%s", ot_tmp("retarget_demo_packed.ossa"));
    snprintf(out_file, sizeof out_file, "%s", ot_tmp("retarget_onto_packed.ossa"));
    snprintf(args, sizeof args, "pack demo '%s'", packed);
    assert_int_equal(ot_tool_run(args, &out), 0);
    free(out);
    snprintf(args, sizeof args, "retarget demo --clip wave --to '%s' --out '%s'", packed, out_file);
    if (ot_tool_run(args, &out) != 0) fail_msg("%s:\n%s", args, out);
    free(out);
    snprintf(args, sizeof args, "info '%s' --json 2>/dev/null", out_file);
    assert_int_equal(ot_tool_run(args, &out), 0);
    gj *j = gj_parse(out, strlen(out));
    if (!j) fail_msg("not JSON: %.400s", out);
    assert_int_equal(gj_size(j, gj_find(j, "/clips")), 1);
    assert_string_equal(gj_str(j, gj_find(j, "/clips/0/name")), "wave");
    ot_assert_near(json_num(j, "/clips/0/duration"), 2.2, 1e-5); /* the demo's wave: 2.2 s */
    gj_free(j);
    free(out);
    snprintf(args, sizeof args, "retarget '%s' --to demo --out '%s'", packed, out_file);
    assert_int_equal(ot_tool_run(args, &out), 1);
    if (!strstr(out, packed) || !strstr(out, "built clips only")) fail_msg("%s", out);
    free(out);
}

/* An offscreen context works (probed once with a tiny render); else the reason is given. */
static bool gl_works(void) {
    static int state = -1;
    if (state < 0) {
        char args[2048], *out = NULL;
        snprintf(args, sizeof args, "render --rest --size 8x8 --out '%s'", ot_tmp("retarget_probe.png"));
        state = ot_tool_run(args, &out) == 0;
        if (!state) ot_skip_reason("no offscreen OpenGL: %s", out ? out : "");
        free(out);
    }
    return state == 1;
}

/* render --side-by-side of the demo retargeted onto itself (no contacts: the identity): the
 * source on the left half and the target on the right show the same figure (not an empty one). */
static void side_by_side_of_the_identity(void **state) {
    (void)state;
    if (!ot_tool() || !ot_gl_tool() || !gl_works()) skip();
    char png[1024], args[4096], *out = NULL;
    snprintf(png, sizeof png, "%s", ot_tmp("retarget_side_by_side.png"));
    snprintf(args, sizeof args, "render demo --anim demo --retarget --no-contacts --clip walk --side-by-side "
             "--from 0.5 --to 0.5 --size 96x48 --ssaa 1 --out '%s'", png);
    if (ot_tool_run(args, &out) != 0 || !strstr(out, "clip 'walk', 1 frame 96x48")) fail_msg("%s:\n%s", args, out);
    free(out);
    ot_image im;
    ot_read_png(png, &im);
    assert_int_equal(im.width, 96);
    const uint8_t *px = ot_image_frame(&im, 0), *background = px; /* the top-left corner */
    uint32_t figure[2] = {0, 0}, half = im.width / 2;
    double centre[2][2] = {{0, 0}, {0, 0}}; /* per half: mean x (within the half), mean y */
    for (uint32_t y = 0; y < im.height; y++)
        for (uint32_t x = 0; x < im.width; x++) {
            if (!memcmp(px + ((size_t)y * im.width + x) * 4, background, 3)) continue;
            uint32_t side = x >= half;
            figure[side]++;
            centre[side][0] += x - side * half, centre[side][1] += y;
        }
    ot_image_free(&im);
    if (figure[0] < 100) fail_msg("the left half shows only %u figure pixels", figure[0]);
    if (figure[1] < 100) fail_msg("the right half shows only %u figure pixels", figure[1]);
    /* each half is framed on its own clip's bounds over the whole clip (the bake is LINEAR between
     * the source's cubic keys): the cameras differ a little, the figures by a few percent */
    ot_assert_near(figure[1], figure[0], 0.15 * figure[0]);
    for (int c = 0; c < 2; c++) ot_assert_near(centre[1][c] / figure[1], centre[0][c] / figure[0], 2.0); /* pixels */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(walking_onto_demo_packs),
        cmocka_unit_test(print_map_lists_every_required_bone),
        cmocka_unit_test(bad_map_files_are_named),
        cmocka_unit_test(usage_errors_name_the_problem),
        cmocka_unit_test(packed_target_holds_only_the_retargeted_clips),
        cmocka_unit_test(cmu_onto_woman),
        cmocka_unit_test(side_by_side_of_the_identity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
