/* ossa plot [FILE|demo] [--clip NAME|INDEX] [--node NAME|INDEX] [--out curves.png] [--size WxH]
 * One node's translation, rotation and scale curves over a clip: three panels,
 * one line per component, densely sampled with ossa_track_sample, keys marked.
 * A packed .ossa file has built clips only (no keys): its clip is sampled densely with
 * the sampling job (the whole pose at each time, the node's channel drawn) and the
 * legend says so; no key markers.
 * Drawn by a small anti-aliased rasteriser (lines, dots, 5x7 text) into RGBA
 * and written as PNG. No FILE (or "demo") = the built-in demo character. */
#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "image_io.h"
#include "render_common.h"

/* ---------------------------------------------------------------- raster --- */

typedef struct canvas {
    uint32_t w, h;
    uint8_t *px;
} canvas;

typedef struct rgb { float r, g, b; } rgb;

static void blend(canvas *c, int x, int y, rgb col, float a) {
    if (x < 0 || y < 0 || (uint32_t)x >= c->w || (uint32_t)y >= c->h || a <= 0) return;
    if (a > 1) a = 1;
    uint8_t *p = c->px + ((size_t)y * c->w + (size_t)x) * 4;
    p[0] = (uint8_t)lrintf((float)p[0] + (col.r * 255 - (float)p[0]) * a);
    p[1] = (uint8_t)lrintf((float)p[1] + (col.g * 255 - (float)p[1]) * a);
    p[2] = (uint8_t)lrintf((float)p[2] + (col.b * 255 - (float)p[2]) * a);
    p[3] = 255;
}

/* Anti-aliased segment of the given width: coverage from the distance to the segment. */
static void line(canvas *c, float x0, float y0, float x1, float y1, float width, rgb col) {
    float hw = width * 0.5f;
    int xa = (int)floorf(fminf(x0, x1) - hw - 1), xb = (int)ceilf(fmaxf(x0, x1) + hw + 1);
    int ya = (int)floorf(fminf(y0, y1) - hw - 1), yb = (int)ceilf(fmaxf(y0, y1) + hw + 1);
    float dx = x1 - x0, dy = y1 - y0, len2 = dx * dx + dy * dy;
    for (int y = ya; y <= yb; y++)
        for (int x = xa; x <= xb; x++) {
            float px = (float)x + 0.5f - x0, py = (float)y + 0.5f - y0;
            float t = len2 > 0 ? (px * dx + py * dy) / len2 : 0;
            t = t < 0 ? 0 : t > 1 ? 1 : t;
            float ex = px - t * dx, ey = py - t * dy, d = sqrtf(ex * ex + ey * ey);
            blend(c, x, y, col, hw + 0.5f - d);
        }
}

static void dot(canvas *c, float cx, float cy, float r, rgb col) {
    for (int y = (int)floorf(cy - r - 1); y <= (int)ceilf(cy + r + 1); y++)
        for (int x = (int)floorf(cx - r - 1); x <= (int)ceilf(cx + r + 1); x++) {
            float dx = (float)x + 0.5f - cx, dy = (float)y + 0.5f - cy;
            blend(c, x, y, col, r + 0.5f - sqrtf(dx * dx + dy * dy));
        }
}

static void rect(canvas *c, int x0, int y0, int x1, int y1, rgb col) {
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) blend(c, x, y, col, 1);
}

/* 5x7 glyphs, rows top-down, bit 4 = left column. Lower case draws as upper case. */
static const char GLYPH_CHARS[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-.:()'_/=+,";
static const uint8_t GLYPHS[][7] = {
    {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E}, {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E},
    {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F}, {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E},
    {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02}, {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E},
    {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E}, {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08},
    {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E}, {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C},
    {0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11}, {0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E},
    {0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E}, {0x1C, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1C},
    {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F}, {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10},
    {0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F}, {0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11},
    {0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E}, {0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C},
    {0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11}, {0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F},
    {0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11}, {0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11},
    {0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E}, {0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10},
    {0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D}, {0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11},
    {0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E}, {0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04},
    {0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E}, {0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04},
    {0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A}, {0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11},
    {0x11, 0x11, 0x11, 0x0A, 0x04, 0x04, 0x04}, {0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F},
    {0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00}, {0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C},
    {0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x0C, 0x00}, {0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02},
    {0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08}, {0x04, 0x04, 0x08, 0x00, 0x00, 0x00, 0x00},
    {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1F}, {0x00, 0x01, 0x02, 0x04, 0x08, 0x10, 0x00},
    {0x00, 0x00, 0x1F, 0x00, 0x1F, 0x00, 0x00}, {0x00, 0x04, 0x04, 0x1F, 0x04, 0x04, 0x00},
    {0x00, 0x00, 0x00, 0x00, 0x0C, 0x04, 0x08},
};

/* Draws text with its top-left corner at (x, y); returns the width in pixels. */
static int text(canvas *c, int x, int y, const char *s, rgb col) {
    int x0 = x;
    for (; *s; s++, x += 6) {
        char ch = (char)toupper((unsigned char)*s);
        if (ch == ' ') continue;
        const char *at = strchr(GLYPH_CHARS, ch);
        if (!at || !ch) {
            rect(c, x, y + 1, x + 5, y + 7, col); /* unknown: a block */
            continue;
        }
        const uint8_t *g = GLYPHS[at - GLYPH_CHARS];
        for (int r = 0; r < 7; r++)
            for (int b = 0; b < 5; b++)
                if (g[r] & (0x10 >> b)) blend(c, x + b, y + r, col, 1);
    }
    return x - x0;
}

static int text_width(const char *s) { return (int)strlen(s) * 6; }

/* ----------------------------------------------------------------- plot --- */

static const rgb COMPONENT_COLORS[4] = {{0.86f, 0.20f, 0.18f}, {0.18f, 0.62f, 0.22f}, {0.16f, 0.36f, 0.85f},
                                        {0.45f, 0.45f, 0.45f}};
static const char *const COMPONENT_NAMES[4] = {"x", "y", "z", "w"};

/* A "nice" tick step near range / 5. */
static double tick_step(double range) {
    double raw = range / 5, mag = pow(10, floor(log10(raw))), f = raw / mag;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
}

typedef struct panel {
    const char *title;
    const ossa_track *track;  /* NULL or key_count 0 = not animated: the rest value is drawn */
    uint32_t components;
    float rest[4];
    cli_built_sampler *built; /* a built clip (sampled densely, no keys), or NULL */
    ossa_transform *pose;     /* built: the sampled pose (joint_count) */
    uint32_t joint, channel;  /* built: the node's joint; 0 translation, 1 rotation, 2 scale */
} panel;

/* A transform's channel as up to 4 floats (0 translation, 1 rotation xyzw, 2 scale). */
static void channel_of(const ossa_transform *x, uint32_t channel, float out[4]) {
    const ossa_vec3 *v = channel == 0 ? &x->translation : &x->scale;
    if (channel == 1) out[0] = x->rotation.x, out[1] = x->rotation.y, out[2] = x->rotation.z, out[3] = x->rotation.w;
    else out[0] = v->x, out[1] = v->y, out[2] = v->z, out[3] = 0;
}

static void value_at(const panel *p, float t, float out[4]) {
    if (p->built) {
        if (cli_built_sampler_run(p->built, t, false, p->pose) == 0) channel_of(&p->pose[p->joint], p->channel, out);
        else memcpy(out, p->rest, sizeof(float) * 4);
    } else if (p->track && p->track->key_count)
        ossa_track_sample(p->track, t, false, OSSA_LOOKUP_BINARY, NULL, out);
    else
        memcpy(out, p->rest, sizeof(float) * 4);
}

/* Key k's value (the middle of the in/value/out triple for CUBIC). */
static const float *key_value(const ossa_track *t, uint32_t k) {
    uint32_t stride = t->components * (t->interp == OSSA_INTERP_CUBIC ? 3u : 1u);
    return t->values + (size_t)k * stride + (t->interp == OSSA_INTERP_CUBIC ? t->components : 0u);
}

static void draw_panel(canvas *c, const panel *p, int x0, int y0, int x1, int y1, float t0, float t1) {
    const rgb frame = {0.55f, 0.55f, 0.58f}, grid = {0.90f, 0.90f, 0.92f}, ink = {0.15f, 0.15f, 0.18f};
    const int samples = (x1 - x0) * 2;
    /* value range over the dense samples and the keys */
    double lo = DBL_MAX, hi = -DBL_MAX;
    float v[4];
    for (int i = 0; i <= samples; i++) {
        value_at(p, t0 + (t1 - t0) * (float)i / (float)samples, v);
        for (uint32_t k = 0; k < p->components; k++) lo = fmin(lo, v[k]), hi = fmax(hi, v[k]);
    }
    bool animated = p->track && p->track->key_count;
    if (animated)
        for (uint32_t k = 0; k < p->track->key_count; k++)
            for (uint32_t j = 0; j < p->components; j++)
                lo = fmin(lo, key_value(p->track, k)[j]), hi = fmax(hi, key_value(p->track, k)[j]);
    if (!(hi - lo > 1e-4)) {
        double m = 0.5 * (lo + hi);
        lo = m - 0.5, hi = m + 0.5;
    }
    double pad = 0.08 * (hi - lo);
    lo -= pad, hi += pad;
#define PX(t) ((float)x0 + (float)(((t) - t0) / (t1 - t0 > 0 ? t1 - t0 : 1)) * (float)(x1 - x0))
#define PY(val) ((float)y1 - (float)(((val) - lo) / (hi - lo)) * (float)(y1 - y0))
    /* grid: value ticks, key times */
    double step = tick_step(hi - lo);
    char label[64];
    for (double g = ceil(lo / step) * step; g <= hi; g += step) {
        float y = PY(g);
        line(c, (float)x0, y, (float)x1, y, 1, grid);
        snprintf(label, sizeof label, "%.4g", fabs(g) < step * 1e-6 ? 0.0 : g);
        text(c, x0 - 6 - text_width(label), (int)y - 3, label, ink);
    }
    if (lo < 0 && hi > 0) line(c, (float)x0, PY(0), (float)x1, PY(0), 1, frame);
    if (animated)
        for (uint32_t k = 0; k < p->track->key_count; k++) {
            float x = PX(p->track->times[k]);
            line(c, x, (float)y0, x, (float)y1, 1, grid);
        }
    line(c, (float)x0, (float)y0, (float)x1, (float)y0, 1, frame);
    line(c, (float)x0, (float)y1, (float)x1, (float)y1, 1, frame);
    line(c, (float)x0, (float)y0, (float)x0, (float)y1, 1, frame);
    line(c, (float)x1, (float)y0, (float)x1, (float)y1, 1, frame);
    /* curves */
    float prev[4];
    value_at(p, t0, prev);
    for (int i = 1; i <= samples; i++) {
        float ta = t0 + (t1 - t0) * (float)(i - 1) / (float)samples, tb = t0 + (t1 - t0) * (float)i / (float)samples;
        value_at(p, tb, v);
        for (uint32_t k = 0; k < p->components; k++)
            line(c, PX(ta), PY(prev[k]), PX(tb), PY(v[k]), 1.6f, COMPONENT_COLORS[k]);
        memcpy(prev, v, sizeof prev);
    }
    /* keys */
    if (animated)
        for (uint32_t k = 0; k < p->track->key_count; k++)
            for (uint32_t j = 0; j < p->components; j++) {
                float x = PX(p->track->times[k]), y = PY(key_value(p->track, k)[j]);
                dot(c, x, y, 3.2f, (rgb){1, 1, 1});
                dot(c, x, y, 2.4f, COMPONENT_COLORS[j]);
            }
#undef PX
#undef PY
    /* title and legend */
    const char *interp = p->built  ? "built clip sampled, no keys"
                         : !animated ? "not animated: rest value"
                         : p->track->interp == OSSA_INTERP_STEP  ? "STEP"
                         : p->track->interp == OSSA_INTERP_CUBIC ? "CUBICSPLINE"
                                                                 : "LINEAR";
    if (p->built) snprintf(label, sizeof label, "%s (%s)", p->title, interp);
    else snprintf(label, sizeof label, "%s (%s, %u keys)", p->title, interp, animated ? p->track->key_count : 0);
    int x = x0 + text(c, x0, y0 - 11, label, ink) + 16;
    for (uint32_t k = 0; k < p->components; k++) {
        line(c, (float)x, (float)y0 - 7.5f, (float)x + 12, (float)y0 - 7.5f, 2, COMPONENT_COLORS[k]);
        x += 16 + text(c, x + 16, y0 - 11, COMPONENT_NAMES[k], ink) + 8;
    }
}

/* Translation, rotation and scale panels with the joint's rest values (nothing to sample yet). */
static void panels_init(panel panels[3], const ossa_transform *rest) {
    static const char *const TITLES[3] = {"translation", "rotation (quaternion)", "scale"};
    for (uint32_t c = 0; c < 3; c++) {
        memset(&panels[c], 0, sizeof panels[c]);
        panels[c].title = TITLES[c];
        panels[c].components = c == 1 ? 4 : 3;
        channel_of(rest, c, panels[c].rest);
    }
}

/* Draws the three panels over [start, end] under a title and writes the PNG. */
static bool draw_plot(const char *file_label, const char *clip_name, const char *node_name, const panel panels[3],
                      float start, float end, uint32_t width, uint32_t height, const char *out) {
    uint8_t *px = malloc((size_t)width * height * 4);
    if (!px) {
        fprintf(stderr, "ossa plot: out of memory\n");
        return false;
    }
    memset(px, 255, (size_t)width * height * 4);
    canvas c = {width, height, px};
    const rgb ink = {0.1f, 0.1f, 0.12f};
    char title[512];
    const char *base = strrchr(file_label, '/') ? strrchr(file_label, '/') + 1 : file_label;
    snprintf(title, sizeof title, "%s - clip '%s' - node '%s'", base, clip_name, node_name);
    text(&c, 12, 8, title, ink);
    int left = 80, right = (int)width - 20, top = 44, bottom = (int)height - 34, gap = 34;
    int ph = (bottom - top - 2 * gap) / 3;
    float t0 = start, t1 = end > start ? end : start + 1;
    for (int i = 0; i < 3; i++) {
        int y0 = top + i * (ph + gap);
        draw_panel(&c, &panels[i], left, y0, right, y0 + ph, t0, t1);
    }
    /* time axis labels under the last panel */
    double step = tick_step((double)(t1 - t0));
    for (double t = ceil(t0 / step) * step; t <= t1 + 1e-6; t += step) {
        char label[32];
        snprintf(label, sizeof label, "%.3g", fabs(t) < 1e-9 ? 0.0 : t);
        float x = (float)left + (float)((t - t0) / (t1 - t0)) * (float)(right - left);
        line(&c, x, (float)(top + 3 * ph + 2 * gap), x, (float)(top + 3 * ph + 2 * gap + 4), 1, ink);
        text(&c, (int)x - text_width(label) / 2, top + 3 * ph + 2 * gap + 7, label, ink);
    }
    text(&c, right - text_width("time (s)"), (int)height - 12, "time (s)", ink);
    char err[512];
    bool ok = make_parent_dirs(out) && image_write_png(out, px, width, height, err, sizeof err);
    if (!ok) fprintf(stderr, "ossa plot: %s\n", err);
    free(px);
    return ok;
}

/* --node: a joint name, or a glTF node index; -1 (printed) when absent. */
static int32_t find_node(const scene *s, const char *node_arg) {
    int32_t j = ossa_skeleton_find_joint(s->asset->skeleton, node_arg);
    if (j < 0 && s->asset->nodes) { /* a glTF node index */
        char *end = NULL;
        long n = strtol(node_arg, &end, 10);
        if (*node_arg && !*end && n >= 0 && (uint32_t)n < s->asset->node_count) j = (int32_t)s->asset->nodes[n].joint;
    }
    if (j < 0) fprintf(stderr, "ossa plot: %s has no node '%s'\n", s->label, node_arg);
    return j;
}

/* A packed file's built clip: no keys to show, so the node's channels are sampled densely
 * through the sampling job. Without --node, the first joint whose pose leaves the rest pose
 * at one of 64 times over the clip. Returns the exit code. */
static int plot_built(scene *s, const char *clip_arg, const char *node_arg, uint32_t width, uint32_t height,
                      const char *out) {
    const ossa_asset *a = s->asset;
    const ossa_skeleton *sk = a->skeleton;
    int ci = clip_arg ? scene_find_clip(s, clip_arg, "plot") : 0;
    if (ci < 0) return 1;
    const ossa_built_clip *clip = a->built_clips[ci];
    uint32_t n = sk ? sk->joint_count : 0;
    if (!n) {
        fprintf(stderr, "ossa plot: %s has no skeleton\n", s->label);
        return 1;
    }
    int rc = 1;
    cli_built_sampler bs;
    ossa_transform *pose = calloc(n, sizeof *pose);
    if (!pose || cli_built_sampler_init(&bs, clip, sk)) {
        free(pose);
        return 1;
    }
    int32_t joint = -1;
    float start = ossa_built_clip_start(clip), end = ossa_built_clip_end(clip);
    if (node_arg) {
        joint = find_node(s, node_arg);
    } else {
        for (int k = 0; k <= 64 && joint < 0; k++) {
            if (cli_built_sampler_run(&bs, start + (end - start) * (float)k / 64.0f, false, pose)) break;
            for (uint32_t j = 0; j < n && joint < 0; j++)
                if (memcmp(&pose[j], &sk->rest[j], sizeof *pose)) joint = (int32_t)j;
        }
        if (joint < 0) fprintf(stderr, "ossa plot: built clip '%s' leaves every joint at rest\n", ossa_built_clip_name(clip));
    }
    if (joint >= 0) {
        panel panels[3];
        panels_init(panels, &sk->rest[joint]);
        for (uint32_t c = 0; c < 3; c++) {
            panels[c].built = &bs;
            panels[c].pose = pose;
            panels[c].joint = (uint32_t)joint;
            panels[c].channel = c;
        }
        if (draw_plot(s->label, ossa_built_clip_name(clip), sk->names[joint], panels, start, end, width, height, out)) {
            printf("ossa plot: built clip '%s' node '%s' (sampled densely, no key markers: a packed file has no keys) -> %s\n",
                   ossa_built_clip_name(clip), sk->names[joint], out);
            rc = 0;
        }
    }
    cli_built_sampler_free(&bs);
    free(pose);
    return rc;
}

static int usage(FILE *f) {
    fprintf(f, "usage: ossa plot [FILE|demo] [--clip NAME|INDEX] [--node NAME|INDEX] [--out curves.png] [--size WxH]\n"
               "  the node's translation, rotation and scale curves over the clip (keys marked)\n"
               "  FILE     .gltf/.glb, a packed .ossa, or \"demo\"/omitted for the built-in character\n"
               "  --clip   default: the first clip; --node default: the first node the clip animates\n"
               "  a packed .ossa's clips are built (no keys): sampled densely, no key markers\n"
               "  --out    default curves.png; --size default 900x720\n");
    return f == stdout ? 0 : 2;
}

int cmd_plot(int argc, char **argv) {
    const char *file = NULL, *clip_arg = NULL, *node_arg = NULL, *out = "curves.png";
    uint32_t width = 900, height = 720;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool more = i + 1 < argc;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return usage(stdout);
        if (!strcmp(a, "--clip") && more) {
            clip_arg = argv[++i];
        } else if (!strcmp(a, "--node") && more) {
            node_arg = argv[++i];
        } else if (!strcmp(a, "--out") && more) {
            out = argv[++i];
        } else if (!strcmp(a, "--size") && more) {
            if (!parse_size("plot", argv[++i], &width, &height)) return 2;
        } else if (!take_file_arg("plot", a, i + 1 >= argc, &file)) {
            return usage(stderr);
        }
    }
    if (width < 200 || height < 200) {
        fprintf(stderr, "ossa plot: --size must be at least 200x200\n");
        return 2;
    }
    if (!path_has_ext(out, ".png")) {
        fprintf(stderr, "ossa plot: --out %s: the plot is written as .png\n", out);
        return 2;
    }
    scene s;
    if (!scene_load(&s, file, "plot")) return 1;
    int rc = 1;
    const ossa_skeleton *sk = s.asset->skeleton;
    if (!s.asset->clip_count) {
        if (s.asset->built_clip_count) rc = plot_built(&s, clip_arg, node_arg, width, height, out);
        else fprintf(stderr, "ossa plot: %s has no clips\n", s.label);
        scene_free(&s);
        return rc;
    }
    int ci = clip_arg ? scene_find_clip(&s, clip_arg, "plot") : 0;
    if (ci < 0) goto done;
    const ossa_clip *clip = s.asset->clips[ci];
    const ossa_transform_track *tt = NULL;
    if (node_arg) {
        int32_t j = find_node(&s, node_arg);
        if (j < 0) goto done;
        for (uint32_t i = 0; i < clip->track_count; i++)
            if (clip->tracks[i].joint == (uint32_t)j) tt = &clip->tracks[i];
        if (!tt) {
            fprintf(stderr, "ossa plot: clip '%s' does not animate node '%s'; it animates:", clip->name, node_arg);
            for (uint32_t i = 0; i < clip->track_count && i < 40; i++)
                if (clip->tracks[i].joint < sk->joint_count) fprintf(stderr, " %s", sk->names[clip->tracks[i].joint]);
            fprintf(stderr, "\n");
            goto done;
        }
    } else if (clip->track_count) {
        tt = &clip->tracks[0];
    } else {
        fprintf(stderr, "ossa plot: clip '%s' has no transform tracks\n", clip->name);
        goto done;
    }
    if (tt->joint >= sk->joint_count) {
        fprintf(stderr, "ossa plot: track joint %u out of range\n", tt->joint);
        goto done;
    }
    panel panels[3];
    panels_init(panels, &sk->rest[tt->joint]);
    panels[0].track = &tt->translation;
    panels[1].track = &tt->rotation;
    panels[2].track = &tt->scale;
    if (!draw_plot(s.label, clip->name, sk->names[tt->joint], panels, clip->start, clip->end, width, height, out))
        goto done;
    printf("ossa plot: clip '%s' node '%s' (%u/%u/%u keys) -> %s\n", clip->name, sk->names[tt->joint],
           tt->translation.key_count, tt->rotation.key_count, tt->scale.key_count, out);
    rc = 0;
done:
    scene_free(&s);
    return rc;
}
