/* 03_gpu_skin: skin on the GPU with OpenGL (library ossa_gl). A headless EGL context
 * is made (no window needed; Mesa llvmpipe works), a tube along x with joints at x=0
 * and x=1 is uploaded once, and each frame only the palette goes to the GPU. The
 * second joint twists 180 degrees: the GPU's LBS pinches the middle ring, its DQS
 * keeps the radius (read back through transform feedback). The lit tube plus a bone
 * overlay is drawn; pass a file name to save the picture as a PPM. */
#include <epoxy/gl.h> /* glClear: any GL loader works */
#include <ossa/gl.h>
#include <ossa/ossa.h>

#include <math.h>
#include <stdio.h>

enum { RINGS = 9, SEG = 16, N = RINGS * SEG, IMG = 160 };

int main(int argc, char **argv) {
    float pos[N * 3], nrm[N * 3], weights[N * 4], lbs[N * 3], dqs[N * 3];
    uint16_t joints[N * 4] = {0};
    uint32_t idx[(RINGS - 1) * SEG * 6], k = 0;
    for (int v = 0; v < N; v++) {
        float a = 6.2831853f * (float)(v % SEG) / SEG, x = 2.0f * (float)(v / SEG) / (RINGS - 1);
        pos[v * 3] = x, pos[v * 3 + 1] = 0.3f * cosf(a), pos[v * 3 + 2] = 0.3f * sinf(a);
        nrm[v * 3] = 0, nrm[v * 3 + 1] = cosf(a), nrm[v * 3 + 2] = sinf(a);
        float t = fminf(fmaxf(x - 0.5f, 0.0f), 1.0f); /* joint 1's share grows from x=0.5 to 1.5 */
        joints[v * 4 + 1] = 1;
        weights[v * 4] = 1 - t, weights[v * 4 + 1] = t, weights[v * 4 + 2] = weights[v * 4 + 3] = 0;
    }
    for (uint32_t r = 0; r + 1 < RINGS; r++)
        for (uint32_t s = 0; s < SEG; s++) {
            uint32_t a = r * SEG + s, b = r * SEG + (s + 1) % SEG;
            uint32_t quad[6] = {a, b, b + SEG, a, b + SEG, a + SEG};
            for (int i = 0; i < 6; i++) idx[k++] = quad[i];
        }
    ossa_mesh mesh = {.vertex_count = N, .positions = pos, .normals = nrm, .influences = 4, .joints = joints,
                      .weights = weights, .index_count = k, .indices = idx, .skin = 0, .node = -1};

    ossa_gl_headless *ctx = NULL;
    ossa_gl_renderer *renderer = NULL;
    ossa_gl_mesh *gpu_mesh = NULL;
    ossa_result r = ossa_gl_headless_create(IMG, IMG, &ctx);
    if (r != OSSA_OK) {
        printf("no headless OpenGL 3.3 context (%s): nothing to show\n", ossa_result_string(r));
        return 0;
    }
    if (ossa_gl_renderer_create(&renderer) != OSSA_OK || ossa_gl_mesh_create(&mesh, &gpu_mesh) != OSSA_OK) return 1;

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
    ossa_dual_quat dq[2];
    ossa_dual_quat_job to_dual_quats = {.palette = palette, .palette_count = 2, .output = dq, .output_count = 2};
    if (ossa_dual_quat_job_run(&to_dual_quats) != OSSA_OK) return 1;

    ossa_gl_draw_desc desc = {.skinning = OSSA_GL_SKIN_PALETTE_TEXTURE, .joint_count = 2, .palette = palette,
                              .dual_quats = dq, .color = {0.9f, 0.6f, 0.4f, 1.0f}};
    if (ossa_gl_skin_readback(renderer, gpu_mesh, &desc, lbs, NULL) != OSSA_OK) return 1;
    desc.skinning = OSSA_GL_SKIN_DUAL_QUAT;
    if (ossa_gl_skin_readback(renderer, gpu_mesh, &desc, dqs, NULL) != OSSA_OK) return 1;
    printf("%s\n", "GPU skinning, ring radius (bind 0.300):");
    for (int ring = 0; ring < RINGS; ring += 2) {
        int v = ring * SEG + 1;
        printf("ring x=%.2f  LBS %.3f  DQS %.3f\n", (double)pos[v * 3], (double)hypotf(lbs[v * 3 + 1], lbs[v * 3 + 2]),
               (double)hypotf(dqs[v * 3 + 1], dqs[v * 3 + 2]));
    }

    /* Orthographic view from +z onto x in [-0.25, 2.25], y in [-1.25, 1.25]. */
    const float view_proj[16] = {0.8f, 0, 0, 0, 0, 0.8f, 0, 0, 0, 0, -0.5f, 0, -0.8f, 0, 0, 1};
    const float bones[6] = {0, 0, 0, 1, 0, 0}, yellow[4] = {1, 0.9f, 0.2f, 1};
    desc.view_proj = view_proj;
    glClearColor(0.1f, 0.1f, 0.12f, 1);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    if (ossa_gl_draw(renderer, gpu_mesh, &desc) != OSSA_OK) return 1;
    if (ossa_gl_draw_lines(renderer, bones, 2, view_proj, yellow) != OSSA_OK) return 1;
    static uint8_t rgba[IMG * IMG * 4];
    if (ossa_gl_headless_read(ctx, rgba) != OSSA_OK) return 1;
    if (argc > 1) {
        FILE *f = fopen(argv[1], "wb");
        if (!f) return 1;
        fprintf(f, "P6 %d %d 255\n", IMG, IMG);
        for (int i = 0; i < IMG * IMG; i++) fwrite(rgba + i * 4, 1, 3, f);
        fclose(f);
        printf("wrote %s\n", argv[1]);
    }
    ossa_gl_mesh_destroy(gpu_mesh);
    ossa_gl_renderer_destroy(renderer);
    ossa_gl_headless_destroy(ctx);
    return 0;
}
