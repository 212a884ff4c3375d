/* ossa/built_clip.h: the clip builder and the built (runtime) clip (editable clip → build → sample).
 * Provided by library ossa (runtime; CMake ossa::ossa, pkg-config ossa) for built clips (load, accessors, matching);
 * ossa_offline (ossa::ossa_offline) for the builder: ossa_clip_build*, ossa_built_clip_measure.
 *
 * An editable clip (clip.h: float keys exactly as the file gives them) is the exact
 * reference. ossa_clip_build turns it, once, offline or at load, into an opaque,
 * immutable built clip bound to a skeleton: every joint of the skeleton has a
 * transform in the built clip's output (unanimated joints and components come from the
 * skeleton's rest pose at build time), so sampling fills a whole local pose.
 *
 * Two modes:
 *   lossless   reproduces the editable path (STEP, LINEAR with slerp, CUBICSPLINE with
 *              Δt-scaled tangents; clip clock, clamping and looping) to float rounding.
 *   compressed (default) any representation whose error, measured at every time of the
 *              measurement grid, is at most `precision` (ossa_clip_build returns LIMIT
 *              rather than a clip that misses it there; between grid times the 8 % margin
 *              below covers the error in every test, but it is not proven), in model units:
 *              every joint has a shell, model units at the bind pose (the farthest vertex it
 *              moves in options.meshes, else shell_distance); its virtual vertices (origin and
 *              the points a shell away along its bind-pose axes) are transformed through the
 *              whole hierarchy (parent scales included) by the built and the exact (editable)
 *              pose, and the shell error is the largest distance between the two, at every
 *              source key time and between keys (ossa_built_clip_measure's grid). Then, with
 *              meshes, the builder skins them through both clips and tightens whatever vertex
 *              is above the target, so every skinned vertex (linear blend skinning of the base
 *              positions, scale included, morph targets excluded) is within the precision at
 *              every grid time (stats.max_vertex_error). The builder measures what it built and
 *              tightens what fails until every measured time is within 0.92 x precision;
 *              what the tightening leaves above it is stored exactly (the failing joints'
 *              chains, then every channel), and only if even that measures above
 *              `precision` does the build fail. docs/built-clips.md, "The guarantee", has the
 *              proof sketch (shells alone bound a vertex within 4.46 x their error).
 *              Morph weight tracks are bounded by `weight_precision` (absolute; they are
 *              stored exactly today). docs/built-clips.md has the format and the method.
 *
 * A built clip is one relocatable, little-endian block of bytes (no pointers inside):
 * ossa_built_clip_data gives it, ossa_built_clip_load validates and reopens it (the
 * packed .ossa file stores it as is). Thread-safety: a built clip may be sampled from
 * many threads at once (each instance has its own ossa_sampling_context, sample.h). */
#ifndef OSSA_BUILT_CLIP_H
#define OSSA_BUILT_CLIP_H

#include "clip.h"
#include "mesh.h"
#include "skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ossa_built_clip ossa_built_clip;

/* Progress of a build (offline tools): clip_index and clip_count as the caller set them in the
 * options (ossa_clip_build_options.progress_clip_index / _count: a caller building several clips
 * numbers them), and the fraction of this clip's build done, in [0, 1]. Calls for one build are
 * on the calling thread, in order, with fractions that never decrease; a successful build's last
 * call has fraction exactly 1, a failed build never reports 1. The fraction follows the phases
 * (exact poses, fit, measurement rounds, loosening), not time: a phase may hold it for a while. */
typedef void (*ossa_clip_build_progress_fn)(void *user, uint32_t clip_index, uint32_t clip_count, float fraction);

/* Zero means default for every field. */
typedef struct ossa_clip_build_options {
    bool lossless;            /* keep every key exactly (ignores the precision fields) */
    float precision;          /* max model-space error, model units; 0 = scale-aware default,
                               * ossa_clip_build_default_precision (0.1 mm on a 1.8 m character) */
    float shell_distance;     /* model units at the bind pose: the virtual-vertex distance of joints
                               * that move no vertex (all joints without meshes); 0 = 0.03 x (bind-pose
                               * height / 1.8): 3 cm on a 1.8 m character */
    float weight_precision;   /* max absolute error of morph weights; 0 = 1e-3 */
    size_t max_scratch_bytes; /* cap on the builder's scratch; 0 = OSSA_CLIP_BUILD_SCRATCH_CAP */
    /* The skinned meshes the clip deforms (not owned, read during the build only; NULL / 0 =
     * none). Each joint that moves a vertex (any weight > 0) gets as its shell the model-space
     * distance at the bind pose to the farthest vertex it moves, and after the shells are met
     * the builder skins every mesh through the built and the exact clip and tightens whatever
     * vertex misses the precision (docs/built-clips.md, "The guarantee"). Meshes with
     * influences 0 or without weights are skipped. */
    const ossa_mesh *const *meshes;
    uint32_t mesh_count;
    ossa_clip_build_progress_fn progress; /* optional: NULL = no reports */
    void *progress_user;      /* passed to progress */
    uint32_t progress_clip_index, progress_clip_count; /* passed to progress as given (not checked) */
} ossa_clip_build_options;

/* Default cap on ossa_clip_build's scratch (1 GiB). The scratch is about
 *   G x (J x 88 + 36) bytes, plus G x (channels x 16 + J x 48 + 32) bytes when compressing,
 * with J = skeleton joints, channels = 3 x the clip's transform tracks + its weight tracks,
 * G = the measurement grid (ossa_built_clip_measure's sample_count: >= 480 times per second
 * of the clip, more when keys are dense). E.g. 60 joints, 150 channels, 60 s: G ~ 28,800, ~305 MB. */
#define OSSA_CLIP_BUILD_SCRATCH_CAP ((size_t)1 << 30)

typedef struct ossa_clip_build_stats {
    size_t raw_bytes;         /* key data of the editable clip (times + values, as floats) */
    size_t bytes;             /* ossa_built_clip_byte_size of the result */
    float max_error;          /* measured object-space error, model units (lossless: float rounding) */
    uint32_t worst_joint;     /* skeleton joint where max_error occurs */
    float worst_time;         /* clip time, seconds, where max_error occurs */
    float max_weight_error;   /* measured absolute morph-weight error */
    /* The final check on real vertices (ossa_clip_build only: ossa_built_clip_stats and packed
     * files give 0 here). vertex_meshes = 0: built without a mesh, the shells alone bound it. */
    uint32_t vertex_meshes;   /* skinned meshes the check used */
    float max_vertex_error;   /* largest skinned-vertex distance built vs exact, model units */
    uint32_t worst_mesh;      /* index into options.meshes */
    uint32_t worst_vertex;    /* vertex of that mesh */
    uint32_t worst_vertex_joint; /* the influence of that vertex with the largest error share */
    float worst_vertex_time;  /* clip time, seconds */
    uint32_t vertex_times;    /* grid times whose vertices were skinned (the others are bounded) */
    uint32_t vertex_times_unchecked; /* grid times the bound could not clear and the budget skipped */
    float character_height;   /* bind-pose height the defaults scale with, model units */
} ossa_clip_build_stats;

/* Builds `clip` for `skeleton` (tracks name skeleton joints; tracks whose joint is out
 * of range are dropped). `options` and `stats` may be NULL. The skeleton need not outlive
 * the result. On failure *out is NULL and nothing is leaked.
 * INVALID_ARGUMENT for NULL clip/skeleton/out, a negative/NaN/infinite option, or mesh_count > 0
 * with meshes NULL; LIMIT also when a skinned vertex still measures above `precision` once its
 * joints' chains are exact (stats then holds the measurement);
 * OUT_OF_MEMORY; LIMIT when the block would pass 4 GiB, when the scratch would pass
 * options->max_scratch_bytes (checked before allocating it; the formula is above), or when
 * even the exact keys measure above `precision` (float rounding of large model coordinates vs
 * a tiny precision; `stats` then holds that measurement), or when a rest-pose value or key
 * is past 2^50 (~1.1e15) in magnitude, or a CUBICSPLINE tangent times its track's time span
 * is (built clips keep every interpolation finite; the loader refuses blocks past it), or when
 * the clip's key times span more than FLT_MAX seconds (end - start, e.g. keys at -3e38 and
 * 3e38: a built clip's clock, its duration and key intervals are floats; the editable clip
 * samples such a clip exactly, with the interval in double). ossa_clip_build_check says why.
 * Progress: options->progress, when set, is called as the build goes (grid, exact poses, fit,
 * each measurement round, loosening; about every 1 % of the exact poses and of the channels
 * fitted), ending with fraction 1 on success. Build times: docs/performance.md. */
ossa_result ossa_clip_build(const ossa_clip *clip, const ossa_skeleton *skeleton,
                            const ossa_clip_build_options *options, const ossa_allocator *allocator,
                            ossa_built_clip **out, ossa_clip_build_stats *stats);
/* The checks ossa_clip_build makes before building, and the caps it would hit (allocates the
 * measurement grid with malloc, about 5 bytes per grid time, and frees it; O(keys log keys +
 * grid)): OSSA_OK, or the result
 * ossa_clip_build would return for them with `diag` (may be NULL) naming the place in diag->path
 * and diag->message = "clip '<name>': <place>: <why>":
 *   INVALID_ARGUMENT  NULL clip or skeleton ("clip", "skeleton"), a bad option ("options");
 *   LIMIT             the time span past FLT_MAX ("times"), a value past 2^50 ("skeleton",
 *                     "tracks[2].rotation", "weight_tracks[0]"), and the caps, each by name:
 *                     "max_scratch_bytes" (the scratch the measurement grid needs, with the
 *                     grid size, the bytes needed compressed and lossless, and the cap),
 *                     "joint_index_bits" (a track on a joint past 65,535: packed channels
 *                     store 16-bit joints), "block_bytes" (the keys alone pass the block's
 *                     4 GiB), "grid_times" (the measurement grid past 2^29 times);
 *   OUT_OF_MEMORY     the key-time copy could not be allocated.
 * It does not predict OUT_OF_MEMORY of the build, more than 65,535 distinct key masks (rare;
 * "the block's 16-bit mask table") or a missed precision (stats.max_error > precision after a
 * LIMIT: even the exact keys miss it). docs/built-clips.md, "Caps", lists them all. */
ossa_result ossa_clip_build_check(const ossa_clip *clip, const ossa_skeleton *skeleton,
                                  const ossa_clip_build_options *options, ossa_diagnostic *diag);
/* The bind-pose height of the skeleton (the largest extent of its joints' model-space origins
 * at the bind pose, parent scales included; 1.8 when that is 0), model units. 0 for NULL. */
float ossa_skeleton_bind_height(const ossa_skeleton *skeleton);
/* The default precision, model units, with h = ossa_skeleton_bind_height and
 * m = skeleton->metres_per_unit (the source's declared unit; glTF: 1):
 *   m == 0 (no unit declared):  1e-4 x h / 1.8, i.e. 0.1 mm on a 1.8 m character;
 *   m > 0:  min(1e-4 / m, 1e-4 x h / 1.8), but at least 1e-5 x h
 * (0.1 mm in the declared unit, tighter for a character under 1.8 m, never below what float
 * rounding of the model's coordinates lets the builder honour). 0 for NULL. */
float ossa_clip_build_default_precision(const ossa_skeleton *skeleton);
/* Frees a built clip; NULL is a no-op. */
void ossa_built_clip_destroy(ossa_built_clip *clip);

/* ---- accessors (tools read built clips only through these) ---- */
const char *ossa_built_clip_name(const ossa_built_clip *clip);        /* never NULL */
float ossa_built_clip_start(const ossa_built_clip *clip);             /* seconds */
float ossa_built_clip_end(const ossa_built_clip *clip);               /* seconds */
float ossa_built_clip_duration(const ossa_built_clip *clip);          /* end - start */
bool ossa_built_clip_looping(const ossa_built_clip *clip);
uint32_t ossa_built_clip_joint_count(const ossa_built_clip *clip);    /* joints in a sampled pose */
uint32_t ossa_built_clip_track_count(const ossa_built_clip *clip);    /* animated joints of the source clip */
uint32_t ossa_built_clip_weight_track_count(const ossa_built_clip *clip);
/* Joint whose mesh weight track `index` drives, and its component (morph target) count. */
uint32_t ossa_built_clip_weight_track_joint(const ossa_built_clip *clip, uint32_t index);
uint32_t ossa_built_clip_weight_track_components(const ossa_built_clip *clip, uint32_t index);
/* Sum of the components of all weight tracks: the size of sample.h's weights output. */
uint32_t ossa_built_clip_weight_count(const ossa_built_clip *clip);
bool ossa_built_clip_lossless(const ossa_built_clip *clip);
size_t ossa_built_clip_byte_size(const ossa_built_clip *clip);        /* the whole block */
/* Whether `reference` is the rest pose the clip was built with (the skeleton's rest): the
 * XXH64 hash of its first joint_count transforms equals the one the clip records. The
 * sampling job (sample.h) requires it. False for NULLs or reference_count < joint_count. */
bool ossa_built_clip_matches(const ossa_built_clip *clip, const ossa_transform *reference, uint32_t reference_count);
/* The options it was built with (defaults resolved) and what the builder measured. */
ossa_clip_build_options ossa_built_clip_options(const ossa_built_clip *clip);
ossa_clip_build_stats ossa_built_clip_stats(const ossa_built_clip *clip);

/* ---- error measurement ---- */
typedef struct ossa_clip_error {
    float max_error;          /* largest virtual-vertex distance, model units */
    uint32_t worst_joint;     /* skeleton joint where it occurs */
    float worst_time;         /* clip time, seconds, where it occurs */
    float max_weight_error;   /* largest absolute morph-weight difference */
    uint32_t sample_count;    /* times measured */
} ossa_clip_error;

/* Measures `built` against the exact editable path of `reference` (the clip it was built
 * from) on `skeleton`: at every key time of every track and at evenly spaced times inside
 * each interval between consecutive key times of the whole clip (at least 7 per interval,
 * 15 when a track is CUBICSPLINE, and at least 480 per second), both poses start from the skeleton's rest pose; for every joint
 * the origin and the points `shell_distance` model units from it at the bind pose along its
 * bind-pose axes go through the whole hierarchy (ossa_pose_to_model: parent scales included);
 * the error is the largest distance between the two (docs/built-clips.md, "The error metric").
 * shell_distance 0 = 0.03 x ossa_skeleton_bind_height / 1.8.
 * Allocates scratch (a build-time tool, not a hot path). INVALID_ARGUMENT for NULLs, a
 * negative/NaN shell or a built clip whose joint / weight track counts do not match. */
ossa_result ossa_built_clip_measure(const ossa_built_clip *built, const ossa_clip *reference,
                                    const ossa_skeleton *skeleton, float shell_distance,
                                    const ossa_allocator *allocator, ossa_clip_error *out);

/* ---- serialisation ---- */
/* The clip's relocatable block: *size = ossa_built_clip_byte_size bytes, owned by the clip. */
const void *ossa_built_clip_data(const ossa_built_clip *clip, size_t *size);
/* Validates a block from ossa_built_clip_data (untrusted: every offset, count, time and
 * value range is checked; the base pose is finite with unit rotations, every stored key
 * and weight decodes to a finite float, tables may not share spans; validation is linear
 * in `size`) and copies it into a new built clip. Sampling interpolates those finite keys:
 * keys near the float limits (|v| ~ 1e38) can still overflow to infinity in a sampled pose. INVALID_DATA / PARSE with
 * a diagnostic naming the field for a corrupt block; UNSUPPORTED for another format version. */
ossa_result ossa_built_clip_load(const void *data, size_t size, const ossa_allocator *allocator,
                                 ossa_built_clip **out, ossa_diagnostic *diag);

#ifdef __cplusplus
}
#endif
#endif
