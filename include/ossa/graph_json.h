/* ossa/graph_json.h: loads an animation-graph description (graph.h) from JSON.
 * Provided by library ossa_gltf (the JSON layer over Debian's jsmn; CMake ossa::ossa_gltf).
 * The runtime has no JSON parser: a game may load descriptions offline, or fill
 * ossa_graph_desc by hand.
 *
 * The schema (docs/graphs.md has it in full):
 *   {"parameters": {"speed": 0.0, "armed": false, "jump": "trigger"},     number = FLOAT with that
 *                                                                           initial value, bool = BOOL,
 *                                                                           "trigger" / "float" / "bool"
 *    "layers": [{"name": "base", "mode": "override"|"additive", "mask": "Spine",
 *                "weight": 1.0 | "parameterName", "start": "move",
 *                "states": {"move": {"blend1d": {"parameter": "speed", "clips": [["Idle", 0.0], ...],
 *                                                "sync": true}, "speed": 1.0},
 *                           "strafe": {"blend2d": {"parameters": ["vx", "vz"],
 *                                                  "clips": [["Idle", 0, 0], ["Walk", 0, 1.4], ...],
 *                                                  "sync": false}},
 *                           "jump": {"clip": "Jump", "loop": false, "speed": 1.0},
 *                           "lean": {"additive": "Lean", "loop": true},
 *                           "none": {"empty": true}},
 *                "transitions": [{"from": "move" | "*", "to": "jump", "when": "jump && speed > 0.1",
 *                                 "exit_time": 0.9, "duration": 0.2,
 *                                 "blend": "crossfade"|"inertialize"|"dead_blend"}]}],
 *    "events": [{"clip": "Walking", "time": 0.31, "name": "footstep"}]}
 * Defaults: mode override, no mask, weight 1, start = the first state, loop true, speed 1,
 * sync false, duration 0.2, blend crossfade. `when` grammar: or := and ("||" and)*;
 * and := unary ("&&" unary)*; unary := "!" unary | "(" or ")" | comparison | NAME | "true" |
 * "false"; comparison := operand ("<"|"<="|">"|">="|"=="|"!=") operand, operand := NAME | number
 * (at least one side a FLOAT parameter); a bare NAME is a BOOL or TRIGGER parameter.
 *
 * Input is untrusted: every error is a result with the JSON pointer of the fault and a message
 * ("/layers/0/transitions/2/to: no state \"Runn\""), never a crash, leak or hang; unknown keys
 * are errors (they are usually typos). The loaded description is ossa_graph_desc_validate'd. */
#ifndef OSSA_GRAPH_JSON_H
#define OSSA_GRAPH_JSON_H

#include "graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Zero means default. */
typedef struct ossa_graph_load_options {
    size_t max_bytes;            /* largest JSON text accepted; 0 = 16 MiB */
    const ossa_allocator *allocator; /* NULL = malloc / free */
} ossa_graph_load_options;

/* Parses `size` bytes of JSON (need not be NUL-terminated) into a description owned by the
 * caller (one allocation, every name and array inside it; free with ossa_graph_desc_destroy).
 * OK; PARSE (JSON syntax, with the byte), INVALID_DATA (schema, names, conditions: diag->path is
 * the JSON pointer), LIMIT (max_bytes or a graph.h limit), OUT_OF_MEMORY, INVALID_ARGUMENT
 * (NULLs). *out is NULL on failure. options and diag may be NULL. */
ossa_result ossa_graph_desc_load_memory(const void *json, size_t size, const ossa_graph_load_options *options,
                                        ossa_graph_desc **out, ossa_diagnostic *diag);
/* The same from a file (IO when it cannot be read). */
ossa_result ossa_graph_desc_load_file(const char *path, const ossa_graph_load_options *options,
                                      ossa_graph_desc **out, ossa_diagnostic *diag);
/* Frees a loaded description; NULL is a no-op. Only for descriptions from the loaders. */
void ossa_graph_desc_destroy(ossa_graph_desc *desc);

/* Compiles one `when` expression (the grammar above) against the parameters into postfix code:
 * out[0, *out_count). OK, INVALID_DATA with diag->message naming the column
 * ("column 9: no parameter \"sped\""; diag->path is left ""), BUFFER_TOO_SMALL (capacity,
 * *out_count then unspecified), LIMIT (nesting deeper than OSSA_GRAPH_MAX_STACK), INVALID_ARGUMENT
 * for NULLs. Never recurses more than OSSA_GRAPH_MAX_STACK deep. */
ossa_result ossa_graph_condition_compile(const char *text, const ossa_graph_parameter_desc *parameters,
                                         uint32_t parameter_count, ossa_graph_instruction *out, uint32_t capacity,
                                         uint32_t *out_count, ossa_diagnostic *diag);

#ifdef __cplusplus
}
#endif
#endif
