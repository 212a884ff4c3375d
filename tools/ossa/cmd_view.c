/* ossa view [FILE] [--size WxH] [--clip NAME] [--frames N --screenshot PATH] [--press F:KEYS]
 *           [--cpu] [--bones] [--graph G.json [--set NAME=VALUE@TIME]...]
 * Interactive viewer: a GLFW window (OpenGL 3.3 core), orbit camera, clip list,
 * playback through ossa_player (cross-fades included), CPU/GPU skinning switch.
 * With --graph, an animation graph (graph_cli.h) poses the character instead: keys 1..9 change
 * its parameters (a bool toggles, a trigger fires, a float steps up, with shift down) and the
 * window title shows every layer's active state and running transition. */
#ifdef OSSA_TOOL_GL /* without GL, no_gl.c defines cmd_view */
#include <epoxy/gl.h>
#include <GLFW/glfw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "commands.h"
#include "graph_cli.h"
#include "ik_pass.h"
#include "image_io.h"
#include "render_common.h"

/* Mesa's GLX driver leaks a few bytes per display and is unloaded by
 * glfwTerminate; LeakSanitizer then cannot name (or suppress, tests/lsan.supp)
 * the module. Under AddressSanitizer we leave GLFW initialised at exit so the
 * driver stays mapped; the process ends right after either way. */
#if defined(__SANITIZE_ADDRESS__)
#define KEEP_GLFW_AT_EXIT 1
#else
#define KEEP_GLFW_AT_EXIT 0
#endif

typedef struct viewer {
    scene s;
    ossa_player *player;
    int clip;            /* current clip index, -1 = rest pose */
    float speed;
    bool paused;
    uint32_t blend_layer;  /* a second override layer: the next clip, synced, at weight `blend` */
    float blend;
    draw_options draw;
    camera cam, home;
    bool dragging;
    double last_x, last_y;
    GLFWwindow *window;
    bool glfw_ok, s_loaded; /* glfwInit and scene_load succeeded: cmd_view undoes them */
    ik_pass ik;          /* I toggles: --ik chains, else the feet pinned where they are */
    bool ik_pin;         /* no --ik: targets = the feet's positions when I is pressed */
    cli_graph *graph;    /* --graph (when active): poses the character; 1..9 are its parameters */
    char graph_title[256]; /* the states shown in the title last */
} viewer;

/* The player plays the asset's built clips when it has them (cli_build_clips, or a packed
 * file), else its editable clips; built_clips[i] is clips[i] built. */
static uint32_t clip_count(const viewer *v) {
    return v->s.asset->built_clip_count ? v->s.asset->built_clip_count : v->s.asset->clip_count;
}
static const ossa_built_clip *built_clip(const viewer *v, int i) {
    return (uint32_t)i < v->s.asset->built_clip_count ? v->s.asset->built_clips[i] : NULL;
}
static const ossa_clip *editable_clip(const viewer *v, int i) {
    return i >= 0 && (uint32_t)i < v->s.asset->clip_count ? v->s.asset->clips[i] : NULL;
}

static const char *clip_name(const viewer *v, int i) {
    if (i < 0) return "(rest pose)";
    const ossa_built_clip *b = built_clip(v, i);
    const char *n = b ? ossa_built_clip_name(b) : v->s.asset->clips[i]->name;
    return n && *n ? n : "(unnamed)";
}

/* Clip i as the player takes it: the built clip when the asset has one, else the editable one. */
static ossa_clip_source clip_source(const viewer *v, int i) {
    const ossa_built_clip *b = built_clip(v, i);
    return b ? ossa_source_built(b) : ossa_source_editable(editable_clip(v, i));
}

/* Plays clip i on `layer` (cross-fading over `fade` seconds when > 0). */
static void play_clip(viewer *v, uint32_t layer, int i, float fade) {
    ossa_clip_source source = clip_source(v, i);
    if (fade > 0.0f) ossa_player_layer_crossfade(v->player, layer, source, fade, v->speed, true);
    else ossa_player_layer_play(v->player, layer, source, v->speed, true);
}

static void update_title(viewer *v) {
    char title[1024];
    if (cli_graph_active(v->graph)) {
        char values[256];
        cli_graph_describe(v->graph, v->graph_title, sizeof v->graph_title);
        snprintf(title, sizeof title, "ossa view - %s - %s - %s - %.2fx%s", v->s.label, v->graph_title,
                 cli_graph_values(v->graph, values, sizeof values), (double)v->speed, v->paused ? " [paused]" : "");
        glfwSetWindowTitle(v->window, title);
        return;
    }
    snprintf(title, sizeof title, "ossa view - %s - clip %d/%u '%s' - %.2fx%s - %s%s skinning%s%s%s", v->s.label,
             v->clip + 1, clip_count(v), clip_name(v, v->clip), (double)v->speed,
             v->paused ? " [paused]" : "", v->draw.cpu ? "CPU" : "GPU", v->s.dqs ? " DQS" : " LBS",
             v->draw.bones ? " - bones" : "", v->draw.wireframe ? " - wireframe" : "", v->ik.enabled ? " - IK" : "");
    glfwSetWindowTitle(v->window, title);
}

static void print_clips(const viewer *v) {
    if (cli_graph_active(v->graph)) {
        char help[1024];
        printf("ossa view: %s: graph %s\nkeys: %s;\n      space pause, + - speed, G CPU/GPU, D LBS/DQS, B bones, W wireframe,"
               " R reset camera, Esc quit\n", v->s.label, v->graph->path, cli_graph_key_help(v->graph, help, sizeof help));
        fflush(stdout);
        return;
    }
    uint32_t n = clip_count(v);
    printf("ossa view: %s: %u %sclip%s\n", v->s.label, n, v->s.asset->built_clip_count ? "built " : "", n == 1 ? "" : "s");
    for (uint32_t i = 0; i < n; i++) {
        const ossa_built_clip *b = built_clip(v, (int)i);
        const ossa_clip *c = editable_clip(v, (int)i);
        printf("  %c %u: %-24s %.2f s%s\n", (int)i == v->clip ? '>' : ' ', i + 1, clip_name(v, (int)i),
               (double)(b ? ossa_built_clip_duration(b) : c->end - c->start),
               (b ? ossa_built_clip_looping(b) : c->looping) ? " (looping)" : "");
    }
    printf("keys: 1-9 / N P clips, C cross-fade to next, space pause, + - speed, G CPU/GPU, D LBS/DQS, B bones,\n"
           "      W wireframe, [ ] blend weight of the next clip (synced), R reset camera, I IK on/off, Esc quit;\n"
           "      drag to orbit, scroll to zoom\n");
    fflush(stdout);
}

/* Weight w of the blend layer (the clip after the current one, in one sync group with it). */
static void set_blend(viewer *v, float w, bool report) {
    uint32_t n = clip_count(v);
    v->blend = w < 0.05f ? 0.0f : (w > 1.0f ? 1.0f : w);
    if (!n || v->clip < 0) return;
    int other = (v->clip + 1) % (int)n;
    ossa_clip_source playing = ossa_player_layer_source(v->player, v->blend_layer), want = clip_source(v, other);
    if (v->blend > 0.0f && (playing.clip != want.clip || playing.built != want.built))
        play_clip(v, v->blend_layer, other, 0.0f);
    uint32_t group = v->blend > 0.0f ? 1u : 0u;
    ossa_player_layer_set_sync(v->player, 0, group);
    ossa_player_layer_set_sync(v->player, v->blend_layer, group);
    ossa_player_layer_set_weight(v->player, 0, 1.0f - v->blend);
    ossa_player_layer_set_weight(v->player, v->blend_layer, v->blend);
    if (report) {
        printf("ossa view: blend %.1f of '%s' over '%s'\n", (double)v->blend, clip_name(v, other), clip_name(v, v->clip));
        fflush(stdout);
    }
}

static void select_clip(viewer *v, int i, bool fade) {
    uint32_t n = clip_count(v);
    if (!n) return;
    i = ((i % (int)n) + (int)n) % (int)n;
    play_clip(v, 0, i, fade && v->clip >= 0 ? 0.3f : 0.0f);
    v->clip = i;
    set_blend(v, v->blend, false);
    printf("ossa view: %s clip %d '%s'\n", fade ? "cross-fading to" : "playing", i + 1, clip_name(v, i));
    fflush(stdout);
    update_title(v);
}

static void handle_key(viewer *v, int key, int mods) {
    GLFWwindow *w = v->window;
    if (key >= GLFW_KEY_1 && key <= GLFW_KEY_9 && cli_graph_active(v->graph)) {
        char report[320];
        if (cli_graph_key(v->graph, (uint32_t)(key - GLFW_KEY_1), (mods & GLFW_MOD_SHIFT) != 0, report, sizeof report)) {
            printf("ossa view: %s\n", report);
            fflush(stdout);
            update_title(v);
        }
        return;
    }
    if (key >= GLFW_KEY_1 && key <= GLFW_KEY_9) {
        if ((uint32_t)(key - GLFW_KEY_1) < clip_count(v)) select_clip(v, key - GLFW_KEY_1, false);
        return;
    }
    switch (key) {
    case GLFW_KEY_ESCAPE:
    case GLFW_KEY_Q: glfwSetWindowShouldClose(w, 1); break;
    case GLFW_KEY_N: select_clip(v, v->clip + 1, false); break;
    case GLFW_KEY_P: select_clip(v, v->clip - 1, false); break;
    case GLFW_KEY_C: select_clip(v, v->clip + 1, true); break;
    case GLFW_KEY_SPACE: v->paused = !v->paused; break;
    case GLFW_KEY_EQUAL:
    case GLFW_KEY_KP_ADD: v->speed = fminf(v->speed * 1.25f, 16.0f); ossa_player_set_speed(v->player, v->speed); break;
    case GLFW_KEY_MINUS:
    case GLFW_KEY_KP_SUBTRACT: v->speed = fmaxf(v->speed / 1.25f, 1.0f / 16); ossa_player_set_speed(v->player, v->speed); break;
    case GLFW_KEY_G: v->draw.cpu = !v->draw.cpu; break;
    case GLFW_KEY_D: v->s.dqs = !v->s.dqs; break;
    case GLFW_KEY_B: v->draw.bones = !v->draw.bones; break;
    case GLFW_KEY_W: v->draw.wireframe = !v->draw.wireframe; break;
    case GLFW_KEY_R: v->cam = v->home; break;
    case GLFW_KEY_I:
        v->ik.enabled = !v->ik.enabled;
        for (uint32_t i = 0; v->ik_pin && v->ik.enabled && i < v->ik.count; i++) {
            const float *m = v->s.model[v->ik.chains[i].joints[2]].m;
            v->ik.chains[i].target = ossa_vec3_make(m[12], m[13], m[14]);
        }
        printf("ossa view: IK %s (%u chain%s)\n", v->ik.enabled ? "on" : "off", v->ik.count, v->ik.count == 1 ? "" : "s");
        fflush(stdout);
        break;
    case GLFW_KEY_LEFT_BRACKET: set_blend(v, v->blend - 0.1f, true); break;
    case GLFW_KEY_RIGHT_BRACKET: set_blend(v, v->blend + 0.1f, true); break;
    default: return;
    }
    update_title(v);
}

static void on_key(GLFWwindow *w, int key, int scancode, int action, int mods) {
    (void)scancode;
    if (action != GLFW_PRESS && action != GLFW_REPEAT) return;
    handle_key(glfwGetWindowUserPointer(w), key, mods);
}

/* --press "FRAME:KEYS,..." (for scripted runs and tests): before drawing frame FRAME
 * (1-based), acts as if KEYS were typed; letters, digits, space and + - [ ] ; ^ before a digit
 * holds shift for it (^1 = shift + 1). */
static int script_key(char c) {
    if (c >= 'a' && c <= 'z') return GLFW_KEY_A + (c - 'a');
    if (c >= 'A' && c <= 'Z') return GLFW_KEY_A + (c - 'A');
    if (c >= '1' && c <= '9') return GLFW_KEY_1 + (c - '1');
    if (c == ' ') return GLFW_KEY_SPACE;
    if (c == '+' || c == '=') return GLFW_KEY_EQUAL;
    if (c == '-') return GLFW_KEY_MINUS;
    if (c == '[') return GLFW_KEY_LEFT_BRACKET;
    if (c == ']') return GLFW_KEY_RIGHT_BRACKET;
    return -1;
}

static bool script_valid(const char *p) {
    while (*p) {
        char *end = NULL;
        long f = strtol(p, &end, 10);
        if (end == p || f < 1 || *end != ':') return false;
        p = end + 1;
        if (!*p || *p == ',') return false;
        for (; *p && *p != ','; p++) {
            if (*p == '^' && p[1] >= '1' && p[1] <= '9') p++; /* shift + digit */
            else if (script_key(*p) < 0) return false;
        }
        if (*p == ',') p++;
    }
    return true;
}

static void script_run(viewer *v, const char *p, long frame) {
    while (p && *p) {
        char *end = NULL;
        long f = strtol(p, &end, 10);
        p = end + 1;
        for (; *p && *p != ','; p++) {
            int mods = *p == '^' ? GLFW_MOD_SHIFT : 0;
            if (mods) p++; /* script_valid: a digit follows */
            if (f == frame) handle_key(v, script_key(*p), mods);
        }
        if (*p == ',') p++;
    }
}

static void on_button(GLFWwindow *w, int button, int action, int mods) {
    (void)mods;
    viewer *v = glfwGetWindowUserPointer(w);
    if (button != GLFW_MOUSE_BUTTON_LEFT) return;
    v->dragging = action == GLFW_PRESS;
    glfwGetCursorPos(w, &v->last_x, &v->last_y);
}

static void on_cursor(GLFWwindow *w, double x, double y) {
    viewer *v = glfwGetWindowUserPointer(w);
    if (!v->dragging) return;
    v->cam.yaw -= (float)(x - v->last_x) * 0.01f;
    v->cam.pitch += (float)(y - v->last_y) * 0.01f;
    if (v->cam.pitch > 1.5f) v->cam.pitch = 1.5f;
    if (v->cam.pitch < -1.5f) v->cam.pitch = -1.5f;
    v->last_x = x;
    v->last_y = y;
}

static void on_scroll(GLFWwindow *w, double dx, double dy) {
    (void)dx;
    viewer *v = glfwGetWindowUserPointer(w);
    float f = powf(0.9f, (float)dy);
    v->cam.distance *= f;
    v->cam.near_plane = fmaxf(v->cam.near_plane * f, 1e-4f);
    v->cam.far_plane *= f;
}

static void on_glfw_error(int code, const char *message) { fprintf(stderr, "ossa view: GLFW error 0x%x: %s\n", code, message); }

static bool save_screenshot(const char *path, int w, int h) {
    size_t row = (size_t)w * 4;
    uint8_t *px = malloc(row * (size_t)h), *flip = malloc(row * (size_t)h);
    bool ok = px && flip;
    if (ok) {
        glPixelStorei(GL_PACK_ALIGNMENT, 1);
        glReadBuffer(GL_BACK);
        glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, px);
        for (int y = 0; y < h; y++) memcpy(flip + (size_t)y * row, px + (size_t)(h - 1 - y) * row, row);
        for (size_t i = 0; i < (size_t)w * (size_t)h; i++) flip[i * 4 + 3] = 255;
        char err[512];
        if (!make_parent_dirs(path) || !image_write_png(path, flip, (uint32_t)w, (uint32_t)h, err, sizeof err)) {
            fprintf(stderr, "ossa view: %s\n", err);
            ok = false;
        }
    } else {
        fprintf(stderr, "ossa view: out of memory\n");
    }
    free(px);
    free(flip);
    return ok;
}

static int usage(FILE *f) {
    fprintf(f, "usage: ossa view [FILE|demo] [--clip NAME|INDEX] [--size WxH] [--cpu] [--bones] [--skinning lbs|dqs]\n"
               "                 [--frames N --screenshot PATH] [--press FRAME:KEYS,...] [--ik JOINT:x,y,z]\n"
               "  a window with the animated character (default: the built-in demo character)\n"
               "  --frames N       stop after N frames (stepped at 1/60 s each)\n"
               "  --screenshot P   save the last frame's back buffer as PNG before exiting\n"
               "  --press F:KEYS   type KEYS before frame F (scripted runs), e.g. --press 10:C,20:GB\n"
               "  --ik SPEC        a two-bone IK chain as in `ossa render --ik`, on at start\n"
               "                   (without it, I pins the feet where they are)\n"
               "  --graph G.json   the animation graph poses the character (docs/graphs.md): keys 1-9 change its\n"
               "                   parameters (bool toggles, trigger fires, float +0.5 / shift -0.5); --set\n"
               "                   NAME=VALUE@TIME as in `ossa sample`; in --press, ^1 is shift + 1\n"
               "keys: 1-9 / N P clips, C cross-fade to next (0.3 s), space pause, + - speed, G CPU/GPU skinning,\n"
               "      D linear blend / dual quaternion skinning, B bones, W wireframe, R reset camera, I IK on/off,\n"
               "      Esc/Q quit; drag to orbit, scroll to zoom\n");
    return f == stdout ? 0 : 2;
}

/* The command line. */
typedef struct view_args {
    const char *file, *clip_arg, *shot, *press, *ik_spec;
    uint32_t width, height;
    long frames; /* > 0: a scripted run of that many frames at 1/60 s; -1: interactive */
} view_args;

/* argv[*i] and its value (*i moves past it) into a or the viewer's draw options: CLI_GO_ON,
 * or the exit code (after printing why). */
static int parse_view_arg(view_args *a, viewer *v, int argc, char **argv, int *i) {
    const char *arg = argv[*i];
    bool more = *i + 1 < argc;
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) return usage(stdout);
    int taken = cli_graph_arg(v->graph, "view", argc, argv, i);
    if (taken) return taken < 0 ? 2 : CLI_GO_ON;
    if (!strcmp(arg, "--clip") && more) {
        a->clip_arg = argv[++*i];
    } else if (!strcmp(arg, "--size") && more) {
        if (!parse_size("view", argv[++*i], &a->width, &a->height)) return 2;
    } else if (!strcmp(arg, "--frames") && more) {
        char *end = NULL;
        const char *text = argv[++*i];
        a->frames = strtol(text, &end, 10);
        if (!*text || *end || a->frames < 1) {
            fprintf(stderr, "ossa view: --frames expects a positive integer\n");
            return 2;
        }
    } else if (!strcmp(arg, "--screenshot") && more) {
        a->shot = argv[++*i];
    } else if (!strcmp(arg, "--press") && more) {
        a->press = argv[++*i];
        if (!script_valid(a->press)) {
            fprintf(stderr, "ossa view: --press expects FRAME:KEYS[,FRAME:KEYS...], e.g. 10:C,20:GB\n");
            return 2;
        }
    } else if (!strcmp(arg, "--cpu")) {
        v->draw.cpu = true;
    } else if (!strcmp(arg, "--skinning") && more) {
        if (!parse_skinning("view", argv[++*i], &v->draw.dqs)) return 2;
    } else if (!strcmp(arg, "--bones")) {
        v->draw.bones = true;
    } else if (!strcmp(arg, "--ik") && more) {
        a->ik_spec = argv[++*i];
    } else if (!take_file_arg("view", arg, !more, &a->file)) {
        return usage(stderr);
    }
    return CLI_GO_ON;
}

static int parse_view_args(view_args *a, viewer *v, int argc, char **argv) {
    *a = (view_args){.width = 640, .height = 480, .frames = -1};
    for (int i = 1; i < argc; i++) {
        int rc = parse_view_arg(a, v, argc, argv, &i);
        if (rc != CLI_GO_ON) return rc;
    }
    if (a->shot && a->frames < 0) a->frames = 1;
    if (cli_graph_check_options(v->graph, "view")) return 2;
    if (cli_graph_active(v->graph) && a->clip_arg) {
        fprintf(stderr, "ossa view: --graph poses the character itself: it takes no --clip\n");
        return 2;
    }
    return CLI_GO_ON;
}

/* The player with its cross-fade layer (weight 0 until a blend). False after printing why. */
static bool make_player(viewer *v) {
    ossa_result r = ossa_player_create(v->s.asset->skeleton, NULL, &v->player);
    if (r != OSSA_OK) {
        fprintf(stderr, "ossa view: cannot create a player: %s\n", ossa_result_string(r));
        return false;
    }
    if ((r = ossa_player_add_layer(v->player, OSSA_PLAYER_LAYER_OVERRIDE, &v->blend_layer)) != OSSA_OK ||
        (r = ossa_player_layer_set_weight(v->player, v->blend_layer, 0.0f)) != OSSA_OK) {
        fprintf(stderr, "ossa view: cannot add a blend layer: %s\n", ossa_result_string(r));
        return false;
    }
    return true;
}

/* The bounds the camera frames: every clip's animated bounds; with no skinned mesh to show
 * the motion, the skeleton is drawn (--bones). False when out of memory. */
static bool view_bounds(viewer *v, float lo[3], float hi[3]) {
    uint32_t span_count = clip_count(v) ? clip_count(v) : 1;
    clip_span *spans = calloc(span_count, sizeof *spans);
    if (!spans) {
        fprintf(stderr, "ossa view: out of memory\n");
        return false;
    }
    for (uint32_t i = 0; i < clip_count(v); i++) scene_clip_span(&v->s, (int)i, &spans[i], "view");
    if (!scene_animated_bounds(&v->s, spans, span_count, 12, lo, hi) && !v->draw.bones && v->s.joint_count > 1) {
        v->draw.bones = true; /* framed on joints: no mesh shows the motion (B toggles it) */
        fprintf(stderr, "ossa view: no skinned mesh: drawing the skeleton (--bones)\n");
    }
    free(spans);
    return true;
}

/* Loads the file and builds its clips, the graph, the IK chains (--ik, else the feet, off),
 * the start clip (*start_clip, -1: the rest pose), the player and the camera bounds.
 * CLI_GO_ON, or the exit code. */
static int view_prepare(viewer *v, const view_args *a, int *start_clip, float lo[3], float hi[3]) {
    if (!scene_load(&v->s, a->file, "view")) return 1;
    v->s_loaded = true;
    if (cli_build_clips(v->s.asset, NULL, "view", false) != 0) return 1;
    int graph_rc = cli_graph_active(v->graph) ? cli_graph_load(v->graph, v->s.asset, "view") : 0;
    if (graph_rc) return graph_rc;
    v->s.dqs = v->draw.dqs;
    if (a->ik_spec && !ik_pass_add(&v->ik, &v->s, a->ik_spec, "view")) return 2;
    if (!a->ik_spec) ik_pass_add_feet(&v->ik, &v->s);
    v->ik_pin = !a->ik_spec;
    v->ik.enabled = a->ik_spec != NULL;
    ik_pass_attach(&v->ik, &v->s);
    *start_clip = clip_count(v) ? 0 : -1;
    if (a->clip_arg && (*start_clip = scene_find_clip(&v->s, a->clip_arg, "view")) < 0) return 1;
    if (!make_player(v) || !view_bounds(v, lo, hi)) return 1;
    return CLI_GO_ON;
}

/* GLFW and a width x height OpenGL 3.3 core window (4x MSAA when it can), its callbacks;
 * vsync only for interactive runs. False after printing why. */
static bool open_window(viewer *v, const view_args *a) {
    glfwSetErrorCallback(on_glfw_error);
    if (!glfwInit()) {
        fprintf(stderr, "ossa view: cannot initialise GLFW (no display? try xvfb-run)\n");
        return false;
    }
    v->glfw_ok = true;
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_DEPTH_BITS, 24);
    glfwWindowHint(GLFW_SAMPLES, 4);
    v->window = glfwCreateWindow((int)a->width, (int)a->height, "ossa view", NULL, NULL);
    if (!v->window) {
        glfwWindowHint(GLFW_SAMPLES, 0);
        v->window = glfwCreateWindow((int)a->width, (int)a->height, "ossa view", NULL, NULL);
    }
    if (!v->window) {
        fprintf(stderr, "ossa view: cannot open a %ux%u OpenGL 3.3 core window\n", a->width, a->height);
        return false;
    }
    glfwMakeContextCurrent(v->window);
    glfwSwapInterval(a->frames > 0 ? 0 : 1);
    glfwSetWindowUserPointer(v->window, v);
    glfwSetKeyCallback(v->window, on_key);
    glfwSetMouseButtonCallback(v->window, on_button);
    glfwSetCursorPosCallback(v->window, on_cursor);
    glfwSetScrollCallback(v->window, on_scroll);
    return true;
}

/* This frame's pose: the graph advanced by dt (scaled by the speed, held while paused), the
 * player's clip, or the rest pose. False after printing a graph error. */
static bool pose_frame(viewer *v, float dt) {
    cli_graph *graph = v->graph;
    if (!v->paused && !cli_graph_active(graph)) ossa_player_update(v->player, dt);
    if (cli_graph_active(graph)) {
        char states[sizeof v->graph_title];
        if (!cli_graph_advance(graph, v->paused ? graph->clock : graph->clock + (double)(dt * v->speed), "view"))
            return false;
        scene_set_pose(&v->s, graph->pose);
        scene_set_weights(&v->s, NULL, 0, false);
        if (strcmp(cli_graph_describe(graph, states, sizeof states), v->graph_title)) update_title(v);
    } else if (v->clip >= 0) {
        scene_set_pose(&v->s, ossa_player_pose(v->player));
        scene_set_weights(&v->s, editable_clip(v, v->clip), ossa_player_time(v->player), true);
    } else {
        scene_pose(&v->s, NULL, 0, false);
    }
    return true;
}

/* Runs until the window closes, or for --frames frames (then --screenshot). 0, or 1. */
static int view_loop(viewer *v, scene_gl *g, const view_args *a) {
    double last = glfwGetTime();
    long frame = 0;
    int rc = 0;
    while (!glfwWindowShouldClose(v->window)) {
        double t = glfwGetTime();
        float dt = a->frames > 0 ? 1.0f / 60 : (float)(t - last);
        last = t;
        script_run(v, a->press, frame + 1);
        if (!pose_frame(v, dt)) {
            rc = 1;
            break;
        }
        int fw = 0, fh = 0;
        glfwGetFramebufferSize(v->window, &fw, &fh);
        if (fw < 1 || fh < 1) {
            glfwWaitEvents();
            continue;
        }
        float vp[16];
        camera_view_proj(&v->cam, (float)fw / (float)fh, vp);
        camera_eye(&v->cam, g->eye);
        if (!scene_gl_draw(g, &v->s, vp, &v->draw, (uint32_t)fw, (uint32_t)fh, "view")) {
            rc = 1;
            break;
        }
        frame++;
        if (a->frames > 0 && frame >= a->frames) {
            if (a->shot) {
                glFinish();
                if (!save_screenshot(a->shot, fw, fh)) rc = 1;
                else printf("ossa view: %ld frames, screenshot %dx%d -> %s\n", frame, fw, fh, a->shot);
            }
            break;
        }
        glfwSwapBuffers(v->window);
        glfwPollEvents();
    }
    if (cli_graph_active(v->graph) && a->frames > 0 && rc == 0) { /* scripted runs: where the graph ended */
        char states[sizeof v->graph_title];
        printf("ossa view: graph after %ld frames (%.3f s): %s\n", frame, v->graph->clock,
               cli_graph_describe(v->graph, states, sizeof states));
    }
    return rc;
}

int cmd_view(int argc, char **argv) {
    cli_graph graph;
    memset(&graph, 0, sizeof graph);
    viewer v;
    memset(&v, 0, sizeof v);
    v.graph = &graph;
    v.speed = 1;
    v.clip = -1;
    v.draw.background[0] = 0.16f, v.draw.background[1] = 0.18f, v.draw.background[2] = 0.22f;
    view_args a;
    int start_clip = -1;
    float lo[3], hi[3];
    scene_gl g;
    bool gl_made = false;
    int rc = parse_view_args(&a, &v, argc, argv);
    if (rc == CLI_GO_ON) rc = view_prepare(&v, &a, &start_clip, lo, hi);
    if (rc == CLI_GO_ON) {
        rc = 1;
        if (open_window(&v, &a) && (gl_made = scene_gl_create(&g, &v.s, "view"))) {
            v.home = v.cam = camera_frame(lo, hi, (float)a.width / (float)a.height);
            g.has_eye = true;
            if (start_clip >= 0 && !cli_graph_active(&graph)) select_clip(&v, start_clip, false);
            print_clips(&v);
            update_title(&v);
            rc = view_loop(&v, &g, &a);
        }
    }
    if (gl_made) scene_gl_destroy(&g);
    if (v.window) glfwDestroyWindow(v.window);
    if (v.glfw_ok && !KEEP_GLFW_AT_EXIT) glfwTerminate();
    ossa_player_destroy(v.player);
    if (v.s_loaded) scene_free(&v.s);
    cli_graph_free(&graph);
    return rc;
}
#else
typedef int ossa_tool_cmd_view_unused; /* ISO C: a translation unit is not empty (as no_gl.c) */
#endif
