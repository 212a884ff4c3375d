/* Temporary stubs of graph.h so dependants compile; replaced by the implementation. */
#include <ossa/graph.h>

ossa_result ossa_graph_desc_validate(const ossa_graph_desc *desc, ossa_diagnostic *diag) {
    (void)desc; (void)diag; return OSSA_ERROR_UNSUPPORTED;
}
ossa_result ossa_graph_clips_from_asset(const ossa_asset *asset, bool prefer_built, ossa_graph_clip *out,
                                        uint32_t capacity, uint32_t *count) {
    (void)asset; (void)prefer_built; (void)out; (void)capacity; (void)count; return OSSA_ERROR_UNSUPPORTED;
}
ossa_result ossa_graph_create(const ossa_graph_desc *desc, const ossa_skeleton *skeleton, const ossa_graph_clip *clips,
                              uint32_t clip_count, const ossa_allocator *allocator, ossa_graph **out,
                              ossa_diagnostic *diag) {
    (void)desc; (void)skeleton; (void)clips; (void)clip_count; (void)allocator; (void)diag;
    if (out) *out = NULL;
    return OSSA_ERROR_UNSUPPORTED;
}
void ossa_graph_destroy(ossa_graph *graph) { (void)graph; }
const ossa_skeleton *ossa_graph_skeleton(const ossa_graph *graph) { (void)graph; return NULL; }
uint32_t ossa_graph_joint_count(const ossa_graph *graph) { (void)graph; return 0; }
uint32_t ossa_graph_parameter_count(const ossa_graph *graph) { (void)graph; return 0; }
const char *ossa_graph_parameter_name(const ossa_graph *graph, uint32_t parameter) { (void)graph; (void)parameter; return NULL; }
ossa_graph_parameter_type ossa_graph_parameter_type_of(const ossa_graph *graph, uint32_t parameter) {
    (void)graph; (void)parameter; return OSSA_GRAPH_PARAMETER_INVALID;
}
int32_t ossa_graph_find_parameter(const ossa_graph *graph, const char *name) { (void)graph; (void)name; return -1; }
uint32_t ossa_graph_layer_count(const ossa_graph *graph) { (void)graph; return 0; }
const char *ossa_graph_layer_name(const ossa_graph *graph, uint32_t layer) { (void)graph; (void)layer; return NULL; }
uint32_t ossa_graph_state_count(const ossa_graph *graph, uint32_t layer) { (void)graph; (void)layer; return 0; }
const char *ossa_graph_state_name(const ossa_graph *graph, uint32_t layer, uint32_t state) {
    (void)graph; (void)layer; (void)state; return NULL;
}
int32_t ossa_graph_find_state(const ossa_graph *graph, uint32_t layer, const char *name) {
    (void)graph; (void)layer; (void)name; return -1;
}
uint32_t ossa_graph_transition_count(const ossa_graph *graph, uint32_t layer) { (void)graph; (void)layer; return 0; }
bool ossa_graph_transition_states(const ossa_graph *graph, uint32_t layer, uint32_t transition, uint32_t *from,
                                  uint32_t *to) {
    (void)graph; (void)layer; (void)transition; (void)from; (void)to; return false;
}
ossa_result ossa_graph_parameters_init(const ossa_graph *graph, ossa_graph_value *values, uint32_t value_count) {
    (void)graph; (void)values; (void)value_count; return OSSA_ERROR_UNSUPPORTED;
}
size_t ossa_graph_instance_size(const ossa_graph *graph) { (void)graph; return 0; }
ossa_result ossa_graph_instance_create(const ossa_graph *graph, const ossa_allocator *allocator,
                                       ossa_graph_instance **out) {
    (void)graph; (void)allocator; if (out) *out = NULL; return OSSA_ERROR_UNSUPPORTED;
}
void ossa_graph_instance_destroy(ossa_graph_instance *instance) { (void)instance; }
void ossa_graph_instance_reset(ossa_graph_instance *instance) { (void)instance; }
const ossa_graph *ossa_graph_instance_graph(const ossa_graph_instance *instance) { (void)instance; return NULL; }
ossa_result ossa_graph_update(ossa_graph_instance *instance, float dt, ossa_graph_value *parameters,
                              uint32_t parameter_count, ossa_graph_output *output) {
    (void)instance; (void)dt; (void)parameters; (void)parameter_count; (void)output; return OSSA_ERROR_UNSUPPORTED;
}
const ossa_transform *ossa_graph_instance_pose(const ossa_graph_instance *instance) { (void)instance; return NULL; }
ossa_result ossa_graph_instance_layer_status(const ossa_graph_instance *instance, uint32_t layer,
                                             ossa_graph_layer_status *out) {
    (void)instance; (void)layer; (void)out; return OSSA_ERROR_UNSUPPORTED;
}
ossa_result ossa_blend_space_2d(const float *xs, const float *ys, uint32_t count, float x, float y, float *weights) {
    (void)xs; (void)ys; (void)count; (void)x; (void)y; (void)weights; return OSSA_ERROR_UNSUPPORTED;
}
ossa_result ossa_dead_blend_record_job_validate(const ossa_dead_blend_record_job *job, ossa_diagnostic *diag) {
    (void)job; (void)diag; return OSSA_ERROR_UNSUPPORTED;
}
ossa_result ossa_dead_blend_record_job_run(ossa_dead_blend_record_job *job) { (void)job; return OSSA_ERROR_UNSUPPORTED; }
ossa_result ossa_dead_blend_apply_job_validate(const ossa_dead_blend_apply_job *job, ossa_diagnostic *diag) {
    (void)job; (void)diag; return OSSA_ERROR_UNSUPPORTED;
}
ossa_result ossa_dead_blend_apply_job_run(ossa_dead_blend_apply_job *job) { (void)job; return OSSA_ERROR_UNSUPPORTED; }
