/* Internal: making an editable clip from another one with new transform tracks (additive
 * clips, root-motion extraction). */
#ifndef OSSA_ANIM_DERIVED_CLIP_H
#define OSSA_ANIM_DERIVED_CLIP_H

#include <string.h>

#include <ossa/clip.h>

/* ossa_clip_create of a clip with `src`'s name, looping flag and weight tracks, and the
 * given transform tracks (copied). */
static inline ossa_result ossa__clip_create_derived(const ossa_clip *src, const ossa_transform_track *tracks,
                                                    uint32_t track_count, const ossa_allocator *allocator,
                                                    ossa_clip **out) {
    ossa_clip_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.name = src->name;
    desc.looping = src->looping;
    desc.track_count = track_count;
    desc.tracks = tracks;
    desc.weight_track_count = src->weight_track_count;
    desc.weight_tracks = src->weight_tracks;
    return ossa_clip_create(&desc, allocator, out);
}

#endif
