/* Image output for the ossa tool: PNG (libpng) and animated GIF (giflib).
 *
 * Pixels are top-down RGBA8 (width * height * 4 bytes), the layout
 * ossa_gl_headless_read returns. Errors are printed nowhere: functions return
 * false and fill `err` (may be NULL) with a message naming the file. */
#ifndef OSSA_TOOL_IMAGE_IO_H
#define OSSA_TOOL_IMAGE_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Writes an RGBA8 PNG (alpha kept). */
bool image_write_png(const char *path, const uint8_t *rgba, uint32_t width, uint32_t height, char *err,
                     size_t err_size);

/* Reads any PNG as RGBA8; *rgba is malloc'd (caller frees). */
bool image_read_png(const char *path, uint8_t **rgba, uint32_t *width, uint32_t *height, char *err,
                    size_t err_size);

/* Animated GIF writer: one 256-colour palette per frame (median cut,
 * GifQuantizeBuffer), only the rectangle that changed after the first frame, frame delays from fps (accumulated in 1/100 s so the
 * total duration stays exact), looping forever. Alpha is ignored. */
typedef struct gif_writer gif_writer;

gif_writer *gif_writer_open(const char *path, uint32_t width, uint32_t height, float fps, char *err,
                            size_t err_size);
bool gif_writer_add(gif_writer *gif, const uint8_t *rgba, char *err, size_t err_size);
/* Finishes the file and frees the writer (also on error); returns false if the close failed. */
bool gif_writer_close(gif_writer *gif, char *err, size_t err_size);

/* True when `path` ends with `ext` (case-insensitive, ext includes the dot). */
bool path_has_ext(const char *path, const char *ext);

/* Creates the parent directories of `path` (like mkdir -p on dirname); true on success. */
bool make_parent_dirs(const char *path);

#endif
