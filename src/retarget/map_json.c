/* JSON bone-map files: untrusted input, errors with the JSON pointer (docs/retargeting.md). */
#include <ossa/retarget.h>

ossa_result ossa_retarget_map_load_json(const char *json, size_t size, const char *side,
                                        const ossa_skeleton *skeleton, ossa_retarget_map *map,
                                        ossa_diagnostic *diag) {
    (void)json, (void)size, (void)side, (void)skeleton, (void)map, (void)diag;
    return OSSA_ERROR_UNSUPPORTED;
}

ossa_result ossa_retarget_map_load_file(const char *path, const char *side, const ossa_skeleton *skeleton,
                                        ossa_retarget_map *map, ossa_diagnostic *diag) {
    (void)path, (void)side, (void)skeleton, (void)map, (void)diag;
    return OSSA_ERROR_UNSUPPORTED;
}

size_t ossa_retarget_map_to_json(const ossa_retarget_map *map, const ossa_skeleton *skeleton, char *out,
                                 size_t capacity) {
    (void)map, (void)skeleton;
    if (out && capacity) out[0] = '\0';
    return 0;
}
