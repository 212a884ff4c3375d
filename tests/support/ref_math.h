/* Reference math for the tests, written independently of src/math (column-major 4x4
 * matrices, quaternions x y z w). Not part of the library. */
#ifndef OSSA_TEST_REF_MATH_H
#define OSSA_TEST_REF_MATH_H

#include <ossa/ossa.h>

/* A local transform: translation, rotation quaternion (x y z w), scale. */
typedef struct rtrs { float t[3], q[4], s[3]; } rtrs;

/* m = T * R * S of x. */
void ref_mat(const rtrs *x, float m[16]);
/* The same for an ossa_transform. */
void ref_mat_transform(const ossa_transform *x, float m[16]);
/* o = a * b, accumulated in double; o may alias a or b. */
void ref_mul(const float a[16], const float b[16], float o[16]);

#endif
