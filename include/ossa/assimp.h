/* ossa/assimp.h: every format Assimp reads (FBX, COLLADA, OBJ, glTF, ...) → ossa_asset.
 *
 * Library ossa_assimp (CMake target ossa::ossa_assimp), built when pkg-config finds
 * `assimp` (Debian libassimp-dev). It calls Assimp's C API (aiImportFile...) and
 * treats the returned aiScene as untrusted input: counts, indices, pointers, names,
 * NaN/Inf, non-increasing key times are checked, and a bad scene is an error naming
 * the place ("meshes[2].bones[5].weights[17]: vertex 9000 >= vertex count 812"),
 * never a crash in ossa's code. The asset is assembled by the same builder as glTF:
 *   - every aiNode reached from the root through mChildren becomes a joint (parents
 *     first, source order = depth-first pre-order, root first); its parent is the
 *     node its mParent names when that is another node of the scene, else the node
 *     listing it (Assimp's HL1 MDL importer lists every bone under one node and gives
 *     the bone hierarchy in mParent); a node listed twice or a cycle is an error;
 *   - each aiMesh with bones becomes one skin: its bones' nodes (by name) with the
 *     aiBone offset matrices as inverse bind matrices;
 *   - bone weights become up to 8 influences per vertex (the largest kept),
 *     renormalised; a warning says how many vertices lost influences;
 *   - each (node, aiMesh) becomes an ossa_mesh (triangles only; aiAnimMesh
 *     targets become morph-target deltas);
 *   - each aiAnimation becomes a clip in seconds (key ticks / mTicksPerSecond, 0
 *     meaning 25 as Assimp documents); each channel keeps its own key times;
 *     rotation keys are slerped (LINEAR); translation/scale keys LINEAR;
 *     pre/post states: DEFAULT and CONSTANT hold the end keys, LINEAR
 *     extrapolates translation/scale to the clip's range, REPEAT repeats the keys
 *     to the clip's range; a clip lasts at least its mDuration;
 *   - morph mesh channels (aiMeshMorphAnim) become weight tracks;
 *   - a file without meshes (a skeleton with clips) gives an asset without meshes:
 *     AI_CONFIG_IMPORT_NO_SKELETON_MESHES is set, so COLLADA and BVH get no invented
 *     mesh of bone pyramids skinned to every node.
 * FBX pivots: AI_CONFIG_IMPORT_FBX_PRESERVE_PIVOTS is set to false, so Assimp folds
 * pivot/offset chains into one node transform instead of "$AssimpFbx$" helper
 * nodes; helpers Assimp still creates become ordinary joints (their animation is
 * kept). docs/decisions.md has the reasons.
 * Memory: options->max_allocation caps what ossa itself allocates during the load (the
 * aiScene → asset conversion and the asset it returns); Assimp's own memory (its
 * readers, the aiScene, post-processing) is NOT counted, and a hostile file can make
 * Assimp allocate without bound (e.g. a binary FBX array declaring 4 GiB in 500
 * bytes). The *_bounded loads below bound that too.
 * Thread-safety: Assimp's C API keeps its last error string in a global, so loads
 * from several threads at once may report each other's messages (results stay
 * correct). */
#ifndef OSSA_ASSIMP_H
#define OSSA_ASSIMP_H

#include "asset.h"
#include "format.h"
#include "import.h" /* ossa_import_file / ossa_import_clips (library ossa_import), declared here before */

#ifdef __cplusplus
extern "C" {
#endif

/* Loads any file Assimp reads. Results as for ossa_gltf_load_file, plus:
 *   UNSUPPORTED  Assimp does not know the format (diag names the detected format)
 *   PARSE        Assimp refused the file (diag has Assimp's message)
 *   INVALID_DATA the scene Assimp returned breaks an ossa rule (diag names the place) */
ossa_result ossa_assimp_load_file(const char *path, const ossa_load_options *options, ossa_asset **out,
                                  ossa_diagnostic *diag);

/* Same from memory; `hint` is the file extension without the dot ("fbx", "dae", may
 * be NULL or "" to let Assimp guess). Files the model references (.bin, textures)
 * are not found from memory. */
ossa_result ossa_assimp_load_memory(const void *data, size_t size, const char *hint, const ossa_load_options *options,
                                    ossa_asset **out, ossa_diagnostic *diag);

/* Loads only the animations of a file Assimp reads and binds their channels to
 * `skeleton` by joint NAME; unmatched channels are dropped with a warning naming
 * them. The returned asset has clips and warnings only (skeleton NULL). */
ossa_result ossa_assimp_load_clips(const char *path, const ossa_skeleton *skeleton, const ossa_load_options *options,
                                   ossa_asset **out, ossa_diagnostic *diag);

/* Bounded loads (POSIX; elsewhere UNSUPPORTED): the same loads with all the memory of
 * the import bounded, Assimp's included. The load runs first in a forked child process
 * whose memory is capped at max_bytes (0 = options->max_allocation, or 1 GiB when that
 * is 0 too), as a probe; when the probe finishes within the cap the load runs again in
 * the calling process (same input, same code, so the same memory) and returns what
 * ossa_assimp_load_file/_memory/_clips return. Hence a file that fits costs two
 * imports (time), and the calling process's peak is that of the unbounded load.
 * Extra results:
 *   LIMIT  the probe reached the cap: diag says so, with Assimp's log line reporting
 *          the failed allocation and the line after it (usually the file offset);
 *   PARSE  the probe process crashed (a crash inside Assimp; diag names the signal);
 *   IO     fork, pipe or setrlimit failed.
 * How the cap holds, by build:
 *   - normal builds: setrlimit(RLIMIT_AS) in the child at its address space at the fork
 *     plus max_bytes, so the child's peak RSS stays below the parent's RSS at the fork
 *     plus max_bytes. Assimp may swallow the std::bad_alloc it gets (the FBX reader
 *     drops the object), so the child listens to Assimp's log for "bad_alloc" and also
 *     reports LIMIT when its peak address space came within 16 MiB of the limit;
 *   - AddressSanitizer builds (RLIMIT_AS/RLIMIT_DATA would fail at once on ASan's
 *     shadow reservation): the net heap growth after the fork, counted through the
 *     sanitizer allocator's malloc/free hooks, ends the child with LIMIT as soon as it
 *     exceeds max_bytes (RSS may exceed max_bytes by ASan's quarantine and shadow);
 *   - under valgrind the child's limit applies to valgrind itself: the result is not
 *     meaningful there.
 * The fork copies only the calling thread: call it before starting threads that hold
 * locks Assimp or malloc need, or accept fork's usual caveats. */
ossa_result ossa_assimp_load_file_bounded(const char *path, const ossa_load_options *options, size_t max_bytes,
                                          ossa_asset **out, ossa_diagnostic *diag);
ossa_result ossa_assimp_load_memory_bounded(const void *data, size_t size, const char *hint,
                                            const ossa_load_options *options, size_t max_bytes, ossa_asset **out,
                                            ossa_diagnostic *diag);
ossa_result ossa_assimp_load_clips_bounded(const char *path, const ossa_skeleton *skeleton,
                                           const ossa_load_options *options, size_t max_bytes, ossa_asset **out,
                                           ossa_diagnostic *diag);

/* Version of the Assimp library linked in, e.g. "5.2.4" (valid for the calling thread's lifetime). */
const char *ossa_assimp_version(void);

#ifdef __cplusplus
}
#endif
#endif
