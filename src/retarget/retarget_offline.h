/* Shared by the bake and the report (internal to ossa_retarget). */
#ifndef OSSA_RETARGET_OFFLINE_H
#define OSSA_RETARGET_OFFLINE_H

#include <ossa/retarget.h>

/* The sorted, distinct key times of every transform track of clip (and its start), in a new
 * array (*out_count entries, at least 1). INVALID_DATA when a track's joint >= joint_count. */
ossa_result ossa__retarget_key_times(const ossa_clip *clip, uint32_t joint_count, const ossa_allocator *allocator,
                                     float **out_times, uint32_t *out_count);
/* The source pose of clip at `time` (the source rest pose where the clip has no track). */
ossa_result ossa__retarget_sample_source(const ossa_retarget_rig *rig, const ossa_clip *clip, float time,
                                         ossa_transform *pose);
/* Plays clip through the retarget job at `times` into poses (frames x target joints), with
 * contacts unless options->no_contacts (floors measured over the frames); contact_masks
 * (optional, frames entries) receives each frame's job.contact_mask. */
ossa_result ossa__retarget_play(const ossa_retarget_rig *rig, const ossa_clip *clip, const float *times,
                                uint32_t frames, const ossa_retarget_bake_options *options,
                                const ossa_allocator *allocator, ossa_transform *poses, uint32_t *contact_masks);
/* An editable clip of rig->target from poses (frames x target joints) at times. */
ossa_result ossa__retarget_clip_from_poses(const ossa_retarget_rig *rig, const ossa_clip *source_clip,
                                           const float *times, uint32_t frames, const ossa_transform *poses,
                                           float table_rate, const ossa_allocator *allocator, ossa_clip **out);

#endif
