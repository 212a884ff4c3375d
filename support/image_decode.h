/* Decoding the encoded images an asset carries (material.h: ossa_image) into RGBA8
 * for a texture upload: PNG through libpng, JPEG through libjpeg(-turbo).
 *
 * Support code shared by the tools and the tests, never part of libossa (the core
 * library links no image codec) nor of ossa_gl (which takes decoded pixels).
 * Input is untrusted: every failure returns false with a message in err, no crash. */
#ifndef OSSA_SUPPORT_IMAGE_DECODE_H
#define OSSA_SUPPORT_IMAGE_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IMAGE_DECODE_MAX_SIDE 16384u /* larger images are refused (memory bound) */

/* Decodes PNG or JPEG bytes (recognised by their signature, whatever the MIME type
 * says) into top-down RGBA8; *rgba is malloc'd (caller frees). Grey, palette, 16-bit
 * and CMYK-free JPEG inputs are expanded to RGBA (alpha 255 when absent). */
bool image_decode(const uint8_t *data, size_t size, uint8_t **rgba, uint32_t *width, uint32_t *height, char *err,
                  size_t err_size);

/* "PNG", "JPEG" or NULL for bytes of another format. */
const char *image_format(const uint8_t *data, size_t size);

/* Width and height in pixels from a PNG's IHDR or a JPEG's first SOF marker, without decoding;
 * false when the header is missing, truncated or not PNG/JPEG. */
bool image_dimensions(const uint8_t *data, size_t size, uint32_t *width, uint32_t *height);

#endif
