/* A crowd of N instances of one skinned character for GPU instancing: each
 * instance plays its own clip with its own phase and speed at its own place on a
 * grid; one update samples every instance and writes all their skin palettes into
 * one instance-major array (instance i's joint j at [i * joint_count + j]), the
 * layout ossa_gl_crowd_upload takes.
 *
 * Why palettes per frame and not the animation baked into a texture: palettes are
 * exact (the clips are sampled, not resampled at a bake rate, so phases and speeds
 * are continuous and any clip, blend or IK can feed them), memory is N x joints x 64
 * bytes per frame instead of clips x frames x joints, and the CPU cost is the
 * sampling job the library optimises; a bake trades that for a GPU-only update.
 *
 * Every instance owns its sampling state, as a game's independent characters do: built
 * clips a sampling context each (created with the crowd, sized for the clips the crowd plays
 * by ossa_sampling_context_create_for_clips, destroyed with it: context_bytes each,
 * ossa_sampling_context_size: 1,424 B for Woman's 10 built clips, so 1.4 MB for 1000),
 * editable clips their cursors. Nothing is allocated per frame.
 *
 * Laid out for threads: each scratch slot owns a fixed contiguous share of the update order for
 * good (crowd_update_slot), its instances' contexts sit contiguously in one arena, and contexts,
 * palettes and pose scratch start on cache lines of their own, so no line of them is written by
 * two slots updated at once (threads); the small per-slot order arrays and the editable
 * clips' cursors may share a line at a slot boundary (false sharing, never a race).
 *
 * Support code shared by the tool (`ossa crowd`, `ossa bench --crowd`) and the tests;
 * it starts no threads: crowd_update_range is a job over an instance range and a
 * scratch slot (pose buffers only, no state kept between calls), so callers split it
 * across their own threads. */
#ifndef OSSA_SUPPORT_CROWD_H
#define OSSA_SUPPORT_CROWD_H

#include <ossa/ossa.h>

typedef struct crowd_instance {
    uint32_t clip;        /* index into the asset's clips */
    float phase;          /* seconds into the clip at time 0 */
    float speed;          /* playback rate */
    ossa_transform place; /* the instance's placement (yaw + position on the grid) */
} crowd_instance;

/* How instances are sampled. */
typedef enum crowd_sampling {
    CROWD_SAMPLING_BUILT = 0,   /* default: built clips (the asset's, or built here compressed with the
                                   default precision), the sampling job with a context per instance */
    CROWD_SAMPLING_LOSSLESS,    /* built here lossless (the editable path to float rounding) */
    CROWD_SAMPLING_EDITABLE     /* the editable clips, clip sample job with cursors per instance */
} crowd_sampling;

typedef struct crowd_desc {
    const ossa_asset *asset;    /* borrowed; must outlive the crowd */
    uint32_t count;             /* instances (>= 1) */
    const uint32_t *clips;      /* clip indices to choose from, round-robin; NULL = every clip */
    uint32_t clip_count;
    uint32_t seed;              /* phases, speeds and yaw jitter; 0 = 1 */
    uint32_t scratch_slots;     /* concurrent crowd_update_range callers (threads): pose buffers; 0 = 1 */
    float spacing;              /* grid spacing in metres; 0 = from the rest-pose bounds */
    crowd_sampling sampling;
} crowd_desc;

/* Cache line bytes: contexts, palettes and each slot's pose scratch start on one and are
 * padded to whole lines, so no line of them is written by two slots (threads). */
enum { CROWD_LINE = 64 };
/* Instances an update samples before it turns their local poses into palettes with one palette
 * batch job (16: one a lane of the AVX-512 kernel, two passes of the AVX2 one). */
enum { CROWD_BATCH = 16 };

/* The instances' sampling contexts, one block: context of order[k] at line-rounded offset k. */
typedef struct crowd_arena {
    unsigned char *base;
    size_t used, capacity;
} crowd_arena;

typedef struct crowd {
    const ossa_asset *asset;
    uint32_t count, joint_count, skin;
    uint32_t clip_count;        /* clips the instances choose from (editable or built) */
    crowd_sampling sampling;
    ossa_built_clip **built;    /* clip_count (BUILT / LOSSLESS), or NULL */
    bool owns_built;            /* built here (else the asset's) */
    ossa_sampling_context **contexts; /* count (built sampling): instance i's own context, else NULL */
    size_t context_bytes;       /* bytes of one instance's context (0 for editable clips) */
    crowd_arena context_arena;  /* where the contexts live, in update order (each slot's contiguous) */
    uint32_t *order;            /* count: instance indices grouped by clip (by time within a clip and
                                   slot after crowd_order_by_time); ranges index this */
    uint32_t *slot_begin;       /* scratch_slots + 1: slot s owns order[slot_begin[s] .. slot_begin[s + 1]),
                                   the same instances every frame */
    uint32_t *order_tmp, *bins; /* count each: crowd_order_by_time's scratch */
    double build_seconds;       /* time spent building clips in crowd_create */
    crowd_instance *instances;
    ossa_mat4 *palettes;        /* count * joint_count, instance-major, from a cache line boundary */
    uint32_t *cursors;          /* count * cursor_stride */
    uint32_t cursor_stride;
    ossa_transform *locals;     /* scratch_slots x CROWD_BATCH poses of joint_count, locals_stride bytes apart */
    float *batch;               /* scratch_slots blocks of the palette batch job's scratch, batch_stride bytes apart */
    size_t locals_stride, batch_stride; /* whole cache lines */
    uint32_t scratch_slots;
    float lo[3], hi[3];         /* bounds of the whole crowd over its clips (for the camera) */
} crowd;

/* Builds the crowd (instances, buffers, bounds; built clips unless EDITABLE). false with
 * a message in err when the asset has no skinned mesh or no clip, a build fails, or on out
 * of memory. */
bool crowd_create(crowd *c, const crowd_desc *desc, char *err, size_t err_size);
void crowd_destroy(crowd *c);

/* Samples the instances order[begin..end) at crowd time t (seconds) into their palettes,
 * each with its own state (built clips: its context; editable clips: its cursors), using
 * scratch slot `slot`'s pose buffers (< scratch_slots; one slot per concurrent caller).
 * Ranges of distinct slots may run at once. No allocation. */
void crowd_update_range(crowd *c, uint32_t begin, uint32_t end, uint32_t slot, float t);
/* crowd_update_range over slot `slot`'s own instances (slot_begin), the same ones every frame;
 * the slots together update every instance exactly once. */
void crowd_update_slot(crowd *c, uint32_t slot, float t);

/* Reorders `order` within each slot's share, within each clip's group there, by the instances'
 * clip times at crowd time t, in CROWD_TIME_BINS bins of the clip's duration (a stable counting sort: O(count + bins)
 * per group, no allocation). Optional: the order changes no palette; neighbours in time
 * read the same key blocks of their clip (a cache effect only, now that every instance
 * steps its own context). */
enum { CROWD_TIME_BINS = 256 };
void crowd_order_by_time(crowd *c, float t);
/* crowd_order_by_time over slot `slot`'s instances only (the thread that updates the slot can
 * order it; slots may be ordered at once). */
void crowd_order_slot_by_time(crowd *c, uint32_t slot, float t);

/* Clip time instance i samples at crowd time t (looping). */
float crowd_instance_time(const crowd *c, uint32_t i, float t);

#endif
