/* The clip builder's private parts (see ossa/built_clip.h, docs/built-clips.md), shared by its
 * files: clip_fit.c (a channel's keys and bits), clip_write.c (the block), clip_loosen.c (the
 * model-space measurement and the loosening) and clip_build.c (the driver).
 *
 * Lossless: constant channels fold into the base pose, every other channel keeps its keys
 * bit for bit on a shared clock (identical key-time arrays are stored once), T/R/S values
 * packed per float lane.
 * Compressed: every T/R/S channel gets a local tolerance derived from the model-space
 * precision (how far the joint's subtree reaches, the parent scale) and is fitted against
 * the exact values at every measurement-grid time (all key times of the clip plus sub-steps):
 * folded when constant within it; else the fewest keys on the key grid (greedy segments whose
 * lerp / corrected nlerp stays within KEY_SHARE of it), then the fewest bits per component
 * (range-reduced; rotations drop their steadiest component) that keep every grid time within
 * it. Then the clip is measured in model space at every grid time; the channels that cause a
 * joint's miss (attribution: each alone in the exact pose) get half the tolerance, until all
 * points are within TARGET_MARGIN x precision; a channel that cannot meet it goes raw (exact).
 * Then a loosening pass gives back what the halving over-spent: per channel, in rounds, a
 * fold, a coarser tolerance or one bit less, each kept only if the model-space error of the
 * channel's subtree stays within the target at every grid time (bounded where it cannot pass
 * the target, evaluated elsewhere); the real measurement has the last word.
 *
 * ossa_clip_build (clip_build.c) runs these as named phases, in order: make_grids (the
 * measurement and key grids), make_channels, exact_poses, lossless_modes or first_fit (base
 * tolerances, a fit per channel), tighten (write, measure, halve the tolerances of what
 * misses), exact_fallback, compact_and_loosen, vertex_pass (with meshes: skin them through the
 * built and the exact clip, tighten what misses; clip_vertices.c), record_measurement. The
 * shells (clip_vertices.c) are model units at the bind pose: each joint's farthest vertex, else
 * options.shell_distance; the virtual vertices sit at axis_shell local units along each axis. */
#ifndef OSSA_ANIM_CLIP_BUILD_INTERNAL_H
#define OSSA_ANIM_CLIP_BUILD_INTERNAL_H

#include <math.h>
#include <string.h>

#include "anim/built_clip_internal.h"

/* A channel's form in the built clip: folded into the base pose (a constant), raw (the source
 * keys bit for bit), or packed (fewer keys, quantised, on the key grid). */
enum { MODE_FOLD, MODE_RAW, MODE_PACKED };
#define MAX_LEVEL 12
#define MIN_LEVEL -2 /* the loosening pass may double a base tolerance this often */
#define START_LEVEL 1 /* errors add up along chains: the fit starts at half the budget */
#define MAX_ITERATIONS 40
#define MAX_STALLED 3 /* iterations without a lower max error before the exact fallback */
#define MAX_SEGMENT 32 /* key-grid steps a segment may span */
#define KEY_DIV 4 /* key-grid steps per key interval (LINEAR/STEP clips) */
#define TARGET_MARGIN 0.92f
#define LEVEL0_SHARE 1.0f
#define KEY_SHARE 0.85f /* of a channel's tolerance for key reduction on exact values */
#define FOLD_TRY_BITS 1024 /* the loosening tries to fold packed channels of at most this many value bits */

/* Flags of build_channel.loosen_tried: the loosening steps already tried (and failed) for a
 * channel, not tried again until a new tolerance opens them (see ossa__build_loosen). */
#define LOOSEN_NO_COARSER 1u         /* no coarser tolerance packs it in fewer bytes within target */
#define LOOSEN_NO_FEWER_BITS(c) (2u << (c)) /* component c (0..2) cannot lose a bit */
#define LOOSEN_FOLD_TRIED 16u        /* folding it (to the reference or its mean) was tried */
#define LOOSEN_REST_FOLD_TRIED 32u   /* folding it to the reference value was tried */

/* One channel of the clip being built: a joint's translation, rotation or scale track, or a
 * weight track, with what the fit chose for it. */
typedef struct build_channel {
    uint32_t target;           /* joint (T/R/S) or weight track index (W) */
    uint8_t kind;              /* OSSA__CH_T, _R, _S or _W */
    const ossa_track *source;  /* the editable track (not owned) */
    int mode;                  /* MODE_FOLD, MODE_RAW or MODE_PACKED */
    int level;                 /* tolerance = base_tolerance / 2^level (x sqrt 2 with half_level) */
    float base_tolerance;      /* level-0 tolerance in channel units (radians-ish for R) */
    float fold_value[4];       /* MODE_FOLD: the constant value (vectors: [3] = 0) */
    /* MODE_PACKED */
    uint8_t interp;            /* OSSA_INTERP_STEP or _LINEAR */
    uint8_t bits[3];           /* bits per stored component */
    uint8_t dropped;           /* rotations: the component rebuilt from the other three */
    uint32_t key_count;
    uint32_t *keys;            /* key_count key-grid indices (into builder.key_grid); capacity key_grid_count */
    uint32_t *quantised;       /* 3 quantised components per key */
    float range_min[3];        /* per stored component: the lowest value, */
    float step[3];             /* the quantisation step (as stored: bfloat16, rounded up), */
    float extent[3];           /* and max - min over the key grid */
    uint32_t probe_time;       /* grid index where the channel's last loosening failed: checked first */
    uint8_t half_level;        /* the loosening's half levels: the tolerance x sqrt 2 */
    uint8_t loosen_tried;      /* LOOSEN_* flags */
} build_channel;

/* The builder's state over one clip. Grid arrays are indexed by grid time g (0 .. grid_count),
 * joint arrays by joint j (0 .. joint_count); "G x J" is g * joint_count + j. */
typedef struct builder {
    const ossa_clip *clip;               /* the editable source (not owned) */
    const ossa_skeleton *skeleton;       /* its rest pose is the reference (not owned) */
    const ossa_allocator *allocator;
    ossa_clip_build_options options;     /* with defaults resolved */
    uint32_t joint_count;
    build_channel *channels;             /* T/R/S by joint, then W */
    uint32_t channel_count;
    float *grid_times;                   /* the measurement grid (seconds, increasing) */
    uint32_t grid_count;
    uint8_t *grid_candidate;             /* per grid time: 2 = a source key time, 1 = may hold a
                                          * packed key, 0 = measured only */
    uint32_t *key_grid;                  /* the key grid: grid indices where packed keys may sit */
    uint8_t *key_grid_rank;              /* per key-grid time: 2 = a key time, 1 = a midpoint between
                                          * two, 0 = other */
    uint32_t key_grid_count;
    ossa_transform *exact_pose;          /* G x J: the editable clip's local pose */
    float *exact_points;                 /* G x J x 12: its virtual vertices (origin + 3 axes x shell) */
    float *channel_values;               /* G x 4: exact values of the channel being fitted */
    float *decoded_keys;                 /* G x 4: its quantised keys, decoded */
    /* the loosening pass (compressed only): the built clip's local pose and each joint's error
     * at every grid time, the subtree bounds, a candidate channel's values, saved keys */
    ossa_transform *built_pose;          /* G x J */
    float *joint_error;                  /* G x J: each joint's error (or a bound above it) */
    float *candidate_error;              /* G x J: the same with a candidate channel */
    ossa_mat4 *subtree_model;            /* J: model matrices of a subtree being evaluated */
    float *subtree_reach;                /* J: how far each joint's subtree reaches (exact poses) */
    float *rotation_bound, *translation_bound; /* J: the loosening's bounds (loosen_bounds), INFINITY = none */
    float *bound_scratch;                /* 2 x J: loosen_bounds' scratch */
    float *rounding_slack;               /* J: twice the float rounding of a computed vertex of each subtree */
    float *candidate_values;             /* G x 4: a candidate channel's decoded values */
    /* the shells (clip_vertices.c): model units at the bind pose, and per axis in local units */
    ossa_mat4 *bind_model;               /* J: the skeleton's bind pose, model space */
    float *joint_shell;                  /* J: model units (the farthest vertex moved, or the default) */
    float *axis_shell;                   /* J x 3: local offsets of the virtual vertices (ossa__axis_shells) */
    float *bind_inverse;                 /* J x 9: the inverse of each bind frame's 3 x 3 part (column-major) */
    uint8_t *moves_vertex;               /* J: 1 when a mesh vertex has a weight > 0 on the joint */
    uint32_t *joint_vertex_start;        /* J + 1: joint j's vertices are joint_vertices[start[j] .. start[j + 1]) */
    uint32_t *joint_vertices;            /* every (joint, vertex) influence once: the vertex's number over all
                                          * skinned meshes (mesh_vertex_base[mesh] + vertex) */
    uint32_t *mesh_vertex_base;          /* options.mesh_count + 1: prefix sums of the skinned meshes' vertices */
    double *joint_center;                /* options.mesh_count x J x 3: per skinned mesh, the mean (mesh space) of
                                          * the vertices each joint moves (the final check's early exit) */
    float *influence_distance;           /* per vertex (mesh_vertex_base numbering) x 8: |position - joint_center|
                                          * of each influence's joint, rounded up */
    uint32_t *index_scratch;             /* key_grid_count x 4 (a channel's keys and values), J
                                          * (ancestors), channel_count (loosening order) */
} builder;

/* A hint that *p is read soon (the grid arrays are G x J: a joint's values over time are a
 * stride of J apart, which the hardware does not fetch ahead). */
#if defined(__GNUC__)
#define BUILD_PREFETCH(p) __builtin_prefetch(p)
#else
#define BUILD_PREFETCH(p) ((void)(p))
#endif

static inline size_t track_floats(const ossa_track *t) {
    return (size_t)t->key_count * t->components * (t->interp == OSSA_INTERP_CUBIC ? 3u : 1u);
}

static inline float *field(ossa_transform *t, int kind) {
    return kind == OSSA__CH_T ? &t->translation.x : kind == OSSA__CH_R ? &t->rotation.x : &t->scale.x;
}

/* The squared error of a channel value a against b: rotations 4 x |a -+ b|^2 (the nearer of q
 * and -q; 2 |a - b| is about the angle between them in radians), vectors |a - b|^2. */
static inline float chan_err2(int kind, const float *a, const float *b) {
    if (kind == OSSA__CH_R) {
        float d = 0.0f, e = 0.0f;
        for (int i = 0; i < 4; i++) {
            d += (a[i] - b[i]) * (a[i] - b[i]);
            e += (a[i] + b[i]) * (a[i] + b[i]);
        }
        return 4.0f * (d < e ? d : e);
    }
    float d = 0.0f;
    for (int i = 0; i < 3; i++) d += (a[i] - b[i]) * (a[i] - b[i]);
    return d;
}

/* The error itself (sqrt(4 x) = 2 sqrt(x) exactly in floats). */
static inline float chan_err(int kind, const float *a, const float *b) { return sqrtf(chan_err2(kind, a, b)); }

/* The step of `bits` bits over extent ext as the block stores it (bfloat16, rounded up). */
static inline float qstep(float ext, uint32_t bits) {
    return bits ? ossa__step_float(ossa__step_bits(ext / (float)((1u << bits) - 1u))) : 0.0f;
}

static inline float level_tol(const build_channel *c) {
    return ldexpf(c->base_tolerance, -c->level) * (c->half_level ? 1.41421356f : 1.0f);
}

/* A packed channel's quantisation while it is fitted: ranges, bits, steps (the extents until
 * the bits are known), the dropped rotation component. */
typedef struct quant_range {
    uint8_t kind, dropped, bits[3];
    float range_min[3], step[3];
} quant_range;

/* ---- clip_vertices.c */

/* Grid times x vertices the final check skins at most per check (the rest are reported). */
#define VERTEX_CHECK_BUDGET ((uint64_t)1 << 23)
/* Rounds of tightening by the final check before the failing chains go exact. */
#define VERTEX_ROUNDS 8

/* The default precision, model units, for a bind-pose height (model units) and the source's
 * declared unit (metres per model unit, 0 = none declared): docs/built-clips.md, "Defaults that fit the model". */
float ossa__default_precision(float height, float metres_per_unit);

/* The shells: B->bind_model, joint_shell, axis_shell, bind_inverse, moves_vertex (allocated
 * here, freed by ossa__build_free_shells). */
ossa_result ossa__build_shells(builder *B);
void ossa__build_free_shells(builder *B);

/* What the final check found. joint_fail_time[j] (J, UINT32_MAX = none) is the grid time of the
 * worst vertex over the target whose largest error share is joint j's. */
typedef struct vertex_check {
    float max_error;
    uint32_t mesh, vertex, joint, grid;
    uint32_t times_checked, times_unchecked;
    bool over; /* a checked vertex is above the target */
} vertex_check;

/* Skins the meshes (B->options.meshes) through bc and through the exact poses at the grid
 * times a per-joint bound cannot clear (at most VERTEX_CHECK_BUDGET vertex evaluations, the
 * times of the largest bounds first). */
ossa_result ossa__build_vertex_check(builder *B, const ossa_built_clip *bc, ossa_sampling_context *ctx, float target,
                                     vertex_check *out, uint32_t *joint_fail_time);

/* ---- clip_fit.c */

/* Whether every key of t has the first key's value (CUBIC: and zero tangents). */
bool ossa__build_track_constant(const ossa_track *t);
/* The reference (rest pose) value of channel ch, bit for bit (vectors: v[3] = 0). */
void ossa__build_rest_value(const builder *B, const build_channel *ch, float v[4]);
/* Whether a folded channel's value is the reference's, bit for bit (then it is not stored). */
bool ossa__build_fold_is_rest(const builder *B, const build_channel *ch);
/* Exact values of channel ch at every grid time (rotations normalised, w >= 0). */
void ossa__build_channel_values(const builder *B, const build_channel *ch, float *X);
/* Quantises exact value x (4 floats, comp: the stored components) with pq's ranges, bits and
 * steps into q[3] (each component to its nearest level) and the decoded key v[4]. (Choosing,
 * for rotations, the combination of the levels below and above closest to x after the dropped
 * component is rebuilt made Woman 0.2 % larger: not done.) */
void ossa__build_quantise_key(const quant_range *pq, const float *x, const int *comp, uint32_t *q, float *v);
/* Fits packed channel ch at tolerance tol (channel units): FOLD, PACKED or RAW. Keys sit on
 * the key grid (B->key_grid); every measurement time is checked. */
void ossa__build_fit(builder *B, build_channel *ch, float tol);

/* ---- clip_write.c */

/* Lanes of a T/R/S raw channel (bit-exact packing): base and bits per float lane, and the
 * bytes of lane table + stream; weight channels stay plain floats (returns 0). */
size_t ossa__build_raw_lanes(const build_channel *c, ossa__bc_lane *lanes, uint32_t *per_key);
/* Bits of packed channel c's value stream (ossa__lift_stream_bits). */
uint64_t ossa__build_stream_bits(const build_channel *c);
/* Serialises the channels into a new built clip. */
ossa_result ossa__build_write(builder *B, ossa_built_clip **out);

/* ---- clip_loosen.c */

/* Model-space error of bc at every grid time against the cached exact points (ctx: a sampling
 * context for J joints and the clip's weights), into e; per joint its largest error into
 * joint_max_error and the grid index where it is into joint_worst_time (J each, reset here).
 * Compressed builds also keep the built pose and each joint's error per grid time
 * (B->built_pose, B->joint_error) for the loosening pass. */
ossa_result ossa__build_measure(builder *B, const ossa_built_clip *bc, ossa_sampling_context *ctx, float *joint_max_error,
                                uint32_t *joint_worst_time, ossa_clip_error *e);
/* Which channels make joint j miss the bound at grid time g: each packed or folded channel of
 * j and its ancestors is put alone into the exact pose; those whose error on j's virtual
 * vertices is at least half the largest are marked (mark: a byte per channel; channel_of: the
 * channel of joint a's T/R/S at a * 3 + kind, -1 = none). */
ossa_result ossa__build_attribute(builder *B, const ossa_built_clip *bc, ossa_sampling_context *ctx, uint32_t j,
                                  uint32_t g, const int32_t *channel_of, unsigned char *mark);
/* Wins back what the halving of whole tolerances over-spent, once the bound is met: in rounds,
 * each channel (by loosen_priority) takes one step of each kind: folded (a small one), a
 * tolerance x sqrt 2 (fewer keys and bits; a raw channel packed again at the first doubling that
 * packs it), one bit less per component; each kept only if the model-space error at every grid
 * time stays within target, a kind that fails is not tried again for that channel (but a new
 * tolerance opens the bit steps again); until a round changes nothing. */
void ossa__build_loosen(builder *B, float target);
/* Drops the key-grid times no packed channel keeps (they cost a float and a mask bit per
 * channel each): the channels' keys, values and so their samples stay the same. */
void ossa__build_compact_key_grid(builder *B);

#endif
