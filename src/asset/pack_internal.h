/* The packed .ossa format's layout, shared by the writer and the loader (not installed).
 * docs/ossa-format.md is the prose version of this file; keep both in step. */
#ifndef OSSA_IMPORT_PACK_INTERNAL_H
#define OSSA_IMPORT_PACK_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include <ossa/pack.h>

/* Header (48 bytes, little-endian). */
#define PK_MAGIC "OSSA\r\n\x1a\n"        /* 8 bytes; the CR LF / EOF trio catches text-mode mangling */
#define PK_MAGIC_SIZE 8u
#define PK_ENDIAN_MARKER 0x01020304u     /* reads 0x04030201 on a byte-swapped file */
enum {
    PKH_MAGIC = 0,          /* u8[8] */
    PKH_VERSION = 8,        /* u32 */
    PKH_ENDIAN = 12,        /* u32 */
    PKH_FILE_SIZE = 16,     /* u64 */
    PKH_CHECKSUM = 24,      /* u64: XXH64 of [48, file_size) */
    PKH_HEADER_SIZE = 32,   /* u32: 48 */
    PKH_SECTION_COUNT = 36, /* u32 */
    PKH_FLAGS = 40,         /* u32: 0 */
    PKH_RESERVED = 44       /* u32: 0 */
};

/* Section table entry (32 bytes), the table starts at byte 48. */
#define PK_SECTION_ENTRY 32u
#define PK_MAX_SECTIONS 64u
enum { PKS_TYPE = 0, PKS_COUNT = 4, PKS_OFFSET = 8, PKS_SIZE = 16, PKS_RESERVED = 24 };

typedef enum pk_type {
    PK_META = 1,        /* 16 bytes: i32 scene, f32 metres per unit, u32 reserved[2]; count 1 */
    PK_SKELETON = 2,    /* count = joints: parents, source_index, name, rest, bind (pk_skeleton_layout) */
    PK_SKINS = 3,       /* count = skins: records, joints pool, inverse-bind pool (pk_skins_layout) */
    PK_NODES = 4,       /* count = nodes (0 or joints): PK_NODE_RECORD bytes each */
    PK_MESH_INFOS = 5,  /* count = source meshes: PK_MESH_INFO_RECORD bytes each */
    PK_MESHES = 6,      /* count = meshes: PK_MESH_RECORD bytes each, then the streams */
    PK_CLIPS = 7,       /* count = built clips: {u64 offset, u64 size} each, then the blocks */
    PK_WARNINGS = 8,    /* count = warnings: u32 string offsets */
    PK_STRINGS = 9,     /* count 0: NUL-terminated UTF-8 strings; names are offsets into it */
    PK_MATERIALS = 10,  /* count = materials: PK_MATERIAL_RECORD bytes each */
    PK_IMAGES = 11,     /* count = images: PK_IMAGE_RECORD bytes each, then the encoded bytes */
    PK_SURFACES = 12,   /* count = 0 or meshes: PK_SURFACE_RECORD bytes each, then the colour streams */
    PK_CLIP_REPORTS = 13, /* count = built clips: PK_CLIP_REPORT_RECORD bytes each (written only with reports) */
    PK_TYPE_COUNT
} pk_type;

static inline const char *pk_type_name(uint32_t type) {
    static const char *const names[PK_TYPE_COUNT] = {"unknown", "meta", "skeleton", "skins", "nodes",
                                                     "mesh infos", "meshes", "clips", "warnings", "strings",
                                                     "materials", "images", "mesh surfaces", "clip reports"};
    return type < PK_TYPE_COUNT ? names[type] : "unknown";
}

#define PK_META_SIZE 16u
#define PK_TRANSFORM_FLOATS 10u          /* translation xyz, rotation xyzw, scale xyz */
#define PK_SKIN_RECORD 16u               /* u32 name, u32 joint_count, i32 root, u32 reserved */
#define PK_NODE_RECORD 80u               /* i32 mesh, i32 skin, u32 flags, u32 reserved, f32 matrix[16] */
#define PK_NODE_HAD_MATRIX 1u
#define PK_NODE_MATRIX_NOT_TRS 2u
#define PK_MESH_INFO_RECORD 16u          /* u32 name, u32 primitive_count, u32 target_count, u32 reserved */
#define PK_CLIP_RECORD 16u               /* u64 offset, u64 size (relative to the section) */
#define PK_TARGET_RECORD 24u             /* u64 offsets of position, normal, tangent deltas */

/* Material record (64 bytes). */
enum {
    PKMA_NAME = 0, PKMA_BASE_COLOR = 4 /* f32[4] */, PKMA_IMAGE = 20 /* i32 */, PKMA_TEXCOORD = 24, PKMA_WRAP_S = 28,
    PKMA_WRAP_T = 32, PKMA_MAG_FILTER = 36, PKMA_MIN_FILTER = 40, PKMA_ALPHA_MODE = 44, PKMA_ALPHA_CUTOFF = 48 /* f32 */,
    PKMA_FLAGS = 52 /* 56..63 reserved */
};
#define PK_MATERIAL_RECORD 64u
#define PK_MATERIAL_DOUBLE_SIDED 1u
#define PK_SAMPLER_MAX 65535u            /* wrap and filter values: GL enums, as the glTF importer bounds them */
/* Image record (32 bytes): u32 name, u32 uri, u32 mime type, u32 flags, u64 offset, u64 size
 * (offset relative to the section, 0 with size 0 when there are no bytes). */
enum { PKI_NAME = 0, PKI_URI = 4, PKI_MIME = 8, PKI_FLAGS = 12, PKI_OFFSET = 16, PKI_SIZE = 24 };
#define PK_IMAGE_RECORD 32u
#define PK_IMAGE_HAS_DATA 1u             /* the image has bytes (ossa_image.data non-NULL, maybe 0 of them) */
/* Mesh surface record (16 bytes): i32 material (-1 = default), u32 reserved, u64 colours
 * offset (relative to the section, 0 = none; f32[V][4] linear RGBA). */
enum { PKSU_MATERIAL = 0, PKSU_COLORS = 8 };
#define PK_SURFACE_RECORD 16u
/* Clip report record (48 bytes, ossa_clip_report): f32 precision, f32 character height, u32 vertex
 * meshes, f32 max vertex error, u32 worst mesh, u32 worst vertex, u32 worst joint, f32 worst time,
 * u32 vertex times, u32 vertex times unchecked, u32 reserved[2]. */
enum {
    PKCR_PRECISION = 0, PKCR_HEIGHT = 4, PKCR_VERTEX_MESHES = 8, PKCR_MAX_VERTEX_ERROR = 12, PKCR_WORST_MESH = 16,
    PKCR_WORST_VERTEX = 20, PKCR_WORST_JOINT = 24, PKCR_WORST_TIME = 28, PKCR_VERTEX_TIMES = 32,
    PKCR_VERTEX_TIMES_UNCHECKED = 36 /* 40..47 reserved */
};
#define PK_CLIP_REPORT_RECORD 48u

/* Mesh record (128 bytes): 12 u32/i32 fields, then 10 u64 stream offsets relative to the
 * section (0 = absent; data lies after the record table, 16-byte aligned). */
enum {
    PKM_NAME = 0, PKM_VERTEX_COUNT = 4, PKM_INFLUENCES = 8, PKM_INDEX_COUNT = 12, PKM_TARGET_COUNT = 16,
    PKM_SKIN = 20, PKM_NODE = 24, PKM_SOURCE_MESH = 28, PKM_SOURCE_PRIMITIVE = 32, /* 36..47 reserved */
    PKM_STREAMS = 48
};
#define PK_MESH_RECORD 128u
typedef enum pk_stream {
    PKST_POSITIONS, PKST_NORMALS, PKST_TANGENTS, PKST_UV0, PKST_UV1, PKST_JOINTS, PKST_WEIGHTS,
    PKST_INDICES, PKST_DEFAULT_WEIGHTS, PKST_TARGETS, PKST_COUNT
} pk_stream;

static inline uint64_t pk_align16(uint64_t v) { return (v + 15u) & ~(uint64_t)15u; }

/* Offsets of the skeleton arrays for n joints (n < 2^32, so nothing overflows 64 bits). */
typedef struct pk_skeleton_layout { uint64_t parents, source_index, names, rest, bind, size; } pk_skeleton_layout;
static inline pk_skeleton_layout pk_skeleton_layout_of(uint64_t n) {
    pk_skeleton_layout l;
    l.parents = 0;
    l.source_index = pk_align16(4 * n);
    l.names = l.source_index + pk_align16(4 * n);
    l.rest = l.names + pk_align16(4 * n);
    l.bind = l.rest + pk_align16(4 * PK_TRANSFORM_FLOATS * n);
    l.size = l.bind + 4 * PK_TRANSFORM_FLOATS * n;
    return l;
}

/* Skins: `count` records, then `total` (sum of joint counts) u32 joints, then total mat4. */
typedef struct pk_skins_layout { uint64_t joints, inverse_bind, size; } pk_skins_layout;
static inline pk_skins_layout pk_skins_layout_of(uint64_t count, uint64_t total) {
    pk_skins_layout l;
    l.joints = pk_align16(PK_SKIN_RECORD * count);
    l.inverse_bind = l.joints + pk_align16(4 * total);
    l.size = l.inverse_bind + 64 * total;
    return l;
}

/* Little-endian scalar access (both sides require a little-endian host). */
static inline uint32_t pk_rd_u32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline int32_t pk_rd_i32(const uint8_t *p) { int32_t v; memcpy(&v, p, 4); return v; }
static inline uint64_t pk_rd_u64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline bool pk_host_little_endian(void) {
    const uint32_t one = 1;
    uint8_t b;
    memcpy(&b, &one, 1);
    return b == 1;
}

#endif
