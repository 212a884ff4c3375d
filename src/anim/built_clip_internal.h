/* Built clips: the block layout shared by the builder, the loader and the sampler (not installed).
 *
 * A built clip is one little-endian block (docs/built-clips.md), every offset relative to
 * its start and a multiple of 4 (packed value streams: any byte, back to back), 8 bytes of
 * zero padding at its end so the bit reader may
 * load 64 bits anywhere inside a packed stream:
 *
 *   header | name | base pose | clocks | raw channels | packed channels | weight tracks |
 *   grid times | clock times | raw values | key masks | packed value streams | 8 zero bytes
 *
 * base pose: sparse: sampling starts from a copy of the reference (the skeleton's rest pose,
 *            checked by its hash) and writes base_count entries over it: the folded constant
 *            channels that differ from the reference bit for bit (never one a channel
 *            overwrites): base_count codes (joint << 2 | OSSA__CH_R / T / S, the
 *            base_rot_count rotations first, each group strictly increasing), then their values
 *            (4 floats per rotation, then 3 per translation / scale).
 * raw:       exact channels (every channel of a lossless clip, weight tracks, and channels
 *            the compressor could not bound otherwise): the editable keys on one of the shared
 *            clocks (distinct key-time arrays), sampled with the editable rules; T/R/S values
 *            bit-exactly packed per float lane (ordered bits minus the lane's minimum, in as
 *            many bits as the lane's range needs), weights as plain floats.
 * packed:    compressed T/R/S channels (rotations first, then translations and scales) on
 *            the clip's key grid (grid_count increasing times, first = clip start): a mask of
 *            grid_count bits (bit g set = a key at grid[g]; bit 0 always set; equal masks stored
 *            once, in the mask table), and a value stream: per key the 3 stored components
 *            (range-reduced: min + q * step; rotations drop component `drop`, rebuilt as
 *            sqrt(1 - the others' squares), the stored sign keeping it >= 0), the fields lifted
 *            in blocks of 4 keys (ossa__lift_*), STEP or LINEAR (lerp; nlerp for rotations). */
#ifndef OSSA_ANIM_BUILT_CLIP_INTERNAL_H
#define OSSA_ANIM_BUILT_CLIP_INTERNAL_H

#include <float.h>
#include <math.h>
#include <string.h>

#include <ossa/built_clip.h>
#include <ossa/sample.h>

#include "core/cpu.h"

#define OSSA__BC_MAGIC 0x4342534Fu /* "OSBC" */
#define OSSA__BC_VERSION 7u
#define OSSA__BC_FLAG_LOSSLESS 1u
#define OSSA__BC_FLAG_LOOPING 2u
#define OSSA__BC_FLAG_GRID_TICKS 4u /* the key grid as ticks and corrections (ossa__grid_decode) */
#define OSSA__BC_PAD 8u
/* Zero bytes ossa__built_clip_alloc puts after a block in memory (not part of the format): the
 * single-key kernels read 64 bytes at a block start anywhere in the streams without a bounds mask. */
#define OSSA__BC_READ_SLACK 64u
#define OSSA__BC_MAX_BITS 20u

/* Largest magnitude of a stored value (base pose, keys, tangents x the clock's span, packed
 * ranges): interpolating values within it (lerp, Hermite, the norm of a lerped quaternion)
 * stays finite, so a loaded clip always samples to finite poses. The builder refuses clips
 * past it (OSSA_ERROR_LIMIT); 2^50 ~ 1.1e15 model units. */
#define OSSA__BC_VALUE_MAX 0x1p50

/* The magnitude rule for one value (a tangent: also times the span), and for one track's keys (times, values as ossa_track lays them out:
 * CUBIC = in-tangent, value, out-tangent per key): every value within OSSA__BC_VALUE_MAX and,
 * for CUBIC, every tangent times the track's time span too. */
static inline bool ossa__value_bounded(float value, bool tangent, double span) {
    double v = fabs((double)value);
    return v <= OSSA__BC_VALUE_MAX && (!tangent || v * span <= OSSA__BC_VALUE_MAX);
}
static inline bool ossa__values_bounded(const float *values, uint32_t keys, uint32_t components, bool cubic,
                                        double span) {
    uint64_t n = (uint64_t)keys * components * (cubic ? 3u : 1u);
    for (uint64_t i = 0; i < n; i++)
        if (!ossa__value_bounded(values[i], cubic && (i / components) % 3u != 1u, span)) return false;
    return true;
}

/* The time rule: a built clip's clock is float (start, end, the key grid, the raw clocks, and the
 * sampling job's segment lengths, all t1 - t0 in float), so the clip's time span end - start,
 * and with it every key interval, must be a finite float: at most FLT_MAX (3.4e38 s). Finite key
 * times can pass it (-3e38 .. 3e38): the builder refuses such a clip (OSSA_ERROR_LIMIT, and
 * ossa_clip_build_check says why), the loader such a block; the editable path samples it. */
static inline bool ossa__span_fits(float start, float end) { return (double)end - (double)start <= (double)FLT_MAX; }

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
    uint32_t ref_hash_lo, ref_hash_hi; /* ossa__reference_hash of the rest pose it was built with */
    uint32_t base_count, base_rot_count; /* sparse base pose entries (rotations first) */
    uint32_t mask_count, mask_off; /* the key masks: mask_count masks, (grid_count + 7) / 8 bytes each (their key counts: the plan's) */
    uint32_t stream_off; /* the packed channels' value streams, back to back (ossa__bc_packed) */
    /* The key grid's coding (OSSA__BC_FLAG_GRID_TICKS; all 0 without it: grid_count floats):
     * a lattice of grid_ticks + 1 ticks from the clip start, grid_step seconds apart, a bit per
     * tick (set = a grid time), then per grid time its ordered-bits correction from the lattice
     * (ossa__grid_predict), zigzag Exp-Golomb of order grid_code >> 28, grid_code & 0x0FFFFFFF
     * bits in all. */
    float grid_step;
    uint32_t grid_ticks, grid_code;
} ossa__bc_header;

/* The key grid coded as ticks (OSSA__BC_FLAG_GRID_TICKS): tick u's lattice time, computed in
 * double and rounded once (the writer and the loader share it bit for bit); a grid time is
 * the float whose ordered bits are the lattice time's plus its correction (modulo 2^32). */
static inline float ossa__grid_predict(float start, uint32_t tick, float step) {
    return (float)((double)start + (double)tick * (double)step);
}
#define OSSA__GRID_CODE_BITS 0x0FFFFFFFu
/* Bytes of the key grid section: the ticks' bits then the corrections (or grid_count floats). */
static inline uint64_t ossa__bc_grid_bytes(const ossa__bc_header *h) {
    if (!(h->flags & OSSA__BC_FLAG_GRID_TICKS)) return (uint64_t)h->grid_count * sizeof(float);
    return ((uint64_t)h->grid_ticks + 8u) / 8u + ((uint64_t)(h->grid_code & OSSA__GRID_CODE_BITS) + 7u) / 8u;
}
/* Decodes a ticked key grid (the block's header h) into out (grid_count floats; NULL: only
 * checks): false unless the bits stay in the section and are used up, the tick bits number
 * grid_count with tick 0 set, every time is finite, strictly increasing from the clip start,
 * spanning at most FLT_MAX. Linear in the section's bits. */
bool ossa__grid_decode(const ossa__bc_header *h, const unsigned char *block, float *out);

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
    uint32_t values_off; /* lanes_off 0: key_count * lanes floats; else the packed stream */
    uint32_t lanes_off;  /* 0, or lanes ossa__bc_lane (T/R/S only): bit-exact packed floats */
} ossa__bc_raw;

/* One float lane of a packed raw channel (lanes = components, x 3 for CUBIC: in-tangent,
 * value, out-tangent): key k's float is the one whose ordered bits (ossa__float_ord) are
 * base + the k-th `bits`-bit field; a key's lanes are consecutive in the stream. */
typedef struct ossa__bc_lane {
    uint32_t base;
    uint8_t bits; /* 0..32 */
    uint8_t reserved[3];
} ossa__bc_lane;

/* Float bits mapped to an unsigned order (and back): a < b as floats => ord(a) < ord(b). */
static inline uint32_t ossa__float_ord(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
static inline float ossa__ord_float(uint32_t o) {
    uint32_t u = o ^ ((0u - (~o >> 31)) | 0x80000000u); /* top bit set: clear it; else: all bits flipped */
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* A packed channel (32 B). Its value stream (ossa__lift_* below) holds the quantised fields q
 * of its n keys (n = the key count of its mask, the clip's mask table entry `mask`; channels
 * with equal masks share one) lifted in blocks of 4 keys. The streams are back to back from
 * the header's stream_off in packed-channel order, each from a byte boundary
 * (ossa__lift_stream_bits), so a channel's offset is a prefix sum the sampling context takes
 * once per clip switch. */
typedef struct ossa__bc_packed {
    uint16_t joint;      /* < joint_count (the builder refuses packed joints past 65535: LIMIT) */
    uint8_t kind;        /* OSSA__CH_T / R / S */
    uint8_t interp;      /* OSSA_INTERP_STEP or LINEAR */
    uint32_t widths;     /* anchor bits wa[c] (0..OSSA__BC_MAX_BITS) at 5c; the narrow blocks'
                          * reductions d1[c] (0..7, <= w1[c]) at 15 + 5c and d2[c] (0..3, <= w2[c])
                          * at 18 + 5c (all 0: no narrow blocks, no flags); rotations: the dropped
                          * component (0..3 = x y z w) at 30 */
    uint32_t resid;      /* residual bits: w1[c] (keys 4m + 1, 4m + 3) at 5c, w2[c] (keys 4m + 2) at
                          * 15 + 5c, each <= wa[c]; bits 30..31 reserved (0) */
    uint16_t mask;       /* index in the mask table */
    uint16_t step[3];    /* the steps' float bits >> 16 (ossa__step_float; 0 when bits is 0) */
    float min[3];        /* value = min + q * step (bits 0: min) */
} ossa__bc_packed;

static inline uint32_t ossa__pk_bits(const ossa__bc_packed *p, int c) { return (p->widths >> (5 * c)) & 31u; }
static inline uint32_t ossa__pk_reserved(const ossa__bc_packed *p) { return p->resid >> 30; }
static inline uint32_t ossa__pk_drop(const ossa__bc_packed *p) { return p->widths >> 30; }
static inline uint32_t ossa__pk_w1(const ossa__bc_packed *p, int c) { return (p->resid >> (5 * c)) & 31u; }
static inline uint32_t ossa__pk_w2(const ossa__bc_packed *p, int c) { return (p->resid >> (15 + 5 * c)) & 31u; }
static inline uint32_t ossa__pk_d1(const ossa__bc_packed *p, int c) { return (p->widths >> (15 + 5 * c)) & 7u; }
static inline uint32_t ossa__pk_d2(const ossa__bc_packed *p, int c) { return (p->widths >> (18 + 5 * c)) & 3u; }
static inline bool ossa__pk_flagged(const ossa__bc_packed *p) { return ((p->widths >> 15) & 0x7FFFu) != 0; }
static inline uint32_t ossa__pk_narrow(const uint8_t d1[3], const uint8_t d2[3]) {
    uint32_t w = 0;
    for (int c = 0; c < 3; c++) w |= ((uint32_t)d1[c] | (uint32_t)d2[c] << 3) << (15 + 5 * c);
    return w;
}
static inline uint32_t ossa__pk_widths(const uint8_t bits[3], uint32_t drop) {
    uint32_t w = drop << 30;
    for (int c = 0; c < 3; c++) w |= (uint32_t)bits[c] << (5 * c);
    return w;
}
static inline uint32_t ossa__pk_resid(const uint8_t w1[3], const uint8_t w2[3]) {
    uint32_t w = 0;
    for (int c = 0; c < 3; c++) w |= (uint32_t)w1[c] << (5 * c) | (uint32_t)w2[c] << (15 + 5 * c);
    return w;
}
/* Packed steps keep the top 16 bits of their float (bfloat16, rounded up so the range still
 * covers the channel): the builder quantises with the stored value. */
static inline uint16_t ossa__step_bits(float s) {
    uint32_t u;
    memcpy(&u, &s, 4);
    return (uint16_t)(((uint64_t)u + 0xFFFFu) >> 16);
}
static inline float ossa__step_float(uint16_t b) {
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* Lifted value streams. A channel of n keys has M = ossa__lift_blocks(n) blocks of 4 keys and
 * 4M + 1 slots: keys 0 .. n - 1, then (at most 3, n >= 2) virtual keys the builder extrapolates
 * (never sampled: they only make the last block whole). Block m covers slots 4m .. 4m + 4 and
 * stores, each as three fields (components 0, 1, 2):
 *   a0 = q[4m] (wa bits),  r1 (w1 bits),  r2 (w2 bits),  r3 (w1 bits)
 * and the stream ends with the final anchor q[4M] (wa bits), so block m's a4 is block m + 1's
 * a0. A *flagged* channel (ossa__pk_flagged: some reduction d1, d2 not 0) starts with M flag
 * bits (bit m set: block m is wide) and has two block sizes: a narrow block's residuals take
 * w1 - d1 and w2 - d2 bits, a wide block's w1 and w2. Block m starts at bit
 *   F + m * N + rank(m) * (W - N)
 * (F = M when flagged, else 0; N, W: the narrow and wide blocks' bits, A + 2 R1 + R2 over the
 * components; rank(m): the flags set before m, a popcount; unflagged: N = W). Per component,
 * with w the field's width, bias(w) = 2^w / 2 (0 for w = 0) and every sum modulo 2^wa:
 *   q2 = (a0 + a4) / 2 + r2 - bias(w2)                     (the midpoint, floored)
 *   q1 = floor((3 a0 + 6 q2 - a4) / 8) + r1 - bias(w1)     (the parabola through a0, q2, a4)
 *   q3 = floor((3 a4 + 6 q2 - a0) / 8) + r3 - bias(w1)
 * The builder stores the residual q - prediction (modulo 2^wa) in the fewest bits whose signed
 * range [-bias(w), bias(w) - 1] holds every one (w = wa holds any) and picks the reductions
 * that make the stream shortest; any stored bits decode to fields within 0 .. 2^wa - 1. */
static inline uint32_t ossa__lift_blocks(uint32_t n) { return n <= 1u ? 1u : (n + 2u) / 4u; }
/* Anchor bits A and the narrow and wide blocks' bits N, W of packed channel p. */
static inline void ossa__lift_sizes(const ossa__bc_packed *p, uint32_t *A, uint32_t *N, uint32_t *W) {
    uint32_t a = 0, n = 0, w = 0;
    for (int c = 0; c < 3; c++) {
        uint32_t w1 = ossa__pk_w1(p, c), w2 = ossa__pk_w2(p, c), d1 = ossa__pk_d1(p, c), d2 = ossa__pk_d2(p, c);
        a += ossa__pk_bits(p, c);
        w += 2u * w1 + w2;
        n += 2u * (w1 > d1 ? w1 - d1 : 0u) + (w2 > d2 ? w2 - d2 : 0u); /* the loader checks d <= w */
    }
    *A = a;
    *N = a + n;
    *W = a + w;
}
static inline uint32_t ossa__popcount64(uint64_t v) { /* SWAR: the library is built without -mpopcnt */
#if defined(__POPCNT__) /* the AVX2 and AVX-512 kernels' files (-mavx2 implies POPCNT): one instruction */
    return (uint32_t)__builtin_popcountll(v);
#else
    v = v - ((v >> 1) & 0x5555555555555555ull);
    v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
    return (uint32_t)((((v + (v >> 4)) & 0x0F0F0F0F0F0F0F0Full) * 0x0101010101010101ull) >> 56);
#endif
}
/* Flag m of a flagged stream s (1: block m is wide) and *rank, the flags set before it: one
 * popcount per 64 blocks (the flags' words before m's counted whole). Reads 8 bytes from each
 * of those words' first bytes (the stream is followed by >= 8 readable bytes). */
static inline uint32_t ossa__lift_flag(const unsigned char *s, uint32_t m, uint32_t *rank) {
    uint32_t r = 0, w = m >> 6;
    uint64_t word;
    for (uint32_t i = 0; i < w; i++) {
        memcpy(&word, s + 8u * i, 8);
        r += ossa__popcount64(word);
    }
    memcpy(&word, s + 8u * w, 8);
    *rank = r + ossa__popcount64(word & ((1ull << (m & 63u)) - 1u));
    return (uint32_t)(word >> (m & 63u)) & 1u;
}
/* The wide blocks among the M of a flagged stream s (its M flag bits). */
static inline uint32_t ossa__lift_wide_count(const unsigned char *s, uint32_t M) {
    uint32_t rank;
    uint32_t last = ossa__lift_flag(s, M - 1u, &rank);
    return rank + last;
}
/* Bits of packed channel p's stream of n keys with `wide` wide blocks. */
static inline uint64_t ossa__lift_bits_with(const ossa__bc_packed *p, uint32_t n, uint32_t wide) {
    uint32_t A, N, W, M = ossa__lift_blocks(n);
    ossa__lift_sizes(p, &A, &N, &W);
    return (ossa__pk_flagged(p) ? M : 0u) + (uint64_t)M * N + (uint64_t)wide * (W - N) + A;
}
/* Bits of packed channel p's stream s of n keys (a flagged stream's flags are read: the caller
 * has checked its first (M + 7) / 8 bytes are readable). */
static inline uint64_t ossa__lift_stream_bits(const ossa__bc_packed *p, uint32_t n, const unsigned char *s) {
    return ossa__lift_bits_with(p, n, ossa__pk_flagged(p) ? ossa__lift_wide_count(s, ossa__lift_blocks(n)) : 0u);
}
/* Block m (< M) of packed channel p's stream s of M blocks: its first bit, and in *wide
 * whether it is wide (0 for an unflagged channel). */
static inline uint64_t ossa__lift_locate(const ossa__bc_packed *p, const unsigned char *s, uint32_t M, uint32_t m, uint32_t *wide) {
    uint32_t A, N, W, rank = 0;
    ossa__lift_sizes(p, &A, &N, &W);
    *wide = 0;
    if (!ossa__pk_flagged(p)) return (uint64_t)m * N;
    *wide = ossa__lift_flag(s, m, &rank);
    return M + (uint64_t)m * N + (uint64_t)rank * (W - N);
}
static inline uint32_t ossa__lift_bias(uint32_t w) { return (1u << w) >> 1; }
/* The predictions (every input < 2^20: the sums stay below 2^25; 0x800000 keeps the floored
 * eighth non-negative and adds 2^20, a multiple of 2^wa). */
static inline uint32_t ossa__lift_p2(uint32_t a0, uint32_t a4) { return (a0 + a4) >> 1; }
static inline uint32_t ossa__lift_p1(uint32_t a0, uint32_t q2, uint32_t a4) { return (3u * a0 + 6u * q2 + 0x800000u - a4) >> 3; }

typedef struct ossa__bc_wtrack {
    uint32_t joint, components, offset, raw; /* raw = UINT32_MAX: no keys, weights are 0 */
} ossa__bc_wtrack;

struct ossa_built_clip {
    ossa_allocator allocator;
    uint64_t id;                 /* unique per object: contexts detect a clip switch with it */
    const ossa__bc_header *h;
    const unsigned char *base;   /* the block, 16-byte aligned */
    const char *name;
    const uint32_t *base_codes;  /* base_count sparse base entries, then ... */
    const float *base_values;    /* ... their values */
    const ossa__bc_clock *clocks;
    const ossa__bc_raw *raw;
    const ossa__bc_packed *packed;
    const uint32_t *mask_keys;   /* per mask: its key count (counted at bind, in the plan) */
    const unsigned char *masks;  /* mask m at masks + m * mask_bytes */
    uint32_t mask_bytes;
    const ossa__bc_wtrack *wtracks;
    const float *grid;
    struct ossa__sample_plan *plan; /* the sampling job's per-clip tables (sample_plan.c), made at bind */
};

/* The key mask of packed channel p (bit g = a key at grid[g]). */
static inline const unsigned char *ossa__packed_mask(const ossa_built_clip *clip, const ossa__bc_packed *p) {
    return clip->masks + (size_t)p->mask * clip->mask_bytes;
}

/* XXH64 of `joint_count` reference transforms (the bytes of the rest pose): a built clip
 * records the one it was built with, the sampling context checks the job's reference. */
uint64_t ossa__reference_hash(const ossa_transform *reference, uint32_t joint_count);
static inline uint64_t ossa__bc_ref_hash(const ossa__bc_header *h) {
    return ((uint64_t)h->ref_hash_hi << 32) | h->ref_hash_lo;
}

/* The float offset of a channel kind's field in an ossa_transform (T 0, R 3, S 7). */
static inline uint32_t ossa__field_offset(uint32_t kind) { return kind == OSSA__CH_T ? 0u : kind == OSSA__CH_R ? 3u : 7u; }

/* Wraps a block already copied to `block` (16-byte aligned, inside the same allocation as
 * `clip`): sets the cached pointers, a fresh id and the sampling plan (one more allocation from
 * the clip's allocator: OUT_OF_MEMORY). The block must be valid. */
ossa_result ossa__built_clip_bind(ossa_built_clip *clip, const unsigned char *block);
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

/* Dequantises one key's three values q[3] into v[4] (rotations, kind OSSA__CH_R: the dropped
 * component is rebuilt >= 0; vectors: v[3] = 0). */
static inline void ossa__packed_value(int kind, uint32_t drop, const float min[3], const float step[3], const uint32_t q[3],
                                      float v[4]) {
    float f[3];
    for (int c = 0; c < 3; c++)
        f[c] = min[c] + (float)q[c] * step[c];
    if (kind == OSSA__CH_R) {
        float r2 = 1.0f - (f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
        float d = r2 > 0.0f ? sqrtf(r2) : 0.0f;
        switch (drop) { /* the stored components keep their order around the dropped one */
        case 0: v[0] = d; v[1] = f[0]; v[2] = f[1]; v[3] = f[2]; break;
        case 1: v[0] = f[0]; v[1] = d; v[2] = f[1]; v[3] = f[2]; break;
        case 2: v[0] = f[0]; v[1] = f[1]; v[2] = d; v[3] = f[2]; break;
        default: v[0] = f[0]; v[1] = f[1]; v[2] = f[2]; v[3] = d; break;
        }
    } else {
        v[0] = f[0];
        v[1] = f[1];
        v[2] = f[2];
        v[3] = 0.0f;
    }
}

/* Reads three consecutive fields of n0, n1, n2 bits (each <= 24) at bit pos of d: one 8-byte
 * window holds all three unless they pass bit 57. Named scalars, no small arrays: GCC packs
 * array lanes into vector registers through the stack and stalls reloading them. */
static inline void ossa__fields3(const unsigned char *d, uint64_t pos, uint32_t n0, uint32_t n1, uint32_t n2,
                                 uint32_t *f0, uint32_t *f1, uint32_t *f2) {
    uint64_t w;
    memcpy(&w, d + (pos >> 3), 8);
    uint32_t sh = (uint32_t)(pos & 7u);
    if (sh + n0 + n1 + n2 <= 64u) {
        w >>= sh;
        *f0 = (uint32_t)(w & ((1ull << n0) - 1u));
        w >>= n0;
        *f1 = (uint32_t)(w & ((1ull << n1) - 1u));
        w >>= n1;
        *f2 = (uint32_t)(w & ((1ull << n2) - 1u));
    } else {
        *f0 = ossa__bits_read(d, pos, n0);
        *f1 = ossa__bits_read(d, pos + n0, n1);
        *f2 = ossa__bits_read(d, pos + n0 + n1, n2);
    }
}

/* One component of a lifted block: q1, q2, q3 from the anchors a0, a4 and the residual fields
 * (b1, b2: their biases, ossa__lift_bias of their widths; mk = 2^wa - 1). */
static inline void ossa__lift_component(uint32_t a0, uint32_t r1, uint32_t r2, uint32_t r3, uint32_t a4, uint32_t b1,
                                        uint32_t b2, uint32_t mk, uint32_t *q1, uint32_t *q2, uint32_t *q3) {
    uint32_t m2 = (ossa__lift_p2(a0, a4) + r2 - b2) & mk;
    *q2 = m2;
    *q1 = (ossa__lift_p1(a0, m2, a4) + r1 - b1) & mk;
    *q3 = (ossa__lift_p1(a4, m2, a0) + r3 - b1) & mk;
}

/* Key j (0 .. 4) of the block at bit pos of a lifted stream s (field table fo, fm of its size:
 * ossa__lift_table) into q as floats: only the fields that key needs (an anchor; the midpoint
 * from both anchors; a quarter key from those and its residual), ossa__lift_component's
 * arithmetic, so ossa__lift_block's values. The stream is followed by >= 8 readable bytes. */
static inline void ossa__lift_key(const unsigned char *s, uint64_t pos, const uint32_t *fo, const uint32_t *fm, uint32_t j,
                                  float *q) {
    for (uint32_t c = 0; c < 3; c++) {
        uint32_t a0 = ossa__bits_read(s, pos + fo[c], 32) & fm[c];
        if (j == 0) {
            q[c] = (float)a0;
            continue;
        }
        uint32_t a4 = ossa__bits_read(s, pos + fo[12 + c], 32) & fm[12 + c];
        if (j == 4) {
            q[c] = (float)a4;
            continue;
        }
        uint32_t mk = fm[c], r2 = ossa__bits_read(s, pos + fo[6 + c], 32) & fm[6 + c];
        uint32_t q2 = (ossa__lift_p2(a0, a4) + r2 - ((fm[6 + c] + 1u) >> 1)) & mk, b1 = (fm[3 + c] + 1u) >> 1;
        if (j == 2) {
            q[c] = (float)q2;
        } else if (j == 1) {
            uint32_t r1 = ossa__bits_read(s, pos + fo[3 + c], 32) & fm[3 + c];
            q[c] = (float)((ossa__lift_p1(a0, q2, a4) + r1 - b1) & mk);
        } else {
            uint32_t r3 = ossa__bits_read(s, pos + fo[9 + c], 32) & fm[9 + c];
            q[c] = (float)((ossa__lift_p1(a4, q2, a0) + r3 - b1) & mk);
        }
    }
}

/* The 5 keys of block m (< M) of a lifted stream s of M blocks (slots 4m .. 4m + 4):
 * q[j * 3 + c]. Named scalars (see ossa__fields3). */
static inline void ossa__lift_block(const unsigned char *s, const ossa__bc_packed *p, uint32_t M, uint32_t m, uint32_t q[15]) {
    uint32_t wide, w = p->widths, r = p->resid;
    uint64_t pos = ossa__lift_locate(p, s, M, m, &wide);
    uint32_t n0 = w & 31u, n1 = (w >> 5) & 31u, n2 = (w >> 10) & 31u;
    uint32_t o0 = r & 31u, o1 = (r >> 5) & 31u, o2 = (r >> 10) & 31u;
    uint32_t e0 = (r >> 15) & 31u, e1 = (r >> 20) & 31u, e2 = (r >> 25) & 31u;
    if (!wide) { /* the narrow widths (the loader checks each reduction <= its width) */
        o0 -= ossa__pk_d1(p, 0), o1 -= ossa__pk_d1(p, 1), o2 -= ossa__pk_d1(p, 2);
        e0 -= ossa__pk_d2(p, 0), e1 -= ossa__pk_d2(p, 1), e2 -= ossa__pk_d2(p, 2);
    }
    uint32_t A = n0 + n1 + n2, R1 = o0 + o1 + o2, R2 = e0 + e1 + e2;
    uint32_t a00, a01, a02, r10, r11, r12, r20, r21, r22, r30, r31, r32, a40, a41, a42;
    ossa__fields3(s, pos, n0, n1, n2, &a00, &a01, &a02);
    ossa__fields3(s, pos + A, o0, o1, o2, &r10, &r11, &r12);
    ossa__fields3(s, pos + A + R1, e0, e1, e2, &r20, &r21, &r22);
    ossa__fields3(s, pos + A + R1 + R2, o0, o1, o2, &r30, &r31, &r32);
    ossa__fields3(s, pos + A + 2u * R1 + R2, n0, n1, n2, &a40, &a41, &a42);
    q[0] = a00;
    q[1] = a01;
    q[2] = a02;
    ossa__lift_component(a00, r10, r20, r30, a40, ossa__lift_bias(o0), ossa__lift_bias(e0), (1u << n0) - 1u, &q[3], &q[6], &q[9]);
    ossa__lift_component(a01, r11, r21, r31, a41, ossa__lift_bias(o1), ossa__lift_bias(e1), (1u << n1) - 1u, &q[4], &q[7], &q[10]);
    ossa__lift_component(a02, r12, r22, r32, a42, ossa__lift_bias(o2), ossa__lift_bias(e2), (1u << n2) - 1u, &q[5], &q[8], &q[11]);
    q[12] = a40;
    q[13] = a41;
    q[14] = a42;
}

/* The quantised fields q[3] of value key k (< n, the k-th set bit of the mask) of a packed
 * channel of n keys whose stream is s, and (when qn is not NULL, only if key k + 1 exists)
 * those of key k + 1. ossa__packed_value turns the fields into keys. */
static inline void ossa__packed_fields(const unsigned char *s, const ossa__bc_packed *p, uint32_t n, uint32_t k, uint32_t q[3],
                                       uint32_t qn[3]) {
    uint32_t M = ossa__lift_blocks(n), m = k >> 2 < M ? k >> 2 : M - 1u, j = k - 4u * m, f[15];
    ossa__lift_block(s, p, M, m, f);
    for (uint32_t c = 0; c < 3; c++) q[c] = f[j * 3 + c];
    if (qn)
        for (uint32_t c = 0; c < 3; c++) qn[c] = f[(j + 1) * 3 + c];
}

/* Key mask helpers (bit g of mask = a key at grid[g]; n = grid_count): 57-bit windows (one
 * unaligned 8-byte load; the stream is followed by >= 8 readable bytes), so a seek or a step
 * usually reads one window. */
static inline uint32_t ossa__mask_next(const unsigned char *mask, uint32_t from, uint32_t n) {
    while (from < n) {
        uint64_t w;
        uint32_t len = n - from < 57u ? n - from : 57u;
        memcpy(&w, mask + (from >> 3), 8);
        w = (w >> (from & 7u)) & ((1ull << len) - 1u);
        if (w) return from + (uint32_t)__builtin_ctzll(w);
        from += len;
    }
    return n;
}
/* Last set bit <= at (bit 0 is always set). */
static inline uint32_t ossa__mask_prev(const unsigned char *mask, uint32_t at) {
    for (;;) {
        uint32_t lo = at >= 56u ? at - 56u : 0u; /* the window [lo, at]: at most 57 bits */
        uint64_t w;
        memcpy(&w, mask + (lo >> 3), 8);
        w = (w >> (lo & 7u)) & ((2ull << (at - lo)) - 1u);
        if (w) return lo + 63u - (uint32_t)__builtin_clzll(w);
        if (lo == 0) return 0;
        at = lo - 1;
    }
}
static inline uint32_t ossa__popcount32(uint32_t v) { /* SWAR: the library is built without -mpopcnt */
    v = v - ((v >> 1) & 0x55555555u);
    v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
    return (((v + (v >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24;
}
/* Set bits in [0, end). */
static inline uint32_t ossa__mask_rank(const unsigned char *mask, uint32_t end) {
    uint32_t r = 0, pos = 0;
    for (; pos + 32 <= end; pos += 32) r += ossa__popcount32(ossa__bits_read(mask, pos, 32));
    if (pos < end) r += ossa__popcount32(ossa__bits_read(mask, pos, end - pos));
    return r;
}

/* ossa__adjust_time (track.c) bit for bit, without its libm fmod call on a looping clock past
 * the end when the remainder is provably the same value: dur = end - start a float (24
 * significant bits) and an integer n < 2^29 make n * dur exact (<= 53 bits); when n is the true
 * quotient, x - n * dur is fmod's exact (representable) remainder, so the subtraction is exact
 * too; any other n puts the exact difference outside [0, dur), and rounding (monotonic, dur
 * representable) keeps it there, so an r inside proves n. *quotient (per sampling context, 0 at
 * first) is tried first: forward playback keeps its quotient for a whole loop, so most frames
 * need no division; else n = trunc(x / dur), and a quotient rounded across an integer takes the
 * fmod path. */
float ossa__adjust_time(float start, float end, float t, bool loop);
static inline float ossa__sample_time(float start, float end, float t, bool loop, double *quotient) {
    if (loop && t >= end && t < INFINITY) {
        double dur = (double)end - (double)start, x = (double)t - (double)start;
        if (dur > 0.0 && dur == (double)(float)dur) {
            double n = *quotient, r = x - n * dur; /* n < 2^29: set only below */
            if (!(r >= 0.0 && r < dur)) {
                double q = x / dur;
                n = q < 0x1p29 ? (double)(int64_t)q : -1.0;
                r = x - n * dur;
            }
            if (n >= 0.0 && r >= 0.0 && r < dur) {
                *quotient = n;
                float out = (float)((double)start + r);
                return out >= end || out < start ? start : out; /* rounding at the seam: [start, end) */
            }
        }
    }
    return ossa__adjust_time(start, end, t, loop);
}

/* A seek in one pass over the mask's 64-bit words up to at's (the picks by conditional moves,
 * the trip count shared by every channel of a jump: little to mispredict): out[0] = the last set bit
 * <= at (bit 0 is always set), out[1] = its rank (set bits before it), out[2] = the first set
 * bit > at (n = none); at < n. Portable (SWAR) and POPCNT versions (sample_job.c), same results. */
#define OSSA__MASK_SEEK_WORDS 16u /* longer masks (n > 1024 grid times) take the window helpers */
void ossa__mask_seek(const unsigned char *mask, uint32_t n, uint32_t at, uint32_t out[3]);
void ossa__mask_seek_popcnt(const unsigned char *mask, uint32_t n, uint32_t at, uint32_t out[3]);


/* The time correction of nlerp towards slerp for two keys with dot product d >= 0 (built format
 * 7): s' = s + s h (s - 1) k with h = s - 1/2 and k = q0 + h^2 (q1 + h^2 q2), where with
 * u = 1 - d each q_j = u (c0j + u (c1j + u (c2j + u c3j))), row j of the coefficients below.
 * slerp's exact parameter is 1/2 + tan(h W) / (2 tan(W / 2)), W = acos(d); the 12 coefficients
 * are a weighted least-squares fit of it (scripts/fit_nlerp_correction.py derives them and
 * prints the error): the rotation angle stays within 1.6e-7 rad of slerp for d >= 0.7 (keys up
 * to 91 degrees apart; float rounding included, test_sample_job checks it), 2e-6 at d = 0.5,
 * 5.7e-4 at d = 0. Exact at s = 0 and 1.
 * (Format 6 used Zeux's two-coefficient fit, whose 1e-5 to 3e-5 rad on nearby keys made tight
 * tolerances need extra keys or raw channels.) */
#define OSSA__NLERP_Q0 0.666577816f, 0.134640902f, 0.0319086462f, 0.0238214452f
#define OSSA__NLERP_Q1 -0.00025827263f, 0.537228048f, 0.177723154f, 0.0997244641f
#define OSSA__NLERP_Q2 -0.00482421834f, 0.0700096413f, 0.10760691f, 0.888988554f
/* u (c0 + u (c1 + u (c2 + u c3))), in the order every kernel uses. */
static inline float ossa__nlerp_q(float u, float c0, float c1, float c2, float c3) {
    return u * (c0 + u * (c1 + u * (c2 + u * c3)));
}
/* The per-segment coefficients q of keys with dot product d >= 0. */
static inline void ossa__slerp_fit(float d, float q[3]) {
    float u = 1.0f - d;
    q[0] = ossa__nlerp_q(u, OSSA__NLERP_Q0);
    q[1] = ossa__nlerp_q(u, OSSA__NLERP_Q1);
    q[2] = ossa__nlerp_q(u, OSSA__NLERP_Q2);
}
/* The corrected parameter, in the exact operation order every kernel uses. */
static inline float ossa__slerp_time(float s, const float q[3]) {
    float h = s - 0.5f, x = h * h, k = q[0] + x * (q[1] + x * q[2]);
    s = s + ((s * h) * (s - 1.0f)) * k;
    /* within [0, 1] for every dot in [0, 1] (valid keys); a hostile block's ranges allow dots up
     * to ~12, where the fit extrapolates (u = -11: k near 1e4) and two keys could lerp to
     * (0, 0, 0, 0), a NaN after the normalisation. Clamped, the lerp of two keys of norm >= 1
     * with a dot >= 0 keeps a squared norm >= 0.5. */
    s = s > 0.0f ? s : 0.0f;
    return s < 1.0f ? s : 1.0f;
}

/* Decode + lerp kernels over the sampling context's SoA channel caches (sample_*.c): the
 * context keeps per packed channel the segment's start t0 and length dt and where the quantised
 * fields of its two keys are (as floats, exact below 2^24: key a's three at keys + ka[i], key
 * b's at keys + kb[i], the decoded blocks; the float after each is read too, and must be
 * finite); every frame the kernel decodes all channels at once (the SIMD ones load each key's
 * 4 floats and transpose them within 128-bit lanes). For i in [begin, end): a_c = mn[c] +
 * keys[ka[i] + c] * st[c], b_c likewise (c < 3),
 * s = clamp((t - t0[i]) / dt[i], 0, 1) (dt +Inf: s = 0) and o = a + (b - a) * s. For `rotation`
 * the keys are in stored order (the three stored components, then the rebuilt one: sqrt(max(1 - ((x^2 +
 * y^2) + z^2), 0)), exactly ossa__packed_value's value), b is negated when the 4-component
 * dot (((a0 b0 + a1 b1) + a2 b2) + a3 b3) is negative (the shorter arc; the dot negated too),
 * s is corrected with ossa__slerp_fit / ossa__slerp_time of that dot, and o (4 components, in
 * stored order) is normalised. Rotations go either to o (SoA, stored order) or, when `pose` is
 * set, straight into the pose: channel i's quaternion x, y, z, w as 4 floats at pose + dst[i],
 * component 3 at drop[i] (0 .. 3, as a float) and the stored three in order around it; only
 * channels in [begin, end) are written there. All kernels give bit-identical results (same
 * operations, no FMA) for [begin, end); the SIMD ones run whole vectors, reading (and, into o,
 * writing) up to OSSA__LERP_SLACK - 1 entries past `end` (every array has that many spare
 * entries holding finite values; ka's and kb's point at 4 finite floats of keys). */
#define OSSA__LERP_SLACK 16u
typedef struct ossa__lerp_soa {
    const float *t0, *dt;
    const float *keys;
    const uint32_t *ka, *kb;
    const float *mn[3], *st[3];
    float *o[4];
    float *pose;                      /* NULL: rotations to o */
    const uint32_t *dst;              /* with pose: each channel's float offset in it */
    const float *drop;                /* with pose: each rotation's rebuilt component */
} ossa__lerp_soa;
typedef void (*ossa__lerp_kernel)(const ossa__lerp_soa *soa, float t, uint32_t begin, uint32_t end, bool rotation);
void ossa__lerp_scalar(const ossa__lerp_soa *soa, float t, uint32_t begin, uint32_t end, bool rotation);
void ossa__lerp_sse(const ossa__lerp_soa *soa, float t, uint32_t begin, uint32_t end, bool rotation);
void ossa__lerp_avx2(const ossa__lerp_soa *soa, float t, uint32_t begin, uint32_t end, bool rotation);
void ossa__lerp_avx512(const ossa__lerp_soa *soa, float t, uint32_t begin, uint32_t end, bool rotation);

/* Exact slerp kernels over the context's SoA caches of raw rotation channels (lossless keys):
 * for i in [begin, end), o = ossa__slerp4(a, b, s[i]) bit for bit (the editable path: shorter
 * arc, Eberly's series with 4 / 6 / 8 terms by the dot, normalised), or fallback[i] = 1 where
 * the series does not apply (dot below 0.7, a non-finite or zero length: the caller runs
 * ossa__slerp4 there; o is then undefined). The scalar kernel is ossa__slerp4 itself (never
 * flags). The SIMD ones run whole vectors like the lerp kernels (OSSA__LERP_SLACK). */
typedef struct ossa__slerp_soa {
    const float *a[4], *b[4], *s;
    float *o[4];
    uint8_t *fallback;
    float *pose;                      /* set: the outputs go to pose + dst[i] (x, y, z, w) instead of o, */
    const uint32_t *dst;              /* only for i in [begin, end) */
} ossa__slerp_soa;
typedef void (*ossa__slerp_kernel)(const ossa__slerp_soa *soa, uint32_t begin, uint32_t end);
void ossa__slerp_scalar(const ossa__slerp_soa *soa, uint32_t begin, uint32_t end);
void ossa__slerp_sse(const ossa__slerp_soa *soa, uint32_t begin, uint32_t end);
void ossa__slerp_avx2(const ossa__slerp_soa *soa, uint32_t begin, uint32_t end);
void ossa__slerp_avx512(const ossa__slerp_soa *soa, uint32_t begin, uint32_t end);

/* Bit-exact unpack kernels of raw channels' packed lanes (sample_*.c): the sampling context
 * keeps per clock a table of the lanes of its cached channels (one entry per float lane), so
 * a clock that changes key decodes all of them in one pass. pos[j] packs the lane's bit offset
 * within a key (bits 0-7), the bits of a key (8-15) and its own bit count (16-21, 0..32):
 * lane j of key k is the float whose ordered bits (ossa__float_ord) are base[j] + the field of
 * that many bits at bit k * per + bit of the stream at byte off[j] of the block; out[j] for j in
 * [begin, end). The scalar kernel computes bit positions in 64 bits; the SIMD ones in 32 (the
 * caller uses them only when every stream's bit positions fit: a block below 2^29 bytes) and
 * never read the table or write out past `end` (whole vectors, then a scalar or masked tail). */
#define OSSA__UNPACK_POS(bit, per, bits) ((uint32_t)(bit) | (uint32_t)(per) << 8 | (uint32_t)(bits) << 16)
typedef struct ossa__unpack_table {
    const uint32_t *off, *pos, *base;
} ossa__unpack_table;
typedef void (*ossa__unpack_kernel)(const ossa__unpack_table *tab, const unsigned char *block, uint32_t k, uint32_t begin,
                                    uint32_t end, float *out);
void ossa__unpack_scalar(const ossa__unpack_table *tab, const unsigned char *block, uint32_t k, uint32_t begin, uint32_t end,
                         float *out);
void ossa__unpack_avx2(const ossa__unpack_table *tab, const unsigned char *block, uint32_t k, uint32_t begin, uint32_t end,
                       float *out);
void ossa__unpack_avx512(const ossa__unpack_table *tab, const unsigned char *block, uint32_t k, uint32_t begin, uint32_t end,
                         float *out);

/* A key mask's channels' lifted streams for the single-key kernels: per channel g (the plan's
 * grouped order) its stream at block + poff[g], its narrow blocks' bits bk[g], where its block
 * table starts bto[g] (OSSA__LIFT_COMPUTED: an unflagged channel, block m at bit m * bk[g]),
 * the block tables blk (a flagged channel's block m: blk[bto[g] + m], its first bit in the
 * stream, flags included, | OSSA__LIFT_WIDE when it is wide; made once per clip, so finding a
 * block is one load, never a rank), and its two field tables fo, fm + 32 g (narrow) and
 * + 32 g + 16 (wide) (ossa__lift_table: the 15 fields' bit offsets from the block start and
 * masks 2^width - 1, lanes a0 0-2, r1 3-5, r2 6-8, r3 9-11, a4 12-14, lane 15 unused: offset
 * 0, mask 0; made once per clip, so a kernel neither widens nor shifts them); kq: the keys. */
typedef struct ossa__lift_soa {
    const unsigned char *block;
    const uint32_t *poff, *bk, *bto, *blk;
    const uint32_t *fo, *fm;
    float *kq;
} ossa__lift_soa;
#define OSSA__LIFT_COMPUTED UINT32_MAX
#define OSSA__LIFT_WIDE 0x80000000u /* a block table entry's wide bit; below it the bit (< 2^31) */
/* Block m of channel g of a lift soa: its first bit in the stream block + poff[g] and its
 * field tables' offset in fo, fm (32 g, + 16 when the block is wide). */
static inline uint64_t ossa__lift_soa_locate(const ossa__lift_soa *soa, uint32_t g, uint32_t m, size_t *table) {
    uint32_t t = soa->bto[g];
    if (t == OSSA__LIFT_COMPUTED) { /* narrow = wide: one size */
        *table = (size_t)g * 32u;
        return (uint64_t)m * soa->bk[g];
    }
    uint32_t e = soa->blk[t + m];
    *table = (size_t)g * 32u + 16u * (e >> 31);
    return e & ~OSSA__LIFT_WIDE;
}
/* Single-key kernels (sample_kernels.c: scalar; lift_sse.c; lift_avx2.c; lift_avx512.c): one key mask's
 * forward step or seek. For each channel g of [begin, end) (the lift tables' grouped order:
 * stream block + poff[g], ossa__lift_soa_locate) with its keys a and b at
 * kq + 6 chan[g] (the context's key pool): key a becomes key ja (0 .. 4) of lifted block m (< M), or,
 * ja = OSSA__KEY_STEP, key b's three floats; key b becomes key jb of block m (ossa__lift_key's
 * floats, bit for bit). The streams are followed by OSSA__BC_READ_SLACK readable bytes;
 * kq + 6 chan[g] + 6 is readable. */
#define OSSA__KEY_STEP UINT32_MAX
typedef void (*ossa__key_kernel)(const ossa__lift_soa *soa, const uint32_t *chan, uint32_t begin, uint32_t end, uint32_t m,
                                 uint32_t ja, uint32_t jb);
void ossa__key_scalar(const ossa__lift_soa *soa, const uint32_t *chan, uint32_t begin, uint32_t end, uint32_t m, uint32_t ja,
                      uint32_t jb);
void ossa__key_sse(const ossa__lift_soa *soa, const uint32_t *chan, uint32_t begin, uint32_t end, uint32_t m, uint32_t ja,
                   uint32_t jb);
void ossa__key_avx2(const ossa__lift_soa *soa, const uint32_t *chan, uint32_t begin, uint32_t end, uint32_t m, uint32_t ja,
                    uint32_t jb);
void ossa__key_avx512(const ossa__lift_soa *soa, const uint32_t *chan, uint32_t begin, uint32_t end, uint32_t m, uint32_t ja,
                      uint32_t jb);
/* Packed channel p's field table of its narrow (wide = 0) or wide blocks and those blocks'
 * bits (see ossa__lift_soa; unflagged: both the same). */
static inline uint32_t ossa__lift_table(const ossa__bc_packed *p, uint32_t wide, uint32_t fo[16], uint32_t fm[16]) {
    uint32_t A = 0, R1 = 0, R2 = 0, wa[3], w1[3], w2[3];
    for (int c = 0; c < 3; c++) {
        uint32_t d1 = wide ? 0u : ossa__pk_d1(p, c), d2 = wide ? 0u : ossa__pk_d2(p, c);
        w1[c] = ossa__pk_w1(p, c);
        w2[c] = ossa__pk_w2(p, c);
        w1[c] = w1[c] > d1 ? w1[c] - d1 : 0u; /* the loader checks d <= w */
        w2[c] = w2[c] > d2 ? w2[c] - d2 : 0u;
        A += wa[c] = ossa__pk_bits(p, c);
        R1 += w1[c];
        R2 += w2[c];
    }
    uint32_t bk = A + 2u * R1 + R2, start[5] = {0, A, A + R1, A + R1 + R2, bk};
    const uint32_t *width[5] = {wa, w1, w2, w1, wa};
    for (uint32_t item = 0; item < 5; item++)
        for (uint32_t c = 0, o = start[item]; c < 3; o += width[item][c], c++) {
            fo[item * 3 + c] = o;
            fm[item * 3 + c] = (1u << width[item][c]) - 1u;
        }
    fo[15] = 0;
    fm[15] = 0;
    return bk;
}

/* ---- error measurement (clip_error.c) ---- */
/* The measurement grid of an editable clip: the union of every track's key times (joints
 * < joint_count and weight tracks), and inside each interval of that union n - 1 evenly
 * spaced times, n a multiple of `substeps` with at least OSSA__GRID_RATE steps per second
 * (at most OSSA__GRID_MAX_STEPS per interval); {start} for a clip without keys. *out is
 * allocated (caller frees with ossa__free(allocator)); *candidate (optional, same
 * allocation) flags the key times (2) and every (n / key_div)-th substep (1): where packed keys may sit. */
#define OSSA__GRID_RATE 480.0
#define OSSA__GRID_MAX_STEPS 4096u
ossa_result ossa__clip_grid(const ossa_clip *clip, uint32_t joint_count, uint32_t substeps, uint32_t key_div,
                            const ossa_allocator *allocator, float **out, uint32_t *count, uint8_t **candidate);
/* Bytes of scratch ossa_clip_build needs for G measurement times, J joints and `channels`
 * channels (compared with ossa_clip_build_options.max_scratch_bytes before allocating). */
double ossa__clip_build_scratch(uint32_t G, uint32_t J, size_t channels, bool lossless);
/* Substeps of the measurement grid: 8, or 16 when a track of the clip is CUBICSPLINE. */
uint32_t ossa__clip_grid_substeps(const ossa_clip *clip);
/* The exact editable path (the clip jobs with binary-search lookups): the local pose from
 * `rest` (joint_count transforms), and weight track `track` (count floats). */
void ossa__clip_sample_exact(const ossa_clip *clip, float t, bool loop, const ossa_transform *rest, ossa_transform *out,
                             uint32_t joint_count);
void ossa__clip_weights_exact(const ossa_clip *clip, uint32_t track, float t, bool loop, float *out, uint32_t count);
/* Virtual vertices of a local pose: model matrices of every joint, then per joint the origin
 * and the points at axis_shell[j * 3 + a] (local units) along its axes a = x, y, z:
 * out[j * 12 + point * 3 + xyz]. model is joint_count matrices of scratch. */
void ossa__pose_points(const ossa_transform *locals, const int32_t *parents, uint32_t joint_count,
                       const float *axis_shell, ossa_mat4 *model, float *out);
/* The bind-pose model matrices of `skeleton` (skeleton->bind through the hierarchy) into
 * model (joint_count). */
void ossa__bind_model(const ossa_skeleton *skeleton, ossa_mat4 *model);
/* Local per-axis offsets that put a joint's virtual vertices `shell[j]` model units from it at
 * the bind pose: axis_shell[j * 3 + a] = shell[j] / |column a of bind_model[j]| (0 for a
 * degenerate axis). */
void ossa__axis_shells(const ossa_mat4 *bind_model, const float *shell, uint32_t joint_count, float *axis_shell);
/* Largest distance per joint between two point sets of ossa__pose_points. */
float ossa__points_error(const float *a, const float *b, uint32_t joint_count, uint32_t *worst_joint, float *per_joint);

#endif
