/* bench_ik: IK jobs per solve on Woman.gltf (../shared/assets or $OSSA_ASSETS), 64 poses of
 * its Walking clip, each with 16 targets near the chain's end joint (1024 solves per run):
 *   two-bone: LeftUpLeg-LeftLeg-LeftFoot (and the same chain by CCD and FABRIK: the iterative
 *             reference), plus applying the corrections and recomputing the model matrices;
 *   aim:      Head at a point in front of the character;
 *   chains:   CCD and FABRIK, 4 joints (LeftShoulder..LeftHand) and 8 (Hips..LeftHand),
 *             16 iterations at most, default tolerance, free and with ball limits.
 * Figures: median over runs of (run time / solves), CLOCK_THREAD_CPUTIME_ID.
 * Usage: bench_ik [runs (default 15)] */
#include <ossa/ossa.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

#define POSES 64
#define TARGETS 16
#define MAXJ 128

static double now_ns(void) { return bench_clock_ns(CLOCK_THREAD_CPUTIME_ID); }
static uint64_t rng = 0x9e3779b97f4a7c15ull;
static float frand(float lo, float hi) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return lo + (hi - lo) * (float)((double)(rng >> 11) / 9007199254740992.0);
}
static volatile float sink;

typedef struct scene {
    uint32_t joint_count;
    const int32_t *parents;
    ossa_transform locals[POSES][MAXJ];
    ossa_mat4 models[POSES][MAXJ];
    ossa_vec3 targets[POSES][TARGETS];
} scene;

static ossa_vec3 pos(const ossa_mat4 *m) { return ossa_vec3_make(m->m[12], m->m[13], m->m[14]); }

/* Targets: the end joint's position moved by up to `reach` x the chain length. */
static void make_targets(scene *s, const uint32_t *chain, uint32_t n, float reach) {
    for (int p = 0; p < POSES; p++) {
        float len = 0;
        for (uint32_t i = 0; i + 1 < n; i++)
            len += ossa_vec3_length(ossa_vec3_sub(pos(&s->models[p][chain[i + 1]]), pos(&s->models[p][chain[i]])));
        ossa_vec3 e = pos(&s->models[p][chain[n - 1]]);
        for (int t = 0; t < TARGETS; t++)
            s->targets[p][t] = ossa_vec3_add(e, ossa_vec3_make(frand(-reach, reach) * len, frand(-reach, reach) * len,
                                                               frand(-reach, reach) * len));
    }
}

typedef enum kind { TWO_BONE, TWO_BONE_APPLY, AIM, CHAIN } kind;

/* Median ns per solve; *stat = mean iterations (chains) or fraction reached. */
static double run(scene *s, kind k, const uint32_t *chain, uint32_t n, ossa_ik_solver solver,
                  const ossa_ik_limit *limits, int runs, double *stat) {
    double *per = malloc(sizeof(double) * (size_t)runs);
    ossa_quat out[MAXJ] = {{0, 0, 0, 1}}, corr[2] = {{0, 0, 0, 1}, {0, 0, 0, 1}};
    ossa_transform scratch_locals[MAXJ];
    ossa_mat4 scratch_models[MAXJ];
    double acc = 0, count = 0;
    for (int r = 0; r < runs; r++) {
        double t0 = now_ns();
        for (int p = 0; p < POSES; p++) {
            const ossa_mat4 *m = s->models[p];
            for (int t = 0; t < TARGETS; t++) {
                if (k == TWO_BONE || k == TWO_BONE_APPLY) {
                    ossa_ik_two_bone_job job = {0};
                    job.start_joint = &m[chain[0]];
                    job.mid_joint = &m[chain[1]];
                    job.end_joint = &m[chain[2]];
                    job.target = s->targets[p][t];
                    job.pole_vector = ossa_vec3_make(0, 0, 1);
                    job.start_correction = &corr[0];
                    job.mid_correction = &corr[1];
                    ossa_ik_two_bone_job_run(&job);
                    acc += job.reached;
                    if (k == TWO_BONE_APPLY) {
                        memcpy(scratch_locals, s->locals[p], sizeof(ossa_transform) * s->joint_count);
                        memcpy(scratch_models, m, sizeof(ossa_mat4) * s->joint_count);
                        ossa_ik_apply_job aj = {.joints = chain, .joint_count = 2, .corrections = corr,
                                                .correction_count = 2, .parents = s->parents,
                                                .parent_count = s->joint_count, .locals = scratch_locals,
                                                .local_count = s->joint_count, .models = scratch_models,
                                                .model_count = s->joint_count};
                        ossa_ik_apply_job_run(&aj);
                        acc += scratch_models[chain[2]].m[12] * 0.0f;
                    }
                } else if (k == AIM) {
                    ossa_ik_aim_job job = {0};
                    job.joint = &m[chain[0]];
                    job.target = s->targets[p][t];
                    job.forward = ossa_vec3_make(0, 0, 1);
                    job.pole_vector = ossa_vec3_make(0, 1, 0);
                    job.joint_correction = &corr[0];
                    ossa_ik_aim_job_run(&job);
                    acc += job.reached;
                } else {
                    ossa_ik_chain_job job = {0};
                    job.solver = solver;
                    job.joints = chain;
                    job.joint_count = n;
                    job.locals = s->locals[p];
                    job.local_count = s->joint_count;
                    job.parents = s->parents;
                    job.parent_count = s->joint_count;
                    job.models = m;
                    job.model_count = s->joint_count;
                    job.limits = limits;
                    job.limit_count = limits ? n : 0;
                    job.target = s->targets[p][t];
                    job.rotations = out;
                    job.rotation_count = n;
                    ossa_ik_chain_job_run(&job);
                    acc += job.iterations_run;
                }
                count++;
            }
        }
        per[r] = (now_ns() - t0) / (POSES * TARGETS);
    }
    sink = (float)acc + corr[0].w + out[0].w;
    *stat = acc / count;
    double med = median(per, runs);
    free(per);
    return med;
}

static int find(const ossa_skeleton *sk, const char *name) {
    int32_t j = ossa_skeleton_find_joint(sk, name);
    if (j < 0) fprintf(stderr, "bench_ik: no joint %s\n", name);
    return j;
}

int main(int argc, char **argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 15;
    if (runs < 1) runs = 1;
    const char *root = getenv("OSSA_ASSETS");
    char path[1024];
    snprintf(path, sizeof path, "%s/Woman/Woman.gltf", root && *root ? root : "../shared/assets");
    ossa_asset *asset = NULL;
    ossa_diagnostic diag = {{0}, {0}};
    if (ossa_gltf_load_file(path, NULL, &asset, &diag) != OSSA_OK) {
        printf("bench_ik: skipped (%s: %s)\n", path, diag.message);
        return 0;
    }
    const ossa_skeleton *sk = asset->skeleton;
    int32_t clip_index = ossa_asset_find_clip(asset, "Walking");
    if (sk->joint_count > MAXJ || clip_index < 0) {
        printf("bench_ik: skipped (unexpected Woman.gltf)\n");
        ossa_asset_destroy(asset);
        return 0;
    }
    const ossa_clip *clip = asset->clips[clip_index];
    static scene s;
    s.joint_count = sk->joint_count;
    s.parents = sk->parents;
    for (int p = 0; p < POSES; p++) {
        float t = ossa_clip_duration(clip) * (float)p / POSES;
        ossa_clip_sample_job sj = {.clip = clip, .time = t, .loop = true, .reference = sk->rest,
                                   .reference_count = sk->joint_count, .output = s.locals[p],
                                   .output_count = sk->joint_count};
        ossa_clip_sample_job_run(&sj);
        ossa_local_to_model_job lm = {.skeleton = sk, .input = s.locals[p], .input_count = sk->joint_count,
                                      .output = s.models[p], .output_count = sk->joint_count};
        ossa_local_to_model_job_run(&lm);
    }
    const char *leg_names[3] = {"LeftUpLeg", "LeftLeg", "LeftFoot"};
    const char *arm_names[8] = {"Hips", "Spine", "Spine1", "Spine2", "LeftShoulder", "LeftArm", "LeftForeArm", "LeftHand"};
    uint32_t leg[3], arm8[8], head;
    int ok = 1;
    for (int i = 0; i < 3; i++) ok &= (int)(leg[i] = (uint32_t)find(sk, leg_names[i])) >= 0;
    for (int i = 0; i < 8; i++) ok &= (int)(arm8[i] = (uint32_t)find(sk, arm_names[i])) >= 0;
    ok &= (int)(head = (uint32_t)find(sk, "Head")) >= 0;
    if (!ok) {
        ossa_asset_destroy(asset);
        return 0;
    }
    const uint32_t *arm4 = arm8 + 4;
    ossa_ik_limit balls[8];
    memset(balls, 0, sizeof balls);
    for (int i = 0; i < 8; i++) {
        balls[i].type = OSSA_IK_LIMIT_BALL;
        balls[i].cone_angle = 1.0f;
        balls[i].limit_twist = true;
        balls[i].max_twist = 0.5f;
    }

    printf("bench_ik: Woman.gltf (%u joints), Walking at %d poses x %d targets, %d runs; median ns per solve\n",
           sk->joint_count, POSES, TARGETS, runs);
    double stat;
    make_targets(&s, leg, 3, 0.3f);
    double tb = run(&s, TWO_BONE, leg, 3, 0, NULL, runs, &stat);
    printf("%-38s %9.0f   (%.0f%% reached)\n", "two-bone (leg)", tb, stat * 100);
    double tba = run(&s, TWO_BONE_APPLY, leg, 3, 0, NULL, runs, &stat);
    printf("%-38s %9.0f\n", "two-bone + apply + model matrices", tba);
    double ccd3 = run(&s, CHAIN, leg, 3, OSSA_IK_SOLVER_CCD, NULL, runs, &stat);
    printf("%-38s %9.0f   %.1f iterations  (%.1fx two-bone)\n", "CCD, same leg (reference)", ccd3, stat, ccd3 / tb);
    double fab3 = run(&s, CHAIN, leg, 3, OSSA_IK_SOLVER_FABRIK, NULL, runs, &stat);
    printf("%-38s %9.0f   %.1f iterations  (%.1fx two-bone)\n", "FABRIK, same leg (reference)", fab3, stat, fab3 / tb);
    make_targets(&s, &head, 1, 0.0f);
    for (int p = 0; p < POSES; p++) { /* in front of the face, a fraction of the head's height away */
        float h = fabsf(s.models[p][head].m[13]);
        for (int t = 0; t < TARGETS; t++)
            s.targets[p][t] = ossa_vec3_add(s.targets[p][t], ossa_vec3_make(frand(-0.3f, 0.3f) * h, frand(0, 0.3f) * h,
                                                                             frand(0.5f, 1.5f) * h));
    }
    double aim = run(&s, AIM, &head, 1, 0, NULL, runs, &stat);
    printf("%-38s %9.0f   (%.0f%% reached)\n", "aim (Head)", aim, stat * 100);
    const struct { const char *name; const uint32_t *chain; uint32_t n; ossa_ik_solver solver; bool limits; } rows[] = {
        {"CCD 4 joints (shoulder..hand)", arm4, 4, OSSA_IK_SOLVER_CCD, false},
        {"FABRIK 4 joints", arm4, 4, OSSA_IK_SOLVER_FABRIK, false},
        {"CCD 4 joints, ball limits", arm4, 4, OSSA_IK_SOLVER_CCD, true},
        {"FABRIK 4 joints, ball limits", arm4, 4, OSSA_IK_SOLVER_FABRIK, true},
        {"CCD 8 joints (hips..hand)", arm8, 8, OSSA_IK_SOLVER_CCD, false},
        {"FABRIK 8 joints", arm8, 8, OSSA_IK_SOLVER_FABRIK, false},
        {"CCD 8 joints, ball limits", arm8, 8, OSSA_IK_SOLVER_CCD, true},
        {"FABRIK 8 joints, ball limits", arm8, 8, OSSA_IK_SOLVER_FABRIK, true},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        make_targets(&s, rows[i].chain, rows[i].n, 0.3f);
        double ns = run(&s, CHAIN, rows[i].chain, rows[i].n, rows[i].solver, rows[i].limits ? balls : NULL, runs, &stat);
        printf("%-38s %9.0f   %.1f iterations\n", rows[i].name, ns, stat);
    }
    ossa_asset_destroy(asset);
    return 0;
}
