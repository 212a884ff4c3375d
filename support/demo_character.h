/* The built-in demo character (support/: the tool and the tests use it): generated
 * in code so `ossa demo` and `ossa render`/`view` with no file need nothing else
 * installed.
 *
 * A 17-joint humanoid (hips, spine, chest, neck, head; upper arm, lower arm,
 * hand, upper leg, lower leg, foot per side), Y up, facing +Z, 1.75 m tall,
 * feet on y = 0. Its body is one skinned mesh of capsules, 2 influences per
 * vertex blended smoothly across each joint, covered by one skin over all
 * joints (inverse bind = inverse of the rest world matrices). Two clips with
 * CUBIC (glTF CUBICSPLINE) keys whose tangents are the exact derivatives of
 * the analytic motion: "walk" (looping, 1 s) and "wave" (2.2 s, not looping). */
#ifndef OSSA_SUPPORT_DEMO_CHARACTER_H
#define OSSA_SUPPORT_DEMO_CHARACTER_H

#include <ossa/ossa.h>

#define DEMO_JOINT_COUNT 17

/* A new asset (skeleton, 1 mesh, 2 clips; nodes NULL) owned by the caller and
 * freed with ossa_asset_destroy; NULL on allocation failure (message on stderr). */
ossa_asset *demo_character_create(void);

/* The analytic motion the clips' keys are taken from (for tests): local rotations
 * (x, y, z, w) of the DEMO_JOINT_COUNT joints in creation order (joint 0 = hips, a
 * skeleton's joint_of_source maps them) and the hips translation, at t seconds of
 * clip 0 ("walk") or 1 ("wave"). */
typedef struct demo_pose {
    double rot[DEMO_JOINT_COUNT][4];
    double hips[3];
} demo_pose;
void demo_character_analytic_pose(int clip, double t, demo_pose *out);

#endif
