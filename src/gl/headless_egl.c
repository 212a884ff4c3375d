/* Headless GL 3.3+ core contexts through EGL: Mesa surfaceless first, then EGL devices
 * (GPU drivers), then the default display; rendering goes into an FBO we own. */
#include <epoxy/egl.h>
#include <stdlib.h>
#include <string.h>

#include "gl_internal.h"

struct ossa_gl_headless {
    EGLDisplay display;
    EGLContext context;
    EGLSurface surface; /* 1x1 pbuffer only when surfaceless contexts are unsupported */
    GLuint fbo, color, depth;
    uint32_t width, height;
};

/* EGL displays are process-wide and eglTerminate is not reference counted: terminating
 * one would break every other user of the same display in the process (the
 * application's, or another headless context's), and unloads the driver. So displays
 * are initialised once (eglInitialize is idempotent) and left initialised; contexts
 * are destroyed normally. */
static bool display_acquire(EGLDisplay d) {
    EGLint major = 0, minor = 0;
    return eglInitialize(d, &major, &minor) == EGL_TRUE;
}

static bool has_extension(const char *list, const char *name) {
    if (!list) return false;
    size_t n = strlen(name);
    for (const char *s = list; (s = strstr(s, name)) != NULL; s += n)
        if ((s == list || s[-1] == ' ') && (s[n] == ' ' || s[n] == 0)) return true;
    return false;
}

/* Tries to make a core context current on display d; fills ctx on success. */
static bool try_display(EGLDisplay d, ossa_gl_headless *ctx) {
    if (d == EGL_NO_DISPLAY || !display_acquire(d)) return false;
    const char *ext = eglQueryString(d, EGL_EXTENSIONS);
    bool surfaceless = has_extension(ext, "EGL_KHR_surfaceless_context");
    if (!eglBindAPI(EGL_OPENGL_API)) goto fail;
    EGLint config_attribs[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_SURFACE_TYPE, surfaceless ? 0 : EGL_PBUFFER_BIT,
                               EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_NONE};
    EGLConfig config = NULL;
    EGLint count = 0;
    if (!eglChooseConfig(d, config_attribs, &config, 1, &count) || count < 1) {
        if (!surfaceless || !has_extension(ext, "EGL_KHR_no_config_context")) goto fail;
        config = EGL_NO_CONFIG_KHR;
    }
    EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                                EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    ctx->context = eglCreateContext(d, config, EGL_NO_CONTEXT, context_attribs);
    if (ctx->context == EGL_NO_CONTEXT) goto fail;
    if (!surfaceless) {
        EGLint pbuffer_attribs[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
        ctx->surface = eglCreatePbufferSurface(d, config, pbuffer_attribs);
        if (ctx->surface == EGL_NO_SURFACE) goto fail;
    }
    if (!eglMakeCurrent(d, ctx->surface, ctx->surface, ctx->context)) goto fail;
    if (epoxy_gl_version() < 33) {
        eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        goto fail;
    }
    ctx->display = d;
    return true;
fail:
    if (ctx->surface != EGL_NO_SURFACE) eglDestroySurface(d, ctx->surface);
    if (ctx->context != EGL_NO_CONTEXT) eglDestroyContext(d, ctx->context);
    ctx->surface = EGL_NO_SURFACE;
    ctx->context = EGL_NO_CONTEXT;
    return false;
}

static bool make_context(ossa_gl_headless *ctx) {
    const char *client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS); /* NULL without client extensions */
    const char *only = getenv("OSSA_EGL_PLATFORM"); /* surfaceless | device | default; unset = try all */
    if (only && !*only) only = NULL;
    if (only && strcmp(only, "surfaceless") != 0 && strcmp(only, "device") != 0 && strcmp(only, "default") != 0) {
        ossa__gl_log("OSSA_EGL_PLATFORM=%s is not one of surfaceless, device, default", only);
        return false;
    }
    if ((!only || !strcmp(only, "surfaceless")) && has_extension(client, "EGL_MESA_platform_surfaceless") &&
        try_display(eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL), ctx))
        return true;
    if ((!only || !strcmp(only, "device")) && has_extension(client, "EGL_EXT_platform_device") &&
        has_extension(client, "EGL_EXT_device_enumeration")) {
        EGLDeviceEXT devices[16];
        EGLint n = 0;
        if (eglQueryDevicesEXT(16, devices, &n))
            for (EGLint i = 0; i < n; i++)
                if (try_display(eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, devices[i], NULL), ctx)) return true;
    }
    return (!only || !strcmp(only, "default")) && try_display(eglGetDisplay(EGL_DEFAULT_DISPLAY), ctx);
}

ossa_result ossa_gl_headless_create(uint32_t width, uint32_t height, ossa_gl_headless **out) {
    if (!out) return OSSA_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (width == 0 || height == 0 || width > 16384 || height > 16384) return OSSA_ERROR_INVALID_ARGUMENT;
    ossa_gl_headless *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return OSSA_ERROR_OUT_OF_MEMORY;
    ctx->display = EGL_NO_DISPLAY;
    ctx->context = EGL_NO_CONTEXT;
    ctx->surface = EGL_NO_SURFACE;
    ctx->width = width;
    ctx->height = height;
    if (!make_context(ctx)) {
        ossa__gl_log("no EGL display gave an OpenGL 3.3 core context (EGL error 0x%04x)", (unsigned)eglGetError());
        free(ctx);
        return OSSA_ERROR_UNSUPPORTED;
    }
    glGenFramebuffers(1, &ctx->fbo);
    glGenRenderbuffers(1, &ctx->color);
    glGenRenderbuffers(1, &ctx->depth);
    glBindRenderbuffer(GL_RENDERBUFFER, ctx->color);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, (GLsizei)width, (GLsizei)height);
    glBindRenderbuffer(GL_RENDERBUFFER, ctx->depth);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH24_STENCIL8, (GLsizei)width, (GLsizei)height);
    glBindRenderbuffer(GL_RENDERBUFFER, 0);
    glBindFramebuffer(GL_FRAMEBUFFER, ctx->fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, ctx->color);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_STENCIL_ATTACHMENT, GL_RENDERBUFFER, ctx->depth);
    GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    ossa_result r = ossa__gl_check("ossa_gl_headless_create");
    if (r == OSSA_OK && status != GL_FRAMEBUFFER_COMPLETE) {
        ossa__gl_log("ossa_gl_headless_create: framebuffer incomplete (0x%04x)", (unsigned)status);
        r = OSSA_ERROR_GL;
    }
    if (r != OSSA_OK) {
        ossa_gl_headless_destroy(ctx);
        return r;
    }
    glViewport(0, 0, (GLsizei)width, (GLsizei)height);
    *out = ctx;
    return OSSA_OK;
}

void ossa_gl_headless_destroy(ossa_gl_headless *ctx) {
    if (!ctx) return;
    if (ctx->context != EGL_NO_CONTEXT) {
        /* Whatever else is current on this thread is current again afterwards. */
        EGLContext prev = eglGetCurrentContext();
        EGLDisplay prev_display = eglGetCurrentDisplay();
        EGLSurface prev_draw = eglGetCurrentSurface(EGL_DRAW), prev_read = eglGetCurrentSurface(EGL_READ);
        eglMakeCurrent(ctx->display, ctx->surface, ctx->surface, ctx->context);
        if (ctx->fbo) glDeleteFramebuffers(1, &ctx->fbo);
        if (ctx->color) glDeleteRenderbuffers(1, &ctx->color);
        if (ctx->depth) glDeleteRenderbuffers(1, &ctx->depth);
        eglMakeCurrent(ctx->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        if (ctx->surface != EGL_NO_SURFACE) eglDestroySurface(ctx->display, ctx->surface);
        eglDestroyContext(ctx->display, ctx->context);
        if (prev != EGL_NO_CONTEXT && prev != ctx->context) eglMakeCurrent(prev_display, prev_draw, prev_read, prev);
    }
    free(ctx);
}

ossa_result ossa_gl_headless_make_current(ossa_gl_headless *ctx) {
    if (!ctx) return OSSA_ERROR_INVALID_ARGUMENT;
    if (!eglMakeCurrent(ctx->display, ctx->surface, ctx->surface, ctx->context)) {
        ossa__gl_log("eglMakeCurrent failed (EGL error 0x%04x)", (unsigned)eglGetError());
        return OSSA_ERROR_GL;
    }
    glBindFramebuffer(GL_FRAMEBUFFER, ctx->fbo);
    glViewport(0, 0, (GLsizei)ctx->width, (GLsizei)ctx->height);
    return OSSA_OK;
}

ossa_result ossa_gl_headless_read(ossa_gl_headless *ctx, uint8_t *out) {
    if (!ctx || !out) return OSSA_ERROR_INVALID_ARGUMENT;
    GLint read_fbo = 0, pack_buffer = 0, pack[4];
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &read_fbo);
    glGetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &pack_buffer);
    glGetIntegerv(GL_PACK_ALIGNMENT, &pack[0]);
    glGetIntegerv(GL_PACK_ROW_LENGTH, &pack[1]);
    glGetIntegerv(GL_PACK_SKIP_ROWS, &pack[2]);
    glGetIntegerv(GL_PACK_SKIP_PIXELS, &pack[3]);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, ctx->fbo);
    if (pack_buffer) glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glPixelStorei(GL_PACK_ROW_LENGTH, 0);
    glPixelStorei(GL_PACK_SKIP_ROWS, 0);
    glPixelStorei(GL_PACK_SKIP_PIXELS, 0);
    glReadPixels(0, 0, (GLsizei)ctx->width, (GLsizei)ctx->height, GL_RGBA, GL_UNSIGNED_BYTE, out);
    glPixelStorei(GL_PACK_ALIGNMENT, pack[0]);
    glPixelStorei(GL_PACK_ROW_LENGTH, pack[1]);
    glPixelStorei(GL_PACK_SKIP_ROWS, pack[2]);
    glPixelStorei(GL_PACK_SKIP_PIXELS, pack[3]);
    if (pack_buffer) glBindBuffer(GL_PIXEL_PACK_BUFFER, (GLuint)pack_buffer);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, (GLuint)read_fbo);
    ossa_result r = ossa__gl_check("ossa_gl_headless_read");
    if (r != OSSA_OK) return r;
    /* GL rows are bottom-up: flip in place. */
    size_t row = (size_t)ctx->width * 4;
    for (uint32_t y = 0; y < ctx->height / 2; y++) {
        uint8_t *a = out + (size_t)y * row, *b = out + (size_t)(ctx->height - 1 - y) * row;
        for (size_t i = 0; i < row; i++) {
            uint8_t t = a[i];
            a[i] = b[i];
            b[i] = t;
        }
    }
    return OSSA_OK;
}
