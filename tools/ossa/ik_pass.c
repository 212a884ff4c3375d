/* The tools' IK pass (ik_pass.h). */
#include "ik_pass.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ossa_vec3 rest_position(const ossa_skeleton *sk, uint32_t joint) {
    ossa_mat4 m = ossa_pose_joint_to_model(sk->rest, sk->parents, sk->joint_count, joint);
    return ossa_vec3_make(m.m[12], m.m[13], m.m[14]);
}

static bool parse_vec3(const char *text, const char **end, ossa_vec3 *out) {
    float v[3];
    const char *p = text;
    for (int i = 0; i < 3; i++) {
        char *e = NULL;
        v[i] = strtof(p, &e);
        if (e == p) return false;
        p = e;
        if (i < 2 && *p++ != ',') return false;
    }
    *out = ossa_vec3_make(v[0], v[1], v[2]);
    *end = p;
    return true;
}

static bool add_chain(ik_pass *ik, const ossa_skeleton *sk, uint32_t end) {
    if (ik->count >= IK_PASS_MAX || sk->parents[end] < 0 || sk->parents[sk->parents[end]] < 0) return false;
    ik_chain *c = &ik->chains[ik->count++];
    memset(c, 0, sizeof *c);
    c->joints[2] = end;
    c->joints[1] = (uint32_t)sk->parents[end];
    c->joints[0] = (uint32_t)sk->parents[c->joints[1]];
    c->target = rest_position(sk, end);
    /* pole: where the mid joint sits off the start-end line at rest, else +z (glTF forward) */
    ossa_vec3 a = rest_position(sk, c->joints[0]), m = rest_position(sk, c->joints[1]);
    ossa_vec3 d = ossa_vec3_normalize(ossa_vec3_sub(c->target, a)), am = ossa_vec3_sub(m, a);
    ossa_vec3 off = ossa_vec3_sub(am, ossa_vec3_scale(d, ossa_vec3_dot(am, d)));
    float chain = ossa_vec3_length(am) + ossa_vec3_length(ossa_vec3_sub(c->target, m));
    c->pole = ossa_vec3_length(off) > 0.02f * chain ? ossa_vec3_normalize(off) : ossa_vec3_make(0, 0, 1);
    return true;
}

bool ik_pass_add(ik_pass *ik, const scene *s, const char *spec, const char *cmd) {
    return ik_pass_add_joint(ik, s->asset->skeleton, spec, cmd);
}

int ik_pass_arg(ik_pass *ik, const char *cmd, int argc, char **argv, int *i) {
    if (strcmp(argv[*i], "--ik") || *i + 1 >= argc) return 0;
    if (ik->spec_count >= IK_PASS_MAX) {
        fprintf(stderr, "ossa %s: --ik %s: at most %d chains\n", cmd, argv[*i + 1], IK_PASS_MAX);
        return -1;
    }
    ik->specs[ik->spec_count++] = argv[++*i];
    return 1;
}

bool ik_pass_resolve(ik_pass *ik, const ossa_skeleton *sk, const char *cmd) {
    if (ik->spec_count && !sk) {
        fprintf(stderr, "ossa %s: --ik needs a skeleton\n", cmd);
        return false;
    }
    for (uint32_t k = 0; k < ik->spec_count; k++)
        if (!ik_pass_add_joint(ik, sk, ik->specs[k], cmd)) return false;
    return true;
}

bool ik_pass_add_joint(ik_pass *ik, const ossa_skeleton *sk, const char *spec, const char *cmd) {
    char name[256];
    const char *colon = strchr(spec, ':');
    size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
    if (n == 0 || n >= sizeof name) {
        fprintf(stderr, "ossa %s: --ik expects JOINT[:x,y,z[:px,py,pz]], got '%s'\n", cmd, spec);
        return false;
    }
    memcpy(name, spec, n);
    name[n] = 0;
    int32_t j = ossa_skeleton_find_joint(sk, name);
    if (j < 0) {
        fprintf(stderr, "ossa %s: --ik: no joint named '%s'\n", cmd, name);
        return false;
    }
    if (!add_chain(ik, sk, (uint32_t)j)) {
        fprintf(stderr, "ossa %s: --ik %s: needs a parent and a grandparent (and at most %d chains)\n", cmd, name,
                IK_PASS_MAX);
        return false;
    }
    ik_chain *c = &ik->chains[ik->count - 1];
    bool ok = true;
    if (colon) {
        const char *p = colon;
        ok = parse_vec3(p + 1, &p, &c->target);
        if (ok && *p == ':') ok = parse_vec3(p + 1, &p, &c->pole);
        if (ok && *p) ok = false;
    }
    if (!ok) {
        fprintf(stderr, "ossa %s: --ik expects JOINT[:x,y,z[:px,py,pz]], got '%s'\n", cmd, spec);
        ik->count--;
        return false;
    }
    ik->enabled = true;
    return true;
}

void ik_pass_add_feet(ik_pass *ik, const scene *s) {
    const ossa_skeleton *sk = s->asset->skeleton;
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        char lower[64] = {0};
        for (size_t i = 0; i + 1 < sizeof lower && sk->names[j][i]; i++)
            lower[i] = (char)tolower((unsigned char)sk->names[j][i]);
        if (strstr(lower, "foot")) add_chain(ik, sk, j);
    }
}

void ik_pass_run(ik_pass *ik, const ossa_skeleton *sk, ossa_transform *locals, ossa_mat4 *model, bool count) {
    if (!ik->enabled) return;
    uint32_t n = sk->joint_count;
    for (uint32_t i = 0; i < ik->count; i++) {
        ik_chain *c = &ik->chains[i];
        ossa_quat corr[2];
        ossa_ik_two_bone_job job = {0};
        job.start_joint = &model[c->joints[0]];
        job.mid_joint = &model[c->joints[1]];
        job.end_joint = &model[c->joints[2]];
        job.target = c->target;
        job.pole_vector = c->pole;
        job.start_correction = &corr[0];
        job.mid_correction = &corr[1];
        if (ossa_ik_two_bone_job_run(&job) != OSSA_OK) continue;
        ossa_ik_apply_job apply = {.joints = c->joints, .joint_count = 2, .corrections = corr, .correction_count = 2,
                                   .parents = sk->parents, .parent_count = n, .locals = locals,
                                   .local_count = n, .models = model, .model_count = n};
        if (ossa_ik_apply_job_run(&apply) != OSSA_OK || !count) continue;
        c->runs++;
        c->reached += job.reached;
    }
}

static void run_pass(scene *s, void *user) {
    ik_pass_run(user, s->asset->skeleton, s->locals, s->model, !s->repeat_pose);
}

void ik_pass_attach(ik_pass *ik, scene *s) {
    s->post_pose = run_pass;
    s->post_pose_user = ik;
}

void ik_pass_report(const ik_pass *ik, const scene *s, const char *cmd) {
    for (uint32_t i = 0; i < ik->count; i++) {
        const ik_chain *c = &ik->chains[i];
        printf("ossa %s: IK %s -> (%g, %g, %g): target reached in %u of %u solves\n", cmd,
               s->asset->skeleton->names[c->joints[2]], (double)c->target.x, (double)c->target.y,
               (double)c->target.z, c->reached, c->runs);
    }
}
