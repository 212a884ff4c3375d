/* Shared by the ossa commands: loading a model of any format with its diagnostics
 * (the load options every command takes), and JSON scalars on stdout. */
#ifndef OSSA_TOOL_CLI_COMMON_H
#define OSSA_TOOL_CLI_COMMON_H

#include <ossa/ossa.h>

/* True when FILE starts with the packed .ossa magic (the load path goes by content). */
bool cli_is_packed(const char *file);

/* Loads a .gltf/.glb or a packed .ossa file; on failure prints "ossa CMD: FILE: message (result)" on
 * stderr and returns NULL. */
ossa_asset *cli_load_asset(const char *cmd, const char *file);

/* Builds asset->built_clips from asset->clips (clips[i] → built_clips[i]) with `options`
 * (NULL = defaults), unless the asset already has built clips (a packed file: then
 * --precision / --lossless are refused, see cli_refuse_rebuild). With `print`, one line per
 * clip on stdout: raw and built bytes, ratio, measured max error and the joint and time where
 * it occurs. Progress on stderr (cli_build_clip). Returns 0, or 1 after printing an error. */
int cli_build_clips(ossa_asset *asset, const ossa_clip_build_options *options, const char *cmd, bool print);

/* Builds one clip (clip `index` of `count` the command builds, for the progress line) with
 * `options` (NULL = defaults) plus the command line's --max-build-scratch, reporting progress on
 * stderr when it is a terminal or with --progress: once a clip has built for ~1 s, its fraction
 * done (a terminal: one line rewritten in place about 10 times a second, cleared at the end;
 * --progress off a terminal: a line about every second, and "built clip i/n 'name' in X s" for
 * every clip). On failure
 * prints why: the cap or check that refused it by name (ossa_clip_build_check) and the
 * command-line way to raise it. *seconds (may be NULL) gets the build's wall time. */
ossa_result cli_build_clip(const char *cmd, const ossa_clip *clip, const ossa_skeleton *skeleton,
                           const ossa_clip_build_options *options, uint32_t index, uint32_t count,
                           ossa_built_clip **out, ossa_clip_build_stats *stats, double *seconds);
/* Wall time spent in cli_build_clip since the process started, seconds. */
double cli_build_seconds(void);
/* A packed file's clips are built already: --precision / --lossless cannot be honoured there.
 * True (after printing why) when `options` asks for either and the asset has built clips only. */
bool cli_refuse_rebuild(const ossa_asset *asset, const ossa_clip_build_options *options, const char *cmd);

/* Options every command accepts (main.c takes them out of argv first):
 *   --max-build-scratch SIZE      the clip builder's scratch cap (bytes, suffix K/M/G) for
 *                                 every clip the command builds (default: half the memory)
 *   --progress                    build progress on stderr even when it is not a terminal
 *   --importer gltf|assimp|auto   which importer (auto: by the detected format)
 *   --max-memory SIZE             the load's max_allocation (bytes, suffix K/M/G); for files
 *                                 Assimp reads, also the cap on the whole import, Assimp's
 *                                 memory included (ossa_assimp_load_file_bounded)
 *   --anim FILE                   clips from a separate file, bound by joint name; they come
 *                                 first (--clip 0 = its first clip), then the model's own
 *   --retarget                    the --anim clips retargeted onto the model (humanoids; bone
 *                                 maps by name) instead of bound by joint name; with
 *   --map MAP.json, --tpose-fix, --no-contacts, --rest-reference   (retarget_cli.h; also
 *                                 `ossa retarget`'s) */
/* A command's phases (parse the arguments, load, run) return CLI_GO_ON when the command goes
 * on, else its exit code (0, or 1 / 2 after printing why). */
enum { CLI_GO_ON = -1 };

typedef enum cli_importer { CLI_IMPORTER_AUTO = 0, CLI_IMPORTER_GLTF, CLI_IMPORTER_ASSIMP } cli_importer;
typedef struct cli_load_options {
    cli_importer importer;
    size_t max_memory; /* 0 = the library default (1 GiB) */
    const char *anim;
    bool retarget;                /* --retarget */
    bool retarget_options;        /* one of --map, --tpose-fix, --no-contacts, --rest-reference given */
    size_t max_build_scratch; /* --max-build-scratch SIZE: ossa_clip_build_options.max_scratch_bytes
                                 (0 = the tool's default, cli_default_build_scratch) */
    bool progress;            /* --progress: build progress on stderr even when it is not a terminal */
} cli_load_options;

/* The tool's builder scratch cap when --max-build-scratch is not given: half the machine's
 * physical memory (sysconf), at least OSSA_CLIP_BUILD_SCRATCH_CAP. */
size_t cli_default_build_scratch(void);
extern cli_load_options cli_load;

/* Removes the load options from argv (in place) into cli_load; returns the new argc,
 * or -1 after printing an error for a bad value. */
int cli_take_load_options(int argc, char **argv);

/* Prints "ossa CMD: unknown option 'ARG'" on stderr; `last` (ARG ends the command line, so it may
 * be a known option missing its value) adds "(or its value is missing)". Callers print their
 * usage after it. */
void cli_unknown_option(const char *cmd, const char *arg, bool last);

/* True when the tool was built with ossa_assimp. */
bool cli_have_assimp(void);
/* Prints how to read a non-glTF file without Assimp. */
void cli_explain_no_assimp(const char *cmd, const char *file, ossa_file_format format);

/* Loads any model file (glTF natively, everything else through Assimp when built
 * with it), then the --anim clips; on failure prints "ossa CMD: FILE: message
 * (result)" (naming the detected format and the way out when this build cannot
 * read it) on stderr and returns NULL. */
ossa_asset *cli_load_asset(const char *cmd, const char *file);

/* Puts `count` clips (ownership moves to the asset) before asset's own ones, in an array from
 * the asset's allocator (malloc when it has none). False when out of memory (nothing moved). */
bool cli_prepend_clips(ossa_asset *asset, ossa_clip *const *clips, uint32_t count);

/* The --anim clips for a model loaded from `file` (a name for messages): bound by joint name, or
 * with --retarget retargeted (retarget_cli.h); true when there is no --anim. */
bool cli_add_anim_clips(const char *cmd, ossa_asset *asset, const char *file);

/* Adds the clips of `file` (any format), bound to asset's skeleton by joint name, BEFORE the
 * asset's own clips: clip index 0 is the file's first clip, and a name both have finds the
 * file's clip (what `--anim walk.fbx --clip 0` asks for); the model's clips follow. */
bool cli_add_clips(const char *cmd, ossa_asset *asset, const char *file);

/* A built clip's build report (ossa_clip_report, NULL = the packed file has none) after a clip
 * line on stdout: ", vertex error E at mesh M vertex V joint J 'name' t=T s", ", no mesh checked"
 * or ", no build report in the file"; and as a JSON value (null, or an object with "precision",
 * "character_height", "precision_of_height", "mesh_checked", "vertex_meshes", "max_vertex_error",
 * "worst_mesh", "worst_vertex", "worst_vertex_joint", "worst_vertex_joint_name", "worst_vertex_time",
 * "vertex_times", "vertex_times_unchecked"). cli_build_clips fills asset->clip_reports. */
void cli_print_clip_report(const ossa_asset *asset, const ossa_clip_report *report);
void cli_print_clip_report_json(const ossa_asset *asset, const ossa_clip_report *report);

/* Built clip by name, or by index when NAME is all digits; -1 if absent. */
int32_t cli_find_built_clip(const ossa_asset *asset, const char *name);

/* Sampling a built clip into a whole local pose (skeleton order) and its morph weights:
 * the sampling job with a context of its own. init with clip NULL is a no-op (free works). */
typedef struct cli_built_sampler {
    const ossa_built_clip *clip;
    ossa_sampling_context *context;
    float *weights;               /* weight_count: tracks concatenated (built_clip.h) */
    uint32_t weight_count, joint_count;
    const ossa_transform *reference; /* the skeleton's rest pose (the sampling job's reference) */
    float sampled_time;           /* of the last run */
} cli_built_sampler;
int cli_built_sampler_init(cli_built_sampler *s, const ossa_built_clip *clip, const ossa_skeleton *skeleton);
/* Samples at t into pose (joint_count transforms); 0, or 1 after printing an error. */
int cli_built_sampler_run(cli_built_sampler *s, float t, bool loop, ossa_transform *pose);
/* Overrides w (count weights) with the last run's weight track for `joint` when the clip
 * has one of `count` components. */
void cli_built_sampler_weights(const cli_built_sampler *s, uint32_t joint, uint32_t count, float *w);
void cli_built_sampler_free(cli_built_sampler *s);

/* A JSON string (NULL prints ""), and a number (non-finite prints null). */
void json_put_str(const char *s);
void json_put_num(double v);

/* Builds without GL (-DOSSA_BUILD_GL=OFF; OSSA_TOOL_GL undefined): every command that
 * draws starts with CLI_REQUIRE_GL("name"), which prints that the build has no GL and
 * returns 1. tools/ossa/no_gl.c stubs the GL entry points the other files reference. */
int cli_no_gl(const char *cmd);
#ifdef OSSA_TOOL_GL
#define CLI_REQUIRE_GL(cmd) ((void)0)
#else
#define CLI_REQUIRE_GL(cmd) return cli_no_gl(cmd)
#endif

#endif
