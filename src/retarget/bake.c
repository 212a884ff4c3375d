/* The offline bake: a whole source clip through the retarget job into a target clip. */
#include <ossa/retarget.h>

ossa_result ossa_retarget_bake(const ossa_retarget_rig *rig, const ossa_clip *source_clip,
                               const ossa_retarget_bake_options *options, const ossa_allocator *allocator,
                               ossa_clip **out) {
    (void)rig, (void)source_clip, (void)options, (void)allocator;
    if (out) *out = NULL;
    return OSSA_ERROR_UNSUPPORTED;
}
