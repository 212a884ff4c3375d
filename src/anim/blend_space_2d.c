/* Freeform directional 2-D blend-space weights: gradient bands in polar space (see
 * ossa/graph.h: ossa_blend_space_2d for the formula and its guarantees). */
#include <ossa/graph.h>

#include <math.h>

/* Signed angle from a to b (radians, in [-pi, pi]). */
static float signed_angle(float ax, float ay, float bx, float by) {
    return atan2f(ax * by - ay * bx, ax * bx + ay * by);
}

/* The polar vector from sample i to point (px, py) on the band towards sample j (see the header). */
static void polar(float sx, float sy, float si_mag, float sj_mag, float px, float py, float mean, float out[2]) {
    float mag = hypotf(px, py);
    out[0] = (mag - si_mag) / mean;
    bool directional = si_mag > 0.0f && sj_mag > 0.0f && mag > 0.0f;
    out[1] = directional ? 2.0f * signed_angle(sx, sy, px, py) : 0.0f;
}

/* h_i: the smallest band value over every other sample, clamped to >= 0. */
static float influence(const float *xs, const float *ys, uint32_t count, uint32_t i, float x, float y) {
    float si = hypotf(xs[i], ys[i]);
    float h = 1.0f;
    for (uint32_t j = 0; j < count; j++) {
        if (j == i) continue;
        float sj = hypotf(xs[j], ys[j]);
        float mean = 0.5f * (si + sj);
        float v[2], p[2];
        polar(xs[i], ys[i], si, sj, xs[j], ys[j], mean, v);
        polar(xs[i], ys[i], si, sj, x, y, mean, p);
        float vv = v[0] * v[0] + v[1] * v[1];
        if (!(vv > 0.0f)) continue; /* the same polar point (checked against at validation) */
        float band = 1.0f - (p[0] * v[0] + p[1] * v[1]) / vv;
        if (band < h) h = band;
    }
    return h > 0.0f ? h : 0.0f;
}

static bool valid_input(const float *xs, const float *ys, uint32_t count, float x, float y) {
    if (!isfinite(x) || !isfinite(y)) return false;
    for (uint32_t i = 0; i < count; i++) {
        if (!isfinite(xs[i]) || !isfinite(ys[i])) return false;
        for (uint32_t j = 0; j < i; j++)
            if (xs[i] == xs[j] && ys[i] == ys[j]) return false;
    }
    return true;
}

ossa_result ossa_blend_space_2d(const float *xs, const float *ys, uint32_t count, float x, float y, float *weights) {
    if (!xs || !ys || !weights || count == 0 || count > OSSA_GRAPH_MAX_SAMPLES) return OSSA_ERROR_INVALID_ARGUMENT;
    if (!valid_input(xs, ys, count, x, y)) return OSSA_ERROR_INVALID_ARGUMENT;
    float sum = 0.0f;
    for (uint32_t i = 0; i < count; i++) {
        if (xs[i] == x && ys[i] == y) { /* exactly at a sample */
            for (uint32_t k = 0; k < count; k++) weights[k] = k == i ? 1.0f : 0.0f;
            return OSSA_OK;
        }
        weights[i] = influence(xs, ys, count, i, x, y);
        sum += weights[i];
    }
    if (sum > 0.0f) {
        for (uint32_t i = 0; i < count; i++) weights[i] /= sum;
        return OSSA_OK;
    }
    uint32_t nearest = 0;
    float best = INFINITY;
    for (uint32_t i = 0; i < count; i++) {
        float d = (xs[i] - x) * (xs[i] - x) + (ys[i] - y) * (ys[i] - y);
        if (d < best) best = d, nearest = i;
    }
    for (uint32_t i = 0; i < count; i++) weights[i] = i == nearest ? 1.0f : 0.0f;
    return OSSA_OK;
}
