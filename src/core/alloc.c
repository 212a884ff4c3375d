#include "core/alloc.h"

#include <stdlib.h>
#include <string.h>

static void *default_alloc(size_t size, void *user) { (void)user; return malloc(size); }
static void default_free(void *ptr, void *user) { (void)user; free(ptr); }

ossa_allocator ossa__allocator_resolve(const ossa_allocator *allocator) {
    if (allocator && allocator->alloc && allocator->free) return *allocator;
    ossa_allocator a = {default_alloc, default_free, NULL};
    return a;
}

void *ossa__alloc(const ossa_allocator *allocator, size_t size) {
    ossa_allocator a = ossa__allocator_resolve(allocator);
    return a.alloc(size ? size : 1, a.user);
}

void *ossa__alloc_array(const ossa_allocator *allocator, size_t count, size_t size) {
    size_t bytes;
    if (!ossa__size_mul_add(count, size, 0, &bytes)) return NULL;
    void *p = ossa__alloc(allocator, bytes);
    if (p) memset(p, 0, bytes ? bytes : 1);
    return p;
}

void ossa__free(const ossa_allocator *allocator, void *ptr) {
    if (!ptr) return;
    ossa_allocator a = ossa__allocator_resolve(allocator);
    a.free(ptr, a.user);
}

bool ossa__size_mul_add(size_t a, size_t b, size_t c, size_t *out) {
    if (b && a > (SIZE_MAX - c) / b) return false;
    *out = a * b + c;
    return true;
}

size_t ossa__layout_add(ossa__layout *layout, size_t count, size_t elem_size) {
    size_t offset = (layout->size + 15u) & ~(size_t)15u;
    size_t bytes;
    if (offset < layout->size || !ossa__size_mul_add(count, elem_size, offset, &bytes)) {
        layout->overflow = true;
        return 0;
    }
    layout->size = bytes;
    return offset;
}
