/* Reading the tool's PNG and GIF output back in tests (libpng, giflib). */
#ifndef OSSA_TEST_IMAGE_READ_H
#define OSSA_TEST_IMAGE_READ_H

#include <stdbool.h>
#include <stdint.h>

typedef struct ot_image {
    uint32_t width, height, frames;
    uint8_t *rgba;        /* frames * width * height * 4, top-down */
    uint32_t *delays_cs;  /* per frame (GIF), 1/100 s; NULL for PNG */
} ot_image;

/* Reads a PNG as RGBA8 (one frame); fails the test on a broken file. */
void ot_read_png(const char *path, ot_image *out);
/* Reads every frame of a GIF composited onto the canvas (as viewers show it). */
void ot_read_gif(const char *path, ot_image *out);
void ot_image_free(ot_image *im);
/* Pixels of frame f. */
uint8_t *ot_image_frame(const ot_image *im, uint32_t f);

#endif
