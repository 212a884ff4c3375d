/* Automatic bone maps by name (docs/retargeting.md, "Automatic mapping"). */
#include <ossa/retarget.h>

ossa_result ossa_retarget_map_auto(const ossa_skeleton *skeleton, ossa_retarget_map *out, ossa_diagnostic *diag) {
    (void)skeleton;
    (void)diag;
    ossa_retarget_map_clear(out);
    return OSSA_ERROR_UNSUPPORTED;
}
