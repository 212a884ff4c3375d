/* The tools' IK pass: two-bone chains (start = grandparent, mid = parent of an end joint)
 * pulled to model-space targets after every pose, for `ossa render --ik` and the IK key
 * of `ossa view`. Runs ossa_ik_two_bone_job on the scene's model matrices and applies
 * the corrections with ossa_ik_apply_job (scene->post_pose hook). */
#ifndef OSSA_TOOL_IK_PASS_H
#define OSSA_TOOL_IK_PASS_H

#include "render_common.h"

#define IK_PASS_MAX 4

typedef struct ik_chain {
    uint32_t joints[3];     /* start, mid, end */
    ossa_vec3 target;       /* model space */
    ossa_vec3 pole;         /* model space */
    uint32_t runs, reached; /* statistics */
} ik_chain;

typedef struct ik_pass {
    bool enabled;
    uint32_t count;
    ik_chain chains[IK_PASS_MAX];
} ik_pass;

/* Adds a chain from "JOINT[:x,y,z[:px,py,pz]]" (end joint name; target, default the end
 * joint's rest-pose position; pole, default the rest pose's bend direction or +z).
 * Prints a usage error and returns false on a bad spec or an unknown joint. */
bool ik_pass_add(ik_pass *ik, const scene *s, const char *spec, const char *cmd);
/* Chains for each foot (joints named *foot*, any case), targets at their rest-pose positions. */
void ik_pass_add_feet(ik_pass *ik, const scene *s);
/* Installs the pass as the scene's post-pose hook (ik must outlive the scene's use). */
void ik_pass_attach(ik_pass *ik, scene *s);
/* "IK foot_L -> (x, y, z): reached in N of M poses" per chain, on stdout. */
void ik_pass_report(const ik_pass *ik, const scene *s, const char *cmd);

#endif
