/* Built clips: the block layout shared by the builder, the loader and the sampler (not installed).
 *
 * A built clip is one little-endian block (docs/built-clips.md), every offset relative to
 * its start and a multiple of 4, 8 bytes of zero padding at its end so the bit reader may
 * load 64 bits anywhere inside a packed stream:
 *
 *   header | name | base pose | clocks | raw channels | packed channels | weight tracks |
 *   grid times | clock times | raw values | packed bit streams | 8 zero bytes
 *
 * base pose: joint_count transforms (10 floats each) = the skeleton's rest pose with every
 *            constant channel folded in; sampling starts from a copy of it.
 * raw:       exact channels (every channel of a lossless clip, weight tracks, and channels
 *            the compressor could not bound otherwise): the editable keys as floats on one
 *            of the shared clocks (distinct key-time arrays), sampled with the editable rules.
 * packed:    compressed T/R/S channels (rotations first, then translations and scales):
 *            key_count keys at grid indices (tbits bits each), then key_count * 3 values of
 *            `bits` bits (range-reduced with min/ext; rotations drop w, kept >= 0), STEP or
 *            LINEAR (lerp; nlerp for rotations). */
#ifndef OSSA_ANIM_BUILT_CLIP_INTERNAL_H
#define OSSA_ANIM_BUILT_CLIP_INTERNAL_H

#include <math.h>
#include <string.h>

#include <ossa/built_clip.h>
#include <ossa/sample.h>

#define OSSA__BC_MAGIC 0x4342534Fu /* "OSBC" */
#define OSSA__BC_VERSION 1u
#define OSSA__BC_FLAG_LOSSLESS 1u
#define OSSA__BC_FLAG_LOOPING 2u
#define OSSA__BC_PAD 8u
#define OSSA__BC_MAX_BITS 16u

enum { OSSA__CH_T = 0, OSSA__CH_R = 1, OSSA__CH_S = 2, OSSA__CH_W = 3 };

typedef struct ossa__bc_header {
    uint32_t magic, version, size, flags;
    float start, end;
    uint32_t joint_count, track_count, weight_track_count, weight_count;
    uint32_t clock_count, raw_count, packed_count, rot_count, grid_count;
    uint32_t name_off, name_len;
    uint32_t base_off, clock_off, raw_off, packed_off, wtrack_off, grid_off;
    float precision, shell_distance, weight_precision;
    uint32_t raw_bytes_lo, raw_bytes_hi;
    float max_error;
    uint32_t worst_joint;
    float worst_time, max_weight_error;
    uint32_t reserved[3];
} ossa__bc_header;

typedef struct ossa__bc_clock {
    uint32_t key_count;  /* >= 1 */
    uint32_t times_off;  /* key_count floats, finite, strictly increasing */
} ossa__bc_clock;

typedef struct ossa__bc_raw {
    uint32_t target;     /* joint (T/R/S) or weight track index (W) */
    uint8_t kind;        /* OSSA__CH_* */
    uint8_t interp;      /* OSSA_INTERP_STEP / LINEAR / CUBIC */
    uint16_t components; /* 3 (T, S), 4 (R), the weight track's components (W) */
    uint32_t clock;
    uint32_t values_off; /* key_count * components (* 3 for CUBIC) floats */
} ossa__bc_raw;

typedef struct ossa__bc_packed {
    uint32_t joint;
    uint8_t kind;        /* OSSA__CH_T / R / S */
    uint8_t interp;      /* OSSA_INTERP_STEP or LINEAR */
    uint8_t bits;        /* 1..16 per value */
    uint8_t tbits;       /* bits per grid index, 0..31 */
    uint32_t key_count;  /* >= 1 */
    uint32_t data_off;   /* bit stream, byte offset */
    float min[3], ext[3];
} ossa__bc_packed;

typedef struct ossa__bc_wtrack {
    uint32_t joint, components, offset, raw; /* raw = UINT32_MAX: no keys, weights are 0 */
} ossa__bc_wtrack;

struct ossa_built_clip {
    ossa_allocator allocator;
    uint64_t id;                 /* unique per object: contexts detect a clip switch with it */
    const ossa__bc_header *h;
    const unsigned char *base;   /* the block, 16-byte aligned */
    const char *name;
    const ossa_transform *pose;
    const ossa__bc_clock *clocks;
    const ossa__bc_raw *raw;
    const ossa__bc_packed *packed;
    const ossa__bc_wtrack *wtracks;
    const float *grid;
};

/* Wraps a block already copied to `block` (16-byte aligned, inside the same allocation as
 * `clip`): sets the cached pointers and a fresh id. The block must be valid. */
void ossa__built_clip_bind(ossa_built_clip *clip, const unsigned char *block);
/* Allocates clip + block in one allocation and copies `size` bytes of `data` in. */
ossa_built_clip *ossa__built_clip_alloc(const ossa_allocator *allocator, const void *data, size_t size);
/* The (writable) block inside a clip from ossa__built_clip_alloc. */
unsigned char *ossa__built_clip_block(ossa_built_clip *clip);

/* Reads `n` (<= 32) bits at bit offset `pos` of `p` (little-endian, LSB first). */
static inline uint32_t ossa__bits_read(const unsigned char *p, uint64_t pos, uint32_t n) {
    uint64_t w;
    memcpy(&w, p + (pos >> 3), 8);
    w >>= (pos & 7u);
    return n >= 32 ? (uint32_t)w : (uint32_t)(w & ((1ull << n) - 1u));
}

/* Dequantises one key's three values q[3] into v[4] (rotations: x y z w with w >= 0). */
static inline void ossa__packed_value(const ossa__bc_packed *p, const uint32_t q[3], float v[4]) {
    float scale = 1.0f / (float)((1u << p->bits) - 1u);
    for (int c = 0; c < 3; c++) v[c] = p->min[c] + p->ext[c] * ((float)q[c] * scale);
    if (p->kind == OSSA__CH_R) {
        float w2 = 1.0f - (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        v[3] = w2 > 0.0f ? sqrtf(w2) : 0.0f;
    } else {
        v[3] = 0.0f;
    }
}

/* Decodes value key k of a packed channel into v[4]. */
static inline void ossa__packed_decode(const unsigned char *block, const ossa__bc_packed *p, uint32_t k, float v[4]) {
    const unsigned char *d = block + p->data_off;
    uint64_t pos = (uint64_t)p->key_count * p->tbits + (uint64_t)k * 3u * p->bits;
    uint32_t q[3];
    for (int c = 0; c < 3; c++) q[c] = ossa__bits_read(d, pos + (uint64_t)c * p->bits, p->bits);
    ossa__packed_value(p, q, v);
}

/* Grid index of key k of a packed channel. */
static inline uint32_t ossa__packed_time_index(const unsigned char *block, const ossa__bc_packed *p, uint32_t k) {
    return p->tbits ? ossa__bits_read(block + p->data_off, (uint64_t)k * p->tbits, p->tbits) : 0u;
}

/* Lerp kernels over the sampling context's SoA channel caches (sample_*.c). For i in
 * [begin, end): s = clamp((t - t0[i]) * inv[i], 0, 1), o = a + (b - a) * s, normalised when
 * `rotation` (4 components; else 3). All kernels give bit-identical results (no FMA). */
typedef struct ossa__lerp_soa {
    const float *t0, *inv;
    const float *a[4], *b[4];
    float *o[4];
} ossa__lerp_soa;
typedef void (*ossa__lerp_kernel)(const ossa__lerp_soa *soa, float t, uint32_t begin, uint32_t end, bool rotation);
void ossa__lerp_scalar(const ossa__lerp_soa *soa, float t, uint32_t begin, uint32_t end, bool rotation);
void ossa__lerp_sse(const ossa__lerp_soa *soa, float t, uint32_t begin, uint32_t end, bool rotation);
void ossa__lerp_avx2(const ossa__lerp_soa *soa, float t, uint32_t begin, uint32_t end, bool rotation);
void ossa__lerp_avx512(const ossa__lerp_soa *soa, float t, uint32_t begin, uint32_t end, bool rotation);

/* ---- error measurement (clip_error.c) ---- */
/* The measurement grid of an editable clip: the union of every track's key times (joints
 * < joint_count and weight tracks), plus `substeps - 1` evenly spaced times inside each
 * interval of that union; {start} for a clip without keys. *out is allocated (caller frees
 * with ossa__free(allocator)). */
ossa_result ossa__clip_grid(const ossa_clip *clip, uint32_t joint_count, uint32_t substeps,
                            const ossa_allocator *allocator, float **out, uint32_t *count);
/* Substeps of the grid: 4, or 8 when a track of the clip is CUBICSPLINE. */
uint32_t ossa__clip_grid_substeps(const ossa_clip *clip);
/* Virtual vertices of a local pose: model matrices of every joint, then per joint the origin
 * and the points at `shell` along its x, y and z axes: out[j * 12 + point * 3 + xyz]. model is
 * joint_count matrices of scratch. */
void ossa__pose_points(const ossa_transform *locals, const int32_t *parents, uint32_t joint_count, float shell,
                       ossa_mat4 *model, float *out);
/* Largest distance per joint between two point sets of ossa__pose_points. */
float ossa__points_error(const float *a, const float *b, uint32_t joint_count, uint32_t *worst_joint, float *per_joint);

#endif
