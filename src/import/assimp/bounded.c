/* The bounded Assimp import (assimp.h, ossa_assimp_load_*_bounded): the whole load runs
 * once in a forked child process whose memory is capped, as a probe; when the probe
 * finishes within the cap, the load runs again in the calling process (same input, same
 * code: the same allocations) and its result is returned. Only a probe that hits the
 * cap (LIMIT) or dies (a crash inside Assimp) ends the call without the in-process run.
 *
 * How the cap holds:
 *   - normal builds: setrlimit(RLIMIT_AS) in the child at its address-space size at fork
 *     plus max_bytes. A failed allocation inside Assimp throws std::bad_alloc, which
 *     Assimp may swallow (the FBX reader drops the object with a logged error), so the
 *     child listens to Assimp's log for "bad_alloc", and also counts the cap as hit when
 *     its peak address space came within NEAR_CAP of the limit (a small allocation
 *     failing in C code that reports no bad_alloc).
 *   - AddressSanitizer builds: ASan reserves terabytes of shadow, so RLIMIT_AS (and
 *     RLIMIT_DATA, which counts private writable mappings) would fail at once; the child
 *     instead counts the net heap growth through the sanitizer allocator's malloc/free
 *     hooks and ends with LIMIT as soon as it exceeds max_bytes. */
#include <ossa/assimp.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__unix__) || defined(__APPLE__)
#define OSSA_BOUNDED_POSIX 1
#include <assimp/cimport.h>
#include <errno.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
#define OSSA_BOUNDED_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define OSSA_BOUNDED_ASAN 1
#endif
#endif

#define DEFAULT_CAP ((size_t)1 << 30)
#define NEAR_CAP ((size_t)16 << 20)

typedef enum load_kind { LOAD_FILE, LOAD_MEMORY, LOAD_CLIPS } load_kind;

typedef struct request {
    load_kind kind;
    const char *path;
    const void *data;
    size_t size;
    const char *hint;
    const ossa_skeleton *skeleton;
    const ossa_load_options *options;
} request;

/* The unbounded load the request names (assimp.c). */
static ossa_result run_load(const request *rq, ossa_asset **out, ossa_diagnostic *diag) {
    switch (rq->kind) {
    case LOAD_FILE: return ossa_assimp_load_file(rq->path, rq->options, out, diag);
    case LOAD_MEMORY: return ossa_assimp_load_memory(rq->data, rq->size, rq->hint, rq->options, out, diag);
    case LOAD_CLIPS: return ossa_assimp_load_clips(rq->path, rq->skeleton, rq->options, out, diag);
    }
    return OSSA_ERROR_INVALID_ARGUMENT;
}

static void set_diag(ossa_diagnostic *diag, const char *message) {
    if (!diag) return;
    memset(diag, 0, sizeof *diag);
    snprintf(diag->message, sizeof diag->message, "%s", message);
}

#ifdef OSSA_BOUNDED_POSIX

/* What the child writes to the pipe once (less than PIPE_BUF: one atomic write). */
typedef struct probe_report {
    int32_t result;    /* the child's load result */
    int32_t limit_hit; /* the cap was reached (whatever the result) */
    int32_t no_cap;    /* the cap could not be set: result and message say why */
    char message[384]; /* with limit_hit: what happened, with Assimp's place when it logged one */
} probe_report;

/* The child's state (one thread: the forking one). */
static struct {
    int fd;
    size_t cap;
    bool bad_alloc;
    char alloc_line[160]; /* Assimp's log line that reported the failed allocation */
    char next_line[200];  /* the line after it: usually the place ("FBX-DOM (..., offset 0x162) ...") */
} g_child;

static void copy_line(char *dst, size_t n, const char *src) {
    snprintf(dst, n, "%s", src);
    size_t len = strlen(dst);
    while (len && (dst[len - 1] == '\n' || dst[len - 1] == '\r')) dst[--len] = 0;
}

static void on_log(const char *message, char *user) {
    (void)user;
    if (!message) return;
    if (!g_child.bad_alloc && strstr(message, "bad_alloc")) {
        g_child.bad_alloc = true;
        copy_line(g_child.alloc_line, sizeof g_child.alloc_line, message);
    } else if (g_child.bad_alloc && !g_child.next_line[0]) {
        copy_line(g_child.next_line, sizeof g_child.next_line, message);
    }
}

static void write_report(const probe_report *rep) {
    const char *p = (const char *)rep;
    size_t left = sizeof *rep;
    while (left) {
        ssize_t n = write(g_child.fd, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        p += n;
        left -= (size_t)n;
    }
}

static double mib(size_t bytes) { return (double)bytes / (1024.0 * 1024.0); }

#ifdef OSSA_BOUNDED_ASAN
/* The sanitizer allocator's hook interface (sanitizer/allocator_interface.h; declared here
 * because gcc does not install that header). */
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
                                              void (*free_hook)(const volatile void *));
size_t __sanitizer_get_allocated_size(const volatile void *p);

static long long g_live; /* net heap growth since the hooks went on (frees of older blocks count) */
static bool g_hooks_on;

static void on_malloc(const volatile void *p, size_t n) {
    (void)p;
    if (!g_hooks_on) return;
    g_live += (long long)n;
    if (g_live <= (long long)g_child.cap) return;
    g_hooks_on = false;
    probe_report rep;
    memset(&rep, 0, sizeof rep);
    rep.result = OSSA_ERROR_LIMIT;
    rep.limit_hit = 1;
    snprintf(rep.message, sizeof rep.message,
             "the import needs more than the memory cap of %.0f MiB (an allocation of %.1f MiB, counted by the "
             "sanitizer allocator in the probe process)%s%.200s",
             mib(g_child.cap), mib(n), g_child.next_line[0] ? "; Assimp's last message: " : "", g_child.next_line);
    write_report(&rep);
    _exit(0);
}

static void on_free(const volatile void *p) {
    if (g_hooks_on && p) g_live -= (long long)__sanitizer_get_allocated_size(p);
}

static const char *apply_cap(size_t cap) {
    (void)cap;
    __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free);
    g_hooks_on = true;
    return NULL;
}
static bool near_cap(void) { return false; }
#define CAP_HOW "counted by the sanitizer allocator"
#else
static size_t g_as_limit;

/* A "VmSize:"/"VmPeak:" line of /proc/self/status in bytes; 0 when unavailable (not Linux). */
static size_t proc_status_bytes(const char *field) {
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return 0;
    char line[256];
    size_t len = strlen(field), kb = 0;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, field, len)) {
            kb = (size_t)strtoull(line + len, NULL, 10);
            break;
        }
    fclose(f);
    return kb * 1024;
}

/* RLIMIT_AS at the current address space (the code and data already mapped) plus cap;
 * without /proc, 256 MiB are allowed for them. NULL, or why the cap could not be set. */
static const char *apply_cap(size_t cap) {
    size_t base = proc_status_bytes("VmSize:");
    if (!base) base = (size_t)256 << 20;
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl)) return "getrlimit(RLIMIT_AS) failed";
    rlim_t want = (rlim_t)(base + cap);
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want) want = rl.rlim_max;
    rl.rlim_cur = rl.rlim_max = want;
    if (setrlimit(RLIMIT_AS, &rl)) return "setrlimit(RLIMIT_AS) failed";
    g_as_limit = (size_t)want;
    return NULL;
}

static bool near_cap(void) {
    size_t peak = proc_status_bytes("VmPeak:");
    return peak && peak + NEAR_CAP >= g_as_limit;
}
#define CAP_HOW "RLIMIT_AS in the probe process"
#endif

/* A crash in the probe ends the probe: the caller's crash handlers (a test framework's
 * longjmp back into its runner, say) must not run on in the child. */
static void default_crash_signals(void) {
    static const int SIGNALS[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof SIGNALS / sizeof SIGNALS[0]; i++) sigaction(SIGNALS[i], &sa, NULL);
}

/* The probe: the whole load under the cap, its verdict on the pipe; never returns. */
static void child_main(const request *rq, size_t cap, int fd) {
    default_crash_signals();
    g_child.fd = fd;
    g_child.cap = cap;
    probe_report rep;
    memset(&rep, 0, sizeof rep);
    struct aiLogStream stream = {on_log, NULL};
    aiAttachLogStream(&stream); /* before the cap: the logger's own allocations are not the import's */
    const char *why = apply_cap(cap);
    if (why) {
        rep.result = OSSA_ERROR_IO;
        rep.no_cap = 1;
        snprintf(rep.message, sizeof rep.message, "cannot bound the import: %s", why);
        write_report(&rep);
        _exit(0);
    }
    ossa_asset *asset = NULL;
    ossa_diagnostic diag;
    rep.result = (int32_t)run_load(rq, &asset, &diag);
    ossa_asset_destroy(asset);
    if (g_child.bad_alloc || near_cap()) {
        rep.limit_hit = 1;
        snprintf(rep.message, sizeof rep.message, "Assimp's import needs more than the memory cap of %.0f MiB (" CAP_HOW
                 "): %.100s%s%.160s", mib(cap), g_child.bad_alloc ? g_child.alloc_line : "its address space reached the cap",
                 g_child.next_line[0] ? "; then: " : "", g_child.next_line);
    }
    write_report(&rep);
    _exit(0);
}

/* Reads the child's report; true when it came whole. */
static bool read_report(int fd, probe_report *rep) {
    char *p = (char *)rep;
    size_t got = 0;
    while (got < sizeof *rep) {
        ssize_t n = read(fd, p + got, sizeof *rep - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    return got == sizeof *rep;
}

/* The probe's verdict: OK (run in-process), or an error with diag filled. */
static ossa_result probe(const request *rq, size_t cap, ossa_diagnostic *diag) {
    int fds[2];
    if (pipe(fds)) {
        set_diag(diag, "cannot start the bounded import: pipe() failed");
        return OSSA_ERROR_IO;
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        set_diag(diag, "cannot start the bounded import: fork() failed");
        return OSSA_ERROR_IO;
    }
    if (pid == 0) {
        close(fds[0]);
        child_main(rq, cap, fds[1]);
    }
    close(fds[1]);
    probe_report rep;
    memset(&rep, 0, sizeof rep);
    bool whole = read_report(fds[0], &rep);
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (whole && !rep.limit_hit && !rep.no_cap) return OSSA_OK;
    if (whole) {
        rep.message[sizeof rep.message - 1] = 0;
        set_diag(diag, rep.message);
        return rep.limit_hit ? OSSA_ERROR_LIMIT : (ossa_result)rep.result;
    }
    char msg[200];
    if (WIFSIGNALED(status))
        snprintf(msg, sizeof msg, "Assimp's import crashed (signal %d in the bounded import's probe process)",
                 WTERMSIG(status));
    else
        snprintf(msg, sizeof msg, "the bounded import's probe process ended (exit status %d) without a result",
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    set_diag(diag, msg);
    return OSSA_ERROR_PARSE;
}
#endif /* OSSA_BOUNDED_POSIX */

static bool request_valid(const request *rq) {
    if (rq->kind == LOAD_MEMORY) return rq->data && rq->size && rq->size <= UINT32_MAX;
    return rq->path && (rq->kind != LOAD_CLIPS || rq->skeleton);
}

static ossa_result bounded(const request *rq, size_t max_bytes, ossa_asset **out, ossa_diagnostic *diag) {
    if (diag) memset(diag, 0, sizeof *diag);
    if (!out) return OSSA_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (!request_valid(rq)) return OSSA_ERROR_INVALID_ARGUMENT;
#ifdef OSSA_BOUNDED_POSIX
    size_t cap = max_bytes ? max_bytes
                           : rq->options && rq->options->max_allocation ? rq->options->max_allocation : DEFAULT_CAP;
    ossa_result r = probe(rq, cap, diag);
    return r ? r : run_load(rq, out, diag);
#else
    (void)max_bytes;
    set_diag(diag, "the bounded Assimp import needs POSIX (fork, setrlimit)");
    return OSSA_ERROR_UNSUPPORTED;
#endif
}

ossa_result ossa_assimp_load_file_bounded(const char *path, const ossa_load_options *options, size_t max_bytes,
                                          ossa_asset **out, ossa_diagnostic *diag) {
    request rq = {LOAD_FILE, path, NULL, 0, NULL, NULL, options};
    return bounded(&rq, max_bytes, out, diag);
}

ossa_result ossa_assimp_load_memory_bounded(const void *data, size_t size, const char *hint,
                                            const ossa_load_options *options, size_t max_bytes, ossa_asset **out,
                                            ossa_diagnostic *diag) {
    request rq = {LOAD_MEMORY, NULL, data, size, hint, NULL, options};
    return bounded(&rq, max_bytes, out, diag);
}

ossa_result ossa_assimp_load_clips_bounded(const char *path, const ossa_skeleton *skeleton,
                                           const ossa_load_options *options, size_t max_bytes, ossa_asset **out,
                                           ossa_diagnostic *diag) {
    request rq = {LOAD_CLIPS, path, NULL, 0, NULL, skeleton, options};
    return bounded(&rq, max_bytes, out, diag);
}
