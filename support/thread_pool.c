/* pthread pool: a parallel_for publishes one job (a generation) and wakes the workers;
 * everyone pulls chunks from an atomic counter. The caller works too and, once every
 * chunk is claimed, closes the job and waits only for workers that joined it, never
 * for ones that were slow to wake (they see the job closed and go back to sleep). */
#include "thread_pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

struct thread_pool {
    pthread_mutex_t mutex; /* guards everything below except `next` */
    pthread_cond_t wake, done;
    pthread_t *threads;
    uint32_t worker_count;
    uint64_t generation;
    bool quit, open, caller_waits;
    uint32_t active; /* workers that joined the open job and have not finished */
    thread_pool_fn fn;
    void *user;
    uint32_t begin, end, chunk, chunk_count;
    atomic_uint next; /* next chunk to claim */
};

static void run_chunks(thread_pool *pool) {
    for (;;) {
        uint32_t i = atomic_fetch_add(&pool->next, 1u);
        if (i >= pool->chunk_count) return;
        uint32_t b = pool->begin + i * pool->chunk;
        uint32_t e = pool->end - b > pool->chunk ? b + pool->chunk : pool->end;
        pool->fn(b, e, pool->user);
    }
}

static void *worker(void *arg) {
    thread_pool *pool = arg;
    uint64_t seen = 0;
    pthread_mutex_lock(&pool->mutex);
    for (;;) {
        while (!pool->quit && pool->generation == seen) pthread_cond_wait(&pool->wake, &pool->mutex);
        if (pool->quit) break;
        seen = pool->generation;
        if (!pool->open) continue; /* woke after the caller closed it */
        pool->active++;
        pthread_mutex_unlock(&pool->mutex);
        run_chunks(pool);
        pthread_mutex_lock(&pool->mutex);
        if (--pool->active == 0 && pool->caller_waits) pthread_cond_signal(&pool->done);
    }
    pthread_mutex_unlock(&pool->mutex);
    return NULL;
}

thread_pool *thread_pool_create(uint32_t thread_count) {
    if (thread_count == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        thread_count = n > 0 ? (uint32_t)n : 1;
    }
    thread_pool *pool = calloc(1, sizeof *pool);
    if (!pool) return NULL;
    pool->threads = calloc(thread_count, sizeof(pthread_t));
    if (!pool->threads) {
        free(pool);
        return NULL;
    }
    pthread_mutex_init(&pool->mutex, NULL);
    pthread_cond_init(&pool->wake, NULL);
    pthread_cond_init(&pool->done, NULL);
    atomic_init(&pool->next, 0u);
    for (uint32_t i = 0; i + 1 < thread_count; i++) {
        if (pthread_create(&pool->threads[i], NULL, worker, pool) != 0) break;
        pool->worker_count++;
    }
    return pool;
}

void thread_pool_destroy(thread_pool *pool) {
    if (!pool) return;
    pthread_mutex_lock(&pool->mutex);
    pool->quit = true;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->mutex);
    for (uint32_t i = 0; i < pool->worker_count; i++) pthread_join(pool->threads[i], NULL);
    pthread_cond_destroy(&pool->wake);
    pthread_cond_destroy(&pool->done);
    pthread_mutex_destroy(&pool->mutex);
    free(pool->threads);
    free(pool);
}

uint32_t thread_pool_size(const thread_pool *pool) {
    return pool ? pool->worker_count + 1 : 1;
}

void thread_pool_parallel_for(thread_pool *pool, uint32_t begin, uint32_t end, uint32_t grain, thread_pool_fn fn,
                              void *user) {
    if (begin >= end || !fn) return;
    uint32_t n = end - begin, threads = thread_pool_size(pool);
    if (grain == 0) grain = 1;
    /* about 4 chunks per thread for balance, none smaller than grain */
    uint32_t chunk = n / (threads * 4u);
    if (chunk < grain) chunk = grain;
    uint32_t chunks = n / chunk + (n % chunk != 0);
    if (!pool || pool->worker_count == 0 || chunks <= 1) {
        fn(begin, end, user);
        return;
    }
    pthread_mutex_lock(&pool->mutex);
    pool->fn = fn, pool->user = user;
    pool->begin = begin, pool->end = end, pool->chunk = chunk, pool->chunk_count = chunks;
    atomic_store(&pool->next, 0u);
    pool->open = true;
    pool->generation++;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->mutex);
    run_chunks(pool); /* returns once every chunk is claimed */
    pthread_mutex_lock(&pool->mutex);
    pool->open = false;
    pool->caller_waits = true;
    while (pool->active) pthread_cond_wait(&pool->done, &pool->mutex);
    pool->caller_waits = false;
    pthread_mutex_unlock(&pool->mutex);
}
