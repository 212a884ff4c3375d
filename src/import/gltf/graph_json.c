/* Temporary stubs of graph_json.h; replaced by the loader. */
#include <ossa/graph_json.h>

ossa_result ossa_graph_desc_load_memory(const void *json, size_t size, const ossa_graph_load_options *options,
                                        ossa_graph_desc **out, ossa_diagnostic *diag) {
    (void)json; (void)size; (void)options; (void)diag; if (out) *out = NULL; return OSSA_ERROR_UNSUPPORTED;
}
ossa_result ossa_graph_desc_load_file(const char *path, const ossa_graph_load_options *options,
                                      ossa_graph_desc **out, ossa_diagnostic *diag) {
    (void)path; (void)options; (void)diag; if (out) *out = NULL; return OSSA_ERROR_UNSUPPORTED;
}
void ossa_graph_desc_destroy(ossa_graph_desc *desc) { (void)desc; }
ossa_result ossa_graph_condition_compile(const char *text, const ossa_graph_parameter_desc *parameters,
                                         uint32_t parameter_count, ossa_graph_instruction *out, uint32_t capacity,
                                         uint32_t *out_count, ossa_diagnostic *diag) {
    (void)text; (void)parameters; (void)parameter_count; (void)out; (void)capacity; (void)out_count; (void)diag;
    return OSSA_ERROR_UNSUPPORTED;
}
