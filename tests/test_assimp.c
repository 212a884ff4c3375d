/* The Assimp importer (ossa_assimp): hand-built aiScenes for each semantic rule and
 * each hostile case; the shared glTF assets loaded through Assimp against the native
 * glTF importer (joint world matrices and skinned vertices by node name, at several
 * times per clip); ../shared/assets/fbx files against `assimp info` / `assimp dump`;
 * a clip from a separate file against the same clip loaded with its model;
 * truncated and corrupted FBX/DAE. Without Assimp every case skips. */
#include "test_support.h"
#include "gltf_writer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__unix__) || defined(__APPLE__)
#include <sys/resource.h>
#define HAVE_POSIX_RUSAGE 1
#endif
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

#ifdef OSSA_HAVE_ASSIMP
#include <assimp/cimport.h>
#include <assimp/scene.h>
#include <ossa/assimp.h>

#include "import/assimp/assimp_internal.h"

/* ------------------------------------------------------------ hand-built scenes */

typedef struct syn {
    struct aiScene scene;
    struct aiNode nodes[4];
    struct aiNode *children[4][3];
    unsigned int mesh_index;
    struct aiMesh mesh;
    struct aiMesh *meshes[1];
    struct aiVector3D vertices[3];
    struct aiFace face;
    unsigned int indices[3];
    struct aiBone bones[12];
    struct aiBone *bone_ptrs[12];
    struct aiVertexWeight weights[12];
    struct aiAnimation anim;
    struct aiAnimation *anims[1];
    struct aiNodeAnim channels[2];
    struct aiNodeAnim *channel_ptrs[2];
    struct aiVectorKey pos[2][4];
} syn;

static void set_name(struct aiString *s, const char *name) {
    s->length = (uint32_t)strlen(name);
    memcpy(s->data, name, s->length + 1);
}

static void identity(struct aiMatrix4x4 *m) {
    memset(m, 0, sizeof *m);
    m->a1 = m->b2 = m->c3 = m->d4 = 1;
}

/* root → (a, b), a → c; one triangle mesh on root with `bones` bones (on a, b, c, a...);
 * one clip of 2 channels (a and b), keys set by the caller. */
static syn *syn_make(uint32_t bones) {
    syn *s = calloc(1, sizeof *s);
    static const char *const names[4] = {"root", "a", "b", "c"};
    for (int i = 0; i < 4; i++) {
        set_name(&s->nodes[i].mName, names[i]);
        identity(&s->nodes[i].mTransformation);
    }
    s->nodes[1].mTransformation.a4 = 1; /* a at x = 1 */
    s->nodes[2].mTransformation.b4 = 2; /* b at y = 2 */
    s->children[0][0] = &s->nodes[1];
    s->children[0][1] = &s->nodes[2];
    s->children[1][0] = &s->nodes[3];
    s->nodes[0].mNumChildren = 2, s->nodes[0].mChildren = s->children[0];
    s->nodes[1].mNumChildren = 1, s->nodes[1].mChildren = s->children[1];
    s->nodes[1].mParent = s->nodes[2].mParent = &s->nodes[0];
    s->nodes[3].mParent = &s->nodes[1];
    s->nodes[0].mNumMeshes = 1, s->nodes[0].mMeshes = &s->mesh_index;
    s->scene.mRootNode = &s->nodes[0];

    struct aiMesh *m = &s->mesh;
    set_name(&m->mName, "tri");
    m->mPrimitiveTypes = aiPrimitiveType_TRIANGLE;
    m->mNumVertices = 3;
    m->mVertices = s->vertices;
    s->vertices[1].x = 1, s->vertices[2].y = 1;
    s->indices[0] = 0, s->indices[1] = 1, s->indices[2] = 2;
    s->face.mNumIndices = 3, s->face.mIndices = s->indices;
    m->mNumFaces = 1, m->mFaces = &s->face;
    for (uint32_t b = 0; b < bones; b++) {
        set_name(&s->bones[b].mName, names[1 + b % 3]);
        if (b >= 3) { /* more bones than nodes: distinct names are needed, so reuse nodes by name only once */
            char nm[16];
            snprintf(nm, sizeof nm, "x%u", b);
            set_name(&s->bones[b].mName, nm);
        }
        identity(&s->bones[b].mOffsetMatrix);
        s->weights[b].mVertexId = 0;
        s->weights[b].mWeight = (float)(b + 1);
        s->bones[b].mNumWeights = 1;
        s->bones[b].mWeights = &s->weights[b];
        s->bone_ptrs[b] = &s->bones[b];
    }
    m->mNumBones = bones;
    m->mBones = bones ? s->bone_ptrs : NULL;
    s->meshes[0] = m;
    s->scene.mNumMeshes = 1, s->scene.mMeshes = s->meshes;

    set_name(&s->anim.mName, "clip");
    s->anim.mTicksPerSecond = 0; /* 25 ticks per second, as Assimp documents */
    for (int c = 0; c < 2; c++) {
        set_name(&s->channels[c].mNodeName, names[1 + c]);
        s->channels[c].mPositionKeys = s->pos[c];
        s->channel_ptrs[c] = &s->channels[c];
    }
    s->anim.mNumChannels = 2, s->anim.mChannels = s->channel_ptrs;
    s->anims[0] = &s->anim;
    s->scene.mNumAnimations = 1, s->scene.mAnimations = s->anims;
    return s;
}

static void set_keys(syn *s, int c, uint32_t n, const double *ticks, const float *x) {
    s->channels[c].mNumPositionKeys = n;
    for (uint32_t k = 0; k < n; k++) {
        s->pos[c][k].mTime = ticks[k];
        s->pos[c][k].mValue.x = x[k];
    }
}

static ossa_asset *syn_load(const syn *s, ossa_result expect, const char *message_part) {
    ossa_asset *a = NULL;
    ossa_diagnostic d;
    ossa_result r = ossa__assimp_scene_load(&s->scene, NULL, NULL, &a, &d);
    if (r != expect) fail_msg("expected %s, got %s: %s", ossa_result_string(expect), ossa_result_string(r), d.message);
    if (message_part && !strstr(d.message, message_part))
        fail_msg("diagnostic '%s' lacks '%s'", d.message, message_part);
    if (r) assert_null(a);
    return a;
}

static bool has_warning(const ossa_asset *a, const char *part) {
    for (uint32_t i = 0; i < a->warning_count; i++)
        if (strstr(a->warnings[i], part)) return true;
    return false;
}

static float sample_x(const ossa_asset *a, const char *joint, float t) {
    const ossa_skeleton *sk = a->skeleton;
    ossa_transform pose[8];
    assert_true(sk->joint_count <= 8);
    ot_clip_sample(a->clips[0], t, false, OSSA_LOOKUP_BINARY, NULL, sk->rest, pose, sk->joint_count);
    int32_t j = ossa_skeleton_find_joint(sk, joint);
    assert_true(j >= 0);
    return pose[j].translation.x;
}

static void test_scene_nodes_skin_clip(void **state) {
    (void)state;
    syn *s = syn_make(2);
    double t0[] = {0, 50};
    float x0[] = {1, 3};
    set_keys(s, 0, 2, t0, x0);
    double t1[] = {25};
    float x1[] = {7};
    set_keys(s, 1, 1, t1, x1);
    ossa_asset *a = syn_load(s, OSSA_OK, NULL);
    /* every aiNode is a joint, depth-first pre-order */
    assert_int_equal(a->node_count, 4);
    assert_string_equal(a->nodes[0].name, "root");
    assert_string_equal(a->nodes[1].name, "a");
    assert_string_equal(a->nodes[2].name, "c");
    assert_string_equal(a->nodes[3].name, "b");
    assert_int_equal(a->nodes[2].parent, 1);
    ot_assert_near(a->skeleton->rest[a->nodes[3].joint].translation.y, 2, 0);
    /* one skin with the bones' nodes; weights 1 and 2 renormalised to 1/3, 2/3 */
    assert_int_equal(a->skeleton->skin_count, 1);
    assert_int_equal(a->skeleton->skins[0].joint_count, 2);
    assert_int_equal(a->mesh_count, 1);
    const ossa_mesh *m = a->meshes[0];
    assert_int_equal(m->influences, 4);
    ot_assert_near(m->weights[0], 1.0 / 3, 1e-6);
    ot_assert_near(m->weights[1], 2.0 / 3, 1e-6);
    assert_int_equal(m->joints[0], a->nodes[1].joint);
    assert_int_equal(m->joints[1], a->nodes[3].joint);
    /* ticks / 25: 0..50 ticks is 0..2 s; each channel keeps its own keys */
    assert_int_equal(a->clip_count, 1);
    assert_string_equal(a->clips[0]->name, "clip");
    ot_assert_near(a->clips[0]->end, 2.0, 1e-6);
    ot_assert_near(sample_x(a, "a", 1.0f), 2.0, 1e-6);
    ot_assert_near(sample_x(a, "b", 0.2f), 7.0, 0); /* one key: held (CONSTANT/DEFAULT) */
    ossa_asset_destroy(a);
    /* explicit tick rate */
    s->anim.mTicksPerSecond = 100;
    a = syn_load(s, OSSA_OK, NULL);
    ot_assert_near(a->clips[0]->end, 0.5, 1e-6);
    ossa_asset_destroy(a);
    free(s);
}

static void test_scene_influences_dropped(void **state) {
    (void)state;
    syn *s = syn_make(11);
    /* the 8 extra bones need nodes: rename 3 nodes' worth is not enough, so add them as names of existing ones */
    /* bones 3..10 are named x3..x10 and name no node: dropped with a warning */
    ossa_asset *a = syn_load(s, OSSA_OK, NULL);
    assert_true(has_warning(a, "names no node"));
    assert_int_equal(a->meshes[0]->influences, 4);
    ossa_asset_destroy(a);
    free(s);
}

static void test_scene_more_than_8_influences(void **state) {
    (void)state;
    /* 10 nodes, 10 bones on vertex 0 with weights 1..10: the 8 largest (3..10) are kept, sum 52 */
    syn *s = syn_make(0);
    static struct aiNode extra[10];
    static struct aiNode *kids[10];
    static struct aiBone bones[10];
    static struct aiBone *bp[10];
    static struct aiVertexWeight w[10];
    for (int i = 0; i < 10; i++) {
        char nm[8];
        snprintf(nm, sizeof nm, "j%d", i);
        memset(&extra[i], 0, sizeof extra[i]);
        set_name(&extra[i].mName, nm);
        identity(&extra[i].mTransformation);
        extra[i].mParent = &s->nodes[2];
        kids[i] = &extra[i];
        memset(&bones[i], 0, sizeof bones[i]);
        set_name(&bones[i].mName, nm);
        identity(&bones[i].mOffsetMatrix);
        w[i].mVertexId = 0;
        w[i].mWeight = (float)(i + 1);
        bones[i].mNumWeights = 1;
        bones[i].mWeights = &w[i];
        bp[i] = &bones[i];
    }
    s->nodes[2].mNumChildren = 10, s->nodes[2].mChildren = kids;
    s->mesh.mNumBones = 10, s->mesh.mBones = bp;
    ossa_asset *a = syn_load(s, OSSA_OK, NULL);
    assert_true(has_warning(a, "more than 8 influences"));
    const ossa_mesh *m = a->meshes[0];
    assert_int_equal(m->influences, 8);
    double sum = 0;
    for (int k = 0; k < 8; k++) {
        sum += m->weights[k];
        int32_t j = m->joints[k];
        const char *nm = a->skeleton->names[j];
        int i = atoi(nm + 1);
        assert_true(i >= 2); /* j0 and j1 (weights 1 and 2) were dropped */
        ot_assert_near(m->weights[k], (i + 1) / 52.0, 1e-6);
    }
    ot_assert_near(sum, 1.0, 1e-6);
    ossa_asset_destroy(a);
    free(s);
}

static void test_scene_pre_post_states(void **state) {
    (void)state;
    syn *s = syn_make(0);
    double t0[] = {0, 100}; /* a: 0..4 s, sets the clip range */
    float x0[] = {0, 0};
    set_keys(s, 0, 2, t0, x0);
    double t1[] = {25, 50}; /* b: 1..2 s, x 0 → 1 */
    float x1[] = {0, 1};
    set_keys(s, 1, 2, t1, x1);
    s->channels[1].mPreState = s->channels[1].mPostState = aiAnimBehaviour_LINEAR;
    ossa_asset *a = syn_load(s, OSSA_OK, NULL);
    ot_assert_near(sample_x(a, "b", 4.0f), 3.0, 1e-5);  /* extrapolated */
    ot_assert_near(sample_x(a, "b", 0.0f), -1.0, 1e-5); /* extrapolated backwards */
    ossa_asset_destroy(a);
    s->channels[1].mPreState = s->channels[1].mPostState = aiAnimBehaviour_REPEAT;
    a = syn_load(s, OSSA_OK, NULL);
    ot_assert_near(sample_x(a, "b", 2.5f), 0.5, 1e-5);  /* (2.5 - 1) mod 1 = 0.5 */
    ot_assert_near(sample_x(a, "b", 0.25f), 0.25, 1e-5);
    ot_assert_near(sample_x(a, "b", 3.75f), 0.75, 1e-5);
    ossa_asset_destroy(a);
    s->channels[1].mPreState = s->channels[1].mPostState = aiAnimBehaviour_CONSTANT;
    a = syn_load(s, OSSA_OK, NULL);
    ot_assert_near(sample_x(a, "b", 3.0f), 1.0, 0);
    ot_assert_near(sample_x(a, "b", 0.5f), 0.0, 0);
    ossa_asset_destroy(a);
    /* mDuration longer than the keys: the clip lasts mDuration */
    s->anim.mDuration = 150;
    a = syn_load(s, OSSA_OK, NULL);
    ot_assert_near(a->clips[0]->end, 6.0, 1e-6);
    ossa_asset_destroy(a);
    free(s);
}

static void test_scene_keys(void **state) {
    (void)state;
    syn *s = syn_make(0);
    double t0[] = {0, 25, 25, 50};
    float x0[] = {0, 1, 5, 6};
    set_keys(s, 0, 4, t0, x0);
    ossa_asset *a = syn_load(s, OSSA_OK, NULL);
    assert_true(has_warning(a, "share a time"));
    ot_assert_near(sample_x(a, "a", 1.0f), 5.0, 0); /* the later key wins */
    ossa_asset_destroy(a);
    double t1[] = {0, 25, 20, 50};
    set_keys(s, 0, 4, t1, x0);
    syn_load(s, OSSA_ERROR_INVALID_DATA, "before the previous key");
    double t2[] = {0, NAN, 30, 50};
    set_keys(s, 0, 4, t2, x0);
    syn_load(s, OSSA_ERROR_INVALID_DATA, "non-finite");
    /* a channel on a name that is no node: dropped with a warning */
    set_keys(s, 0, 4, t0, x0);
    set_name(&s->channels[1].mNodeName, "nobody");
    a = syn_load(s, OSSA_OK, NULL);
    assert_true(has_warning(a, "'nobody' is not a joint"));
    assert_int_equal(a->clips[0]->track_count, 1);
    ossa_asset_destroy(a);
    free(s);
}

/* The hierarchy follows mParent when it names another node of the scene (Assimp's HL1 MDL
 * importer lists its bones under one node and names the bone hierarchy there): c, listed by a
 * but naming b, is b's child and its rest model matrix is b's times its own; an mParent that is
 * no node of the scene (or NULL) leaves the node under the one that lists it. */
static void test_scene_parent_links(void **state) {
    (void)state;
    syn *s = syn_make(2);
    s->nodes[3].mTransformation.c4 = 3; /* c at z = 3 from its parent */
    s->nodes[3].mParent = &s->nodes[2];
    ossa_asset *a = syn_load(s, OSSA_OK, NULL);
    const ossa_skeleton *sk = a->skeleton;
    int32_t b = ossa_skeleton_find_joint(sk, "b"), c = ossa_skeleton_find_joint(sk, "c");
    assert_true(b >= 0 && c > b);
    assert_int_equal(sk->parents[c], b);
    ossa_mat4 model[4];
    assert_int_equal(sk->joint_count, 4);
    ossa_local_to_model_job job = {.skeleton = sk, .input = sk->rest, .input_count = 4, .output = model, .output_count = 4};
    assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_OK);
    ot_assert_near(model[c].m[12], 0.0, 0.0); /* under b (y = 2), not a (x = 1) */
    ot_assert_near(model[c].m[13], 2.0, 0.0);
    ot_assert_near(model[c].m[14], 3.0, 0.0);
    ossa_asset_destroy(a);
    struct aiNode stranger;
    memset(&stranger, 0, sizeof stranger);
    for (int k = 0; k < 2; k++) {
        s->nodes[3].mParent = k ? NULL : &stranger;
        a = syn_load(s, OSSA_OK, NULL);
        assert_int_equal(a->skeleton->parents[ossa_skeleton_find_joint(a->skeleton, "c")],
                         ossa_skeleton_find_joint(a->skeleton, "a"));
        ossa_asset_destroy(a);
    }
    free(s);
}

/* A non-finite normal (a reader's normal of a degenerate face) is rebuilt from the faces
 * that use its vertex, with a warning: vertex 1's from the triangle (0, 2, 1) in the z = 0
 * plane, (0, 0, -1) by its winding; vertex 4's, only in a zero-area triangle, is
 * (0, 0, 1); the finite normals stay as given. */
static void test_scene_non_finite_normals(void **state) {
    (void)state;
    syn *s = syn_make(0);
    struct aiVector3D v[5] = {{0, 0, 0}, {2, 0, 0}, {0, 3, 0}, {5, 5, 5}, {5, 5, 5}};
    struct aiVector3D n[5] = {{0, 1, 0}, {NAN, 0, 0}, {0, 0, -1}, {1, 0, 0}, {0, INFINITY, 0}};
    unsigned idx[2][3] = {{0, 2, 1}, {3, 4, 3}};
    struct aiFace faces[2] = {{3, idx[0]}, {3, idx[1]}};
    s->mesh.mNumVertices = 5, s->mesh.mVertices = v, s->mesh.mNormals = n;
    s->mesh.mNumFaces = 2, s->mesh.mFaces = faces;
    ossa_asset *a = syn_load(s, OSSA_OK, NULL);
    assert_int_equal(a->mesh_count, 1);
    const float *got = a->meshes[0]->normals;
    const float want[5][3] = {{0, 1, 0}, {0, 0, -1}, {0, 0, -1}, {1, 0, 0}, {0, 0, 1}};
    for (int i = 0; i < 5; i++)
        for (int k = 0; k < 3; k++)
            if (fabsf(got[3 * i + k] - want[i][k]) > 1e-6f)
                fail_msg("normal %d component %d: %g, expected %g", i, k, (double)got[3 * i + k], (double)want[i][k]);
    assert_true(has_warning(a, "normals: 2 of 5 are not finite"));
    ossa_asset_destroy(a);
    free(s);
}

static void test_scene_hostile(void **state) {
    (void)state;
    syn *s = syn_make(2);
    /* a node listed by two parents: c under a and under b */
    struct aiNode *twice[1] = {&s->nodes[3]};
    s->nodes[2].mNumChildren = 1, s->nodes[2].mChildren = twice;
    syn_load(s, OSSA_ERROR_INVALID_DATA, "node 'c' is listed twice (shared by two parents, or cyclic)");
    s->nodes[2].mNumChildren = 0, s->nodes[2].mChildren = NULL;
    /* a true cycle: c's child is a (found when the walk first grows, not after MAX_NODES) */
    struct aiNode *cyc[1] = {&s->nodes[1]};
    s->nodes[3].mNumChildren = 1, s->nodes[3].mChildren = cyc;
    syn_load(s, OSSA_ERROR_INVALID_DATA, "cyclic");
    s->nodes[3].mNumChildren = 0, s->nodes[3].mChildren = NULL;
    /* mParent links in a cycle: a's names c, c's names a (c is listed by a) */
    s->nodes[1].mParent = &s->nodes[3];
    syn_load(s, OSSA_ERROR_INVALID_DATA, "the parent links (mParent) form a cycle");
    s->nodes[1].mParent = &s->nodes[0];
    /* NULL child, children count without array */
    s->children[0][1] = NULL;
    syn_load(s, OSSA_ERROR_INVALID_DATA, "NULL");
    s->children[0][1] = &s->nodes[2];
    s->nodes[1].mChildren = NULL;
    syn_load(s, OSSA_ERROR_INVALID_DATA, "children count");
    s->nodes[1].mChildren = s->children[1];
    /* non-finite node matrix */
    s->nodes[2].mTransformation.a1 = NAN;
    syn_load(s, OSSA_ERROR_INVALID_DATA, "non-finite transformation");
    s->nodes[2].mTransformation.a1 = 1;
    /* zero scale: loads, with a warning (the rest pose is the best fit) */
    s->nodes[2].mTransformation.a1 = s->nodes[2].mTransformation.b2 = s->nodes[2].mTransformation.c3 = 0;
    ossa_asset *a = syn_load(s, OSSA_OK, NULL);
    assert_true(has_warning(a, "not a TRS"));
    ossa_asset_destroy(a);
    identity(&s->nodes[2].mTransformation);
    /* mesh index out of range */
    s->mesh_index = 5;
    syn_load(s, OSSA_ERROR_INVALID_DATA, "mesh index 5 out of range");
    s->mesh_index = 0;
    /* face index out of range */
    s->indices[2] = 3;
    syn_load(s, OSSA_ERROR_INVALID_DATA, "index 3 >= vertex count 3");
    s->indices[2] = 2;
    /* bone weight on a vertex that does not exist, negative and NaN weights */
    s->weights[1].mVertexId = 3;
    syn_load(s, OSSA_ERROR_INVALID_DATA, "meshes[0].bones[1].weights[0]: vertex 3");
    s->weights[1].mVertexId = 0;
    s->weights[1].mWeight = -1;
    syn_load(s, OSSA_ERROR_INVALID_DATA, "negative");
    s->weights[1].mWeight = NAN;
    syn_load(s, OSSA_ERROR_INVALID_DATA, "not finite");
    s->weights[1].mWeight = 1;
    /* NaN vertex, NaN offset matrix */
    s->vertices[1].x = INFINITY;
    syn_load(s, OSSA_ERROR_INVALID_DATA, "positions: non-finite value at vertex 1");
    s->vertices[1].x = 1;
    s->bones[0].mOffsetMatrix.d4 = NAN;
    syn_load(s, OSSA_ERROR_INVALID_DATA, "non-finite offset matrix");
    s->bones[0].mOffsetMatrix.d4 = 1;
    /* counts without arrays */
    s->mesh.mFaces = NULL;
    syn_load(s, OSSA_ERROR_INVALID_DATA, "face count without faces");
    s->mesh.mFaces = &s->face;
    s->anim.mChannels = NULL;
    syn_load(s, OSSA_ERROR_INVALID_DATA, "channel count without channels");
    s->anim.mChannels = s->channel_ptrs;
    s->channels[0].mNumPositionKeys = 3;
    s->channels[0].mPositionKeys = NULL;
    syn_load(s, OSSA_ERROR_INVALID_DATA, "key count without keys");
    s->channels[0].mPositionKeys = s->pos[0];
    s->scene.mRootNode = NULL;
    syn_load(s, OSSA_ERROR_INVALID_DATA, "no root node");
    s->scene.mRootNode = &s->nodes[0];
    /* every byte is budgeted: a tiny max_allocation is LIMIT, not a crash */
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.max_allocation = 600;
    ossa_asset *out = NULL;
    ossa_diagnostic d;
    assert_int_equal(ossa__assimp_scene_load(&s->scene, &o, NULL, &out, &d), OSSA_ERROR_LIMIT);
    assert_null(out);
    free(s);
}

/* ------------------------------------------------------------ cross-importer: glTF via Assimp */

/* World matrices of every joint at time t of clip ci (rest pose when ci < 0). */
static ossa_mat4 *world_at(const ossa_asset *a, const ossa_clip *clip, float t) {
    const ossa_skeleton *sk = a->skeleton;
    ossa_transform *loc = malloc(sizeof *loc * sk->joint_count);
    ossa_mat4 *w = malloc(sizeof *w * sk->joint_count);
    if (clip) ot_clip_sample(clip, t, false, OSSA_LOOKUP_BINARY, NULL, sk->rest, loc, sk->joint_count);
    else memcpy(loc, sk->rest, sizeof *loc * sk->joint_count);
    ot_local_to_model(loc, sk->parents, sk->joint_count, w);
    free(loc);
    return w;
}

/* Reference linear blend skinning in double: Σ w * (world[j] * ibm_j) * p. */
static void skin_ref(const ossa_asset *a, const ossa_mesh *m, const ossa_mat4 *world, double *out) {
    const ossa_skeleton *sk = a->skeleton;
    ossa_mat4 *pal = calloc(sk->joint_count, sizeof *pal);
    if (m->skin >= 0) {
        const ossa_skin *s = &sk->skins[m->skin];
        for (uint32_t i = 0; i < s->joint_count; i++) pal[s->joints[i]] = ossa_mat4_mul(&world[s->joints[i]], &s->inverse_bind[i]);
    }
    for (uint32_t v = 0; v < m->vertex_count; v++) {
        const float *p = m->positions + 3 * (size_t)v;
        double acc[3] = {0, 0, 0}, wsum = 0;
        for (uint32_t k = 0; k < m->influences; k++) {
            double w = m->weights[(size_t)v * m->influences + k];
            if (w == 0) continue;
            const float *M = pal[m->joints[(size_t)v * m->influences + k]].m;
            for (int r = 0; r < 3; r++) acc[r] += w * ((double)M[r] * p[0] + (double)M[4 + r] * p[1] + (double)M[8 + r] * p[2] + M[12 + r]);
            wsum += w;
        }
        if (wsum == 0) {
            const float *M = world[m->node].m;
            for (int r = 0; r < 3; r++) acc[r] = (double)M[r] * p[0] + (double)M[4 + r] * p[1] + (double)M[8 + r] * p[2] + M[12 + r];
        }
        memcpy(out + 3 * (size_t)v, acc, sizeof acc);
    }
    free(pal);
}

static double mat_scale(const ossa_mat4 *m) {
    double s = 1;
    for (int i = 0; i < 16; i++) s = fmax(s, fabs(m->m[i]));
    return s;
}

/* Tolerance: both paths hold float32 keys and matrices, but Assimp's glTF importer turns
 * TRS into a matrix that ossa decomposes again, and its key times pass through ticks
 * (ms) and back; each step is a float rounding (~6e-8 relative), accumulated down
 * joint chains of up to ~12 joints and through 4 influences. 2e-4 relative to the
 * magnitude of the values compared (with a floor of 1) bounds that with a wide margin
 * while catching any real difference (a wrong key, a swapped axis, a lost IBM). */
#define CROSS_TOL 2e-4

/* Name of joint j of the glTF asset as Assimp spells it: Assimp names unnamed glTF nodes
 * "nodes[<index>]". Static storage. */
static const char *assimp_name(const ossa_asset *g, uint32_t j) {
    static char buf[32];
    if (g->skeleton->names[j][0]) return g->skeleton->names[j];
    snprintf(buf, sizeof buf, "nodes[%u]", g->skeleton->source_index[j]);
    return buf;
}

/* The mesh of `s` on the node named like g's mesh mi's node, same rank among that node's meshes. */
static const ossa_mesh *find_mesh(const ossa_asset *g, const ossa_asset *s, uint32_t mi) {
    const char *node = assimp_name(g, (uint32_t)g->meshes[mi]->node);
    uint32_t rank = 0;
    for (uint32_t i = 0; i < mi; i++)
        if (g->meshes[i]->node == g->meshes[mi]->node) rank++;
    for (uint32_t i = 0; i < s->mesh_count; i++)
        if (!strcmp(s->skeleton->names[s->meshes[i]->node], node) && rank-- == 0) return s->meshes[i];
    fail_msg("mesh %u (node '%s') has no counterpart through Assimp", mi, node);
    return NULL;
}

static void compare_importers(const char *rel, uint32_t *compared_joints, uint32_t *compared_vertices) {
    const char *path = ot_asset(rel);
    if (!path) return;
    ossa_asset *g = NULL, *s = NULL;
    ossa_diagnostic d;
    ossa_result r = ossa_gltf_load_file(path, NULL, &g, &d);
    if (r) fail_msg("%s: glTF: %s", rel, d.message);
    r = ossa_assimp_load_file(path, NULL, &s, &d);
    if (r) fail_msg("%s: Assimp: %s: %s", rel, ossa_result_string(r), d.message);
    assert_int_equal(g->clip_count, s->clip_count);
    for (uint32_t c = 0; c <= g->clip_count; c++) {
        const ossa_clip *cg = c < g->clip_count ? g->clips[c] : NULL;
        const ossa_clip *cs = c < g->clip_count ? s->clips[c] : NULL;
        if (cg) ot_assert_near(ossa_clip_duration(cs), ossa_clip_duration(cg), 1e-4);
        const float fr[] = {0.0f, 0.13f, 1.0f / 3, 0.5f, 0.77f, 1.0f};
        uint32_t nt = cg ? 6 : 1;
        for (uint32_t ti = 0; ti < nt; ti++) {
            float t = cg ? cg->start + fr[ti] * (cg->end - cg->start) : 0;
            ossa_mat4 *wg = world_at(g, cg, t), *ws = world_at(s, cs, t);
            for (uint32_t j = 0; j < g->skeleton->joint_count; j++) {
                const char *nm = assimp_name(g, j);
                int32_t k = ossa_skeleton_find_joint(s->skeleton, nm);
                if (k < 0) fail_msg("%s: joint '%s' missing through Assimp", rel, nm);
                double tol = CROSS_TOL * mat_scale(&wg[j]);
                for (int e = 0; e < 16; e++)
                    if (fabs(wg[j].m[e] - ws[k].m[e]) > tol)
                        fail_msg("%s clip %u t=%g joint '%s' m[%d]: glTF %.7g, Assimp %.7g", rel, c, t, nm, e, wg[j].m[e],
                                 ws[k].m[e]);
                (*compared_joints)++;
            }
            /* skinned vertices: meshes matched by (node name, k-th mesh of that node) */
            assert_int_equal(g->mesh_count, s->mesh_count);
            for (uint32_t mi = 0; mi < g->mesh_count; mi++) {
                const ossa_mesh *mg = g->meshes[mi], *ms = find_mesh(g, s, mi);
                assert_int_equal(mg->vertex_count, ms->vertex_count);
                assert_int_equal(mg->skin >= 0, ms->skin >= 0);
                double *pg = malloc(sizeof(double) * 3 * mg->vertex_count);
                double *ps = malloc(sizeof(double) * 3 * ms->vertex_count);
                skin_ref(g, mg, wg, pg);
                skin_ref(s, ms, ws, ps);
                double scale = 1;
                for (uint32_t v = 0; v < 3 * mg->vertex_count; v++) scale = fmax(scale, fabs(pg[v]));
                for (uint32_t v = 0; v < 3 * mg->vertex_count; v++)
                    if (fabs(pg[v] - ps[v]) > CROSS_TOL * scale)
                        fail_msg("%s clip %u t=%g mesh %u vertex %u: glTF %.7g, Assimp %.7g", rel, c, t, mi, v / 3, pg[v],
                                 ps[v]);
                *compared_vertices += mg->vertex_count;
                free(pg);
                free(ps);
            }
            free(wg);
            free(ws);
        }
    }
    ossa_asset_destroy(g);
    ossa_asset_destroy(s);
}

static void test_cross_importer_gltf(void **state) {
    (void)state;
    /* LINEAR-only files: Assimp 5.2 has no STEP/CUBICSPLINE (it keeps the values and
     * interpolates linearly), so interpolation_test and the STEP/CUBIC generator files
     * would differ by design, not by a bug. */
    static const char *const files[] = {
        "Woman/Woman.gltf",
        "rigged_simple/rigged_simple.gltf",
        "simple_skin/simple_skin.gltf",
        "box_animated/box_animated.gltf",
        "glTF-Asset-Generator/Positive/Animation_Skin/Animation_Skin_01.gltf",
        "glTF-Asset-Generator/Positive/Animation_SkinType/Animation_SkinType_00.gltf",
        "glTF-Asset-Generator/Positive/Animation_Node/Animation_Node_00.gltf",
        "glTF-Asset-Generator/Positive/Animation_NodeMisc/Animation_NodeMisc_00.gltf",
    };
    if (!ot_asset(files[0])) skip();
    uint32_t joints = 0, vertices = 0;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) compare_importers(files[i], &joints, &vertices);
    printf("cross-importer: %u joint matrices and %u skinned vertices agree within %g (relative)\n", joints, vertices,
           CROSS_TOL);
    assert_true(joints > 1000);
}

/* One triangle as 9 floats, rotated (not reflected: the winding is kept) so that its
 * smallest vertex, compared x, y, z, comes first. */
typedef struct tri9 { float v[9]; } tri9;
static int cmp_vertex(const float *a, const float *b) {
    for (int c = 0; c < 3; c++)
        if (a[c] != b[c]) return a[c] < b[c] ? -1 : 1;
    return 0;
}
static int cmp_tri(const void *x, const void *y) {
    const tri9 *a = x, *b = y;
    for (int k = 0; k < 3; k++) {
        int c = cmp_vertex(a->v + 3 * k, b->v + 3 * k);
        if (c) return c;
    }
    return 0;
}
/* The mesh's triangles (indexed, or consecutive vertices), canonical and sorted; *n of them. */
static tri9 *mesh_triangles(const ossa_mesh *m, uint32_t *n) {
    *n = (m->index_count ? m->index_count : m->vertex_count) / 3;
    tri9 *t = calloc(*n ? *n : 1, sizeof *t);
    for (uint32_t i = 0; i < *n; i++) {
        uint32_t v[3];
        for (int k = 0; k < 3; k++) v[k] = m->index_count ? m->indices[3 * i + (uint32_t)k] : 3 * i + (uint32_t)k;
        int first = 0;
        for (int k = 1; k < 3; k++)
            if (cmp_vertex(m->positions + 3 * v[k], m->positions + 3 * v[first]) < 0) first = k;
        for (int k = 0; k < 3; k++) memcpy(t[i].v + 3 * k, m->positions + 3 * v[(first + k) % 3], 3 * sizeof(float));
    }
    qsort(t, *n, sizeof *t, cmp_tri);
    return t;
}

/* glTF TRIANGLE_STRIP and TRIANGLE_FAN, indexed or not (the glTF-Asset-Generator's
 * Mesh_PrimitiveMode files in assimp-testmodels, read in place), give the native importer
 * and Assimp's the same triangles with the same winding. */
static void test_cross_importer_strips_and_fans(void **state) {
    (void)state;
    static const char *const files[] = {"04", "05", "11", "12"}; /* strip, fan, indexed strip, indexed fan */
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char rel[160];
        snprintf(rel, sizeof rel, "glTF2/glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_%s.gltf", files[f]);
        const char *path = ot_assimp_model(rel);
        if (!path) skip();
        ossa_asset *g = NULL, *s = NULL;
        ossa_diagnostic d;
        if (ossa_gltf_load_file(path, NULL, &g, &d)) fail_msg("%s: %s", path, d.message);
        if (ossa_assimp_load_file(path, NULL, &s, &d)) fail_msg("%s (Assimp): %s", path, d.message);
        assert_int_equal(g->mesh_count, 1);
        assert_int_equal(s->mesh_count, 1);
        uint32_t ng, ns;
        tri9 *tg = mesh_triangles(g->meshes[0], &ng), *ts = mesh_triangles(s->meshes[0], &ns);
        assert_int_equal(ng, ns);
        assert_true(ng >= 2);
        for (uint32_t i = 0; i < ng; i++)
            if (cmp_tri(&tg[i], &ts[i])) fail_msg("%s: triangle %u differs between the importers", rel, i);
        free(tg);
        free(ts);
        ossa_asset_destroy(g);
        ossa_asset_destroy(s);
    }
}

/* Morph targets through Assimp (aiAnimMesh, aiMeshMorphAnim) against the native importer:
 * target deltas and sampled weights, AnimatedMorphCube. */
static void test_cross_importer_morph(void **state) {
    (void)state;
    const char *path = ot_asset("AnimatedMorphCube/AnimatedMorphCube.gltf");
    if (!path) skip();
    ossa_asset *g = NULL, *s = NULL;
    ossa_diagnostic d;
    assert_int_equal(ossa_gltf_load_file(path, NULL, &g, &d), OSSA_OK);
    assert_int_equal(ossa_assimp_load_file(path, NULL, &s, &d), OSSA_OK);
    assert_int_equal(g->mesh_count, 1);
    assert_int_equal(s->mesh_count, 1);
    const ossa_mesh *mg = g->meshes[0], *ms = s->meshes[0];
    assert_int_equal(mg->target_count, 2);
    assert_int_equal(ms->target_count, 2);
    assert_int_equal(mg->vertex_count, ms->vertex_count);
    for (uint32_t k = 0; k < 2; k++) {
        ot_assert_floats_near(mg->targets[k].positions, ms->targets[k].positions, 3 * mg->vertex_count, 1e-5f);
        ot_assert_near(mg->default_weights[k], ms->default_weights[k], 0);
    }
    assert_int_equal(g->clips[0]->weight_track_count, 1);
    assert_int_equal(s->clips[0]->weight_track_count, 1);
    for (float t = 0; t <= 4.2f; t += 0.35f) {
        float wg[2], ws[2];
        ot_clip_sample_weights(g->clips[0], 0, t, false, OSSA_LOOKUP_BINARY, NULL, wg);
        ot_clip_sample_weights(s->clips[0], 0, t, false, OSSA_LOOKUP_BINARY, NULL, ws);
        ot_assert_floats_near(wg, ws, 2, 1e-5f);
    }
    ossa_asset_destroy(g);
    ossa_asset_destroy(s);
}

/* ------------------------------------------------------------ FBX against `assimp info` / `assimp dump` */

static void test_fbx_against_assimp_tool(void **state) {
    (void)state;
    static const char *const files[] = {"fbx/huesitos.fbx", "fbx/animation_with_skeleton.fbx"};
    if (!ot_asset(files[0])) skip();
    if (ot_run("command -v assimp >/dev/null", NULL) != 0) {
        ot_skip_reason("the assimp tool (assimp-utils) is not installed");
        skip();
    }
    for (size_t f = 0; f < 2; f++) {
        char path[1024], cmd[2300];
        snprintf(path, sizeof path, "%s", ot_asset(files[f]));
        ossa_asset *a = NULL;
        ossa_diagnostic d;
        ossa_result r = ossa_assimp_load_file(path, NULL, &a, &d);
        if (r) fail_msg("%s: %s", files[f], d.message);
        char *out = NULL;
        snprintf(cmd, sizeof cmd, "assimp info '%s' 2>/dev/null", path);
        assert_int_equal(ot_run(cmd, &out), 0);
        const char *p = strstr(out, "Nodes:");
        assert_non_null(p);
        unsigned nodes = (unsigned)strtoul(p + 6, NULL, 10);
        assert_int_equal(a->skeleton->joint_count, nodes);
        p = strstr(out, "Animations:");
        assert_non_null(p);
        assert_int_equal(a->clip_count, (unsigned)strtoul(p + 11, NULL, 10));
        p = strstr(out, "Named Animations:");
        assert_non_null(p);
        for (uint32_t c = 0; c < a->clip_count; c++) {
            char q[300];
            snprintf(q, sizeof q, "'%s'", a->clips[c]->name);
            if (!strstr(p, q)) fail_msg("%s: clip %s not listed by assimp info", files[f], q);
        }
        free(out);
        /* durations: assimp dump writes <Animation name= duration= tick_cnt=> (ticks) */
        snprintf(cmd, sizeof cmd, "assimp dump '%s' '%s' >/dev/null 2>&1 && cat '%s'", path, ot_tmp("fbx.assxml"),
                 ot_tmp("fbx.assxml"));
        assert_int_equal(ot_run(cmd, &out), 0);
        p = out;
        for (uint32_t c = 0; c < a->clip_count; c++) {
            p = strstr(p, "<Animation name=");
            assert_non_null(p);
            const char *du = strstr(p, "duration=\""), *tc = strstr(p, "tick_cnt=\"");
            assert_non_null(du);
            assert_non_null(tc);
            double ticks = strtod(du + 10, NULL), tps = strtod(tc + 10, NULL);
            if (tps == 0) tps = 25;
            ot_assert_near(ossa_clip_duration(a->clips[c]), ticks / tps, 1e-4);
            printf("%s: %u joints, clip '%s' %.4f s (assimp: %u nodes, %.1f ticks at %.0f/s)\n", files[f],
                   a->skeleton->joint_count, a->clips[c]->name, ossa_clip_duration(a->clips[c]), nodes, ticks, tps);
            p++;
        }
        free(out);
        ossa_asset_destroy(a);
    }
}

/* ------------------------------------------------------------ clips from a separate file */

static void assert_clips_equal(const ossa_clip *x, const ossa_clip *y) {
    assert_string_equal(x->name, y->name);
    assert_int_equal(x->track_count, y->track_count);
    assert_int_equal(x->weight_track_count, y->weight_track_count);
    for (uint32_t t = 0; t < x->track_count; t++) {
        assert_int_equal(x->tracks[t].joint, y->tracks[t].joint);
        const ossa_track *px[3] = {&x->tracks[t].translation, &x->tracks[t].rotation, &x->tracks[t].scale};
        const ossa_track *py[3] = {&y->tracks[t].translation, &y->tracks[t].rotation, &y->tracks[t].scale};
        for (int k = 0; k < 3; k++) {
            assert_int_equal(px[k]->key_count, py[k]->key_count);
            assert_int_equal(px[k]->interp, py[k]->interp);
            assert_memory_equal(px[k]->times, py[k]->times, px[k]->key_count * sizeof(float));
            assert_memory_equal(px[k]->values, py[k]->values, px[k]->key_count * px[k]->components * sizeof(float));
        }
    }
}

static void test_clips_from_separate_file(void **state) {
    (void)state;
    static const char *const files[] = {"fbx/huesitos.fbx", "fbx/animation_with_skeleton.fbx", "Woman/Woman.gltf"};
    if (!ot_asset(files[0])) skip();
    for (size_t f = 0; f < 3; f++) {
        char path[1024];
        snprintf(path, sizeof path, "%s", ot_asset(files[f]));
        ossa_asset *model = NULL, *clips = NULL;
        ossa_diagnostic d;
        assert_int_equal(ossa_import_file(path, OSSA_IMPORTER_AUTO, NULL, &model, &d), OSSA_OK);
        ossa_result r = ossa_import_clips(path, OSSA_IMPORTER_AUTO, model->skeleton, NULL, &clips, &d);
        if (r) fail_msg("%s: %s", files[f], d.message);
        assert_null(clips->skeleton);
        assert_int_equal(clips->clip_count, model->clip_count);
        for (uint32_t c = 0; c < model->clip_count; c++) assert_clips_equal(model->clips[c], clips->clips[c]);
        ossa_asset_destroy(clips);
        ossa_asset_destroy(model);
    }
    /* across importers: Woman's clips read by Assimp onto the native glTF skeleton, by name */
    const char *path = ot_asset("Woman/Woman.gltf");
    ossa_asset *model = NULL, *clips = NULL;
    ossa_diagnostic d;
    assert_int_equal(ossa_gltf_load_file(path, NULL, &model, &d), OSSA_OK);
    assert_int_equal(ossa_assimp_load_clips(path, model->skeleton, NULL, &clips, &d), OSSA_OK);
    assert_int_equal(clips->clip_count, model->clip_count);
    for (uint32_t c = 0; c < model->clip_count; c++) {
        assert_string_equal(clips->clips[c]->name, model->clips[c]->name);
        for (float fr = 0; fr <= 1.0f; fr += 0.25f) {
            float t = model->clips[c]->end * fr;
            ossa_mat4 *a = world_at(model, model->clips[c], t), *b = world_at(model, clips->clips[c], t);
            for (uint32_t j = 0; j < model->skeleton->joint_count; j++)
                for (int e = 0; e < 16; e++) ot_assert_near(a[j].m[e], b[j].m[e], CROSS_TOL * mat_scale(&a[j]));
            free(a);
            free(b);
        }
    }
    /* a name the skeleton lacks is reported */
    ossa_asset_destroy(clips);
    ossa_asset_destroy(model);
    path = ot_asset("Woman/Woman.gltf");
    char p2[1024];
    snprintf(p2, sizeof p2, "%s", path);
    assert_int_equal(ossa_assimp_load_file(ot_asset("fbx/huesitos.fbx"), NULL, &model, &d), OSSA_OK);
    assert_true(model->skeleton->metres_per_unit == 0.0f); /* Assimp declares no unit (assimp.c) */
    assert_int_equal(ossa_assimp_load_clips(p2, model->skeleton, NULL, &clips, &d), OSSA_OK);
    bool reported = false;
    for (uint32_t w = 0; w < clips->warning_count; w++)
        if (strstr(clips->warnings[w], "is not a joint of the skeleton")) reported = true;
    assert_true(reported);
    ossa_asset_destroy(clips);
    ossa_asset_destroy(model);
}

/* ------------------------------------------------------------ hostile FBX / DAE files */

/* Every result is acceptable except a crash; successes must hold the asset invariants. */
static void load_hostile(const uint8_t *data, size_t size, const char *hint, uint32_t *errors, uint32_t *loaded) {
    ossa_asset *a = NULL;
    ossa_diagnostic d;
    ossa_result r = ossa_assimp_load_memory(data, size, hint, NULL, &a, &d);
    if (r) {
        assert_null(a);
        assert_true(d.message[0] != 0);
        (*errors)++;
        return;
    }
    (*loaded)++;
    for (uint32_t m = 0; m < a->mesh_count; m++)
        for (uint32_t i = 0; i < a->meshes[m]->index_count; i++)
            assert_true(a->meshes[m]->indices[i] < a->meshes[m]->vertex_count);
    ossa_asset_destroy(a);
}

static void hostile_file(const char *path, const char *hint, uint32_t step) {
    size_t size = 0;
    uint8_t *data = gw_read_all(path, &size);
    assert_non_null(data);
    uint32_t errors = 0, loaded = 0;
    for (size_t n = 1; n < size; n += step) load_hostile(data, n, hint, &errors, &loaded); /* truncations */
    uint64_t rng = 12345;
    uint8_t *copy = malloc(size);
    for (int i = 0; i < 60; i++) { /* corruptions: a few random bytes each */
        memcpy(copy, data, size);
        for (int k = 0; k < 4; k++) copy[ot_rand_u64(&rng) % size] = (uint8_t)ot_rand_u64(&rng);
        load_hostile(copy, size, hint, &errors, &loaded);
    }
    printf("%s: %u hostile inputs refused with an error, %u loaded (invariants hold)\n", path, errors, loaded);
    free(copy);
    free(data);
}

static void test_hostile_fbx_dae(void **state) {
    (void)state;
    const char *fbx = ot_asset("fbx/huesitos.fbx");
    if (!fbx) skip();
    char path[1024];
    snprintf(path, sizeof path, "%s", fbx);
    hostile_file(path, "fbx", 1499);
    /* a DAE made at test time from the FBX by Assimp's exporter (mesh data only is relied on) */
    char cmd[2300];
    snprintf(cmd, sizeof cmd, "assimp export '%s' '%s' >/dev/null 2>&1", path, ot_tmp("huesitos.dae"));
    if (ot_run(cmd, NULL) == 0) hostile_file(ot_tmp("huesitos.dae"), "dae", 997);
    else ot_skip_part("the assimp tool (assimp-utils) could not export a DAE: DAE input not tried");
    /* the file's format is named when Assimp refuses it */
    static const char junk[] = "Kaydara FBX Binary  \0\x1a\0 this is not an FBX";
    ossa_asset *a = NULL;
    ossa_diagnostic d;
    assert_int_not_equal(ossa_assimp_load_memory(junk, sizeof junk, "fbx", NULL, &a, &d), OSSA_OK);
    assert_non_null(strstr(d.message, "FBX (binary)"));
}

/* ------------------------------------------------------- a skeleton without meshes */

/* A COLLADA skeleton (hips, spine, head, two legs) with a 1 s clip on the hips and a camera
 * node far from it, and no geometry: what a skeleton-only export holds. */
static const char skeleton_dae[] =
    "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
    "<COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" version=\"1.4.1\">\n"
    "<asset><unit name=\"meter\" meter=\"1\"/><up_axis>Y_UP</up_axis></asset>\n"
    "<library_cameras><camera id=\"cam\"><optics><technique_common><perspective><yfov>40</yfov>"
    "<aspect_ratio>1</aspect_ratio><znear>0.1</znear><zfar>100</zfar></perspective></technique_common></optics>"
    "</camera></library_cameras>\n"
    "<library_animations><animation id=\"hips_rot\">\n"
    "<source id=\"t\"><float_array id=\"t-a\" count=\"3\">0 0.5 1</float_array><technique_common>"
    "<accessor source=\"#t-a\" count=\"3\"><param name=\"TIME\" type=\"float\"/></accessor></technique_common></source>\n"
    "<source id=\"v\"><float_array id=\"v-a\" count=\"3\">-30 30 -30</float_array><technique_common>"
    "<accessor source=\"#v-a\" count=\"3\"><param name=\"ANGLE\" type=\"float\"/></accessor></technique_common></source>\n"
    "<source id=\"i\"><Name_array id=\"i-a\" count=\"3\">LINEAR LINEAR LINEAR</Name_array><technique_common>"
    "<accessor source=\"#i-a\" count=\"3\"><param name=\"INTERPOLATION\" type=\"name\"/></accessor></technique_common>"
    "</source>\n"
    "<sampler id=\"s\"><input semantic=\"INPUT\" source=\"#t\"/><input semantic=\"OUTPUT\" source=\"#v\"/>"
    "<input semantic=\"INTERPOLATION\" source=\"#i\"/></sampler>\n"
    "<channel source=\"#s\" target=\"hips/rotY.ANGLE\"/>\n"
    "</animation></library_animations>\n"
    "<library_visual_scenes><visual_scene id=\"scene\">\n"
    "<node id=\"Camera\" name=\"Camera\"><translate>50 10 80</translate><instance_camera url=\"#cam\"/></node>\n"
    "<node id=\"root\" name=\"root\">\n"
    "<node id=\"hips\" name=\"hips\" sid=\"hips\" type=\"JOINT\"><translate>3 1 0</translate>"
    "<rotate sid=\"rotY\">0 1 0 0</rotate>\n"
    "<node id=\"spine\" name=\"spine\" sid=\"spine\" type=\"JOINT\"><translate>0 0.5 0</translate>\n"
    "<node id=\"head\" name=\"head\" sid=\"head\" type=\"JOINT\"><translate>0 0.35 0</translate></node></node>\n"
    "<node id=\"legL\" name=\"legL\" sid=\"legL\" type=\"JOINT\"><translate>0.15 0 0</translate>\n"
    "<node id=\"footL\" name=\"footL\" sid=\"footL\" type=\"JOINT\"><translate>0 -0.9 0</translate></node></node>\n"
    "<node id=\"legR\" name=\"legR\" sid=\"legR\" type=\"JOINT\"><translate>-0.15 0 0</translate>\n"
    "<node id=\"footR\" name=\"footR\" sid=\"footR\" type=\"JOINT\"><translate>0 -0.9 0</translate></node></node>\n"
    "</node></node>\n"
    "</visual_scene></library_visual_scenes>\n"
    "<scene><instance_visual_scene url=\"#scene\"/></scene>\n"
    "</COLLADA>\n";

/* Assimp invents a mesh of bone pyramids, skinned to every node (the camera too), for a
 * file without meshes; ossa asks it not to: the asset has the skeleton and the clip and no
 * mesh, and `ossa render` draws the skeleton (saying so) instead of those pyramids. */
/* Point and line meshes are not imported. A file whose meshes are all points or lines (which
 * Assimp refuses with "No meshes remaining" when asked to remove them) still loads: its nodes,
 * no mesh, and a warning for each. A mixed file keeps its triangles, without the warning. */
static void test_point_and_line_meshes(void **state) {
    (void)state;
    static const char lines[] = "o wire\nv 0 0 0\nv 1 0 0\nv 1 1 0\nl 1 2 3\n";
    static const char points[] = "o cloud\nv 0 0 0\nv 1 0 0\nv 0 2 0\np 1 2 3\n";
    static const char mixed[] = "o both\nv 0 0 0\nv 1 0 0\nv 1 1 0\nf 1 2 3\nl 1 3\n";
    const char *const files[3] = {lines, points, mixed};
    for (int k = 0; k < 3; k++) {
        ossa_asset *a = NULL;
        ossa_diagnostic d;
        ossa_result r = ossa_assimp_load_memory(files[k], strlen(files[k]), "obj", NULL, &a, &d);
        if (r) fail_msg("file %d: %s: %s", k, d.path, d.message);
        assert_true(a->node_count >= 1);
        bool only = has_warning(a, "only point and line meshes");
        if (k < 2) {
            assert_int_equal(a->mesh_count, 0);
            if (!only) fail_msg("file %d: no warning that its point or line mesh is not imported", k);
        } else {
            assert_int_equal(a->mesh_count, 1);
            assert_int_equal(a->meshes[0]->vertex_count, 3);
            assert_int_equal(a->meshes[0]->index_count, 3);
            assert_false(only);
        }
        ossa_asset_destroy(a);
    }
}

static void test_skeleton_without_meshes(void **state) {
    (void)state;
    ossa_asset *a = NULL;
    ossa_diagnostic d;
    ossa_result r = ossa_assimp_load_memory(skeleton_dae, sizeof skeleton_dae - 1, "dae", NULL, &a, &d);
    if (r) fail_msg("%s: %s", d.path, d.message);
    assert_int_equal(a->mesh_count, 0);
    assert_int_equal(a->skeleton->skin_count, 0);
    assert_int_equal(a->clip_count, 1);
    assert_true(ossa_skeleton_find_joint(a->skeleton, "hips") >= 0);
    assert_true(ossa_skeleton_find_joint(a->skeleton, "Camera") >= 0);
    ossa_asset_destroy(a);
    /* without the clip too: a skeleton alone loads (Assimp calls the scene incomplete) */
    char still[sizeof skeleton_dae];
    const char *from = strstr(skeleton_dae, "<library_animations>"), *to = strstr(skeleton_dae, "<library_visual_scenes>");
    assert_true(from && to && from < to);
    size_t head = (size_t)(from - skeleton_dae);
    memcpy(still, skeleton_dae, head);
    snprintf(still + head, sizeof still - head, "%s", to);
    r = ossa_assimp_load_memory(still, strlen(still), "dae", NULL, &a, &d);
    if (r) fail_msg("%s: %s", d.path, d.message);
    assert_int_equal(a->mesh_count, 0);
    assert_int_equal(a->clip_count, 0);
    assert_int_equal(a->skeleton->joint_count, 10);
    ossa_asset_destroy(a);
    const char *tool = ot_gl_tool();
    if (!tool) {
        ot_skip_part_in(__func__, "the tool has no OpenGL: the render part");
        return;
    }
    char dae[4096], png[4096], cmd[12288];
    snprintf(dae, sizeof dae, "%s", ot_tmp("skeleton_only.dae"));
    snprintf(png, sizeof png, "%s", ot_tmp("skeleton_only_dae.png"));
    assert_int_equal(gw_write_file(dae, skeleton_dae, sizeof skeleton_dae - 1), 0);
    snprintf(cmd, sizeof cmd, "'%s' render '%s' --from 0.25 --to 0.25 --size 32x32 --out '%s' 2>&1", tool, dae, png);
    char *out = NULL;
    int rc = ot_run(cmd, &out);
    if (rc != 0 && strstr(out, "no offscreen OpenGL")) ot_skip_part_in(__func__, "no offscreen OpenGL: the render part");
    else if (rc != 0 || !strstr(out, "no skinned mesh: drawing the skeleton (--bones)"))
        fail_msg("%s: exit %d\n%s", cmd, rc, out);
    free(out);
}

/* path loaded through Assimp; the case fails with the loader's diagnostic when it does not load. */
static ossa_asset *load_or_fail(const char *path) {
    ossa_asset *a = NULL;
    ossa_diagnostic d;
    if (ossa_assimp_load_file(path, NULL, &a, &d) != OSSA_OK) fail_msg("%s: %s: %s", path, d.path, d.message);
    return a;
}

/* The node named `name` under n (depth first through mChildren), or NULL. */
static const struct aiNode *find_ai_node(const struct aiNode *n, const char *name) {
    if (!strcmp(n->mName.data, name)) return n;
    for (uint32_t i = 0; i < n->mNumChildren; i++) {
        const struct aiNode *hit = find_ai_node(n->mChildren[i], name);
        if (hit) return hit;
    }
    return NULL;
}

/* A Half-Life 1 model from Debian's assimp-testmodels (read in place): Assimp 5.2 lists its
 * bones under "<MDL_bones>" and gives their hierarchy in mParent only. The skeleton must follow
 * mParent (checked against Assimp's own scene), and then every skin joint's rest model matrix
 * times its inverse bind matrix (Assimp's offset matrix, which Assimp computes from the bones'
 * absolute transforms) is one and the same matrix, the rigid frame the meshes are bound in
 * (for this file a rotation of the axes): through "<MDL_bones>" the nested bones would sit at
 * the wrong places and their products would differ. */
static void test_hl1_mdl_bone_hierarchy(void **state) {
    (void)state;
    const char *path = ot_assimp_model("MDL/MDL (HL1)/man.mdl");
    if (!path) skip();
    ossa_asset *a = load_or_fail(path);
    const struct aiScene *sc = aiImportFile(path, 0);
    assert_non_null(sc);
    const struct aiNode *bones = NULL;
    for (uint32_t i = 0; i < sc->mRootNode->mNumChildren; i++)
        if (!strcmp(sc->mRootNode->mChildren[i]->mName.data, "<MDL_bones>")) bones = sc->mRootNode->mChildren[i];
    assert_non_null(bones);
    assert_true(bones->mNumChildren >= 8);
    const ossa_skeleton *sk = a->skeleton;
    uint32_t nested = 0;
    for (uint32_t i = 0; i < bones->mNumChildren; i++) {
        const struct aiNode *bone = bones->mChildren[i];
        int32_t j = ossa_skeleton_find_joint(sk, bone->mName.data), p = sk->parents[j];
        assert_true(j >= 0 && p >= 0);
        assert_string_equal(sk->names[p], bone->mParent->mName.data);
        nested += bone->mParent != sc->mRootNode;
    }
    assert_true(nested >= 7); /* every bone but Root hangs under another bone */
    aiReleaseImport(sc);
    ossa_mat4 *model = calloc(sk->joint_count, sizeof *model);
    ossa_local_to_model_job job = {.skeleton = sk, .input = sk->rest, .input_count = sk->joint_count, .output = model,
                                   .output_count = sk->joint_count};
    assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_OK);
    uint32_t checked = 0;
    ossa_mat4 bound = ossa_mat4_mul(&model[sk->skins[0].joints[0]], &sk->skins[0].inverse_bind[0]);
    for (int r = 0; r < 3; r++) /* a rotation: orthonormal columns */
        for (int c = 0; c < 3; c++) {
            float dot = 0;
            for (int e = 0; e < 3; e++) dot += bound.m[4 * r + e] * bound.m[4 * c + e];
            ot_assert_near(dot, r == c ? 1.0 : 0.0, 1e-4);
        }
    for (uint32_t s = 0; s < sk->skin_count; s++)
        for (uint32_t k = 0; k < sk->skins[s].joint_count; k++, checked++) {
            ossa_mat4 m = ossa_mat4_mul(&model[sk->skins[s].joints[k]], &sk->skins[s].inverse_bind[k]);
            for (int e = 0; e < 16; e++)
                if (fabsf(m.m[e] - bound.m[e]) > 1e-3f)
                    fail_msg("skin %u joint '%s': model x inverse bind [%d] = %g, the first joint's %g", s,
                             sk->names[sk->skins[s].joints[k]], e, (double)m.m[e], (double)bound.m[e]);
        }
    assert_true(checked >= 8);
    free(model);
    ossa_asset_destroy(a);
}

/* man.mdl's 'walk' clip against Assimp's own data: at key times, every bone's model position from
 * ossa's clip (sampled, then local-to-model) equals the product of Assimp's key transforms up
 * the bone's mParent chain, computed here with Assimp's matrix functions. */
static void test_hl1_mdl_clip_matches_assimp(void **state) {
    (void)state;
    const char *path = ot_assimp_model("MDL/MDL (HL1)/man.mdl");
    if (!path) skip();
    ossa_asset *a = load_or_fail(path);
    const struct aiScene *sc = aiImportFile(path, 0);
    assert_non_null(sc);
    const struct aiAnimation *walk = NULL;
    uint32_t clip = UINT32_MAX;
    for (uint32_t i = 0; i < sc->mNumAnimations; i++)
        if (!strcmp(sc->mAnimations[i]->mName.data, "walk")) walk = sc->mAnimations[i], clip = i;
    assert_non_null(walk);
    assert_string_equal(a->clips[clip]->name, "walk");
    double tps = walk->mTicksPerSecond > 0 ? walk->mTicksPerSecond : 25.0;
    const ossa_skeleton *sk = a->skeleton;
    uint32_t J = sk->joint_count, compared = 0;
    ossa_transform *pose = calloc(J, sizeof *pose);
    ossa_mat4 *model = calloc(J, sizeof *model);
    const struct aiNodeAnim *first = walk->mChannels[0];
    assert_true(first->mNumPositionKeys >= 8);
    for (uint32_t key = 1; key < first->mNumPositionKeys; key += 3) {
        double ticks = first->mPositionKeys[key].mTime;
        ot_clip_sample(a->clips[clip], (float)(ticks / tps), false, OSSA_LOOKUP_BINARY, NULL, sk->rest, pose, J);
        ossa_local_to_model_job job = {.skeleton = sk, .input = pose, .input_count = J, .output = model, .output_count = J};
        assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_OK);
        for (uint32_t c = 0; c < walk->mNumChannels; c++) {
            const struct aiNode *bone = find_ai_node(sc->mRootNode, walk->mChannels[c]->mNodeName.data);
            assert_non_null(bone);
            struct aiMatrix4x4 acc; /* Assimp's model matrix: key transforms up the mParent chain */
            aiIdentityMatrix4(&acc);
            for (const struct aiNode *n = bone; n; n = n->mParent) {
                struct aiMatrix4x4 local = n->mTransformation;
                for (uint32_t k = 0; k < walk->mNumChannels; k++) {
                    const struct aiNodeAnim *ch = walk->mChannels[k];
                    if (strcmp(ch->mNodeName.data, n->mName.data)) continue;
                    assert_true(ch->mNumPositionKeys > key && ch->mNumRotationKeys > key);
                    assert_true(ch->mPositionKeys[key].mTime == ticks && ch->mRotationKeys[key].mTime == ticks);
                    struct aiVector3D one = {1, 1, 1};
                    aiMatrix4FromScalingQuaternionPosition(&local, &one, &ch->mRotationKeys[key].mValue, &ch->mPositionKeys[key].mValue);
                }
                aiMultiplyMatrix4(&local, &acc); /* local * acc */
                acc = local;
            }
            int32_t j = ossa_skeleton_find_joint(sk, bone->mName.data);
            assert_true(j >= 0);
            ot_assert_near(model[j].m[12], acc.a4, 1e-3);
            ot_assert_near(model[j].m[13], acc.b4, 1e-3);
            ot_assert_near(model[j].m[14], acc.c4, 1e-3);
            compared++;
        }
    }
    printf("hl1: 'walk': %u bone positions at key times equal Assimp's mParent chains\n", compared);
    assert_true(compared >= 8 * 3);
    aiReleaseImport(sc);
    free(pose);
    free(model);
    ossa_asset_destroy(a);
}

/* ------------------------------------------------------------ the bounded import */

/* A binary FBX 7.4 (the container: a 27-byte header, node records of end offset, property
 * count, property bytes, name, properties, children and a 13-byte null record) holding one
 * mesh whose Vertices array of doubles declares `count` elements but carries 9, as a zlib
 * stream of one stored deflate block. Assimp 5.2 sizes its buffer by the declared count
 * (8 x count bytes, zero-filled) before inflating: count 536870910 asks for 4 GiB in 608
 * bytes. Returns the size written to buf (608 bytes; callers give 1024). */
typedef struct fbx_buf {
    uint8_t *p;
    size_t n;
} fbx_buf;

static void put_u32(fbx_buf *b, size_t at, uint32_t v) {
    for (int i = 0; i < 4; i++) b->p[at + (size_t)i] = (uint8_t)(v >> (8 * i));
}
static void put_bytes(fbx_buf *b, const void *src, size_t n) {
    memcpy(b->p + b->n, src, n);
    b->n += n;
}
static void put_word(fbx_buf *b, uint32_t v) {
    put_u32(b, b->n, v);
    b->n += 4;
}
/* Opens a node record; returns where its header is (for node_end). */
static size_t node_begin(fbx_buf *b, const char *name) {
    size_t at = b->n;
    b->n += 12;
    uint8_t len = (uint8_t)strlen(name);
    put_bytes(b, &len, 1);
    put_bytes(b, name, len);
    return at;
}
/* After the properties: records property count and bytes; children follow until node_end. */
static void node_props(fbx_buf *b, size_t at, uint32_t count) {
    put_u32(b, at + 4, count);
    put_u32(b, at + 8, (uint32_t)(b->n - (at + 13 + b->p[at + 12])));
}
static void node_end(fbx_buf *b, size_t at, bool nested) {
    if (nested) {
        memset(b->p + b->n, 0, 13);
        b->n += 13;
    }
    put_u32(b, at, (uint32_t)b->n);
}
static void prop_long(fbx_buf *b, int64_t v) {
    put_bytes(b, "L", 1);
    put_word(b, (uint32_t)((uint64_t)v & 0xffffffffu));
    put_word(b, (uint32_t)((uint64_t)v >> 32));
}
static void prop_int(fbx_buf *b, int32_t v) {
    put_bytes(b, "I", 1);
    put_word(b, (uint32_t)v);
}
static void prop_str(fbx_buf *b, const char *s, size_t n) {
    put_bytes(b, "S", 1);
    put_word(b, (uint32_t)n);
    put_bytes(b, s, n);
}
/* An array property (type 'd' or 'i') declaring `count` elements, encoding 1 (zlib) around
 * `n` raw bytes in one stored block. */
static void prop_array(fbx_buf *b, char type, uint32_t count, const void *raw, size_t n) {
    put_bytes(b, &type, 1);
    put_word(b, count);
    put_word(b, 1);
    put_word(b, (uint32_t)(2 + 5 + n + 4));
    const uint8_t head[] = {0x78, 0x01, 0x01, (uint8_t)n, (uint8_t)(n >> 8), (uint8_t)~n, (uint8_t)(~n >> 8)};
    put_bytes(b, head, sizeof head);
    put_bytes(b, raw, n);
    uint32_t s1 = 1, s2 = 0; /* Adler-32, big-endian */
    for (size_t i = 0; i < n; i++) {
        s1 = (s1 + ((const uint8_t *)raw)[i]) % 65521u;
        s2 = (s2 + s1) % 65521u;
    }
    uint32_t adler = (s2 << 16) | s1;
    const uint8_t tail[] = {(uint8_t)(adler >> 24), (uint8_t)(adler >> 16), (uint8_t)(adler >> 8), (uint8_t)adler};
    put_bytes(b, tail, 4);
}
static void leaf_int(fbx_buf *b, const char *name, int32_t v) {
    size_t at = node_begin(b, name);
    prop_int(b, v);
    node_props(b, at, 1);
    node_end(b, at, false);
}
static void connection(fbx_buf *b, int64_t child, int64_t parent) {
    size_t at = node_begin(b, "C");
    prop_str(b, "OO", 2);
    prop_long(b, child);
    prop_long(b, parent);
    node_props(b, at, 3);
    node_end(b, at, false);
}

static size_t huge_array_fbx(uint8_t *buf, uint32_t count) {
    fbx_buf b = {buf, 0};
    put_bytes(&b, "Kaydara FBX Binary  \0\x1a\0", 23);
    put_word(&b, 7400);
    size_t h = node_begin(&b, "FBXHeaderExtension");
    node_props(&b, h, 0);
    leaf_int(&b, "FBXHeaderVersion", 1003);
    leaf_int(&b, "FBXVersion", 7400);
    node_end(&b, h, true);
    size_t objs = node_begin(&b, "Objects");
    node_props(&b, objs, 0);
    size_t g = node_begin(&b, "Geometry");
    prop_long(&b, 1);
    prop_str(&b, "g\0\1Geometry", 11);
    prop_str(&b, "Mesh", 4);
    node_props(&b, g, 3);
    const double verts[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    size_t v = node_begin(&b, "Vertices");
    prop_array(&b, 'd', count, verts, sizeof verts);
    node_props(&b, v, 1);
    node_end(&b, v, false);
    const int32_t idx[3] = {0, 1, -3};
    size_t pv = node_begin(&b, "PolygonVertexIndex");
    prop_array(&b, 'i', 3, idx, sizeof idx);
    node_props(&b, pv, 1);
    node_end(&b, pv, false);
    node_end(&b, g, true);
    size_t m = node_begin(&b, "Model");
    prop_long(&b, 2);
    prop_str(&b, "m\0\1Model", 8);
    prop_str(&b, "Mesh", 4);
    node_props(&b, m, 3);
    node_end(&b, m, true);
    node_end(&b, objs, true);
    size_t c = node_begin(&b, "Connections");
    node_props(&b, c, 0);
    connection(&b, 1, 2);
    connection(&b, 2, 0);
    node_end(&b, c, true);
    memset(b.p + b.n, 0, 13);
    b.n += 13;
    return b.n;
}

#define HUGE_COUNT 536870910u /* a multiple of 3 (vertices); x 8 bytes = 4 GiB - 16 */
#define CAP_MIB 256

static bool under_valgrind(void) {
    const char *pre = getenv("LD_PRELOAD");
    return pre && strstr(pre, "vgpreload");
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Largest RSS of this process and of the children it waited for, in MiB. */
static double peak_rss_mib(bool children) {
#ifdef HAVE_POSIX_RUSAGE
    struct rusage ru;
    getrusage(children ? RUSAGE_CHILDREN : RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0; /* Linux: kB */
#else
    (void)children;
    return 0;
#endif
}

#ifdef HAVE_POSIX_RUSAGE
#include <sys/wait.h>
#include <unistd.h>
/* Peak RSS (MiB) of the bounded load's probe alone: the load runs in a fresh child of this
 * process, whose only child is the probe; -1 when that could not run. */
static double probe_peak_mib(const uint8_t *buf, size_t n) {
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        ossa_asset *a = NULL;
        ossa_diagnostic d;
        ossa_result r = ossa_assimp_load_memory_bounded(buf, n, "fbx", NULL, (size_t)CAP_MIB << 20, &a, &d);
        double mib = peak_rss_mib(true);
        _exit(r == OSSA_ERROR_LIMIT ? (int)(mib / 16.0 > 250 ? 250 : mib / 16.0) : 255);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) == 255) return -1;
    return 16.0 * (WEXITSTATUS(status) + 1); /* upper end of the 16 MiB bucket */
}
#endif

#define SKIP_UNDER_VALGRIND()                                                                                          \
    do {                                                                                                               \
        if (under_valgrind()) {                                                                                        \
            ot_skip_reason("valgrind: the probe's address-space limit would apply to valgrind itself (assimp.h)");   \
            skip();                                                                                                    \
        }                                                                                                              \
    } while (0)

/* The generated FBX that makes Assimp allocate 4 GiB and more: LIMIT, with Assimp's place,
 * and no child got past the cap (plus this process's RSS at the fork, which the child shares,
 * plus 64 MiB for ASan's quarantine and shadow). The time is printed, not asserted: no timing
 * thresholds in tests (a hang would meet CTest's timeout). */
static void test_bounded_limit(void **state) {
    (void)state;
    SKIP_UNDER_VALGRIND();
    uint8_t buf[1024];
    size_t n = huge_array_fbx(buf, HUGE_COUNT);
    ossa_asset *a = (ossa_asset *)(uintptr_t)1;
    ossa_diagnostic d;
    double t0 = now_s(), self0 = peak_rss_mib(false);
    assert_int_equal(ossa_assimp_load_memory_bounded(buf, n, "fbx", NULL, (size_t)CAP_MIB << 20, &a, &d),
                     OSSA_ERROR_LIMIT);
    assert_null(a);
    print_message("bounded: %s (%.2f s)\n", d.message, now_s() - t0);
    assert_non_null(strstr(d.message, "memory cap of 256 MiB"));
#ifndef UNDER_ASAN
    assert_non_null(strstr(d.message, "bad_alloc"));
    assert_non_null(strstr(d.message, "offset 0x")); /* Assimp's place, from its log */
#endif
    /* from a file, and the cap taken from max_allocation when max_bytes is 0 */
    FILE *f = fopen(ot_tmp("huge_array.fbx"), "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, n, f), n);
    fclose(f);
    ossa_load_options o = {0};
    o.max_allocation = (size_t)CAP_MIB << 20;
    assert_int_equal(ossa_assimp_load_file_bounded(ot_tmp("huge_array.fbx"), &o, 0, &a, &d), OSSA_ERROR_LIMIT);
    assert_non_null(strstr(d.message, "memory cap of 256 MiB"));
    double secs = now_s() - t0, child = -1;
#ifdef HAVE_POSIX_RUSAGE
    child = probe_peak_mib(buf, n);
    assert_true(child > 0);
#endif
    print_message("bounded: two loads %.2f s; peak RSS: the probe <= %.0f MiB, this process %.0f MiB\n", secs, child,
                  self0);
#ifdef HAVE_POSIX_RUSAGE
#ifdef UNDER_ASAN
    /* ASan writes the shadow of the allocation that crosses the cap (1/8 of its 4 GiB) before
     * the allocator hook ends the probe */
    assert_true(child <= self0 + CAP_MIB + 4096 / 8 + 64);
#else
    assert_true(child <= self0 + CAP_MIB + 64);
#endif
#endif
}

/* A file that fits loads exactly as without the bound; a small cap stops even it. */
static void test_bounded_fits(void **state) {
    (void)state;
    SKIP_UNDER_VALGRIND();
    uint8_t buf[1024];
    size_t n = huge_array_fbx(buf, 9);
    ossa_asset *a = NULL, *b = NULL;
    ossa_diagnostic d;
    assert_int_equal(ossa_assimp_load_memory(buf, n, "fbx", NULL, &a, &d), OSSA_OK);
    assert_int_equal(ossa_assimp_load_memory_bounded(buf, n, "fbx", NULL, (size_t)CAP_MIB << 20, &b, &d), OSSA_OK);
    assert_int_equal(a->mesh_count, 1);
    assert_int_equal(b->mesh_count, 1);
    assert_int_equal(b->meshes[0]->vertex_count, 3);
    assert_int_equal(a->node_count, b->node_count);
    ossa_asset_destroy(a);
    ossa_asset_destroy(b);
    /* ossa's own errors come back as the unbounded load gives them */
    ossa_asset *c = NULL;
    assert_int_equal(ossa_assimp_load_file_bounded("/nonexistent/model.fbx", NULL, 0, &c, &d), OSSA_ERROR_IO);
    assert_null(c);
    /* a real FBX: the same clips, and the probe's cost */
    const char *fbx = ot_asset("fbx/huesitos.fbx");
    if (!fbx) return; /* the generated cases above ran */
    char path[1024];
    snprintf(path, sizeof path, "%s", fbx);
    double t0 = now_s();
    assert_int_equal(ossa_assimp_load_file(path, NULL, &a, &d), OSSA_OK);
    double t1 = now_s();
    assert_int_equal(ossa_assimp_load_file_bounded(path, NULL, 0, &b, &d), OSSA_OK);
    double t2 = now_s();
    print_message("huesitos.fbx: %.3f s unbounded, %.3f s bounded\n", t1 - t0, t2 - t1);
    assert_int_equal(a->clip_count, b->clip_count);
    assert_int_equal(a->skeleton->joint_count, b->skeleton->joint_count);
    ossa_asset_destroy(a);
    ossa_asset_destroy(b);
}

/* A file that crashes Assimp (docs/hostile-input.md) is an error, not a crash of the caller. */
static void test_bounded_assimp_crash(void **state) {
    (void)state;
    SKIP_UNDER_VALGRIND();
    const char *src = getenv("OSSA_SOURCE_DIR");
    if (!src) {
        ot_skip_reason("OSSA_SOURCE_DIR unset (CTest sets it)");
        skip();
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/assimp-crashes/collada-segv-null.dae", src);
    ossa_asset *a = NULL;
    ossa_diagnostic d;
    assert_int_equal(ossa_assimp_load_file_bounded(path, NULL, 0, &a, &d), OSSA_ERROR_PARSE);
    assert_null(a);
    print_message("crash: %s\n", d.message);
    assert_non_null(strstr(d.message, "probe process"));
}

/* The CLI: --max-memory bounds Assimp's memory, LIMIT within seconds. Outside ASan the tool
 * runs under a 4 GiB address-space guard so a build without the bound fails the case
 * instead of taking 6 GiB. */
static void test_tool_max_memory_assimp(void **state) {
    (void)state;
    SKIP_UNDER_VALGRIND();
    const char *tool = ot_tool();
    if (!tool) skip();
    uint8_t buf[1024];
    size_t n = huge_array_fbx(buf, HUGE_COUNT);
    FILE *f = fopen(ot_tmp("huge_array_cli.fbx"), "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, n, f), n);
    fclose(f);
    char cmd[2300];
#ifdef UNDER_ASAN
    const char *guard = "";
#else
    const char *guard = "ulimit -v 4194304; ";
#endif
    snprintf(cmd, sizeof cmd, "%s'%s' info '%s' --max-memory 256M 2>&1", guard, tool, ot_tmp("huge_array_cli.fbx"));
    char *out = NULL;
    double t0 = now_s();
    assert_int_not_equal(ot_run(cmd, &out), 0);
    double secs = now_s() - t0;
    print_message("%s(%.2f s)\n", out, secs);
    assert_non_null(strstr(out, "OSSA_ERROR_LIMIT"));
    assert_non_null(strstr(out, "memory cap of 256 MiB"));
    assert_non_null(strstr(out, "--max-memory"));
    free(out);
}

/* ------------------------------------------------------------ the tool on other formats */

static void test_tool_any_format(void **state) {
    (void)state;
    const char *tool = ot_tool();
    const char *fbx = ot_asset("fbx/huesitos.fbx");
    if (!tool || !fbx) skip();
    char f[1024], woman[1024], cmd[4096];
    snprintf(f, sizeof f, "%s", fbx);
    snprintf(woman, sizeof woman, "%s", ot_asset("Woman/Woman.gltf"));
    char *out = NULL;
    /* info reads FBX by detected format */
    snprintf(cmd, sizeof cmd, "'%s' info --json '%s'", tool, f);
    assert_int_equal(ot_run(cmd, &out), 0);
    assert_non_null(strstr(out, "\"Armature|Action\""));
    free(out);
    /* --importer gltf on an FBX: the detected format and the way out */
    snprintf(cmd, sizeof cmd, "'%s' info --importer gltf '%s' 2>&1", tool, f);
    assert_int_not_equal(ot_run(cmd, &out), 0);
    assert_non_null(strstr(out, "detected format FBX (binary), not glTF 2.0"));
    assert_non_null(strstr(out, "--importer assimp"));
    free(out);
    /* glTF through Assimp on request */
    snprintf(cmd, sizeof cmd, "'%s' sample --importer assimp '%s' --clip Walking --time 0.5 --vertices 1", tool, woman);
    assert_int_equal(ot_run(cmd, &out), 0);
    assert_non_null(strstr(out, "\"Walking\""));
    free(out);
    /* clips from a separate file */
    snprintf(cmd, sizeof cmd, "'%s' info '%s' --anim '%s'", tool, f, f);
    assert_int_equal(ot_run(cmd, &out), 0);
    assert_non_null(strstr(out, "clips: 2"));
    free(out);
    /* --max-memory: LIMIT names what was being loaded and the running total */
    snprintf(cmd, sizeof cmd, "'%s' info --max-memory 64K '%s' 2>&1", tool, woman);
    assert_int_not_equal(ot_run(cmd, &out), 0);
    assert_non_null(strstr(out, "the load already holds"));
    assert_non_null(strstr(out, "--max-memory"));
    free(out);
    snprintf(cmd, sizeof cmd, "'%s' info --max-memory 4G '%s'", tool, woman);
    assert_int_equal(ot_run(cmd, &out), 0);
    free(out);
}

static void test_format_detection(void **state) {
    (void)state;
    assert_int_equal(ossa_format_detect("Kaydara FBX Binary  \0", 21, "x.fbx"), OSSA_FORMAT_FBX_BINARY);
    assert_int_equal(ossa_format_detect("; FBX 7.4.0 project file", 24, NULL), OSSA_FORMAT_FBX_ASCII);
    const char dae[] = "<?xml version=\"1.0\"?>\n<COLLADA xmlns=\"http://www.collada.org\">";
    assert_int_equal(ossa_format_detect(dae, sizeof dae - 1, "a.dae"), OSSA_FORMAT_COLLADA);
    assert_int_equal(ossa_format_detect("glTF\2\0\0\0", 8, NULL), OSSA_FORMAT_GLB);
    assert_int_equal(ossa_format_detect("{\"asset\":{}}", 12, NULL), OSSA_FORMAT_GLTF);
    assert_int_equal(ossa_format_detect("v 0 0 0\n", 8, "m.obj"), OSSA_FORMAT_OBJ);
    assert_int_equal(ossa_format_detect("\x01\x02", 2, NULL), OSSA_FORMAT_UNKNOWN);
    assert_int_equal(ossa_format_detect(NULL, 5, NULL), OSSA_FORMAT_UNKNOWN);
    assert_string_equal(ossa_format_name(OSSA_FORMAT_COLLADA), "COLLADA");
    assert_string_equal(ossa_format_name((ossa_file_format)999), "unknown");
}

static void test_arguments(void **state) {
    (void)state;
    ossa_asset *a = (ossa_asset *)(uintptr_t)1;
    ossa_diagnostic d;
    assert_int_equal(ossa_assimp_load_file(NULL, NULL, &a, &d), OSSA_ERROR_INVALID_ARGUMENT);
    assert_null(a);
    assert_int_equal(ossa_assimp_load_file("x", NULL, NULL, &d), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_assimp_load_memory("x", 0, NULL, NULL, &a, &d), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_assimp_load_clips("x", NULL, NULL, &a, &d), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_assimp_load_file("/nonexistent/model.fbx", NULL, &a, &d), OSSA_ERROR_IO);
    a = (ossa_asset *)(uintptr_t)1;
    assert_int_equal(ossa_assimp_load_file_bounded(NULL, NULL, 0, &a, &d), OSSA_ERROR_INVALID_ARGUMENT);
    assert_null(a);
    assert_int_equal(ossa_assimp_load_file_bounded("x", NULL, 0, NULL, &d), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_assimp_load_memory_bounded("x", 0, NULL, NULL, 0, &a, &d), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_assimp_load_clips_bounded("x", NULL, NULL, 0, &a, NULL), OSSA_ERROR_INVALID_ARGUMENT);
    assert_non_null(ossa_assimp_version());
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arguments),
        cmocka_unit_test(test_format_detection),
        cmocka_unit_test(test_scene_nodes_skin_clip),
        cmocka_unit_test(test_scene_influences_dropped),
        cmocka_unit_test(test_scene_more_than_8_influences),
        cmocka_unit_test(test_scene_pre_post_states),
        cmocka_unit_test(test_scene_keys),
        cmocka_unit_test(test_scene_parent_links),
        cmocka_unit_test(test_scene_non_finite_normals),
        cmocka_unit_test(test_scene_hostile),
        cmocka_unit_test(test_cross_importer_gltf),
        cmocka_unit_test(test_cross_importer_morph),
        cmocka_unit_test(test_cross_importer_strips_and_fans),
        cmocka_unit_test(test_fbx_against_assimp_tool),
        cmocka_unit_test(test_clips_from_separate_file),
        cmocka_unit_test(test_hostile_fbx_dae),
        cmocka_unit_test(test_tool_any_format),
        cmocka_unit_test(test_skeleton_without_meshes),
        cmocka_unit_test(test_point_and_line_meshes),
        cmocka_unit_test(test_hl1_mdl_bone_hierarchy),
        cmocka_unit_test(test_hl1_mdl_clip_matches_assimp),
        cmocka_unit_test(test_bounded_limit),
        cmocka_unit_test(test_bounded_fits),
        cmocka_unit_test(test_bounded_assimp_crash),
        cmocka_unit_test(test_tool_max_memory_assimp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else
static void test_without_assimp(void **state) {
    (void)state;
    ot_skip_reason("built without Assimp (libassimp-dev absent): the Assimp importer is not tested");
    skip();
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_without_assimp)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif
