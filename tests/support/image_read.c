#include "image_read.h"

#include <gif_lib.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"

uint8_t *ot_image_frame(const ot_image *im, uint32_t f) {
    return im->rgba + (size_t)f * im->width * im->height * 4;
}

void ot_image_free(ot_image *im) {
    free(im->rgba);
    free(im->delays_cs);
    memset(im, 0, sizeof *im);
}

void ot_read_png(const char *path, ot_image *out) {
    memset(out, 0, sizeof *out);
    png_image im;
    memset(&im, 0, sizeof im);
    im.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&im, path)) fail_msg("%s: not a readable PNG: %s", path, im.message);
    im.format = PNG_FORMAT_RGBA;
    out->width = im.width;
    out->height = im.height;
    out->frames = 1;
    out->rgba = malloc((size_t)im.width * im.height * 4);
    assert_non_null(out->rgba);
    if (!png_image_finish_read(&im, NULL, out->rgba, 0, NULL)) fail_msg("%s: PNG decode failed: %s", path, im.message);
    png_image_free(&im);
}

void ot_read_gif(const char *path, ot_image *out) {
    memset(out, 0, sizeof *out);
    int err = 0;
    GifFileType *g = DGifOpenFileName(path, &err);
    if (!g) fail_msg("%s: not a readable GIF (giflib error %d)", path, err);
    if (DGifSlurp(g) != GIF_OK) fail_msg("%s: GIF decode failed (giflib error %d)", path, g->Error);
    out->width = (uint32_t)g->SWidth;
    out->height = (uint32_t)g->SHeight;
    out->frames = (uint32_t)g->ImageCount;
    size_t fsize = (size_t)out->width * out->height * 4;
    out->rgba = calloc(out->frames ? out->frames : 1, fsize);
    out->delays_cs = calloc(out->frames ? out->frames : 1, sizeof(uint32_t));
    assert_non_null(out->rgba);
    assert_non_null(out->delays_cs);
    for (uint32_t f = 0; f < out->frames; f++) {
        const SavedImage *si = &g->SavedImages[f];
        uint8_t *dst = ot_image_frame(out, f);
        if (f) memcpy(dst, ot_image_frame(out, f - 1), fsize);
        for (int e = 0; e < si->ExtensionBlockCount; e++) {
            const ExtensionBlock *eb = &si->ExtensionBlocks[e];
            if (eb->Function == GRAPHICS_EXT_FUNC_CODE && eb->ByteCount >= 4)
                out->delays_cs[f] = (uint32_t)eb->Bytes[1] | ((uint32_t)eb->Bytes[2] << 8);
        }
        const ColorMapObject *map = si->ImageDesc.ColorMap ? si->ImageDesc.ColorMap : g->SColorMap;
        assert_non_null(map);
        const GifImageDesc *d = &si->ImageDesc;
        for (int y = 0; y < d->Height; y++)
            for (int x = 0; x < d->Width; x++) {
                int px = d->Left + x, py = d->Top + y;
                if (px < 0 || py < 0 || (uint32_t)px >= out->width || (uint32_t)py >= out->height) continue;
                int idx = si->RasterBits[y * d->Width + x];
                assert_true(idx < map->ColorCount);
                uint8_t *p = dst + ((size_t)py * out->width + (size_t)px) * 4;
                p[0] = map->Colors[idx].Red;
                p[1] = map->Colors[idx].Green;
                p[2] = map->Colors[idx].Blue;
                p[3] = 255;
            }
    }
    DGifCloseFile(g, &err);
}
