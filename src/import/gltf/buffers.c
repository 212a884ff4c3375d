/* glTF containers and buffers: .gltf text vs .glb chunks, data: URIs (base64),
 * external files relative to the model (percent-decoded). Every length is
 * checked against the real bytes before anything is allocated or read. */
#include "import/gltf/gltf_internal.h"

#include "core/cpu.h"

#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* 0..63 for the base64 alphabet ('-' and '_' of base64url tolerated), 255 otherwise */
static const uint8_t B64[256] = {
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 62, 255, 62, 255, 63,
    52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 255, 255, 255, 255, 255, 255,
    255, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
    15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 255, 255, 255, 255, 63,
    255, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40,
    41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
};

size_t ossa__base64_decoded_bound(size_t len) { return len / 4 * 3 + 3; }

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(OSSA_SCALAR_ONLY)
#include <immintrin.h>
#define OSSA_B64_AVX2 1
/* AVX2 decoding of the standard alphabet, 32 characters → 24 bytes per step, after the
 * method of Muła and Lemire ("Faster Base64 Encoding and Decoding Using AVX2
 * Instructions", 2018): nibble lookups validate, a third lookup maps to 6-bit values,
 * two multiply-adds pack them. Stops at the first block with any other character
 * ('-', '_', '=', invalid), which the scalar loop then handles (and rejects). Returns
 * the characters consumed (a multiple of 32); *written the bytes written. Stores 32
 * bytes per block, so it runs only while 48 characters remain: the output bound
 * (len / 4 * 3 + 3) then always has room. */
__attribute__((target("avx2"))) static size_t b64_decode_avx2(const uint8_t *src, size_t len, uint8_t *dst,
                                                              size_t *written) {
    const __m256i lut_lo = _mm256_setr_epi8(0x15, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x13, 0x1A,
                                            0x1B, 0x1B, 0x1B, 0x1A, 0x15, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
                                            0x11, 0x11, 0x13, 0x1A, 0x1B, 0x1B, 0x1B, 0x1A);
    const __m256i lut_hi = _mm256_setr_epi8(0x10, 0x10, 0x01, 0x02, 0x04, 0x08, 0x04, 0x08, 0x10, 0x10, 0x10, 0x10,
                                            0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x01, 0x02, 0x04, 0x08, 0x04, 0x08,
                                            0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10);
    const __m256i lut_roll = _mm256_setr_epi8(0, 16, 19, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0, 0, 16, 19, 4,
                                              -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m256i mask_2f = _mm256_set1_epi8(0x2f);
    const __m256i pack_shuffle = _mm256_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1, 2, 1, 0, 6, 5,
                                                  4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1);
    const __m256i pack_perm = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 7, 7);
    size_t i = 0, o = 0;
    for (; i + 48 <= len; i += 32, o += 24) {
        __m256i str = _mm256_loadu_si256((const __m256i *)(const void *)(src + i));
        __m256i hi_nibbles = _mm256_and_si256(_mm256_srli_epi32(str, 4), mask_2f);
        __m256i lo = _mm256_shuffle_epi8(lut_lo, _mm256_and_si256(str, mask_2f));
        __m256i hi = _mm256_shuffle_epi8(lut_hi, hi_nibbles);
        if (!_mm256_testz_si256(lo, hi)) break; /* a character outside A-Z a-z 0-9 + / */
        __m256i eq_2f = _mm256_cmpeq_epi8(str, mask_2f);
        __m256i roll = _mm256_shuffle_epi8(lut_roll, _mm256_add_epi8(eq_2f, hi_nibbles));
        str = _mm256_add_epi8(str, roll);
        __m256i ab_bc = _mm256_maddubs_epi16(str, _mm256_set1_epi32(0x01400140));
        __m256i out = _mm256_madd_epi16(ab_bc, _mm256_set1_epi32(0x00011000));
        out = _mm256_shuffle_epi8(out, pack_shuffle);
        out = _mm256_permutevar8x32_epi32(out, pack_perm);
        _mm256_storeu_si256((__m256i *)(void *)(dst + o), out);
    }
    *written = o;
    return i;
}
#endif

/* Decodes len characters of unpadded base64 ('=' is an invalid character here): false on
 * an invalid character or len % 4 == 1; else *out_len bytes (len / 4 * 3 + (len % 4 ? len % 4 - 1 : 0))
 * are written to out. Used whole (ossa__base64_decode) and on ranges of a data: URI. */
static bool b64_core_with(const unsigned char *s, size_t len, uint8_t *out, size_t *out_len, bool simd) {
    const uint8_t *T = B64;
    if (len % 4 == 1) return false;
    size_t o = 0, i = 0;
#ifdef OSSA_B64_AVX2
    if (simd && len >= 48 && ossa__simd() >= OSSA__SIMD_AVX2) i = b64_decode_avx2(s, len, out, &o);
#else
    (void)simd;
#endif
    if (len - i >= 4096) {
        /* 4 tables of pre-shifted values (an invalid character sets bit 31): one OR per quantum;
         * 8 characters → 6 bytes per step */
        uint32_t D[4][256]; /* built per call (1024 entries, so only for long inputs): no shared state */
        for (int c = 0; c < 256; c++) {
            uint32_t v = B64[c];
            uint32_t bad = v & 0x80u ? 0x80000000u : 0;
            D[0][c] = bad | (v & 63u) << 18;
            D[1][c] = bad | (v & 63u) << 12;
            D[2][c] = bad | (v & 63u) << 6;
            D[3][c] = bad | (v & 63u);
        }
        for (; i + 8 <= len; i += 8) {
            uint32_t v = D[0][s[i]] | D[1][s[i + 1]] | D[2][s[i + 2]] | D[3][s[i + 3]];
            uint32_t w = D[0][s[i + 4]] | D[1][s[i + 5]] | D[2][s[i + 6]] | D[3][s[i + 7]];
            if ((v | w) & 0x80000000u) return false;
            out[o] = (uint8_t)(v >> 16), out[o + 1] = (uint8_t)(v >> 8), out[o + 2] = (uint8_t)v;
            out[o + 3] = (uint8_t)(w >> 16), out[o + 4] = (uint8_t)(w >> 8), out[o + 5] = (uint8_t)w;
            o += 6;
        }
    }
    for (; i + 4 <= len; i += 4) {
        uint32_t a = T[s[i]], b = T[s[i + 1]], c = T[s[i + 2]], d = T[s[i + 3]];
        if ((a | b | c | d) & 0x80u) return false;
        uint32_t v = a << 18 | b << 12 | c << 6 | d;
        out[o] = (uint8_t)(v >> 16);
        out[o + 1] = (uint8_t)(v >> 8);
        out[o + 2] = (uint8_t)v;
        o += 3;
    }
    size_t rest = len - i;
    if (rest) {
        uint32_t v = 0;
        for (size_t k = 0; k < rest; k++) {
            uint32_t x = T[s[i + k]];
            if (x & 0x80u) return false;
            v |= x << (18 - 6 * k);
        }
        out[o++] = (uint8_t)(v >> 16);
        if (rest == 3) out[o++] = (uint8_t)(v >> 8);
    }
    *out_len = o;
    return true;
}

static bool b64_core(const unsigned char *s, size_t len, uint8_t *out, size_t *out_len) {
    return b64_core_with(s, len, out, out_len, true);
}

/* Strips '=' padding: false when the padding is malformed, else *len = unpadded characters. */
static bool b64_unpad(const char *in, size_t *len) {
    size_t padded = *len, n = padded;
    while (n > 0 && in[n - 1] == '=') n--;
    /* with '=' padding the text must be whole quanta: a stray character otherwise
     * shifts every byte silently */
    if (padded != n && (padded - n > 2 || padded % 4 != 0)) return false;
    *len = n;
    return true;
}

bool ossa__base64_decode(const char *in, size_t len, uint8_t *out, size_t *out_len) {
    return b64_unpad(in, &len) && b64_core((const unsigned char *)in, len, out, out_len);
}

bool ossa__base64_decode_scalar(const char *in, size_t len, uint8_t *out, size_t *out_len) {
    return b64_unpad(in, &len) && b64_core_with((const unsigned char *)in, len, out, out_len, false);
}

bool ossa__base64_check(const char *in, size_t len, size_t *text_len, size_t *out_len) {
    if (!b64_unpad(in, &len) || len % 4 == 1) return false;
    /* the decoder itself over blocks into a small stack buffer: exactly the characters
     * ossa__base64_decode accepts, no allocation */
    uint8_t block[3072 + 8];
    for (size_t i = 0; i < len; i += 4096) {
        size_t got;
        if (!b64_core((const unsigned char *)in + i, len - i < 4096 ? len - i : 4096, block, &got)) return false;
    }
    *text_len = len;
    *out_len = len / 4 * 3 + (len % 4 ? len % 4 - 1 : 0);
    return true;
}

void ossa__base64_decode_range(const char *in, size_t text_len, size_t offset, size_t length, uint8_t *out) {
    const unsigned char *s = (const unsigned char *)in;
    size_t got, end = offset + length;
    uint8_t q[3];
    size_t first = (offset + 2) / 3, last = end / 3; /* whole quanta inside the range: [first, last) */
    if (first >= last) { /* within one or two quanta: decode them and pick the bytes */
        for (size_t k = offset / 3; k * 3 < end; k++) {
            b64_core(s + 4 * k, text_len - 4 * k < 4 ? text_len - 4 * k : 4, q, &got);
            for (size_t j = 0; j < 3; j++)
                if (k * 3 + j >= offset && k * 3 + j < end) out[k * 3 + j - offset] = q[j];
        }
        return;
    }
    if (offset % 3) { /* head: the end of quantum first - 1 */
        b64_core(s + 4 * (first - 1), 4, q, &got);
        memcpy(out, q + offset % 3, 3 - offset % 3);
    }
    b64_core(s + 4 * first, 4 * (last - first), out + (3 * first - offset), &got);
    if (end % 3) { /* tail: the start of quantum last (maybe the text's partial last quantum) */
        size_t chars = end % 3 + 1;
        b64_core(s + 4 * last, chars, q, &got);
        memcpy(out + (3 * last - offset), q, end % 3);
    }
}

bool ossa__uri_decode(const char *in, char *out, size_t out_size) {
    size_t o = 0;
    for (size_t i = 0; in[i]; i++) {
        char c = in[i];
        if (c == '%') {
            int hi = -1, lo = -1;
            char a = in[i + 1];
            char b = a ? in[i + 2] : 0;
            if (a >= '0' && a <= '9') hi = a - '0';
            else if (a >= 'a' && a <= 'f') hi = a - 'a' + 10;
            else if (a >= 'A' && a <= 'F') hi = a - 'A' + 10;
            if (b >= '0' && b <= '9') lo = b - '0';
            else if (b >= 'a' && b <= 'f') lo = b - 'a' + 10;
            else if (b >= 'A' && b <= 'F') lo = b - 'A' + 10;
            if (hi < 0 || lo < 0) return false;
            c = (char)(hi * 16 + lo);
            if (c == 0) return false;
            i += 2;
        }
        if (o + 1 >= out_size) return false;
        out[o++] = c;
    }
    out[o] = 0;
    return true;
}

ossa_result ossa__read_file(ossa__ctx *ctx, const char *file, const char *path_json, uint8_t **out, size_t *size,
                           bool *mapped) {
    *out = NULL;
    *size = 0;
    *mapped = false;
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return ossa__fail(ctx, OSSA_ERROR_IO, path_json, "cannot open '%s'", file);
    struct stat st; /* a directory opens, and its "size" would be taken for a length */
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return ossa__fail(ctx, OSSA_ERROR_IO, path_json, "'%s' is not a regular file", file);
    }
    if (st.st_size < 0 || (uint64_t)st.st_size >= SIZE_MAX / 2) {
        close(fd);
        return ossa__fail(ctx, OSSA_ERROR_IO, path_json, "cannot read '%s'", file);
    }
    size_t len = (size_t)st.st_size;
    /* The file is mapped read-only, not copied: it costs no allocation (max_allocation counts
     * what ossa allocates) and its pages come from the page cache. */
    void *m = len ? mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
    if (m != MAP_FAILED) {
        close(fd);
        *out = m;
        *size = len;
        *mapped = true;
        return OSSA_OK;
    }
    /* empty files (and file systems without mmap): read into an allocation */
    uint8_t *buf = ossa__ctx_alloc_raw(ctx, len + 1, 1);
    if (!buf) {
        close(fd);
        return ctx->failed;
    }
    size_t got = 0;
    while (got < len) {
        ssize_t k = read(fd, buf + got, len - got);
        if (k <= 0) break;
        got += (size_t)k;
    }
    close(fd);
    if (got != len) {
        ossa__ctx_free(ctx, buf);
        return ossa__fail(ctx, OSSA_ERROR_IO, path_json, "short read on '%s'", file);
    }
    *out = buf;
    *size = len;
    return OSSA_OK;
}

void ossa__release_file(ossa__ctx *ctx, uint8_t *data, size_t size, bool mapped) {
    if (!data) return;
    if (mapped) munmap(data, size);
    else ossa__ctx_free(ctx, data);
}

static uint32_t rd32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

ossa_result ossa__container_open(ossa__ctx *ctx, const uint8_t *data, size_t size) {
    if (size >= 4 && !memcmp(data, "glTF", 4)) {
        ctx->gltf->is_glb = true;
        if (size < 20) return ossa__fail(ctx, OSSA_ERROR_PARSE, "", "GLB: %zu bytes is shorter than a header and a chunk", size);
        uint32_t version = rd32(data + 4), length = rd32(data + 8);
        if (version != 2) return ossa__fail(ctx, OSSA_ERROR_UNSUPPORTED, "", "GLB: container version %u (expected 2)", version);
        if (length > size)
            return ossa__fail(ctx, OSSA_ERROR_PARSE, "", "GLB: header length %u does not match the %zu bytes given", length, size);
        if (length < 20) return ossa__fail(ctx, OSSA_ERROR_PARSE, "", "GLB: header length %u is shorter than a header and a chunk", length);
        if (length < size) { /* the validator warns: bytes after the container are ignored */
            ossa__warn(ctx, "", "GLB: %zu bytes after the declared length %u ignored", size - length, length);
            size = length;
        }
        size_t pos = 12;
        uint32_t chunk = 0;
        while (pos < size) {
            if (size - pos < 8) return ossa__fail(ctx, OSSA_ERROR_PARSE, "", "GLB: truncated chunk header at byte %zu", pos);
            uint32_t clen = rd32(data + pos), ctype = rd32(data + pos + 4);
            pos += 8;
            if (clen > size - pos)
                return ossa__fail(ctx, OSSA_ERROR_PARSE, "", "GLB: chunk %u length %u overruns the file (%zu bytes left)", chunk,
                                  clen, size - pos);
            if (chunk == 0 && ctype != 0x4E4F534Au)
                return ossa__fail(ctx, OSSA_ERROR_PARSE, "", "GLB: first chunk is not JSON (type 0x%08X)", ctype);
            if (clen % 4) ossa__warn(ctx, "", "GLB: chunk %u length %u is not a multiple of 4", chunk, clen);
            if (chunk == 0) {
                ctx->gltf->json = (const char *)data + pos;
                ctx->gltf->json_size = clen;
            } else if (ctype == 0x004E4942u) {
                if (chunk != 1) return ossa__fail(ctx, OSSA_ERROR_PARSE, "", "GLB: BIN chunk must be the second chunk");
                ctx->gltf->glb_bin = data + pos;
                ctx->gltf->glb_bin_size = clen;
            } else if (ctype == 0x4E4F534Au) {
                return ossa__fail(ctx, OSSA_ERROR_PARSE, "", "GLB: more than one JSON chunk");
            }
            pos += clen;
            chunk++;
        }
        return OSSA_OK;
    }
    ctx->gltf->json = (const char *)data;
    ctx->gltf->json_size = size;
    if (size >= 3 && !memcmp(data, "\xEF\xBB\xBF", 3)) {
        ossa__warn(ctx, "", "JSON starts with a UTF-8 byte order mark; ignored");
        ctx->gltf->json += 3;
        ctx->gltf->json_size -= 3;
    }
    return OSSA_OK;
}

/* A data: URI. `lazy`: uri lies in the JSON text, which outlives the load's reads: it is
 * only checked here (the same verdict as decoding it) and ranges are decoded where accessors
 * read them, straight into their output; else it is decoded now into a scratch copy. */
static ossa_result load_data_uri(ossa__ctx *ctx, ossa__buffer *b, const char *uri, size_t uri_len, const char *path,
                                 bool lazy) {
    const char *comma = memchr(uri, ',', uri_len);
    if (!comma) return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path, "malformed data: URI (no comma)");
    size_t hl = (size_t)(comma - uri);
    if (hl < 7 || memcmp(comma - 7, ";base64", 7) != 0)
        return ossa__fail(ctx, OSSA_ERROR_UNSUPPORTED, path, "data: URI is not base64");
    const char *s = comma + 1;
    size_t n = uri_len - hl - 1;
    size_t bound = ossa__base64_decoded_bound(n);
    if (bound < b->declared) /* checked before allocating */
        return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path, "data: URI holds at most %zu bytes, byteLength is %zu",
                          bound, b->declared);
    if (lazy) {
        size_t text_len = 0, got = 0;
        if (!ossa__base64_check(s, n, &text_len, &got))
            return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path, "invalid base64 in data: URI");
        b->base64 = s;
        b->base64_len = text_len;
        b->data = NULL;
        b->size = got;
        return OSSA_OK;
    }
    uint8_t *d = ossa__ctx_alloc_raw(ctx, bound, 1);
    if (!d) return ctx->failed;
    size_t got = 0;
    if (!ossa__base64_decode(s, n, d, &got)) {
        ossa__ctx_free(ctx, d);
        return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path, "invalid base64 in data: URI");
    }
    b->owned = d;
    b->data = d;
    b->writable = true;
    b->size = got;
    return OSSA_OK;
}

const uint8_t *ossa__buffer_bytes(ossa__ctx *ctx, uint32_t b, size_t offset, size_t length, void **scratch) {
    const ossa__buffer *buf = &ctx->gltf->buffers[b];
    *scratch = NULL;
    if (offset > buf->size || length > buf->size - offset) { /* callers check their ranges first */
        ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, "", "read of %zu bytes at %zu past buffer %u (%zu bytes)", length, offset,
                   b, buf->size);
        return NULL;
    }
    if (!buf->base64) return buf->data + offset;
    uint8_t *d = ossa__ctx_alloc_raw(ctx, length ? length : 1, 1);
    if (!d) return NULL;
    ossa__base64_decode_range(buf->base64, buf->base64_len, offset, length, d);
    *scratch = d;
    return d;
}

void ossa__buffer_copy(const ossa__ctx *ctx, uint32_t b, size_t offset, size_t length, uint8_t *dst) {
    const ossa__buffer *buf = &ctx->gltf->buffers[b];
    if (!length) return;
    if (buf->base64) ossa__base64_decode_range(buf->base64, buf->base64_len, offset, length, dst);
    else memcpy(dst, buf->data + offset, length);
}

static ossa_result load_external(ossa__ctx *ctx, ossa__buffer *b, const char *uri, const char *path) {
    const char *colon = strchr(uri, ':');
    const char *slash = strchr(uri, '/');
    if (colon && (!slash || colon < slash))
        return ossa__fail(ctx, OSSA_ERROR_UNSUPPORTED, path, "URI scheme in '%s' is not supported", uri);
    if (uri[0] == '/') return ossa__fail(ctx, OSSA_ERROR_UNSUPPORTED, path, "absolute URI '%s' is not supported", uri);
    char rel[1024];
    if (!ossa__uri_decode(uri, rel, sizeof rel))
        return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path, "malformed URI '%s'", uri);
    if (!ctx->gltf->base_dir)
        return ossa__fail(ctx, OSSA_ERROR_IO, path, "external buffer '%s' needs options->base_dir when loading from memory", rel);
    char full[2048];
    int n = snprintf(full, sizeof full, "%s%s%s", ctx->gltf->base_dir,
                     (ctx->gltf->base_dir[0] && ctx->gltf->base_dir[strlen(ctx->gltf->base_dir) - 1] != '/') ? "/" : "", rel);
    if (n < 0 || (size_t)n >= sizeof full) return ossa__fail(ctx, OSSA_ERROR_IO, path, "buffer path too long");
    uint8_t *d = NULL;
    size_t size = 0;
    bool mapped = false;
    ossa_result r = ossa__read_file(ctx, full, path, &d, &size, &mapped);
    if (r) return r;
    if (mapped) b->mapped = d, b->mapped_size = size;
    else b->owned = d;
    b->data = d;
    b->size = size;
    return OSSA_OK;
}

static ossa_result resolve_buffer(ossa__ctx *ctx, int32_t item, uint32_t i, const char *path, ossa__buffer *b,
                                  bool *deferrable);

ossa_result ossa__buffers_load(ossa__ctx *ctx) {
    uint32_t count;
    int32_t *items;
    ossa_result r = ossa__json_object_array(ctx, 0, "", "buffers", &count, &items);
    if (r) return r;
    if (!count) return OSSA_OK;
    ctx->gltf->buffers = ossa__ctx_alloc(ctx, count, sizeof *ctx->gltf->buffers);
    if (!ctx->gltf->buffers) {
        ossa__ctx_free(ctx, items);
        return ctx->failed;
    }
    ctx->gltf->buffer_count = count;
    ossa_diagnostic *real_diag = ctx->diag;
    for (uint32_t i = 0; i < count && !r; i++) {
        char path[64];
        snprintf(path, sizeof path, "/buffers/%u", i);
        ossa__buffer *b = &ctx->gltf->buffers[i];
        OSSA__STAGE(ctx, "/buffers/%u", i);
        /* A buffer ossa cannot load (no uri outside a GLB, a data: URI that is not base64,
         * a URI scheme) is an error only when an accessor ossa reads uses it: the glTF
         * validator accepts such files when the buffer is unused. Its error is recorded
         * and the buffer skipped with a warning. */
        ossa_diagnostic here;
        memset(&here, 0, sizeof here);
        ctx->diag = &here;
        bool deferrable = false;
        r = resolve_buffer(ctx, items[i], i, path, b, &deferrable);
        ctx->diag = real_diag;
        if (r && (deferrable || r == OSSA_ERROR_UNSUPPORTED)) {
            ctx->failed = OSSA_OK;
            b->deferred_diag = ossa__ctx_alloc(ctx, 1, sizeof *b->deferred_diag);
            if (!b->deferred_diag) {
                r = ctx->failed;
                break;
            }
            *b->deferred_diag = here;
            b->deferred = r;
            b->data = NULL;
            b->base64 = NULL;
            b->size = 0;
            r = OSSA_OK;
            ossa__warn(ctx, path, "not loaded (%s); only an error if a used accessor reads it", here.message);
        } else if (r && real_diag) {
            *real_diag = here;
        }
    }
    ossa__ctx_free(ctx, items);
    return r;
}

static ossa_result resolve_buffer(ossa__ctx *ctx, int32_t item, uint32_t i, const char *path, ossa__buffer *b,
                                  bool *deferrable) {
    ossa_result r;
    {
        uint64_t len = 0;
        r = ossa__json_get_uint(ctx, item, path, "byteLength", true, SIZE_MAX / 2, &len, NULL);
        if (r) return r;
        if (len == 0) return ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path, "byteLength must be at least 1");
        b->declared = (size_t)len;
        char *uri = NULL;
        int32_t ut = ossa__json_find(ctx, item, "uri");
        const char *raw = NULL;
        size_t raw_len = 0;
        if (ut >= 0 && ctx->gltf->tok[ut].type == OSSA__J_STRING) {
            raw = ctx->gltf->json + ctx->gltf->tok[ut].start;
            raw_len = ctx->gltf->tok[ut].end - ctx->gltf->tok[ut].start;
        }
        if (raw && raw_len >= 5 && !memcmp(raw, "data:", 5) && !memchr(raw, '\\', raw_len)) {
            /* no escapes: decode straight from the JSON text (no copy of a large URI) */
            r = load_data_uri(ctx, b, raw, raw_len, path, true);
            if (!r && b->size < b->declared)
                r = ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path, "only %zu bytes available, byteLength is %zu",
                               b->size, b->declared);
            if (!r) b->size = b->declared;
            return r;
        }
        if (ut >= 0) {
            char up[80];
            snprintf(up, sizeof up, "%s/uri", path);
            r = ossa__json_string_dup(ctx, ut, up, &uri);
            if (r) return r;
        }
        if (!uri) {
            if (!(ctx->gltf->is_glb && i == 0))
                *deferrable = true, r = ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path, "buffer has no uri and is not the GLB-stored buffer");
            else if (!ctx->gltf->glb_bin)
                r = ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path, "GLB has no BIN chunk for this buffer");
            else {
                b->data = ctx->gltf->glb_bin;
                b->size = ctx->gltf->glb_bin_size;
                if (b->size > b->declared + 3)
                    ossa__warn(ctx, path, "BIN chunk has %zu bytes, byteLength is %zu", b->size, b->declared);
            }
        } else if (!strncmp(uri, "data:", 5)) {
            r = load_data_uri(ctx, b, uri, strlen(uri), path, false);
        } else {
            r = load_external(ctx, b, uri, path);
        }
        ossa__ctx_free(ctx, uri);
        if (!r && b->size < b->declared)
            r = ossa__fail(ctx, OSSA_ERROR_INVALID_DATA, path, "only %zu bytes available, byteLength is %zu", b->size,
                           b->declared);
        if (!r) b->size = b->declared;
    }
    return r;
}

/* ---- the document in the load context ---- */

ossa_result ossa__buffer_usable(ossa__ctx *ctx, uint32_t b) {
    const ossa__buffer *buf = &ctx->gltf->buffers[b];
    return buf->deferred ? ossa__fail_again(ctx, buf->deferred, buf->deferred_diag) : OSSA_OK;
}

static void gltf_release(ossa__ctx *ctx) {
    ctx->gltf->releasing = true; /* the buffers themselves now */
    for (uint32_t i = 0; i < ctx->gltf->buffer_count; i++) {
        ossa__ctx_free(ctx, ctx->gltf->buffers[i].owned);
        ossa__release_file(ctx, ctx->gltf->buffers[i].mapped, ctx->gltf->buffers[i].mapped_size, true);
        ossa__ctx_free(ctx, ctx->gltf->buffers[i].deferred_diag);
    }
    ossa__buffer *buffers = ctx->gltf->buffers;
    ctx->gltf->buffers = NULL;
    ctx->gltf->buffer_count = 0;
    ossa__ctx_free(ctx, buffers);
    ossa__ctx_free(ctx, ctx->gltf->views);
    ossa__ctx_free(ctx, ctx->gltf->accessors);
    ossa__ctx_free(ctx, ctx->gltf->tok);
    ctx->gltf->buffers = NULL;
    ctx->gltf->views = NULL;
    ctx->gltf->accessors = NULL;
    ctx->gltf->tok = NULL;
    ctx->gltf->buffer_count = ctx->gltf->view_count = ctx->gltf->accessor_count = ctx->gltf->tok_count = 0;
    ctx->gltf->releasing = false;
}

/* Accessor data read in place points into a buffer: not freed on its own. */
static bool gltf_borrowed(const ossa__ctx *ctx, const void *ptr) {
    for (uint32_t i = 0; i < ctx->gltf->buffer_count && !ctx->gltf->releasing; i++) {
        const ossa__buffer *b = &ctx->gltf->buffers[i];
        if (b->data && (const uint8_t *)ptr >= b->data && (const uint8_t *)ptr < b->data + b->size) return true;
    }
    return false;
}

void ossa__gltf_attach(ossa__ctx *ctx, ossa__gltf_doc *doc, const ossa_load_options *options) {
    memset(doc, 0, sizeof *doc);
    doc->base_dir = options ? options->base_dir : NULL;
    ctx->gltf = doc;
    ctx->borrowed = gltf_borrowed;
    ctx->release = gltf_release;
}
