/* Shared helpers for the cmocka tests (not part of the library). */
#ifndef OSSA_TEST_SUPPORT_H
#define OSSA_TEST_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ossa/ossa.h>

/* ---- skips are recorded with their reason ----
 * skip() is cmocka's, redefined here to first append one line "<test>: <case>: <reason>" to
 * the file OSSA_SKIP_LOG names (CMake sets it to <build>/skipped.log for every CTest test;
 * scripts/test.sh empties it before the suite and prints it grouped by reason at the end).
 * <test> is OSSA_TEST_NAME (set by CMake) or the executable's name, <case> the function that
 * called skip(). The reason is the one last given to ot_skip_reason, which the helpers
 * below call when they return NULL (asset absent, tool not built, no GL); a skip() without
 * one is logged as "no reason given" with its file and line. */
#if defined(__GNUC__)
#define OT_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define OT_PRINTF(f, a)
#endif
/* Prints "[  SKIP    ] reason" (once while the reason stays the same) and keeps it for the
 * next skip(). Newlines in the reason become ';' (one log line per skip). */
void ot_skip_reason(const char *format, ...) OT_PRINTF(1, 2);
/* Logs the case as skipped with the pending reason, then skips it (cmocka's _skip). */
void ot_skip_case(const char *case_name, const char *file, int line);
/* Logs and prints that a part of the case was not tried (the case goes on). */
void ot_skip_part_in(const char *case_name, const char *format, ...) OT_PRINTF(2, 3);
#undef skip
#define skip() ot_skip_case(__func__, __FILE__, __LINE__)
#define ot_skip_part(...) ot_skip_part_in(__func__, __VA_ARGS__)

/* Full path of a file under ../shared/assets (OSSA_ASSETS), or NULL with the reason given
 * to ot_skip_reason when the assets are absent: callers then skip(). The string is static
 * storage overwritten by the next call. */
const char *ot_asset(const char *relative);
/* Full path of a file under Debian's assimp-testmodels (/usr/share/assimp/models/<relative>,
 * read in place), or NULL with the reason given to ot_skip_reason when it is absent: callers
 * then skip(). The string is static storage overwritten by the next call. */
const char *ot_assimp_model(const char *relative);
/* Loads a shared asset with ossa_gltf_load_file: skips the calling case when it is absent
 * (logged as "<caller>(<relative>)", since helpers load for several cases), fails it with
 * the loader's diagnostic when the load fails. Caller frees with ossa_asset_destroy. */
#define ot_load_asset(relative) ot_load_asset_in(__func__, relative)
ossa_asset *ot_load_asset_in(const char *case_name, const char *relative);
/* True when scripts/valgrind.sh runs the test (OSSA_UNDER_VALGRIND=1): cases that build many
 * clips check a documented subset there (the sanitizer and scalar runs check them all). */
bool ot_under_valgrind(void);
/* Path under the test scratch directory (OSSA_TMP), created on demand; static storage. */
const char *ot_tmp(const char *name);
/* Path of the built ossa tool (OSSA_TOOL), or NULL with the reason given to ot_skip_reason. */
const char *ot_tool(void);
/* The tool when it was built with GL (CMake sets OSSA_TOOL_GL=1), else NULL with the reason
 * given to ot_skip_reason: cases that draw (render, view) skip in a -DOSSA_BUILD_GL=OFF build. */
const char *ot_gl_tool(void);
/* Runs a shell command, returns its exit status and its stdout (malloc'd, NUL-terminated,
 * caller frees) in *out when out is not NULL. */
int ot_run(const char *command, char **out);
/* Runs `"<ot_tool()>" ARGS 2>&1` through ot_run (the tool must exist: check ot_tool() first). */
int ot_tool_run(const char *args, char **out);

/* A counting allocator: the bytes live, their peak, and the calls (a free of NULL is not
 * counted). Zero the counters, then pass ot_counting_allocator(&c) where an allocator goes. */
typedef struct ot_counting {
    size_t live, peak;
    int allocs, frees;
} ot_counting;
ossa_allocator ot_counting_allocator(ot_counting *counting);

/* Deterministic PRNG (splitmix64). */
uint64_t ot_rand_u64(uint64_t *state);
float ot_rand_float(uint64_t *state, float lo, float hi);
ossa_quat ot_rand_quat(uint64_t *state);

/* Fails the test with both values printed when |a - b| > tol. */
#define ot_assert_near(a, b, tol) ot_assert_near_impl((double)(a), (double)(b), (double)(tol), #a, #b, __FILE__, __LINE__)
void ot_assert_near_impl(double a, double b, double tol, const char *sa, const char *sb, const char *file, int line);
/* Same for count floats. */
void ot_assert_floats_near(const float *a, const float *b, size_t count, float tol);

/* Job shorthands for tests that sample many times: each fills the job's spans from the
 * counts given (reference and output both joint_count long; cursors, when given, the
 * clip's cursor count), runs it and fails the test unless it returns OK. */
/* ossa_clip_sample_job over the whole clip; returns sampled_time. CURSOR without cursors
 * samples with the DEFAULT lookup. reference may be NULL (identity). */
float ot_clip_sample(const ossa_clip *clip, float t, bool loop, ossa_lookup lookup, uint32_t *cursors,
                     const ossa_transform *reference, ossa_transform *out, uint32_t joint_count);
/* ossa_clip_weights_job for weight track `index` into out (the track's components). */
float ot_clip_sample_weights(const ossa_clip *clip, uint32_t index, float t, bool loop, ossa_lookup lookup,
                             uint32_t *cursors, float *out);
/* ossa_local_to_model_job over a parents span (joint_count locals, parents, matrices). */
void ot_local_to_model(const ossa_transform *locals, const int32_t *parents, uint32_t joint_count, ossa_mat4 *out);
/* ossa_palette_job, skeleton layout, into out (skeleton->joint_count matrices). */
void ot_palette(const ossa_skeleton *skeleton, uint32_t skin, const ossa_mat4 *model, ossa_mat4 *out);

#endif
