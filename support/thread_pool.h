/* A small pthread pool with a parallel-for over index ranges (vertex ranges for
 * skinning). Shared by the tools, tests and benches (support/); the core library starts
 * no threads of its own.
 * One thread at a time may call thread_pool_parallel_for on a pool. */
#ifndef OSSA_SUPPORT_THREAD_POOL_H
#define OSSA_SUPPORT_THREAD_POOL_H

#include <stdint.h>

typedef struct thread_pool thread_pool;
/* Work on items [begin, end); called concurrently from several threads. */
typedef void (*thread_pool_fn)(uint32_t begin, uint32_t end, void *user);

/* thread_count threads in all, the caller included (0 = online CPUs); NULL on failure. */
thread_pool *thread_pool_create(uint32_t thread_count);
/* Joins the workers; NULL is a no-op. */
void thread_pool_destroy(thread_pool *pool);
/* Threads that run a parallel_for (workers + the caller). */
uint32_t thread_pool_size(const thread_pool *pool);
/* Splits [begin, end) into chunks of at least `grain` items (0 = 1), runs fn on them on
 * the workers and the calling thread, and returns when every chunk is done. */
void thread_pool_parallel_for(thread_pool *pool, uint32_t begin, uint32_t end, uint32_t grain, thread_pool_fn fn,
                              void *user);

#endif
