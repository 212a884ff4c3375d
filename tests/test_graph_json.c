/* The graph description loader (src/import/gltf/graph_json.c): the example read field
 * by field, the `when` compiler's postfix code written out by hand, malformed descriptions
 * with the JSON pointer each must name, every prefix of a valid document (no crash, no leak:
 * a clean PARSE error), hostile nesting and sizes. */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ossa/graph_json.h>

static const char *EXAMPLE =
    "{\"parameters\": {\"speed\": 0.0, \"jump\": \"trigger\", \"armed\": false},\n"
    " \"layers\": [\n"
    "  {\"name\": \"base\", \"start\": \"move\",\n"
    "   \"states\": {\n"
    "     \"move\": {\"blend1d\": {\"parameter\": \"speed\", \"clips\": [[\"Idle\", 0.0], [\"Walking\", 1.4], [\"Running\", 4.0]], \"sync\": true}},\n"
    "     \"jump\": {\"clip\": \"Jump\", \"loop\": false, \"speed\": 1.0}},\n"
    "   \"transitions\": [\n"
    "     {\"from\": \"move\", \"to\": \"jump\", \"when\": \"jump\", \"duration\": 0.2, \"blend\": \"inertialize\"},\n"
    "     {\"from\": \"jump\", \"to\": \"move\", \"exit_time\": 0.9, \"duration\": 0.3, \"blend\": \"crossfade\"},\n"
    "     {\"from\": \"*\", \"to\": \"move\", \"when\": \"speed > 0.1 && !armed\", \"duration\": 0.25, \"blend\": \"dead_blend\"}]},\n"
    "  {\"name\": \"upper\", \"mask\": \"Spine\", \"mode\": \"override\", \"weight\": 1.0, \"start\": \"none\",\n"
    "   \"states\": {\"none\": {\"empty\": true}, \"punch\": {\"clip\": \"Punch\", \"loop\": false}},\n"
    "   \"transitions\": [{\"from\": \"none\", \"to\": \"punch\", \"when\": \"armed\", \"duration\": 0.15, \"blend\": \"inertialize\"},\n"
    "                   {\"from\": \"punch\", \"to\": \"none\", \"exit_time\": 1.0, \"duration\": 0.2, \"blend\": \"crossfade\"}]}]}\n";

static ossa_graph_desc *load(const char *json, ossa_result expect, ossa_diagnostic *diag) {
    ossa_graph_desc *d = NULL;
    memset(diag, 0, sizeof *diag);
    ossa_result r = ossa_graph_desc_load_memory(json, strlen(json), NULL, &d, diag);
    if (r != expect) print_error("%s\n", diag->message);
    assert_int_equal(r, expect);
    assert_true((d != NULL) == (expect == OSSA_OK));
    return d;
}

static void example_fields(void **state) {
    (void)state;
    ossa_diagnostic diag;
    ossa_graph_desc *d = load(EXAMPLE, OSSA_OK, &diag);
    assert_int_equal(d->parameter_count, 3);
    assert_string_equal(d->parameters[0].name, "speed");
    assert_int_equal(d->parameters[0].type, OSSA_GRAPH_PARAMETER_FLOAT);
    assert_int_equal(d->parameters[1].type, OSSA_GRAPH_PARAMETER_TRIGGER);
    assert_int_equal(d->parameters[2].type, OSSA_GRAPH_PARAMETER_BOOL);
    assert_int_equal(d->layer_count, 2);
    const ossa_graph_layer_desc *base = &d->layers[0], *upper = &d->layers[1];
    assert_int_equal(base->state_count, 2);
    assert_int_equal(base->start_state, 0);
    const ossa_graph_state_desc *move = &base->states[0];
    assert_int_equal(move->kind, OSSA_GRAPH_STATE_BLEND_1D);
    assert_true(move->sync);
    assert_int_equal(move->sample_count, 3);
    assert_string_equal(move->samples[1].clip, "Walking");
    assert_true(move->samples[2].x == 4.0f);
    assert_int_equal(base->states[1].kind, OSSA_GRAPH_STATE_CLIP);
    assert_false(base->states[1].loop);
    assert_int_equal(base->transition_count, 3);
    assert_int_equal(base->transitions[0].blend, OSSA_GRAPH_BLEND_INERTIALIZE);
    assert_true(base->transitions[1].has_exit_time && base->transitions[1].exit_time == 0.9f);
    assert_int_equal(base->transitions[2].from, OSSA_GRAPH_ANY_STATE);
    assert_int_equal(base->transitions[2].blend, OSSA_GRAPH_BLEND_DEAD_BLEND);
    /* speed > 0.1 && !armed */
    const ossa_graph_instruction *c = base->transitions[2].condition;
    assert_int_equal(base->transitions[2].condition_count, 4);
    assert_int_equal(c[0].op, OSSA_GRAPH_OP_COMPARE);
    assert_int_equal(c[0].compare, OSSA_GRAPH_GREATER);
    assert_int_equal(c[0].parameter, 0);
    assert_true(c[0].constant == 0.1f);
    assert_int_equal(c[1].op, OSSA_GRAPH_OP_FLAG);
    assert_int_equal(c[1].parameter, 2);
    assert_int_equal(c[2].op, OSSA_GRAPH_OP_NOT);
    assert_int_equal(c[3].op, OSSA_GRAPH_OP_AND);
    assert_string_equal(upper->mask_joint, "Spine");
    assert_int_equal(upper->weight_parameter, OSSA_GRAPH_NONE);
    assert_true(upper->weight == 1.0f);
    assert_int_equal(upper->start_state, 0);
    assert_int_equal(upper->states[0].kind, OSSA_GRAPH_STATE_EMPTY);
    ossa_graph_desc_destroy(d);
}

/* The postfix code of a few expressions, written out by hand. */
static void condition_code(void **state) {
    (void)state;
    ossa_graph_parameter_desc p[4] = {{"a", OSSA_GRAPH_PARAMETER_BOOL, {.flag = false}},
                                      {"b", OSSA_GRAPH_PARAMETER_TRIGGER, {.flag = false}},
                                      {"x", OSSA_GRAPH_PARAMETER_FLOAT, {.number = 0}},
                                      {"y", OSSA_GRAPH_PARAMETER_FLOAT, {.number = 0}}};
    ossa_graph_instruction code[32];
    uint32_t n = 0;
    ossa_diagnostic diag;
    assert_int_equal(ossa_graph_condition_compile("(a || b) && !(x <= -2.5)", p, 4, code, 32, &n, &diag), OSSA_OK);
    assert_int_equal(n, 6);
    const ossa_graph_op ops[] = {OSSA_GRAPH_OP_FLAG, OSSA_GRAPH_OP_FLAG, OSSA_GRAPH_OP_OR, OSSA_GRAPH_OP_COMPARE,
                                 OSSA_GRAPH_OP_NOT, OSSA_GRAPH_OP_AND};
    for (uint32_t i = 0; i < n; i++) assert_int_equal(code[i].op, ops[i]);
    assert_int_equal(code[3].compare, OSSA_GRAPH_LESS_EQUAL);
    assert_true(code[3].constant == -2.5f);
    /* a number on the left mirrors the comparison; two floats compare each other */
    assert_int_equal(ossa_graph_condition_compile("0.5 < x || x != y", p, 4, code, 32, &n, &diag), OSSA_OK);
    assert_int_equal(n, 3);
    assert_int_equal(code[0].op, OSSA_GRAPH_OP_COMPARE);
    assert_int_equal(code[0].compare, OSSA_GRAPH_GREATER);
    assert_int_equal(code[1].op, OSSA_GRAPH_OP_COMPARE_PARAMETERS);
    assert_int_equal(code[1].other, 3);
    assert_int_equal(ossa_graph_condition_compile("true", p, 4, code, 32, &n, &diag), OSSA_OK);
    assert_int_equal(code[0].op, OSSA_GRAPH_OP_TRUE);
    /* errors name the column */
    assert_int_equal(ossa_graph_condition_compile("a && sped > 1", p, 4, code, 32, &n, &diag), OSSA_ERROR_INVALID_DATA);
    assert_string_equal(diag.message, "column 6: no parameter \"sped\"");
    assert_int_equal(ossa_graph_condition_compile("x", p, 4, code, 32, &n, &diag), OSSA_ERROR_INVALID_DATA);
    assert_int_equal(ossa_graph_condition_compile("a > 1", p, 4, code, 32, &n, &diag), OSSA_ERROR_INVALID_DATA);
    assert_int_equal(ossa_graph_condition_compile("(a", p, 4, code, 32, &n, &diag), OSSA_ERROR_INVALID_DATA);
    assert_int_equal(ossa_graph_condition_compile("a b", p, 4, code, 32, &n, &diag), OSSA_ERROR_INVALID_DATA);
    assert_int_equal(ossa_graph_condition_compile("", p, 4, code, 32, &n, &diag), OSSA_ERROR_INVALID_DATA);
    char deep[256];
    memset(deep, '(', 100);
    strcpy(deep + 100, "a");
    assert_int_equal(ossa_graph_condition_compile(deep, p, 4, code, 32, &n, &diag), OSSA_ERROR_LIMIT);
    memset(deep, '!', 200);
    strcpy(deep + 200, "a");
    assert_int_equal(ossa_graph_condition_compile(deep, p, 4, code, 32, &n, &diag), OSSA_ERROR_LIMIT);
    assert_int_equal(ossa_graph_condition_compile("a && a && a", p, 4, code, 3, &n, &diag), OSSA_ERROR_BUFFER_TOO_SMALL);
}

typedef struct bad_case {
    const char *from, *to; /* a replacement in EXAMPLE */
    ossa_result result;
    const char *path;
} bad_case;

/* Each fault names its JSON pointer. */
static void malformed_paths(void **state) {
    (void)state;
    static const bad_case cases[] = {
        {"\"to\": \"move\", \"exit_time\"", "\"to\": \"Runn\", \"exit_time\"", OSSA_ERROR_INVALID_DATA, "/layers/0/transitions/1/to"},
        {"\"when\": \"jump\"", "\"when\": \"jmp\"", OSSA_ERROR_INVALID_DATA, "/layers/0/transitions/0/when"},
        {"\"when\": \"jump\"", "\"when\": \"speed\"", OSSA_ERROR_INVALID_DATA, "/layers/0/transitions/0/when"},
        {"\"blend\": \"inertialize\"}", "\"blend\": \"fade\"}", OSSA_ERROR_INVALID_DATA, "/layers/0/transitions/0/blend"},
        {"\"duration\": 0.2,", "\"duration\": -1,", OSSA_ERROR_INVALID_DATA, "/layers/0/transitions/0/duration"},
        {"\"duration\": 0.2,", "\"duration\": 1e99,", OSSA_ERROR_INVALID_DATA, "/layers/0/transitions/0/duration"},
        {"\"duration\": 0.2,", "\"durration\": 0.2,", OSSA_ERROR_INVALID_DATA, "/layers/0/transitions/0"},
        {"[\"Walking\", 1.4]", "[\"Walking\", -1.4]", OSSA_ERROR_INVALID_DATA, "/layers/0/states/move/blend1d/clips/1"},
        {"[\"Walking\", 1.4]", "[\"Walking\"]", OSSA_ERROR_INVALID_DATA, "/layers/0/states/move/blend1d/clips/1"},
        {"\"parameter\": \"speed\"", "\"parameter\": \"jump\"", OSSA_ERROR_INVALID_DATA, "/layers/0/states/move/blend1d/parameter"},
        {"\"start\": \"move\"", "\"start\": \"mov\"", OSSA_ERROR_INVALID_DATA, "/layers/0/start"},
        {"\"mode\": \"override\"", "\"mode\": \"over\"", OSSA_ERROR_INVALID_DATA, "/layers/1/mode"},
        {"\"weight\": 1.0", "\"weight\": \"wt\"", OSSA_ERROR_INVALID_DATA, "/layers/1/weight"},
        {"\"weight\": 1.0", "\"weight\": \"armed\"", OSSA_ERROR_INVALID_DATA, "/layers/1/weight"},
        {"\"empty\": true", "\"empty\": true, \"clip\": \"Idle\"", OSSA_ERROR_INVALID_DATA, "/layers/1/states/none"},
        {"\"loop\": false, \"speed\": 1.0", "\"loop\": 0, \"speed\": 1.0", OSSA_ERROR_INVALID_DATA, "/layers/0/states/jump/loop"},
        {"\"armed\": false}", "\"armed\": \"maybe\"}", OSSA_ERROR_INVALID_DATA, "/parameters/armed"},
        {"\"name\": \"upper\"", "\"name\": \"base\"", OSSA_ERROR_INVALID_DATA, "/layers/1"},
        {"{\"name\": \"upper\"", "{\"nam\": \"upper\"", OSSA_ERROR_INVALID_DATA, "/layers/1"},
        {"\"layers\": [", "\"layer\": [", OSSA_ERROR_INVALID_DATA, ""},
        {"\"layers\": [", "\"layers\": [[], ", OSSA_ERROR_INVALID_DATA, "/layers/0"},
        {"\"from\": \"none\"", "\"from\": \"punch\"", OSSA_ERROR_INVALID_DATA, "/layers/1/transitions/0/to"},
        {"\"speed\": 1.0}", "\"speed\": 1.0 2.0}", OSSA_ERROR_PARSE, ""},
        {"\"speed\": 1.0}", "\"speed\": \"1.0}", OSSA_ERROR_PARSE, ""},
    };
    char json[4096];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *at = strstr(EXAMPLE, cases[i].from);
        assert_non_null(at);
        size_t head = (size_t)(at - EXAMPLE);
        snprintf(json, sizeof json, "%.*s%s%s", (int)head, EXAMPLE, cases[i].to, at + strlen(cases[i].from));
        ossa_diagnostic diag;
        load(json, cases[i].result, &diag);
        if (strcmp(diag.path, cases[i].path) != 0) print_error("case %zu: %s\n", i, diag.message);
        assert_string_equal(diag.path, cases[i].path);
        assert_true(strncmp(diag.message, cases[i].path, strlen(cases[i].path)) == 0);
    }
    ossa_diagnostic diag;
    const char *at = strstr(EXAMPLE, "\"to\": \"move\", \"exit_time\"");
    snprintf(json, sizeof json, "%.*s\"to\": \"Runn\"%s", (int)(at - EXAMPLE), EXAMPLE, at + strlen("\"to\": \"move\""));
    load(json, OSSA_ERROR_INVALID_DATA, &diag);
    assert_string_equal(diag.message, "/layers/0/transitions/1/to: no state \"Runn\"");
}

/* Every prefix fails cleanly (the whole document loads); garbage and hostile shapes too. */
static void prefixes_and_hostile_input(void **state) {
    (void)state;
    size_t n = strlen(EXAMPLE);
    for (size_t k = 0; k + 1 < n; k++) {
        ossa_graph_desc *d = NULL;
        ossa_diagnostic diag;
        ossa_result r = ossa_graph_desc_load_memory(EXAMPLE, k, NULL, &d, &diag);
        assert_true(r != OSSA_OK);
        assert_null(d);
    }
    ossa_diagnostic diag;
    load("[]", OSSA_ERROR_INVALID_DATA, &diag);
    load("{}", OSSA_ERROR_INVALID_DATA, &diag);
    assert_string_equal(diag.path, "/layers");
    load("{\"layers\": []}", OSSA_ERROR_INVALID_DATA, &diag);
    load("{\"layers\": [{\"name\": \"a\", \"states\": {}}]}", OSSA_ERROR_INVALID_DATA, &diag);
    assert_string_equal(diag.path, "/layers/0/states");
    load("{\"a\" 1}", OSSA_ERROR_PARSE, &diag);
    load("{\"layers\": [{\"name\": \"a\\u0000b\", \"states\": {\"s\": {\"empty\": true}}}]}", OSSA_ERROR_INVALID_DATA,
         &diag);
    assert_string_equal(diag.path, "/layers/0/name");
    size_t depth = 100000;
    char *deep = malloc(2 * depth + 32);
    strcpy(deep, "{\"layers\": ");
    size_t len = strlen(deep);
    for (size_t i = 0; i < depth; i++) deep[len++] = '[';
    for (size_t i = 0; i < depth; i++) deep[len++] = ']';
    deep[len++] = '}', deep[len] = '\0';
    load(deep, OSSA_ERROR_PARSE, &diag);
    free(deep);
    ossa_graph_load_options small = {.max_bytes = 16};
    ossa_graph_desc *d = NULL;
    assert_int_equal(ossa_graph_desc_load_memory(EXAMPLE, strlen(EXAMPLE), &small, &d, &diag), OSSA_ERROR_LIMIT);
    assert_int_equal(ossa_graph_desc_load_file("/nonexistent/graph.json", NULL, &d, &diag), OSSA_ERROR_IO);
    assert_int_equal(ossa_graph_desc_load_memory(NULL, 0, NULL, &d, &diag), OSSA_ERROR_INVALID_ARGUMENT);
}

/* The fuzz seeds load (they are the schema's broadest examples). */
static void fuzz_seeds_load(void **state) {
    (void)state;
    const char *dir = getenv("OSSA_SOURCE_DIR");
    if (!dir) { ot_skip_reason("OSSA_SOURCE_DIR is not set"); skip(); return; }
    const char *names[] = {"example.json", "blend2d.json"};
    for (int i = 0; i < 2; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/fuzz/corpus/fuzz_graph/%s", dir, names[i]);
        ossa_graph_desc *d = NULL;
        ossa_diagnostic diag;
        ossa_result r = ossa_graph_desc_load_file(path, NULL, &d, &diag);
        if (r != OSSA_OK) print_error("%s: %s\n", names[i], diag.message);
        assert_int_equal(r, OSSA_OK);
        ossa_graph_desc_destroy(d);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(example_fields),
        cmocka_unit_test(condition_code),
        cmocka_unit_test(malformed_paths),
        cmocka_unit_test(prefixes_and_hostile_input),
        cmocka_unit_test(fuzz_seeds_load),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
