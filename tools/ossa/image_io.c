/* PNG and animated GIF output for the ossa tool (see image_io.h). */
#include "image_io.h"

#include <errno.h>
#include <fcntl.h>
#include <gif_lib.h>
#include <png.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static void set_err(char *err, size_t size, const char *fmt, ...) {
    if (!err || !size) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, size, fmt, ap);
    va_end(ap);
}

bool image_write_png(const char *path, const uint8_t *rgba, uint32_t width, uint32_t height, char *err,
                     size_t err_size) {
    if (!path || !rgba || !width || !height) {
        set_err(err, err_size, "%s: nothing to write", path ? path : "(null)");
        return false;
    }
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    image.width = width;
    image.height = height;
    image.format = PNG_FORMAT_RGBA;
    if (!png_image_write_to_file(&image, path, 0, rgba, (png_int_32)(width * 4), NULL)) {
        set_err(err, err_size, "%s: cannot write PNG: %s", path, image.message);
        png_image_free(&image);
        return false;
    }
    return true;
}

bool image_read_png(const char *path, uint8_t **rgba, uint32_t *width, uint32_t *height, char *err,
                    size_t err_size) {
    *rgba = NULL;
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&image, path)) {
        set_err(err, err_size, "%s: cannot read PNG: %s", path, image.message);
        return false;
    }
    image.format = PNG_FORMAT_RGBA;
    size_t size = (size_t)image.width * image.height * 4;
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf) {
        png_image_free(&image);
        set_err(err, err_size, "%s: out of memory", path);
        return false;
    }
    if (!png_image_finish_read(&image, NULL, buf, 0, NULL)) {
        set_err(err, err_size, "%s: cannot decode PNG: %s", path, image.message);
        free(buf);
        png_image_free(&image);
        return false;
    }
    *rgba = buf;
    *width = image.width;
    *height = image.height;
    return true;
}

struct gif_writer {
    GifFileType *file;
    char *path;
    uint32_t width, height;
    double fps;
    uint64_t frames;
    uint8_t *planes; /* r, g, b planes then the index buffer */
    uint8_t *prev;   /* the previous frame's RGBA, to write only the rectangle that changed */
};

/* Frees the writer's buffers and the writer (NULL is fine); the GIF file is closed by the caller. */
static void gif_writer_free(gif_writer *g) {
    if (!g) return;
    free(g->planes);
    free(g->prev);
    free(g->path);
    free(g);
}

static int put_loop_extension(GifFileType *f) {
    static const unsigned char app[11] = {'N', 'E', 'T', 'S', 'C', 'A', 'P', 'E', '2', '.', '0'};
    unsigned char loop[3] = {1, 0, 0}; /* sub-block 1, loop count 0 = forever */
    if (EGifPutExtensionLeader(f, APPLICATION_EXT_FUNC_CODE) == GIF_ERROR) return GIF_ERROR;
    if (EGifPutExtensionBlock(f, sizeof app, app) == GIF_ERROR) return GIF_ERROR;
    if (EGifPutExtensionBlock(f, sizeof loop, loop) == GIF_ERROR) return GIF_ERROR;
    return EGifPutExtensionTrailer(f);
}

gif_writer *gif_writer_open(const char *path, uint32_t width, uint32_t height, float fps, char *err,
                            size_t err_size) {
    if (!width || !height || width > 65535 || height > 65535 || !(fps > 0)) {
        set_err(err, err_size, "%s: invalid GIF size %ux%u or fps %g", path, width, height, (double)fps);
        return NULL;
    }
    gif_writer *g = calloc(1, sizeof *g);
    size_t n = (size_t)width * height;
    if (g) g->planes = malloc(n * 4);
    if (g) g->prev = malloc(n * 4);
    if (g) g->path = strdup(path);
    if (!g || !g->planes || !g->path || !g->prev) {
        gif_writer_free(g);
        set_err(err, err_size, "%s: out of memory", path);
        return NULL;
    }
    int code = 0;
    /* open(2) ourselves so the file gets 0666 & ~umask (EGifOpenFileName makes it 0600) */
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0) {
        set_err(err, err_size, "%s: cannot create GIF: %s", path, strerror(errno));
        gif_writer_free(g);
        return NULL;
    }
    g->file = EGifOpenFileHandle(fd, &code);
    if (!g->file) {
        close(fd);
        set_err(err, err_size, "%s: cannot create GIF: %s", path, GifErrorString(code));
        gif_writer_free(g);
        return NULL;
    }
    g->width = width;
    g->height = height;
    g->fps = fps;
    EGifSetGifVersion(g->file, true);
    if (EGifPutScreenDesc(g->file, (int)width, (int)height, 8, 0, NULL) == GIF_ERROR ||
        put_loop_extension(g->file) == GIF_ERROR) {
        set_err(err, err_size, "%s: cannot write GIF header: %s", path, GifErrorString(g->file->Error));
        gif_writer_close(g, NULL, 0);
        return NULL;
    }
    return g;
}

bool gif_writer_add(gif_writer *g, const uint8_t *rgba, char *err, size_t err_size) {
    /* After the first frame only the bounding rectangle of the pixels that changed is
     * written (disposal "do not dispose" keeps the rest), with its own palette. */
    uint32_t x0 = 0, y0 = 0, x1 = g->width, y1 = g->height; /* [x0, x1) x [y0, y1) */
    if (g->frames) {
        x0 = g->width, y0 = g->height, x1 = 0, y1 = 0;
        for (uint32_t y = 0; y < g->height; y++) {
            const uint8_t *a = rgba + (size_t)y * g->width * 4, *b = g->prev + (size_t)y * g->width * 4;
            if (!memcmp(a, b, (size_t)g->width * 4)) continue;
            for (uint32_t x = 0; x < g->width; x++)
                if (memcmp(a + x * 4, b + x * 4, 3)) {
                    if (x < x0) x0 = x;
                    if (x + 1 > x1) x1 = x + 1;
                }
            if (y < y0) y0 = y;
            y1 = y + 1;
        }
        if (x1 <= x0 || y1 <= y0) x0 = y0 = 0, x1 = y1 = 1; /* identical frame: one pixel keeps its delay */
    }
    memcpy(g->prev, rgba, (size_t)g->width * g->height * 4);
    uint32_t w = x1 - x0, h = y1 - y0;
    size_t n = (size_t)w * h;
    uint8_t *r = g->planes, *gr = r + n, *b = gr + n, *idx = b + n;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            const uint8_t *p = rgba + ((size_t)(y + y0) * g->width + x + x0) * 4;
            size_t i = (size_t)y * w + x;
            r[i] = p[0];
            gr[i] = p[1];
            b[i] = p[2];
        }
    GifColorType colors[256];
    memset(colors, 0, sizeof colors);
    int color_count = 256;
    if (GifQuantizeBuffer(w, h, &color_count, r, gr, b, idx, colors) == GIF_ERROR) {
        set_err(err, err_size, "%s: colour quantisation failed", g->path);
        return false;
    }
    /* Delay in 1/100 s, accumulated so rounding never drifts: frame k ends at round((k+1)*100/fps). */
    long t0 = (long)((double)g->frames * 100.0 / g->fps + 0.5);
    long t1 = (long)((double)(g->frames + 1) * 100.0 / g->fps + 0.5);
    GraphicsControlBlock gcb;
    memset(&gcb, 0, sizeof gcb);
    gcb.DisposalMode = DISPOSE_DO_NOT;
    gcb.DelayTime = (int)(t1 - t0 > 0 ? t1 - t0 : 1);
    gcb.TransparentColor = NO_TRANSPARENT_COLOR;
    GifByteType ext[4];
    size_t len = EGifGCBToExtension(&gcb, ext);
    ColorMapObject *map = GifMakeMapObject(256, colors);
    if (!map) {
        set_err(err, err_size, "%s: out of memory", g->path);
        return false;
    }
    bool ok = EGifPutExtension(g->file, GRAPHICS_EXT_FUNC_CODE, (int)len, ext) != GIF_ERROR &&
              EGifPutImageDesc(g->file, (int)x0, (int)y0, (int)w, (int)h, false, map) != GIF_ERROR;
    for (uint32_t y = 0; ok && y < h; y++) ok = EGifPutLine(g->file, idx + (size_t)y * w, (int)w) != GIF_ERROR;
    GifFreeMapObject(map);
    if (!ok) {
        set_err(err, err_size, "%s: cannot write GIF frame: %s", g->path, GifErrorString(g->file->Error));
        return false;
    }
    g->frames++;
    return true;
}

bool gif_writer_close(gif_writer *g, char *err, size_t err_size) {
    if (!g) return true;
    int code = 0;
    bool ok = EGifCloseFile(g->file, &code) != GIF_ERROR;
    if (!ok) set_err(err, err_size, "%s: cannot finish GIF: %s", g->path, GifErrorString(code));
    gif_writer_free(g);
    return ok;
}

bool path_has_ext(const char *path, const char *ext) {
    size_t n = strlen(path), m = strlen(ext);
    return n >= m && strcasecmp(path + n - m, ext) == 0;
}

bool make_parent_dirs(const char *path) {
    char *p = strdup(path);
    if (!p) return false;
    bool ok = true;
    for (char *s = p + 1; *s; s++) {
        if (*s != '/') continue;
        *s = 0;
        if (mkdir(p, 0777) != 0 && errno != EEXIST) ok = false;
        *s = '/';
    }
    free(p);
    return ok;
}
