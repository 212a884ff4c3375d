/* Reference math for the tests (see ref_math.h). */
#include "ref_math.h"

#include <string.h>

void ref_mat(const rtrs *x, float m[16]) {
    float qx = x->q[0], qy = x->q[1], qz = x->q[2], qw = x->q[3];
    float r[9] = {1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy + qz * qw),     2 * (qx * qz - qy * qw),
                  2 * (qx * qy - qz * qw),     1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz + qx * qw),
                  2 * (qx * qz + qy * qw),     2 * (qy * qz - qx * qw),     1 - 2 * (qx * qx + qy * qy)};
    for (int c = 0; c < 3; c++) {
        for (int k = 0; k < 3; k++) m[c * 4 + k] = r[c * 3 + k] * x->s[c];
        m[c * 4 + 3] = 0;
    }
    m[12] = x->t[0], m[13] = x->t[1], m[14] = x->t[2], m[15] = 1;
}

void ref_mat_transform(const ossa_transform *x, float m[16]) {
    const rtrs r = {{x->translation.x, x->translation.y, x->translation.z},
                    {x->rotation.x, x->rotation.y, x->rotation.z, x->rotation.w},
                    {x->scale.x, x->scale.y, x->scale.z}};
    ref_mat(&r, m);
}

void ref_mul(const float a[16], const float b[16], float o[16]) {
    float t[16];
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) {
            double s = 0;
            for (int k = 0; k < 4; k++) s += (double)a[k * 4 + r] * b[c * 4 + k];
            t[c * 4 + r] = (float)s;
        }
    memcpy(o, t, sizeof t);
}
