/* ossa/common.h: results, allocators, versioning shared by every ossa module.
 * Provided by library ossa (runtime; CMake ossa::ossa, pkg-config ossa); every other ossa library links it.
 *
 * Every call that can fail returns ossa_result (OSSA_OK == 0). Runtime objects
 * take an optional ossa_allocator; a NULL pointer or a zeroed struct means
 * malloc/free. Allocators are passed per object, never set globally.
 * Thread-safety: all functions are re-entrant; objects are immutable after
 * creation unless a function says it mutates them. */
#ifndef OSSA_COMMON_H
#define OSSA_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OSSA_VERSION_MAJOR 0
#define OSSA_VERSION_MINOR 1
#define OSSA_VERSION_PATCH 0
#define OSSA_VERSION_STRING "0.1.0"

typedef enum ossa_result {
    OSSA_OK = 0,
    OSSA_ERROR_INVALID_ARGUMENT, /* NULL pointer, zero size, bad enum, mismatched sizes */
    OSSA_ERROR_OUT_OF_MEMORY,    /* allocator returned NULL */
    OSSA_ERROR_LIMIT,            /* a caller-set limit (e.g. max_allocation) was exceeded */
    OSSA_ERROR_IO,               /* file could not be opened or read */
    OSSA_ERROR_PARSE,            /* JSON or container syntax is broken */
    OSSA_ERROR_INVALID_DATA,     /* well-formed but violates the glTF spec / ossa invariants */
    OSSA_ERROR_UNSUPPORTED,      /* valid but not supported (e.g. extensionsRequired) */
    OSSA_ERROR_BUFFER_TOO_SMALL, /* caller buffer smaller than the documented bound */
    OSSA_ERROR_GL,               /* an OpenGL / EGL call failed */
    OSSA_RESULT_COUNT
} ossa_result;

/* Static English name of a result code ("OSSA_OK", ...); never NULL. */
const char *ossa_result_string(ossa_result result);

/* Version string of the linked library, e.g. "0.1.0". */
const char *ossa_version(void);

/* Allocator callbacks. Zero-initialised (or a NULL pointer) means malloc/free.
 * alloc must return memory aligned to at least 16 bytes (malloc's guarantee). */
typedef struct ossa_allocator {
    void *(*alloc)(size_t size, void *user);
    void (*free)(void *ptr, void *user);
    void *user;
} ossa_allocator;

/* Where and why a load failed (every loader: glTF, .ossa, built clips, Assimp), or which field
 * of a job is wrong (every job's _validate). */
typedef struct ossa_diagnostic {
    char path[128];     /* JSON pointer of the fault, e.g. "/accessors/3", or a job's field, e.g.
                           "layers[2].transforms" ("" if none) */
    char message[384];  /* human-readable, starts with the place: "accessors[3]: count 120 exceeds bufferView 1" */
} ossa_diagnostic;

/* The job shape. Every operation over data is a job: a plain struct `ossa_<name>_job` of
 * counted input and output spans and parameters, owning nothing, with
 *   ossa_result ossa_<name>_job_validate(const ossa_<name>_job *job, ossa_diagnostic *diag);
 *   ossa_result ossa_<name>_job_run(ossa_<name>_job *job);
 * _validate is cheap and never writes the job's outputs; a zeroed job fails it. On failure it
 * names the first wrong field in diag (may be NULL): diag->path is the field ("output",
 * "layers[1].weight"), diag->message says why. _run validates the job (without a diagnostic:
 * call _validate to learn the field), then runs it; it takes the job mutable because some jobs
 * report scalar results (counts, flags) in it. Jobs never allocate. */

#ifdef __cplusplus
}
#endif
#endif
