/* PNG (libpng simplified API) and JPEG (libjpeg-turbo) decoding to RGBA8. */
#include "image_decode.h"

#include <stdio.h> /* before jpeglib.h, which uses FILE */

#include <jpeglib.h>
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

const char *image_format(const uint8_t *d, size_t n) {
    if (!d) return NULL;
    if (n >= 8 && !memcmp(d, "\x89PNG\r\n\x1a\n", 8)) return "PNG";
    if (n >= 3 && d[0] == 0xFF && d[1] == 0xD8 && d[2] == 0xFF) return "JPEG";
    return NULL;
}

static uint32_t be16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }
static uint32_t be32(const uint8_t *p) { return be16(p) << 16 | be16(p + 2); }

bool image_dimensions(const uint8_t *d, size_t n, uint32_t *w, uint32_t *h) {
    const char *f = image_format(d, n);
    if (f && f[0] == 'P') { /* signature, IHDR length and type, then width and height */
        if (n < 24 || memcmp(d + 12, "IHDR", 4)) return false;
        *w = be32(d + 16), *h = be32(d + 20);
        return true;
    }
    if (!f) return false;
    size_t p = 2; /* JPEG: walk the marker segments to the first SOFn (not DHT C4, JPG C8, DAC CC) */
    while (p + 4 <= n && d[p] == 0xFF) {
        uint8_t m = d[p + 1];
        if (m == 0xFF) { /* fill byte */
            p++;
            continue;
        }
        uint32_t len = be16(d + p + 2);
        if (m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC) {
            if (p + 9 > n || len < 7) return false;
            *h = be16(d + p + 5), *w = be16(d + p + 7);
            return true;
        }
        if (len < 2 || m == 0xDA) return false; /* start of scan before any frame header */
        p += 2 + len;
    }
    return false;
}

static bool decode_png(const uint8_t *data, size_t size, uint8_t **rgba, uint32_t *w, uint32_t *h, char *err,
                       size_t err_size) {
    png_image im;
    memset(&im, 0, sizeof im);
    im.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&im, data, size)) {
        snprintf(err, err_size, "PNG: %s", im.message);
        return false;
    }
    if (im.width == 0 || im.height == 0 || im.width > IMAGE_DECODE_MAX_SIDE || im.height > IMAGE_DECODE_MAX_SIDE) {
        snprintf(err, err_size, "PNG: %ux%u is outside 1..%u pixels a side", im.width, im.height, IMAGE_DECODE_MAX_SIDE);
        png_image_free(&im);
        return false;
    }
    im.format = PNG_FORMAT_RGBA;
    uint8_t *px = malloc(PNG_IMAGE_SIZE(im));
    if (!px) {
        snprintf(err, err_size, "PNG: out of memory");
        png_image_free(&im);
        return false;
    }
    if (!png_image_finish_read(&im, NULL, px, 0, NULL)) {
        snprintf(err, err_size, "PNG: %s", im.message);
        free(px);
        png_image_free(&im);
        return false;
    }
    *rgba = px;
    *w = im.width;
    *h = im.height;
    return true;
}

typedef struct jpeg_fail {
    struct jpeg_error_mgr mgr;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
} jpeg_fail;

static void jpeg_error_exit(j_common_ptr info) {
    jpeg_fail *f = (jpeg_fail *)info->err;
    info->err->format_message(info, f->message);
    longjmp(f->jump, 1);
}

static void jpeg_quiet(j_common_ptr info, int level) { (void)info, (void)level; } /* warnings are not fatal */

static bool decode_jpeg(const uint8_t *data, size_t size, uint8_t **rgba, uint32_t *w, uint32_t *h, char *err,
                        size_t err_size) {
    struct jpeg_decompress_struct info;
    jpeg_fail fail;
    memset(&info, 0, sizeof info);
    memset(&fail, 0, sizeof fail);
    info.err = jpeg_std_error(&fail.mgr);
    fail.mgr.error_exit = jpeg_error_exit;
    fail.mgr.emit_message = jpeg_quiet;
    uint8_t *volatile px = NULL;
    uint8_t *volatile row = NULL;
    if (setjmp(fail.jump)) {
        snprintf(err, err_size, "JPEG: %s", fail.message);
        jpeg_destroy_decompress(&info);
        free(px);
        free(row);
        return false;
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, (unsigned char *)data, (unsigned long)size);
    jpeg_read_header(&info, TRUE);
    info.out_color_space = JCS_RGB;
    if (info.image_width == 0 || info.image_height == 0 || info.image_width > IMAGE_DECODE_MAX_SIDE ||
        info.image_height > IMAGE_DECODE_MAX_SIDE) {
        snprintf(err, err_size, "JPEG: %ux%u is outside 1..%u pixels a side", info.image_width, info.image_height,
                 IMAGE_DECODE_MAX_SIDE);
        jpeg_destroy_decompress(&info);
        return false;
    }
    jpeg_start_decompress(&info);
    uint32_t W = info.output_width, H = info.output_height;
    if (info.output_components != 3) {
        snprintf(err, err_size, "JPEG: %d output components", info.output_components);
        jpeg_destroy_decompress(&info);
        return false;
    }
    px = malloc((size_t)W * H * 4);
    row = malloc((size_t)W * 3);
    if (!px || !row) {
        snprintf(err, err_size, "JPEG: out of memory");
        jpeg_destroy_decompress(&info);
        free(px);
        free(row);
        return false;
    }
    while (info.output_scanline < H) {
        uint32_t y = info.output_scanline;
        JSAMPROW rows[1] = {row};
        if (jpeg_read_scanlines(&info, rows, 1) != 1) break;
        for (uint32_t x = 0; x < W; x++) {
            uint8_t *o = px + ((size_t)y * W + x) * 4;
            o[0] = row[x * 3], o[1] = row[x * 3 + 1], o[2] = row[x * 3 + 2], o[3] = 255;
        }
    }
    jpeg_finish_decompress(&info);
    jpeg_destroy_decompress(&info);
    free(row);
    *rgba = px;
    *w = W;
    *h = H;
    return true;
}

bool image_decode(const uint8_t *data, size_t size, uint8_t **rgba, uint32_t *width, uint32_t *height, char *err,
                  size_t err_size) {
    *rgba = NULL;
    *width = *height = 0;
    const char *f = image_format(data, size);
    if (f && !strcmp(f, "PNG")) return decode_png(data, size, rgba, width, height, err, err_size);
    if (f && !strcmp(f, "JPEG")) return decode_jpeg(data, size, rgba, width, height, err, err_size);
    snprintf(err, err_size, "neither PNG nor JPEG (%zu bytes)", size);
    return false;
}
