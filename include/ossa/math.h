/* ossa/math.h: vectors, quaternions, 4x4 matrices, TRS transforms, curve bases.
 * Provided by library ossa (runtime; CMake ossa::ossa, pkg-config ossa).
 *
 * Conventions (glTF / OpenGL): column vectors, column-major float[16]
 * (m[col*4 + row]); quaternions are (x, y, z, w) with w the scalar part;
 * combine(parent, child) applies child first, then parent. Angles in radians.
 * All functions are pure and allocation-free. */
#ifndef OSSA_MATH_H
#define OSSA_MATH_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ossa_vec3 { float x, y, z; } ossa_vec3;
typedef struct ossa_quat { float x, y, z, w; } ossa_quat;
typedef struct ossa_mat4 { float m[16]; } ossa_mat4; /* column-major */

/* Translation, rotation (unit quaternion), scale; matrix = T * R * S. */
typedef struct ossa_transform {
    ossa_vec3 translation;
    ossa_quat rotation;
    ossa_vec3 scale;
} ossa_transform;

/* ---- vec3 ---- */
ossa_vec3 ossa_vec3_make(float x, float y, float z);
ossa_vec3 ossa_vec3_add(ossa_vec3 a, ossa_vec3 b);
ossa_vec3 ossa_vec3_sub(ossa_vec3 a, ossa_vec3 b);
ossa_vec3 ossa_vec3_scale(ossa_vec3 v, float s);
ossa_vec3 ossa_vec3_mul(ossa_vec3 a, ossa_vec3 b); /* component-wise */
float ossa_vec3_dot(ossa_vec3 a, ossa_vec3 b);
ossa_vec3 ossa_vec3_cross(ossa_vec3 a, ossa_vec3 b);
float ossa_vec3_length(ossa_vec3 v);
/* Unit vector along v; returns v unchanged when its length is below 1e-12. */
ossa_vec3 ossa_vec3_normalize(ossa_vec3 v);
/* a + (b - a) * t */
ossa_vec3 ossa_vec3_lerp(ossa_vec3 a, ossa_vec3 b, float t);

/* ---- quaternions ---- */
ossa_quat ossa_quat_identity(void);
/* Rotation of `radians` about unit `axis`. */
ossa_quat ossa_quat_from_axis_angle(ossa_vec3 axis, float radians);
/* Hamilton product: rotating by the result = rotating by b, then by a. */
ossa_quat ossa_quat_mul(ossa_quat a, ossa_quat b);
float ossa_quat_dot(ossa_quat a, ossa_quat b);
/* Conjugate divided by squared length; identity for a zero quaternion. */
ossa_quat ossa_quat_inverse(ossa_quat q);
/* Unit quaternion; a zero quaternion, or one with a NaN / infinite component, gives
 * identity. Finite ones are normalised whatever their magnitude (1e-30 or 1e30). */
ossa_quat ossa_quat_normalize(ossa_quat q);
/* Returns b, or -b when dot(a, b) < 0, so a to the result is the shorter arc. */
ossa_quat ossa_quat_neighborhood(ossa_quat a, ossa_quat b);
/* Normalised linear interpolation along the shorter arc. */
ossa_quat ossa_quat_nlerp(ossa_quat a, ossa_quat b, float t);
/* Spherical linear interpolation along the shorter arc (unit inputs). */
ossa_quat ossa_quat_slerp(ossa_quat a, ossa_quat b, float t);
/* Rotates vector v by unit quaternion q. */
ossa_vec3 ossa_quat_rotate(ossa_quat q, ossa_vec3 v);

/* ---- mat4 ---- */
ossa_mat4 ossa_mat4_identity(void);
/* a * b (b applied first). */
ossa_mat4 ossa_mat4_mul(const ossa_mat4 *a, const ossa_mat4 *b);
/* General inverse; returns false (and *out = identity) if |det| < 1e-20 or non-finite. */
bool ossa_mat4_inverse(const ossa_mat4 *m, ossa_mat4 *out);
/* Inverse of an affine matrix (last row 0 0 0 1); false when the 3x3 part is singular. */
bool ossa_mat4_inverse_affine(const ossa_mat4 *m, ossa_mat4 *out);
/* Decomposes an affine matrix into TRS. Returns false when it has shear or
 * perspective beyond `tolerance` (relative), or a zero scale; *out is still the best fit. */
bool ossa_mat4_decompose(const ossa_mat4 *m, float tolerance, ossa_transform *out);
/* (tolerance <= 0 means the default, 1e-4. A negative determinant becomes a negative x scale.) */
ossa_vec3 ossa_mat4_transform_point(const ossa_mat4 *m, ossa_vec3 p);  /* w = 1 */
ossa_vec3 ossa_mat4_transform_vector(const ossa_mat4 *m, ossa_vec3 v); /* w = 0 */

/* ---- transforms ---- */
ossa_transform ossa_transform_identity(void);
/* parent ∘ child: the child's transform expressed in the parent's space. */
ossa_transform ossa_transform_combine(ossa_transform parent, ossa_transform child);
/* Inverse (exact for uniform scale; for non-uniform scale with rotation the
 * TRS inverse is an approximation, as in any TRS representation). */
ossa_transform ossa_transform_inverse(ossa_transform t);
ossa_mat4 ossa_transform_to_mat4(ossa_transform t);
ossa_vec3 ossa_transform_point(ossa_transform t, ossa_vec3 p);
ossa_vec3 ossa_transform_vector(ossa_transform t, ossa_vec3 v);

/* ---- curve bases ---- */
/* Cubic Hermite: p0, p1 values; m0, m1 tangents (already scaled by the interval). t in [0,1]. */
float ossa_hermite(float t, float p0, float m0, float p1, float m1);
/* Cubic Bézier with control points p0..p3, t in [0,1]. */
float ossa_bezier(float t, float p0, float p1, float p2, float p3);

#ifdef __cplusplus
}
#endif
#endif
