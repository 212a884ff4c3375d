/* --set NAME=VALUE@TIME of `ossa sample/render --graph` (graph_cli.h): the syntax only; the
 * parameter's kind is checked once the graph is loaded (graph_cli.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_cli.h"

static const char SET_SYNTAX[] = "NAME=VALUE@TIME, NAME=VALUE (from time 0) or NAME@TIME (a trigger); "
                                 "VALUE a number, true or false; TIME seconds >= 0";

static bool parse_number(const char *text, size_t length, double *out) {
    char buffer[64];
    if (!length || length >= sizeof buffer) return false;
    memcpy(buffer, text, length);
    buffer[length] = '\0';
    char *end = NULL;
    *out = strtod(buffer, &end);
    return end == buffer + length && isfinite(*out);
}

/* The VALUE text: true / false, or a finite number. */
static bool parse_value(const char *text, size_t length, graph_set *set) {
    if (length == 4 && !strncmp(text, "true", 4)) return set->kind = GRAPH_SET_BOOL, set->value = 1.0f, true;
    if (length == 5 && !strncmp(text, "false", 5)) return set->kind = GRAPH_SET_BOOL, set->value = 0.0f, true;
    double v;
    if (!parse_number(text, length, &v) || fabs(v) > 3.0e38) return false;
    set->kind = GRAPH_SET_NUMBER;
    set->value = (float)v;
    return true;
}

bool graph_set_parse(const char *cmd, const char *text, graph_set *set) {
    memset(set, 0, sizeof *set);
    set->text = text;
    const char *at = strrchr(text, '@'), *equals = strchr(text, '=');
    size_t length = strlen(text);
    const char *name_end = equals ? equals : at ? at : text + length;
    const char *value_end = at ? at : text + length;
    bool ok = name_end > text && (!at || !equals || equals < at);
    set->name_length = (size_t)(name_end - text);
    for (size_t i = 0; ok && i < set->name_length; i++)
        if (text[i] == '@' || text[i] == '=' || text[i] == ' ') ok = false;
    if (ok && equals) ok = parse_value(equals + 1, (size_t)(value_end - equals - 1), set);
    else if (ok) set->kind = GRAPH_SET_TRIGGER;
    double time = 0.0;
    if (ok && at) ok = parse_number(at + 1, strlen(at + 1), &time) && time >= 0.0 && time <= 1.0e6;
    if (!ok) {
        fprintf(stderr, "ossa %s: --set '%s': expected %s\n", cmd, text, SET_SYNTAX);
        return false;
    }
    set->time = time;
    return true;
}
