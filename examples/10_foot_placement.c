/* 10_foot_placement: a generated two-legged rig walks (procedural gait made for flat ground)
 * across bumpy ground, a triangle mesh made here. Each frame a ray cast down at each foot
 * finds the ground; the hips drop to the lower foot's ground and two-bone IK lifts each foot
 * onto the ground under it (knees forward). Prints the ground height under each foot and
 * how far each foot ends from it.
 *   example_10_foot_placement */
#include <ossa/ossa.h>

#include <math.h>
#include <stdio.h>

#define GRID 24 /* quads per side over x in [-1, 1], z in [-1, 7] */
static ossa_vec3 verts[(GRID + 1) * (GRID + 1)];
static uint32_t tris[GRID * GRID * 6];

static void make_ground(void) {
    for (int r = 0; r <= GRID; r++)
        for (int c = 0; c <= GRID; c++) {
            float x = -1 + 2.0f * (float)c / GRID, z = -1 + 8.0f * (float)r / GRID;
            verts[r * (GRID + 1) + c] = ossa_vec3_make(x, 0.07f * sinf(4 * x + 1) + 0.06f * sinf(2.3f * z), z);
        }
    uint32_t *t = tris;
    for (uint32_t r = 0; r < GRID; r++)
        for (uint32_t c = 0; c < GRID; c++) {
            uint32_t i = r * (GRID + 1) + c;
            uint32_t quad[6] = {i, i + GRID + 1, i + 1, i + 1, i + GRID + 1, i + GRID + 2};
            for (int k = 0; k < 6; k++) *t++ = quad[k];
        }
}

/* Height of the ground below (x, z): the nearest hit of a ray cast down from y = 10. */
static float ground(float x, float z) {
    float best = INFINITY, hit;
    for (int i = 0; i < GRID * GRID * 6; i += 3)
        if (ossa_ray_intersect_triangle(ossa_vec3_make(x, 10, z), ossa_vec3_make(0, -1, 0), verts[tris[i]],
                                        verts[tris[i + 1]], verts[tris[i + 2]], &hit) && hit < best)
            best = hit;
    return best < INFINITY ? 10 - best : 0;
}

int main(void) {
    make_ground();
    /* hips; left thigh, shin, foot; right thigh, shin, foot. Legs 2 x 0.42 m, feet at y = 0. */
    enum { N = 7 };
    const int32_t parents[N] = {-1, 0, 1, 2, 0, 4, 5};
    ossa_transform pose[N];
    ossa_mat4 model[N];
    ossa_local_to_model_job fk = {.parents = parents, .parent_count = N, .input = pose, .input_count = N,
                                  .output = model, .output_count = N};
    float worst = 0;
    for (int frame = 0; frame <= 40; frame++) {
        float t = (float)frame / 20.0f, w = 6.2831853f * t; /* 1 s gait cycle, 0.8 m/s along +z */
        for (int i = 0; i < N; i++) pose[i] = ossa_transform_identity();
        pose[1].translation = ossa_vec3_make(0.1f, -0.05f, 0);
        pose[4].translation = ossa_vec3_make(-0.1f, -0.05f, 0);
        for (int i = 2; i < N; i++)
            if (i != 4) pose[i].translation = ossa_vec3_make(0, -0.42f, 0);
        for (int leg = 0; leg < 2; leg++) { /* thigh swings, knee bends during the swing phase */
            float phase = w + (leg ? 3.14159265f : 0);
            pose[1 + 3 * leg].rotation = ossa_quat_from_axis_angle(ossa_vec3_make(1, 0, 0), -0.35f * sinf(phase));
            pose[2 + 3 * leg].rotation = ossa_quat_from_axis_angle(ossa_vec3_make(1, 0, 0), 0.6f * fmaxf(0, cosf(phase)));
        }
        /* flat-ground animation: where the feet would be, and the ground under them */
        pose[0].translation = ossa_vec3_make(0, 0.89f, 0.8f * t);
        ossa_local_to_model_job_run(&fk);
        float g[2], lift[2];
        ossa_vec3 feet[2];
        for (int leg = 0; leg < 2; leg++) {
            const ossa_mat4 *f = &model[3 + 3 * leg];
            feet[leg] = ossa_vec3_make(f->m[12], f->m[13], f->m[14]);
            g[leg] = ground(feet[leg].x, feet[leg].z);
        }
        /* the hips follow the lower foot's ground so both legs can reach */
        float drop = fminf(g[0], g[1]);
        pose[0].translation.y += drop;
        ossa_local_to_model_job_run(&fk);
        for (int leg = 0; leg < 2; leg++) {
            uint32_t chain[2] = {(uint32_t)(1 + 3 * leg), (uint32_t)(2 + 3 * leg)};
            ossa_vec3 target = ossa_vec3_make(feet[leg].x, feet[leg].y + g[leg], feet[leg].z);
            ossa_quat c[2];
            ossa_ik_two_bone_job ik = {0};
            ik.start_joint = &model[chain[0]];
            ik.mid_joint = &model[chain[1]];
            ik.end_joint = &model[chain[1] + 1];
            ik.target = target;
            ik.pole_vector = ossa_vec3_make(0, 0, 1); /* knees forward */
            ik.mid_axis = ossa_vec3_make(1, 0, 0);
            ik.start_correction = &c[0];
            ik.mid_correction = &c[1];
            ossa_ik_apply_job apply = {.joints = chain, .joint_count = 2, .corrections = c, .correction_count = 2,
                                       .parents = parents, .parent_count = N, .locals = pose, .local_count = N,
                                       .models = model, .model_count = N};
            if (ossa_ik_two_bone_job_run(&ik) != OSSA_OK || ossa_ik_apply_job_run(&apply) != OSSA_OK) return 1;
            const ossa_mat4 *f = &model[chain[1] + 1];
            lift[leg] = f->m[13] - ground(f->m[12], f->m[14]); /* foot height above the ground now */
            float miss = ossa_vec3_length(ossa_vec3_sub(ossa_vec3_make(f->m[12], f->m[13], f->m[14]), target));
            worst = fmaxf(worst, miss);
        }
        if (frame % 4 == 0)
            printf("t %.2f  hips %+.3f  ground L %+.3f R %+.3f  foot above ground L %.3f R %.3f  "
                   "(flat-ground animation L %.3f R %.3f)\n",
                   (double)t, (double)drop, (double)g[0], (double)g[1], (double)lift[0], (double)lift[1],
                   (double)feet[0].y, (double)feet[1].y);
    }
    printf("largest foot-to-target distance: %.2g m\n", (double)worst);
    return 0;
}
