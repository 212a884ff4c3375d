/* 02b_cpu_skin: skin a mesh on the CPU with linear blend (LBS) and dual quaternion
 * skinning (DQS). A tube along x with joints at x=0 and x=1 is built in code; the
 * second joint twists 180 degrees. LBS pinches the middle ring, DQS keeps its radius.
 * The mesh is skinned in two vertex ranges, as a job system would split it. */
#include <ossa/ossa.h>

#include <math.h>
#include <stdio.h>

enum { RINGS = 5, SEG = 8, N = RINGS * SEG };

int main(void) {
    float pos[N * 3], nrm[N * 3], weights[N * 4], out_lbs[N * 3], out_dqs[N * 3], out_n[N * 3];
    uint16_t joints[N * 4] = {0};
    for (int v = 0; v < N; v++) {
        float a = 6.2831853f * (float)(v % SEG) / SEG, x = 2.0f * (float)(v / SEG) / (RINGS - 1);
        pos[v * 3] = x, pos[v * 3 + 1] = cosf(a), pos[v * 3 + 2] = sinf(a);
        nrm[v * 3] = 0, nrm[v * 3 + 1] = cosf(a), nrm[v * 3 + 2] = sinf(a);
        float t = fminf(fmaxf(x - 0.5f, 0.0f), 1.0f); /* joint 1's share grows from x=0.5 to 1.5 */
        joints[v * 4 + 1] = 1;
        weights[v * 4] = 1 - t, weights[v * 4 + 1] = t, weights[v * 4 + 2] = weights[v * 4 + 3] = 0;
    }
    /* palette = model × inverse bind; joint 1 is bound at x=1 and posed with a twist about x */
    ossa_transform bind1 = {{1, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
    ossa_transform pose1 = {{1, 0, 0}, ossa_quat_from_axis_angle(ossa_vec3_make(1, 0, 0), 3.14159265f), {1, 1, 1}};
    ossa_transform pose[2] = {ossa_transform_identity(), pose1};
    ossa_mat4 ibm[2] = {ossa_mat4_identity()}, model[2], palette[2];
    ossa_mat4 bind_m = ossa_transform_to_mat4(bind1);
    ossa_mat4_inverse(&bind_m, &ibm[1]);
    const int32_t parents[2] = {-1, 0};
    const uint32_t skin_joints[2] = {0, 1};
    ossa_skin_desc skin = {"arm", 2, skin_joints, ibm, -1};
    ossa_skeleton_desc sd = {2, parents, NULL, NULL, 1, &skin, 0.0f};
    ossa_skeleton *skeleton = NULL;
    if (ossa_skeleton_create(&sd, NULL, &skeleton) != OSSA_OK) return 1;
    ossa_local_to_model_job to_model = {.skeleton = skeleton, .input = pose, .input_count = 2, .output = model,
                                        .output_count = 2};
    ossa_palette_job to_palette = {.skeleton = skeleton, .model = model, .model_count = 2, .output = palette,
                                   .output_count = 2};
    ossa_result jr = ossa_local_to_model_job_run(&to_model);
    if (jr == OSSA_OK) jr = ossa_palette_job_run(&to_palette);
    ossa_skeleton_destroy(skeleton);
    if (jr != OSSA_OK) return 1;

    ossa_skin_job job = {.vertex_count = N, .influences = 4, .joints = joints, .weights = weights, .palette = palette,
                         .palette_count = 2, .positions = pos, .normals = nrm,
                         .out_positions = out_lbs, .out_normals = out_n};
    const uint32_t split[3] = {0, N / 2 + 3, N}; /* any boundaries work */
    for (int r = 0; r < 2; r++) {
        job.begin = split[r], job.end = split[r + 1];
        if (ossa_skin_job_run(&job) != OSSA_OK) return 1; /* LBS (method 0), kernel AUTO (0) */
    }
    ossa_dual_quat dq[2];
    ossa_dual_quat_job to_dual_quats = {.palette = palette, .palette_count = 2, .output = dq, .output_count = 2};
    if (ossa_dual_quat_job_run(&to_dual_quats) != OSSA_OK) return 1;
    job.method = OSSA_SKIN_DQS, job.dual_quats = dq;
    job.begin = 0, job.end = N, job.out_positions = out_dqs;
    if (ossa_skin_job_run(&job) != OSSA_OK) return 1;

    printf("LBS kernel: %s\n", ossa_skin_kernel_name(ossa_skin_kernel_best()));
    for (int ring = 0; ring < RINGS; ring++) {
        int v = ring * SEG + 1;
        printf("ring x=%.1f  radius LBS %.3f  DQS %.3f\n", (double)pos[v * 3],
               (double)hypotf(out_lbs[v * 3 + 1], out_lbs[v * 3 + 2]),
               (double)hypotf(out_dqs[v * 3 + 1], out_dqs[v * 3 + 2]));
    }
    return 0;
}
