/* ossa/pack.h: the packed .ossa file (asset → one relocatable file → asset).
 * Provided by library ossa (runtime; CMake ossa::ossa, pkg-config ossa) for loading (ossa_pack_load_*, _detect, _checksum);
 * ossa_offline (ossa::ossa_offline) for writing (ossa_pack_write*).
 *
 * A packed file holds what a runtime needs from an asset, ready to use: the skeleton
 * (names, parents-first order, rest and bind poses, the map to the source's node
 * order), every skin with its inverse bind matrices, every mesh with all its streams,
 * morph targets, default weights, skin/node/source indices, material index and
 * vertex colours, the materials and their images (encoded bytes and MIME type, as
 * material.h keeps them), the node and mesh infos, the built clips (built_clip.h) as their relocatable blocks, and optionally
 * the importer's warnings and the clips' build reports (asset->clip_reports: precision and
 * skinned-vertex error, as `ossa pack` measured them; NULL/0 after loading a file without them). Editable clips are not stored: a loaded packed asset has
 * built clips only (clip_count == 0).
 *
 * The file is versioned, little-endian and relocatable (offsets, never pointers): a
 * 48-byte header (magic, version, endianness marker, file size, XXH64 checksum of
 * everything after the header), a section table (type, count, offset, size) and
 * 16-byte aligned sections. docs/ossa-format.md describes every byte.
 *
 * Loading is one read (or the caller's memory), the checksum, then validation of
 * every offset, count and index before any object is built (parents first, skin and
 * mesh joint indices below the joint count, index buffers below the vertex count,
 * finite floats in every stored pose, matrix and vertex stream; built clips: finite base
 * pose, keys and weights, see ossa_built_clip_load; interpolating keys near the float
 * limits can still overflow in a sampled pose). A hostile file is an error
 * whose diagnostic names the section and the item ("section 6 (meshes) / mesh 0:
 * joint index 77 >= 43 joints"), never a crash or a leak.
 * Both directions need a little-endian host (UNSUPPORTED otherwise).
 * Thread-safety: writes and loads are independent; the asset is only read. */
#ifndef OSSA_PACK_H
#define OSSA_PACK_H

#include "asset.h"

#ifdef __cplusplus
extern "C" {
#endif

#define OSSA_PACK_VERSION 1u
#define OSSA_PACK_HEADER_SIZE 48u

/* Zero means default. */
typedef struct ossa_pack_options {
    bool strip_warnings;      /* leave asset->warnings out of the file */
} ossa_pack_options;

/* Writes `asset` as a packed file into `buffer` (capacity bytes). *size is always set
 * to the file's exact size; call with buffer NULL (capacity 0) to query it first.
 * Deterministic: the same asset gives the same bytes (padding is zero).
 * The asset must be consistent as a loader makes it: node_count 0 or the skeleton's
 * joint count with nodes[i].joint == joint_of_source[i]; mesh joints below the joint
 * count; every built clip made for this skeleton (same joint count); material images
 * below the image count, texture sets 0/1, sampler values <= 65535, finite colours and
 * cutoffs; clip_report_count 0 or built_clip_count, each report valid as docs/ossa-format.md
 * ("clip reports") says (finite, "none" all zero, worst mesh/vertex/joint in range).
 * A mesh material out of range is written as -1 (the same default material).
 * INVALID_ARGUMENT (NULL asset/size, an inconsistent asset), BUFFER_TOO_SMALL
 * (capacity < *size; nothing useful is written), LIMIT (a count beyond 2^32 - 1 or a
 * file beyond the address space), UNSUPPORTED (big-endian host). */
ossa_result ossa_pack_write(const ossa_asset *asset, const ossa_pack_options *options, void *buffer,
                            size_t capacity, size_t *size);
/* Same into a file (written whole, then closed); IO when it cannot be written. */
ossa_result ossa_pack_write_file(const ossa_asset *asset, const ossa_pack_options *options, const char *path);

/* True when `data` (size bytes, the start of a file is enough) begins with the packed
 * file's magic. Tools use it to tell .ossa files from glTF without the extension. */
bool ossa_pack_detect(const void *data, size_t size);

/* The checksum stored in the header for a file of `size` bytes: XXH64 (seed 0) of
 * bytes [OSSA_PACK_HEADER_SIZE, size); 0 when size <= OSSA_PACK_HEADER_SIZE. */
uint64_t ossa_pack_checksum(const void *data, size_t size);

/* Loads a packed file into a new asset (free it with ossa_asset_destroy). `options`
 * may be NULL: allocator and max_allocation apply (the loader allocates about twice
 * the file size at most: LIMIT when that exceeds max_allocation); base_dir and
 * table_rate do not. On failure *out is NULL, diag (optional) says where and why,
 * and nothing is leaked.
 *   INVALID_ARGUMENT  out or path/data NULL, size 0
 *   IO                the file is missing, unreadable or not a regular file
 *   PARSE             not a packed file, truncated, wrong file size or checksum,
 *                     a section out of bounds, misaligned or overlapping
 *   INVALID_DATA      a count, offset, index or float a section holds is invalid
 *   UNSUPPORTED       another format version, a big-endian file or host
 *   LIMIT / OUT_OF_MEMORY */
ossa_result ossa_pack_load_file(const char *path, const ossa_load_options *options, ossa_asset **out,
                                ossa_diagnostic *diag);
/* Same from memory (`data` is not retained; any alignment). */
ossa_result ossa_pack_load_memory(const void *data, size_t size, const ossa_load_options *options,
                                  ossa_asset **out, ossa_diagnostic *diag);

#ifdef __cplusplus
}
#endif
#endif
