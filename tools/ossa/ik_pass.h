/* The tools' IK pass: two-bone chains (start = grandparent, mid = parent of an end joint)
 * pulled to model-space targets after every pose, for `ossa render --ik`, `ossa sample --ik`
 * and the IK key of `ossa view`. Runs ossa_ik_two_bone_job on model matrices and applies
 * the corrections with ossa_ik_apply_job (for a scene: its post_pose hook). The --ik option
 * is parsed here too (ik_pass_arg, then ik_pass_resolve once the skeleton is loaded). */
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
    const char *specs[IK_PASS_MAX]; /* the --ik values given, in order (argv strings) */
    uint32_t spec_count;
} ik_pass;

/* The usage line of --ik, shared by the commands' --help. */
#define IK_PASS_USAGE                                                                                      \
    "  --ik JOINT[:x,y,z[:px,py,pz]]  two-bone IK: the chain ending at JOINT (its parent and grandparent\n"  \
    "           turn) reaches the model-space target x,y,z (default: JOINT's rest position), knee/elbow\n"  \
    "           towards the pole px,py,pz (default: its rest-pose bend, else +z); up to 4 chains\n"

/* Takes argv[*i] when it is --ik with a value (advancing *i): 1 taken, 0 not --ik (or its value
 * is missing), -1 after printing an error (more than IK_PASS_MAX chains). */
int ik_pass_arg(ik_pass *ik, const char *cmd, int argc, char **argv, int *i);
/* Adds a chain per --ik value given (ik_pass_add_joint); false after printing an error. */
bool ik_pass_resolve(ik_pass *ik, const ossa_skeleton *skeleton, const char *cmd);
/* ik_pass_add over a skeleton (no scene needed). */
bool ik_pass_add_joint(ik_pass *ik, const ossa_skeleton *skeleton, const char *spec, const char *cmd);
/* Runs every chain once (when enabled) on a posed skeleton: model holds the model-space
 * matrices of `locals` (both joint_count long, skeleton order) and both are corrected in place.
 * With `count`, each chain's runs / reached statistics grow by this solve. */
void ik_pass_run(ik_pass *ik, const ossa_skeleton *skeleton, ossa_transform *locals, ossa_mat4 *model, bool count);

/* Adds a chain from "JOINT[:x,y,z[:px,py,pz]]" (end joint name; target, default the end
 * joint's rest-pose position; pole, default the rest pose's bend direction or +z).
 * Prints a usage error and returns false on a bad spec or an unknown joint. */
bool ik_pass_add(ik_pass *ik, const scene *s, const char *spec, const char *cmd);
/* Chains for each foot (joints named *foot*, any case), targets at their rest-pose positions. */
void ik_pass_add_feet(ik_pass *ik, const scene *s);
/* Installs the pass as the scene's post-pose hook (ik must outlive the scene's use); poses
 * made with scene->repeat_pose set (camera framing, compare's second half) are not counted. */
void ik_pass_attach(ik_pass *ik, scene *s);
/* "IK foot_L -> (x, y, z): reached in N of M poses" per chain, on stdout. */
void ik_pass_report(const ik_pass *ik, const scene *s, const char *cmd);

#endif
