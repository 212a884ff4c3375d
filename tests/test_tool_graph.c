/* The ossa tool's animation-graph options (issue 27, CLI): `sample --graph` prints each
 * sample's active states and running transitions, a trigger set with --set NAME@T changes the
 * state on the first simulated frame at or after T and not before, `graph check` names a
 * missing clip by its JSON path and accepts the Woman example, and a malformed --set is refused.
 * The rig and its graph are generated here; expected poses are worked out from the keys. */
#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gltf_writer.h"

/* ------------------------------------------------------------------ files --- */

/* Root ─ Spine ─ Head along +y (1 apart), no mesh. Clips, each a straight line of Root's x
 * from 0 to x over `duration` seconds: Idle (x 1 over 2 s), Walk (x 2 over 1 s), Jump
 * (x 10 over 0.5 s), and Punch (Spine's x 0 → 3 over 1 s, Root still). */
static void write_rig(const char *path) {
    gw *w = gw_create();
    gw_add(w, "nodes", "{\"name\": \"Root\", \"children\": [1]}");
    gw_add(w, "nodes", "{\"name\": \"Spine\", \"children\": [2], \"translation\": [0, 1, 0]}");
    gw_add(w, "nodes", "{\"name\": \"Head\", \"translation\": [0, 1, 0]}");
    const char *names[4] = {"Idle", "Walk", "Jump", "Punch"};
    const float durations[4] = {2, 1, 0.5f, 1}, xs[4] = {1, 2, 10, 3};
    const int nodes[4] = {0, 0, 0, 1};
    for (int k = 0; k < 4; k++) {
        const float t[2] = {0, durations[k]}, y = nodes[k] ? 1.0f : 0.0f, x[6] = {0, y, 0, xs[k], y, 0};
        int ti = gw_data(w, GW_FLOAT, false, 2, "SCALAR", t), xi = gw_data(w, GW_FLOAT, false, 2, "VEC3", x);
        gw_add(w, "animations", "{\"name\": \"%s\", \"samplers\": [{\"input\": %d, \"output\": %d}], \"channels\": "
                                "[{\"sampler\": 0, \"target\": {\"node\": %d, \"path\": \"translation\"}}]}",
               names[k], ti, xi, nodes[k]);
    }
    gw_add(w, "scenes", "{\"nodes\": [0]}");
    gw_top(w, "\"scene\": 0");
    assert_int_equal(gw_save(&w, GW_GLB, path), 0);
}

/* The rig's graph: base layer "idle" (Idle, looping) → "jump" (Jump, once) on the trigger
 * `jump` with a `blend` transition of `duration` s, back to "idle" at exit time 1; an upper
 * layer masked at Spine, "none" → "punch" while the bool `punch` holds. `idle_clip` names the
 * idle state's clip (a wrong one for the check tests). */
static void write_graph(const char *path, const char *idle_clip, const char *blend, double duration) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fprintf(f,
            "{\"parameters\": {\"speed\": 0.0, \"jump\": \"trigger\", \"punch\": false},\n"
            " \"layers\": [\n"
            "  {\"name\": \"base\", \"start\": \"idle\",\n"
            "   \"states\": {\"idle\": {\"clip\": \"%s\", \"loop\": true},\n"
            "              \"jump\": {\"clip\": \"Jump\", \"loop\": false}},\n"
            "   \"transitions\": [\n"
            "     {\"from\": \"idle\", \"to\": \"jump\", \"when\": \"jump\", \"duration\": %g, \"blend\": \"%s\"},\n"
            "     {\"from\": \"jump\", \"to\": \"idle\", \"exit_time\": 1.0, \"duration\": 0.1, \"blend\": \"crossfade\"}]},\n"
            "  {\"name\": \"upper\", \"mask\": \"Spine\", \"mode\": \"override\", \"weight\": 1.0, \"start\": \"none\",\n"
            "   \"states\": {\"none\": {\"empty\": true}, \"punch\": {\"clip\": \"Punch\", \"loop\": true}},\n"
            "   \"transitions\": [{\"from\": \"none\", \"to\": \"punch\", \"when\": \"punch\", \"duration\": 0.1, "
            "\"blend\": \"crossfade\"}]}]}\n",
            idle_clip, duration, blend);
    fclose(f);
}

/* Same with stderr dropped: stdout alone (the JSON). */
static int tool_stdout(const char *args, char **out) {
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "\"%s\" %s 2>/dev/null", ot_tool(), args);
    return ot_run(cmd, out);
}

#define NEED_TOOL()                                                                                                    \
    do {                                                                                                               \
        if (!ot_tool()) skip();                                                                                        \
    } while (0)

static char rig_path[1024], graph_path[1024];

/* The rig and the crossfade graph, written once. */
static void make_files(void) {
    if (rig_path[0]) return;
    snprintf(rig_path, sizeof rig_path, "%s", ot_tmp("graph_rig.glb"));
    snprintf(graph_path, sizeof graph_path, "%s", ot_tmp("graph_rig.json"));
    write_rig(rig_path);
    write_graph(graph_path, "Idle", "crossfade", 0.1);
}

static double json_num(const gj *j, const char *pointer) {
    int t = gj_find(j, pointer);
    if (t < 0) fail_msg("no %s", pointer);
    return gj_num(j, t);
}

static const char *json_str(const gj *j, const char *pointer) {
    int t = gj_find(j, pointer);
    if (t < 0) fail_msg("no %s", pointer);
    return gj_str(j, t);
}

/* `sample --graph` on the rig with extra arguments; the parsed JSON (caller frees). */
static gj *sample_graph(const char *extra) {
    char args[4096], *out = NULL;
    snprintf(args, sizeof args, "sample '%s' --graph '%s' --vertices 0 %s", rig_path, graph_path, extra);
    int rc = tool_stdout(args, &out);
    if (rc != 0) fail_msg("ossa %s: exit %d\n%s", args, rc, out ? out : "");
    gj *j = gj_parse(out, strlen(out));
    if (!j) fail_msg("not JSON:\n%s", out);
    free(out);
    return j;
}

/* ------------------------------------------------------------------ tests --- */

/* Every sample carries "graph": the start states of both layers, no transition; the idle
 * state plays Idle from time 0 (Root x = t / 2), so the pose is the clip's. */
static void sample_graph_has_the_graph_object(void **state) {
    (void)state;
    NEED_TOOL();
    make_files();
    gj *j = sample_graph("--time 0 --time 0.5 --time 1.5");
    for (int s = 0; s < 3; s++) {
        assert_int_equal(gj_size(j, gj_findf(j, "/samples/%d/graph/states", s)), 2);
        assert_string_equal(gj_str(j, gj_findf(j, "/samples/%d/graph/states/0", s)), "idle");
        assert_string_equal(gj_str(j, gj_findf(j, "/samples/%d/graph/states/1", s)), "none");
        assert_int_equal(gj_size(j, gj_findf(j, "/samples/%d/graph/transitions", s)), 0);
    }
    ot_assert_near(json_num(j, "/samples/1/time"), 0.5, 1e-6);
    ot_assert_near(json_num(j, "/samples/1/nodes/0/translation/0"), 0.25, 1e-4);
    ot_assert_near(json_num(j, "/samples/2/nodes/0/translation/0"), 0.75, 1e-4);
    gj_free(j);
}

/* --set jump@0.55 at --fps 10: frames end at 0.1, 0.2, ... and at each sample time; the trigger
 * is seen by the first update that ends at or after 0.55. A sample at 0.5 (and at 0.54) is still
 * idle; the frame ending at 0.6 enters the jump with a 0.1 s cross-fade from idle that starts
 * there (progress 0: the pose is idle's at 0.6, Root x = 0.3); at 0.65 it is half way: Root x =
 * (idle 0.65 / 2 + jump 10 * 0.05 / 0.5) / 2 = 0.6625; at 0.8 the jump alone, 0.2 s after it
 * started: x = 4 (asked for last: the simulation restarts). The jump lasts 0.5 s: its exit time (1.0) is
 * crossed by the frame ending at 1.1, idle restarts there, so at 1.5 x = 0.4 / 2 = 0.2, and the
 * base layer stays idle (the trigger was used once). */
static void trigger_changes_state_at_its_frame(void **state) {
    (void)state;
    NEED_TOOL();
    make_files();
    gj *j = sample_graph("--fps 10 --set jump@0.55 --time 0.5 --time 0.54 --time 0.6 --time 0.65 --time 1.5 "
                         "--time 2.5 --time 0.8");
    assert_string_equal(json_str(j, "/samples/0/graph/states/0"), "idle");
    assert_string_equal(json_str(j, "/samples/1/graph/states/0"), "idle");
    assert_string_equal(json_str(j, "/samples/2/graph/states/0"), "jump");
    assert_string_equal(json_str(j, "/samples/2/graph/transitions/0/from"), "idle");
    assert_string_equal(json_str(j, "/samples/2/graph/transitions/0/to"), "jump");
    assert_string_equal(json_str(j, "/samples/2/graph/transitions/0/layer"), "base");
    ot_assert_near(json_num(j, "/samples/2/graph/transitions/0/progress"), 0.0, 1e-6);
    ot_assert_near(json_num(j, "/samples/2/nodes/0/translation/0"), 0.3, 1e-4);
    assert_string_equal(json_str(j, "/samples/3/graph/states/0"), "jump");
    ot_assert_near(json_num(j, "/samples/3/graph/transitions/0/progress"), 0.5, 1e-4);
    ot_assert_near(json_num(j, "/samples/3/nodes/0/translation/0"), 0.6625, 1e-4);
    ot_assert_near(json_num(j, "/samples/4/nodes/0/translation/0"), 0.2, 1e-4);
    assert_string_equal(json_str(j, "/samples/4/graph/states/0"), "idle");
    assert_string_equal(json_str(j, "/samples/5/graph/states/0"), "idle");
    assert_int_equal(gj_size(j, gj_find(j, "/samples/5/graph/transitions")), 0);
    /* 0.8 after 2.5: the simulation restarts from 0 and gives the same jump, 0.2 s in: x = 4 */
    assert_string_equal(json_str(j, "/samples/6/graph/states/0"), "jump");
    ot_assert_near(json_num(j, "/samples/6/nodes/0/translation/0"), 4.0, 1e-4);
    gj_free(j);
    /* a bool held from 0.3: the upper layer punches from the first frame at or after it */
    j = sample_graph("--fps 10 --set punch=true@0.3 --time 0.2 --time 0.3 --time 1.0");
    assert_string_equal(json_str(j, "/samples/0/graph/states/1"), "none");
    assert_string_equal(json_str(j, "/samples/1/graph/states/1"), "punch");
    assert_string_equal(json_str(j, "/samples/2/graph/states/1"), "punch");
    assert_int_equal(gj_size(j, gj_find(j, "/samples/2/graph/transitions")), 0);
    gj_free(j);
}

/* Malformed --set arguments and unknown names are refused with a message (exit 2 for syntax). */
static void bad_set_is_refused(void **state) {
    (void)state;
    NEED_TOOL();
    make_files();
    static const char *const BAD[] = {"=1@0.5", "speed=@1", "speed=fast@1", "speed=1@-1", "speed=1@x", "speed=1@",
                                      "@1", "speed=1=2"};
    char args[4096], *out = NULL;
    for (size_t k = 0; k < sizeof BAD / sizeof BAD[0]; k++) {
        snprintf(args, sizeof args, "sample '%s' --graph '%s' --vertices 0 --set '%s'", rig_path, graph_path, BAD[k]);
        int rc = ot_tool_run(args, &out);
        if (rc != 2 || !strstr(out, "--set") || !strstr(out, BAD[k]))
            fail_msg("--set '%s': exit %d, expected 2 and a message naming it:\n%s", BAD[k], rc, out);
        free(out);
    }
    /* well formed but wrong for this graph: an unknown name, a value for a trigger, a bool as a number */
    static const char *const WRONG[][2] = {{"sped=1@0", "no parameter"}, {"jump=1@0", "trigger"},
                                           {"punch=2@0", "true or false"}, {"speed@1", "value"}};
    for (size_t k = 0; k < sizeof WRONG / sizeof WRONG[0]; k++) {
        snprintf(args, sizeof args, "sample '%s' --graph '%s' --vertices 0 --set '%s'", rig_path, graph_path,
                 WRONG[k][0]);
        int rc = ot_tool_run(args, &out);
        if (rc == 0 || !strstr(out, WRONG[k][0]) || !strstr(out, WRONG[k][1]))
            fail_msg("--set '%s': exit %d, expected a failure naming it and '%s':\n%s", WRONG[k][0], rc, WRONG[k][1],
                     out);
        free(out);
    }
    /* --set without --graph, and --graph with --clip, are usage errors */
    snprintf(args, sizeof args, "sample '%s' --set jump@1", rig_path);
    assert_int_equal(ot_tool_run(args, &out), 2);
    assert_non_null(strstr(out, "--graph"));
    free(out);
}

/* `graph check`: a graph naming a missing clip fails with the JSON path of the name; the rig's
 * own graph passes with a summary. */
static void graph_check_names_the_path(void **state) {
    (void)state;
    NEED_TOOL();
    make_files();
    char bad[1024], args[4096], *out = NULL;
    snprintf(bad, sizeof bad, "%s", ot_tmp("graph_missing_clip.json"));
    write_graph(bad, "Idel", "inertialize", 0.2);
    snprintf(args, sizeof args, "graph check '%s' '%s'", bad, rig_path);
    int rc = ot_tool_run(args, &out);
    if (rc == 0 || !strstr(out, "/layers/0/states/idle/clip") || !strstr(out, "Idel"))
        fail_msg("expected a failure naming /layers/0/states/idle/clip and 'Idel', got exit %d:\n%s", rc, out);
    free(out);
    snprintf(args, sizeof args, "graph check '%s' '%s'", graph_path, rig_path);
    rc = ot_tool_run(args, &out);
    if (rc != 0 || !strstr(out, "2 layers")) fail_msg("expected exit 0 and a summary, got %d:\n%s", rc, out);
    free(out);
}

/* The shipped example checks against Woman's clips (skips without the asset). */
static void graph_check_accepts_the_example(void **state) {
    (void)state;
    NEED_TOOL();
    const char *woman = ot_asset("Woman/Woman.gltf");
    const char *source = getenv("OSSA_SOURCE_DIR");
    if (!woman || !source) skip();
    char args[4096], *out = NULL;
    snprintf(args, sizeof args, "graph check '%s/examples/graphs/woman_locomotion.json' '%s'", source, woman);
    int rc = ot_tool_run(args, &out);
    if (rc != 0) fail_msg("exit %d:\n%s", rc, out);
    free(out);
}

/* `ossa view --graph` under Xvfb (skips without GL or xvfb-run): scripted keys change the
 * parameters (2 fires the trigger `jump`, 3 toggles the bool `punch`, 1 and shift+1 = ^1 step the
 * float `speed` by +0.5 and -0.5) and the states after the last frame are printed. 30 frames of
 * 1/60 s: the jump fired before frame 10 lasts 0.5 s, so it still plays at 0.5 s; the punch
 * toggled before frame 12 has faded in (0.1 s). */
static void view_keys_drive_the_parameters(void **state) {
    (void)state;
    NEED_TOOL();
    if (!ot_gl_tool()) skip();
    if (ot_run("command -v xvfb-run > /dev/null 2>&1", NULL) != 0) {
        ot_skip_reason("xvfb-run is not installed: cannot open a window for ossa view");
        skip();
    }
    make_files();
    char cmd[8192], *out = NULL;
    snprintf(cmd, sizeof cmd,
             "LIBGL_ALWAYS_SOFTWARE=1 xvfb-run -a -s \"-screen 0 320x240x24\" \"%s\" view '%s' --graph '%s' "
             "--size 160x120 --frames 30 --press 5:11,6:^1,10:2,12:3 2>&1",
             ot_tool(), rig_path, graph_path);
    int rc = ot_run(cmd, &out);
    if (rc != 0) fail_msg("exit %d:\n%s", rc, out);
    const char *expected[] = {"speed = 0.5", "speed = 1", "speed = 0.5\n", "jump fired", "punch = true",
                              "graph after 30 frames", "base: jump", "upper: punch"};
    const char *at = out;
    for (size_t k = 0; k < sizeof expected / sizeof expected[0]; k++) {
        const char *hit = strstr(at, expected[k]);
        if (!hit) fail_msg("no '%s' (in order) in:\n%s", expected[k], out);
        at = hit + 1;
    }
    free(out);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sample_graph_has_the_graph_object),
        cmocka_unit_test(trigger_changes_state_at_its_frame),
        cmocka_unit_test(bad_set_is_refused),
        cmocka_unit_test(graph_check_names_the_path),
        cmocka_unit_test(graph_check_accepts_the_example),
        cmocka_unit_test(view_keys_drive_the_parameters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
