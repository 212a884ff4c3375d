/* The quality report of a retargeted clip (docs/retargeting.md, "The report"). */
#include <ossa/retarget.h>

#include <string.h>

ossa_result ossa_retarget_report_compute(const ossa_retarget_rig *rig, const ossa_clip *source_clip,
                                         const ossa_clip *target_clip, const ossa_retarget_bake_options *options,
                                         const ossa_allocator *allocator, ossa_retarget_report *out) {
    (void)rig, (void)source_clip, (void)target_clip, (void)options, (void)allocator;
    if (out) memset(out, 0, sizeof *out);
    return OSSA_ERROR_UNSUPPORTED;
}

size_t ossa_retarget_report_to_json(const ossa_retarget_report *report, char *out, size_t capacity) {
    (void)report;
    if (out && capacity) out[0] = '\0';
    return 0;
}
