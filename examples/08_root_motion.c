/* 08_root_motion: root motion moving a character along a path. A walk whose hips move
 * 1.5 m forward per 1 s cycle is split by ossa_root_motion_extract into an in-place clip and a
 * motion track; the player plays the in-place clip, accumulates the motion into its root
 * transform, and the caller steers that transform toward the next waypoint of a square path.
 *   example_08_root_motion */
#include <ossa/ossa.h>

#include <math.h>
#include <stdio.h>

int main(void) {
    /* Hips (root, 1 m up) with a leg. The walk: hips forward along +Z 1.5 m per cycle, bobbing. */
    int32_t parents[2] = {-1, 0};
    ossa_transform rest[2] = {ossa_transform_identity(), ossa_transform_identity()};
    rest[0].translation = ossa_vec3_make(0, 1, 0);
    rest[1].translation = ossa_vec3_make(0, -1, 0);
    const char *names[2] = {"Hips", "Leg"};
    ossa_skeleton_desc sd = {2, parents, rest, names, 0, NULL, 0.0f};
    ossa_skeleton *sk = NULL;
    if (ossa_skeleton_create(&sd, NULL, &sk) != OSSA_OK) return 1;
    static const float times[5] = {0, 0.25f, 0.5f, 0.75f, 1.0f};
    static const float hips[15] = {0, 1, 0, 0, 1.05f, 0.375f, 0, 1, 0.75f, 0, 1.05f, 1.125f, 0, 1, 1.5f};
    ossa_transform_track track = {0};
    track.joint = 0;
    track.translation = (ossa_track){OSSA_TRACK_VECTOR, OSSA_INTERP_LINEAR, 3, 5, times, hips, {0, 0, 0, NULL}};
    ossa_clip_desc cd = {0};
    cd.name = "walk";
    cd.looping = true;
    cd.track_count = 1;
    cd.tracks = &track;
    ossa_clip *walk = NULL, *in_place = NULL;
    ossa_root_motion *motion = NULL;
    ossa_player *player = NULL;
    if (ossa_clip_create(&cd, NULL, &walk) != OSSA_OK ||
        ossa_root_motion_extract(walk, sk, NULL, NULL, &in_place, &motion) != OSSA_OK ||
        ossa_player_create(sk, NULL, &player) != OSSA_OK)
        return 1;
    ossa_player_bind_root_motion(player, ossa_source_editable(in_place), motion);
    ossa_player_play(player, ossa_source_editable(in_place), 1.0f, true);

    const float path[4][2] = {{0, 6}, {6, 6}, {6, 0}, {0, 0}}; /* waypoints (x, z), a 6 m square */
    int next = 0;
    for (int tick = 0; tick < 30 * 20 && next < 4; tick++) {
        /* Steer: face the next waypoint (yaw about +Y; 0 faces +Z), keep the position. */
        ossa_transform root = ossa_player_root_transform(player);
        float dx = path[next][0] - root.translation.x, dz = path[next][1] - root.translation.z;
        root.rotation = ossa_quat_from_axis_angle(ossa_vec3_make(0, 1, 0), atan2f(dx, dz));
        ossa_player_set_root_transform(player, root);
        ossa_player_update(player, 1.0f / 30.0f); /* moves the root by the clip's motion */
        if (sqrtf(dx * dx + dz * dz) < 0.1f) {
            printf("reached waypoint %d (%.0f, %.0f) at %.2f s\n", next, (double)path[next][0],
                   (double)path[next][1], tick / 30.0);
            next++;
        }
        if (tick % 30 == 0) {
            ossa_transform r = ossa_player_root_transform(player);
            ossa_vec3 hips_world = ossa_transform_point(r, ossa_player_pose(player)[0].translation);
            printf("t=%5.2f s  character at (%5.2f, %5.2f)  hips (%5.2f %5.2f %5.2f)\n", tick / 30.0,
                   (double)r.translation.x, (double)r.translation.z, (double)hips_world.x, (double)hips_world.y,
                   (double)hips_world.z);
        }
    }
    ossa_player_destroy(player);
    ossa_root_motion_destroy(motion);
    ossa_clip_destroy(in_place);
    ossa_clip_destroy(walk);
    ossa_skeleton_destroy(sk);
    return 0;
}
