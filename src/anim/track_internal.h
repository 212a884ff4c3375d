/* Internal track helpers shared by clip.c and player.c (not installed). */
#ifndef OSSA_ANIM_TRACK_INTERNAL_H
#define OSSA_ANIM_TRACK_INTERNAL_H

#include <ossa/track.h>

/* Clamp or wrap t into [start, end] exactly as ossa_track_adjust_time documents. */
float ossa__adjust_time(float start, float end, float t, bool loop);
/* Key lookup by strategy (DEFAULT/TABLE: table if present else binary; CURSOR without a
 * cursor: as DEFAULT). t must already be adjusted. */
uint32_t ossa__track_find_key(const ossa_track *track, float t, ossa_lookup lookup, uint32_t *cursor);

#endif
