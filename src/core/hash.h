/* Internal hashing (not installed). */
#ifndef OSSA_CORE_HASH_H
#define OSSA_CORE_HASH_H

#include <stddef.h>
#include <stdint.h>

/* XXH64 (Yann Collet's xxHash, 64-bit variant) of `size` bytes with `seed`, written from
 * the published algorithm: four 64-bit lanes over 32-byte stripes, then the tail and
 * the avalanche. Same value as the reference implementation (tested on its vectors). */
uint64_t ossa__xxh64(const void *data, size_t size, uint64_t seed);

#endif
