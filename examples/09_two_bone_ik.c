/* 09_two_bone_ik: an arm (shoulder, upper arm, forearm, hand; 0.3 m bones) reaches for a
 * target that circles in front of it, partly out of reach. Each tick: model matrices ->
 * two-bone IK job (elbow pointing down, soft limit) -> corrections applied to the local
 * pose -> model matrices again; prints the target, the hand, their distance and the elbow.
 *   example_09_two_bone_ik */
#include <ossa/ossa.h>

#include <math.h>
#include <stdio.h>

int main(void) {
    enum { N = 4 };
    const int32_t parents[N] = {-1, 0, 1, 2};
    ossa_transform locals[N];
    for (int i = 0; i < N; i++) locals[i] = ossa_transform_identity();
    locals[0].translation = ossa_vec3_make(0, 1.4f, 0);              /* shoulder */
    locals[2].translation = locals[3].translation = ossa_vec3_make(0.3f, 0, 0); /* elbow, hand along +x */
    const uint32_t chain[2] = {1, 2};                                 /* start = upper arm, mid = forearm */

    for (int tick = 0; tick <= 16; tick++) {
        float a = 6.2831853f * (float)tick / 16;
        ossa_vec3 target = ossa_vec3_make(0.35f + 0.3f * cosf(a), 1.4f + 0.3f * sinf(a), 0.2f);
        ossa_transform pose[N];
        ossa_mat4 model[N];
        ossa_local_to_model_job fk = {.parents = parents, .parent_count = N, .input = pose, .input_count = N,
                                      .output = model, .output_count = N};
        for (int i = 0; i < N; i++) pose[i] = locals[i]; /* each tick starts from the rest pose */
        ossa_local_to_model_job_run(&fk);

        ossa_quat corrections[2];
        ossa_ik_two_bone_job ik = {0};
        ik.start_joint = &model[1];
        ik.mid_joint = &model[2];
        ik.end_joint = &model[3];
        ik.target = target;
        ik.pole_vector = ossa_vec3_make(0, -1, 0); /* elbow down */
        ik.mid_axis = ossa_vec3_make(0, 0, 1);     /* the elbow bends about its z axis */
        ik.softness = 0.05f;                       /* ease into full extension */
        ik.start_correction = &corrections[0];
        ik.mid_correction = &corrections[1];
        if (ossa_ik_two_bone_job_run(&ik) != OSSA_OK) return 1;

        ossa_ik_apply_job apply = {0}; /* local = local * correction, then model matrices */
        apply.joints = chain;
        apply.joint_count = 2;
        apply.corrections = corrections;
        apply.correction_count = 2;
        apply.parents = parents;
        apply.parent_count = N;
        apply.locals = pose;
        apply.local_count = N;
        apply.models = model;
        apply.model_count = N;
        if (ossa_ik_apply_job_run(&apply) != OSSA_OK) return 1;

        ossa_vec3 hand = {model[3].m[12], model[3].m[13], model[3].m[14]};
        ossa_vec3 elbow = {model[2].m[12], model[2].m[13], model[2].m[14]};
        ossa_vec3 shoulder = {model[1].m[12], model[1].m[13], model[1].m[14]};
        float bend = acosf(ossa_vec3_dot(ossa_vec3_normalize(ossa_vec3_sub(shoulder, elbow)),
                                         ossa_vec3_normalize(ossa_vec3_sub(hand, elbow))));
        printf("tick %2d  target (%5.2f %5.2f %5.2f)  hand (%5.2f %5.2f %5.2f)  miss %.4f m  elbow %5.1f deg  %s\n",
               tick, (double)target.x, (double)target.y, (double)target.z, (double)hand.x, (double)hand.y,
               (double)hand.z, (double)ossa_vec3_length(ossa_vec3_sub(hand, target)), (double)bend * 57.29578,
               ik.reached ? "reached" : "out of reach");
    }
    return 0;
}
