/* Internal allocation helpers shared by every module (not installed).
 * All sizes are checked for overflow; a NULL allocator means malloc/free. */
#ifndef OSSA_CORE_ALLOC_H
#define OSSA_CORE_ALLOC_H

#include <ossa/common.h>

/* Resolves NULL / zeroed allocators to malloc/free. */
ossa_allocator ossa__allocator_resolve(const ossa_allocator *allocator);
void *ossa__alloc(const ossa_allocator *allocator, size_t size);
/* calloc-like: count * size bytes zeroed; NULL on overflow or failure. */
void *ossa__alloc_array(const ossa_allocator *allocator, size_t count, size_t size);
void ossa__free(const ossa_allocator *allocator, void *ptr);
/* a * b + c without overflow; false on overflow. */
bool ossa__size_mul_add(size_t a, size_t b, size_t c, size_t *out);

/* Bump layout for "one allocation per object": first call ossa__layout_add for
 * every part to get offsets (16-byte aligned), then allocate layout.size once. */
typedef struct ossa__layout { size_t size; bool overflow; } ossa__layout;
size_t ossa__layout_add(ossa__layout *layout, size_t count, size_t elem_size);

#endif
