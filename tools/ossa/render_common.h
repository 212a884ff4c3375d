/* Shared by `ossa render`, `demo`, `view`, `bench` and `plot`: load a file or
 * the built-in demo character, pick a clip, pose it (locals → model → per-skin
 * palettes), skin it on the CPU, frame a camera on the animated bounds, and
 * draw it with ossa_gl. Errors are printed on stderr prefixed with the
 * command name; functions return false / -1 on failure. */
#ifndef OSSA_TOOL_RENDER_COMMON_H
#define OSSA_TOOL_RENDER_COMMON_H

#include <ossa/gl.h>
#include <ossa/ossa.h>

#include "cli_common.h"

typedef struct scene {
    ossa_asset *asset;
    const char *label;       /* the file path, or "demo" */
    bool is_demo;
    uint32_t joint_count;
    ossa_transform *locals;  /* joint_count: the current local pose */
    ossa_mat4 *model;        /* joint_count: model-space matrices of the current pose */
    ossa_mat4 *palettes;     /* skin_count * joint_count, skeleton-indexed per skin */
    float **positions;       /* per mesh: CPU-skinned positions (vertex_count * 3) */
    float **normals;         /* per mesh: CPU-skinned normals, or NULL when the mesh has none */
    bool *skin_joint;        /* joint_count: used by some skin (drawn by the bone overlay) */
    bool *moving;            /* joint_count: model matrix changes over the spans last framed
                              * (scene_animated_bounds); without skins the bone overlay draws these */
    bool any_moving;         /* some moving[j] is set */
    float **morph_weights;   /* per mesh: target_count current weights, or NULL without targets */
    float **morphed;         /* per mesh with targets: positions then normals after morphing (CPU path) */
    bool dqs;                /* skin with dual quaternions (CPU: OSSA_SKIN_DQS, GPU: DUAL_QUAT) instead of LBS */
    ossa_dual_quat *dual_quats; /* skin_count * joint_count, from the palettes (filled when dqs) */
    /* Optional pass after every local-to-model (IK, ik_pass.h): may edit locals and model;
     * the palettes are computed after it. Set after scene_load (which zeroes the scene). */
    void (*post_pose)(struct scene *s, void *user);
    void *post_pose_user;
    /* Set while a pose is made that no frame shows or that repeats one (render_to_file: the
     * camera's bounds, --compare's DQS half): the hook runs but keeps no statistics. */
    bool repeat_pose;
    /* Optional: poses the scene instead of sampling one clip (layers, docs/layers.md); it fills
     * locals and calls scene_set_pose / scene_set_weights itself. scene_pose calls it. */
    void (*pose_fn)(void *user, struct scene *s, float t, bool loop);
    void *pose_user;
    ossa_built_clip **built;  /* per editable clip, built on first use with build_options */
    ossa_clip_build_options build_options; /* zero (scene_load) = the default precision */
    cli_built_sampler sampler; /* the built clip posed last (scene_pose_built) */
} scene;

/* Loads `path` (a .gltf/.glb), or the demo character when path is NULL or "demo".
 * Leaves the rest pose in scene->model. */
bool scene_load(scene *s, const char *path, const char *cmd);
void scene_free(scene *s);

/* Clip by name, or by index when `name` is all digits; -1 (message printed) if absent. */
int scene_find_clip(const scene *s, const char *name, const char *cmd);

/* Poses the scene: clip NULL = rest pose (the skeleton's rest TRS). Fills locals,
 * model and palettes. Returns the sampled (adjusted) time. */
float scene_pose(scene *s, const ossa_clip *clip, float t, bool loop);

/* Same from a local pose (joint_count transforms, e.g. ossa_player_pose). */
void scene_set_pose(scene *s, const ossa_transform *locals);

/* Morph weights of every mesh with targets: its default weights, overridden by the
 * clip's weight tracks for the mesh's node at time t (clip NULL = defaults).
 * scene_pose calls it; callers of scene_set_pose call it themselves. */
void scene_set_weights(scene *s, const ossa_clip *clip, float t, bool loop);

/* Model-space copy of mesh i in the current pose into s->positions[i] /
 * s->normals[i]: morphed (ossa_morph_job) when it has targets, then skinned
 * with ossa_skin_job (LBS, kernel AUTO; DQS when s->dqs), or for a rigid mesh
 * transformed by its node's model matrix. A mesh without normals gets none here:
 * the renderer shades it with flat normals of the skinned triangles. */
bool scene_skin_cpu(scene *s, uint32_t mesh);

/* Skeleton-indexed palette of mesh i's skin (NULL for rigid meshes). */
const ossa_mat4 *scene_mesh_palette(const scene *s, uint32_t mesh);
bool scene_mesh_is_skinned(const scene *s, uint32_t mesh);

/* Extends [lo, hi] with the CPU-skinned vertices of the current pose. */
void scene_extend_bounds(scene *s, float lo[3], float hi[3]);

/* One interval of a clip to show; clip and built NULL = rest pose. */
typedef struct clip_span {
    const ossa_clip *clip;
    float from, to;
    bool loop;
    const ossa_built_clip *built; /* sampled instead of clip when set (scene_built_clip) */
} clip_span;

/* Clip `index` as a built clip: a packed file's own, or the editable clip built once with
 * s->build_options (cli_build_clip: progress, caps; kept in the scene). NULL after printing an
 * error. */
const ossa_built_clip *scene_built_clip(scene *s, int index, const char *cmd);
/* Poses the scene from a built clip (as scene_pose does from an editable one); returns the
 * sampled time. */
float scene_pose_built(scene *s, const ossa_built_clip *clip, float t, bool loop);
/* Morph weights from the last run of a built-clip sampler (mesh defaults where it has none). */
void scene_set_built_weights(scene *s, const cli_built_sampler *sampler);
/* A span from clip `index` of the scene over its whole range, sampled through its built
 * clip (unless layers pose the scene: then the editable clip). False after an error. */
bool scene_clip_span(scene *s, int index, clip_span *span, const char *cmd);

/* Bounds of what animates over the spans, sampled at `samples` times per span (plus both
 * ends), in model units. First sets s->moving: the joints whose model matrix changes between
 * those times. Then frames, in this order of preference:
 *   1. the skinned meshes, the rigid meshes on moving joints and the meshes with morph targets;
 *   2. without any of those, the moving joints (a skeleton without skinned meshes);
 *   3. nothing moves (a rest pose, a static file): every mesh, else every joint.
 * Cameras, lights and static meshes (a sky, a floor far away) are thus left out whenever
 * something animates. Returns true when the bounds come from meshes, false when from joints
 * (the renderer then draws the skeleton: meshes alone would not show the motion). */
bool scene_animated_bounds(scene *s, const clip_span *spans, uint32_t span_count, uint32_t samples, float lo[3],
                           float hi[3]);

/* A camera looking at the bounds from the front (+Z), a little right and above. */
typedef struct camera {
    float target[3];
    float yaw, pitch;  /* radians: yaw about +Y from +Z, pitch up from the horizon */
    float distance;
    float fovy;        /* radians */
    float near_plane, far_plane;
} camera;

/* Frames the box so that it fits in a width:height viewport with a small margin. */
camera camera_frame(const float lo[3], const float hi[3], float aspect);
/* Same from a chosen yaw and pitch (radians). */
camera camera_frame_at(const float lo[3], const float hi[3], float aspect, float yaw, float pitch);
/* view_proj = projection * view, column-major. */
void camera_view_proj(const camera *cam, float aspect, float out[16]);
void camera_eye(const camera *cam, float eye[3]);

/* GL side of a scene: a renderer, one ossa_gl_mesh per asset mesh and one texture per
 * material with a usable base-colour image. Needs a current context. */
typedef struct scene_gl {
    ossa_gl_renderer *renderer;
    ossa_gl_mesh **meshes;
    uint32_t mesh_count;
    ossa_gl_texture **textures;  /* per material, NULL = factor only */
    uint32_t material_count;
    float eye[3];                /* camera position for the specular highlight */
    bool has_eye;
} scene_gl;

/* The draw desc of mesh i's material (factor, texture, alpha, culling); the demo
 * character and meshes without a material get a default. view_proj/skinning unset. */
ossa_gl_draw_desc scene_gl_material(const scene_gl *g, const scene *s, uint32_t mesh);

typedef struct draw_options {
    bool cpu;         /* skin on the CPU and draw OSSA_GL_SKIN_NONE, else the palette texture */
    bool dqs;         /* dual quaternion skinning (--skinning dqs) */
    bool compare;     /* --compare: LBS on the left half, DQS on the right, one image */
    bool quiet;       /* --quiet: no progress on stderr */
    bool bones;       /* skeleton overlay (render_to_file turns it on when the framing is of joints) */
    bool wireframe;
    float background[3];
} draw_options;

bool scene_gl_create(scene_gl *g, const scene *s, const char *cmd);
/* scene_gl_draw into the rectangle (x, y, width, height) of the framebuffer only
 * (bottom-left origin; clears that rectangle). */
bool scene_gl_draw_rect(scene_gl *g, scene *s, const float view_proj[16], const draw_options *opt, uint32_t x,
                        uint32_t y, uint32_t width, uint32_t height, const char *cmd);
void scene_gl_destroy(scene_gl *g);
/* Clears the bound framebuffer (viewport width x height) and draws the posed scene
 * (opaque and masked meshes first, then blended ones). */
bool scene_gl_draw(scene_gl *g, scene *s, const float view_proj[16], const draw_options *opt, uint32_t width,
                   uint32_t height, const char *cmd);

/* Offscreen rendering of spans into an animated GIF (every frame) or a PNG
 * (one frame, job->png_frame), with an EGL headless context, a camera framed on
 * the animated bounds of all spans, and a progress bar on stderr. */
typedef struct render_job {
    const clip_span *spans;
    uint32_t span_count;
    float fps;               /* frames per second of clip time (> 0) */
    uint32_t width, height;
    const char *out;         /* .gif or .png */
    uint32_t png_frame;      /* .png: which frame of the sequence (0 = the first) */
    uint32_t supersample;    /* anti-aliasing: render N x N pixels per output pixel (0/1 = off) */
    draw_options draw;
    /* Optional second panel (--side-by-side): this scene is drawn on the right half of every
     * image with its own camera, posed by beside_spans (span_count of them) at the same times;
     * the job's scene on the left half. NULL = one panel. */
    scene *beside;
    const clip_span *beside_spans;
} render_job;

typedef struct render_stats {
    uint32_t frames;
    double seconds;          /* wall time, context creation included */
} render_stats;

/* Frames a span yields at fps: 1 for a still (no clip or to <= from); else the
 * times from, from + 1/fps, ... below `to`, plus `to` itself unless the span loops. */
uint32_t span_frame_count(const clip_span *span, float fps);

bool render_to_file(scene *s, const render_job *job, render_stats *stats, const char *cmd);

/* Where rendered frames go (`ossa render`, `ossa crowd`): an offscreen GL target of rw x rh
 * pixels (width x height supersampled ss x ss, ss lowered until a side fits in 8192), read
 * back after each frame, box-filtered to width x height, made opaque and written as `out`:
 * one PNG, or a frame appended to its GIF. */
typedef struct frame_output {
    ossa_gl_headless *ctx;
    const char *out;
    uint32_t width, height, ss, rw, rh;
    uint8_t *pixels, *big;     /* width x height RGBA8; big: the read-back (pixels itself for ss = 1) */
    struct gif_writer *gif;    /* open for a .gif out after frame_output_begin */
} frame_output;
/* Creates out's directory, the context (current on return) and the buffers; false after
 * printing why (f is then still freed by frame_output_free). */
bool frame_output_open(frame_output *f, const char *out, uint32_t width, uint32_t height, uint32_t supersample,
                       const char *cmd);
/* Opens the GIF writer for a .gif out (at fps frames a second); a no-op for a .png. False
 * after printing why. */
bool frame_output_begin(frame_output *f, float fps, const char *cmd);
/* Reads back the frame just drawn and writes it. False after printing why. */
bool frame_output_write(frame_output *f, const char *cmd);
/* Finishes the GIF (once; a no-op for a PNG): false after printing a write error. */
bool frame_output_end(frame_output *f, const char *cmd);
/* Frees the context (after the caller has freed its GL objects), the buffers and a GIF not
 * ended; f may be zeroed or half open. */
void frame_output_free(frame_output *f);

/* Progress of a long render on stderr: a bar redrawn in place on a terminal, else a
 * line every PROGRESS_LINE_SECONDS (3 s; environment OSSA_PROGRESS_SECONDS overrides)
 * with frames done and the time left. Start with
 * {isatty(2), now_seconds(), now_seconds()}. */
typedef struct progress_state {
    int tty;
    double start, last_line;
} progress_state;
void progress(progress_state *ps, const char *cmd, uint32_t done, uint32_t total);

/* The output options `ossa render` and `ossa demo` share: --out, --size WxH,
 * --fps N, --ssaa N, --bones, --cpu, --gpu, --skinning lbs|dqs, --compare, --quiet. */
typedef struct render_options {
    const char *out;         /* as given (NULL = none) */
    uint32_t width, height;  /* default 320x320 */
    float fps;               /* default 15 */
    uint32_t ssaa;           /* default 2 */
    draw_options draw;       /* default GPU skinning, no bones, the tools' background */
    bool skinning_given;     /* --skinning was on the command line */
} render_options;

void render_options_init(render_options *o, const char *out);
/* Takes argv[*i] (and its value, advancing *i) when it is one of those options.
 * Returns 1 when taken, 0 when it is not one of them (or its value is missing),
 * -1 on a bad value (usage error printed). */
int render_options_parse(render_options *o, const char *cmd, int argc, char **argv, int *i);
/* The output name must end in .gif or .png; prints a usage error and returns false otherwise. */
bool render_out_ext_ok(const char *cmd, const char *out);
/* Options that cannot be honoured together (--compare draws LBS and DQS side by side, so it takes
 * no --skinning): prints why and returns false, rather than ignoring one. */
bool render_options_consistent(const render_options *o, const char *cmd);
/* A render job of the spans with these options (png_frame 0). */
render_job render_options_job(const render_options *o, const clip_span *spans, uint32_t span_count);

/* Argument helpers: parse a float / positive int / "WxH"; print a usage error and return false. */
bool parse_float(const char *cmd, const char *opt, const char *text, float *out);
bool parse_size(const char *cmd, const char *text, uint32_t *w, uint32_t *h);
/* "lbs" → *dqs false, "dqs" → true. */
bool parse_skinning(const char *cmd, const char *text, bool *dqs);
/* The last case of an option loop: `arg` is an unknown option (or, when `last`, one
 * missing its value), or the one FILE operand (stored in *file). Prints a usage error
 * (cli_unknown_option) and returns false for an unknown option or a second FILE. */
bool take_file_arg(const char *cmd, const char *arg, bool last, const char **file);

/* Seconds from a monotonic clock. */
double now_seconds(void);

#endif
