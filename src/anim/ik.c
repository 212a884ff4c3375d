/* IK jobs (include/ossa/ik.h): two-bone, aim, CCD / FABRIK chains with limits, apply.
 *
 * Geometry is solved in model space (two-bone, chains) or joint space (aim); a model-space
 * rotation G about a joint becomes the local correction c = W^-1 G W (W: the joint's model
 * matrix) by mapping the quaternion's vector part through the adjugate of W's 3x3 part,
 * which is exact for rotation x uniform scale, mirrored or not. */
#include <ossa/ik.h>
#include <ossa/pose.h>

#include <math.h>
#include <stdio.h>

#include "core/job.h"
#include "math/fast.h" /* inline TRS -> matrix and affine products */

#define IK_PI 3.14159265358979323846f

/* ---- small vector helpers (inlined; the public math calls are not) ---- */
static inline ossa_vec3 v3(float x, float y, float z) { ossa_vec3 v = {x, y, z}; return v; }
static inline ossa_vec3 vadd(ossa_vec3 a, ossa_vec3 b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline ossa_vec3 vsub(ossa_vec3 a, ossa_vec3 b) { return v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline ossa_vec3 vmul(ossa_vec3 a, float s) { return v3(a.x * s, a.y * s, a.z * s); }
static inline float vdot(ossa_vec3 a, ossa_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline ossa_vec3 vcross(ossa_vec3 a, ossa_vec3 b) {
    return v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline float vlen(ossa_vec3 a) { return sqrtf(vdot(a, a)); }
static inline bool vzero(ossa_vec3 a) { return a.x == 0.0f && a.y == 0.0f && a.z == 0.0f; }
static inline bool vfinite(ossa_vec3 a) { return isfinite(a.x) && isfinite(a.y) && isfinite(a.z); }
/* Unit vector, or `fallback` when a is (nearly) zero. */
static inline ossa_vec3 vnorm_or(ossa_vec3 a, ossa_vec3 fallback) {
    float l = vlen(a);
    return l > 1e-20f ? vmul(a, 1.0f / l) : fallback;
}
static inline float clampf(float x, float lo, float hi) { return x < lo ? lo : (x > hi ? hi : x); }

static inline ossa_quat qmake(float x, float y, float z, float w) { ossa_quat q = {x, y, z, w}; return q; }
static inline ossa_quat qidentity(void) { return qmake(0, 0, 0, 1); }
static inline ossa_quat qconj(ossa_quat q) { return qmake(-q.x, -q.y, -q.z, q.w); }
static inline ossa_quat qnorm(ossa_quat q) {
    float l2 = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
    if (!(l2 > 1e-30f) || !isfinite(l2)) return qidentity();
    float s = 1.0f / sqrtf(l2);
    return qmake(q.x * s, q.y * s, q.z * s, q.w * s);
}
static inline ossa_quat qaxis(ossa_vec3 unit_axis, float angle) {
    float s = sinf(0.5f * angle);
    return qmake(unit_axis.x * s, unit_axis.y * s, unit_axis.z * s, cosf(0.5f * angle));
}
static inline ossa_vec3 qrot(ossa_quat q, ossa_vec3 v) {
    ossa_vec3 u = v3(q.x, q.y, q.z);
    ossa_vec3 t = vmul(vcross(u, v), 2.0f);
    return vadd(vadd(v, vmul(t, q.w)), vcross(u, t));
}
/* Shortest rotation taking direction a to direction b (neither needs to be unit):
 * normalize(a x b, |a||b| + a.b), the half-way quaternion. */
static ossa_quat qfrom_to(ossa_vec3 a, ossa_vec3 b) {
    float ab = sqrtf(vdot(a, a) * vdot(b, b));
    if (!(ab > 1e-30f)) return qidentity();
    float d = vdot(a, b);
    if (d < -0.999999f * ab) { /* opposite: half turn about any axis perpendicular to a */
        ossa_vec3 axis = vcross(v3(1, 0, 0), a);
        if (vdot(axis, axis) < 1e-6f * vdot(a, a)) axis = vcross(v3(0, 1, 0), a);
        axis = vnorm_or(axis, v3(0, 0, 1));
        return qmake(axis.x, axis.y, axis.z, 0.0f);
    }
    ossa_vec3 c = vcross(a, b);
    return qnorm(qmake(c.x, c.y, c.z, ab + d));
}
/* The rotation q scaled to weight w of its angle (shorter arc). */
static ossa_quat qweight(ossa_quat q, float w) {
    if (w >= 1.0f) return q;
    if (q.w < 0.0f) q = qmake(-q.x, -q.y, -q.z, -q.w);
    ossa_vec3 v = v3(q.x, q.y, q.z);
    float s = vlen(v);
    if (w <= 0.0f || !(s > 1e-20f)) return qidentity();
    float angle = 2.0f * atan2f(s, q.w);
    return qaxis(vmul(v, 1.0f / s), angle * w);
}
static ossa_quat qslerp_weight(ossa_quat a, ossa_quat b, float w) {
    if (w >= 1.0f) return b;
    if (w <= 0.0f) return a;
    /* a * weight(a^-1 b): the same arc as slerp, exact at both ends */
    return qnorm(ossa__quat_mul(a, qweight(ossa__quat_mul(qconj(a), b), w)));
}
static bool quat_is_zero(ossa_quat q) { return q.x == 0.0f && q.y == 0.0f && q.z == 0.0f && q.w == 0.0f; }

/* ---- matrices ---- */
static inline ossa_vec3 mcol(const ossa_mat4 *m, int c) { return v3(m->m[c * 4], m->m[c * 4 + 1], m->m[c * 4 + 2]); }
static inline ossa_vec3 mpos(const ossa_mat4 *m) { return mcol(m, 3); }
static inline ossa_vec3 mlinear(const ossa_mat4 *m, ossa_vec3 v) {
    return vadd(vadd(vmul(mcol(m, 0), v.x), vmul(mcol(m, 1), v.y)), vmul(mcol(m, 2), v.z));
}
static inline float mdet3(const ossa_mat4 *m) { return vdot(mcol(m, 0), vcross(mcol(m, 1), mcol(m, 2))); }
/* adj(M3) * v = det(M3) * M3^-1 * v */
static inline ossa_vec3 madj(const ossa_mat4 *m, ossa_vec3 v) {
    ossa_vec3 c0 = mcol(m, 0), c1 = mcol(m, 1), c2 = mcol(m, 2);
    return v3(vdot(vcross(c1, c2), v), vdot(vcross(c2, c0), v), vdot(vcross(c0, c1), v));
}
/* The rotation q with its axis replaced by the direction of `image` (the axis mapped into
 * another frame): same angle. Identity for a singular map. */
static ossa_quat with_axis(ossa_quat q, ossa_vec3 image) {
    float s = vlen(v3(q.x, q.y, q.z)), l = vlen(image);
    if (!(s > 0.0f) || !(l > 0.0f)) return qmake(0, 0, 0, s > 0.0f || q.w >= 0.0f ? 1.0f : -1.0f);
    image = vmul(image, s / l);
    return qmake(image.x, image.y, image.z, q.w);
}
/* Model-space rotation g about a joint -> the same rotation in the joint's frame (W^-1 g W):
 * the axis through adj(W) = det(W) W^-1, whose sign also flips the axis of a mirrored W. */
static ossa_quat to_joint(const ossa_mat4 *m, ossa_quat g) { return with_axis(g, madj(m, v3(g.x, g.y, g.z))); }
/* Joint-frame rotation c -> model-space rotation about the joint (W c W^-1). */
static ossa_quat to_model(const ossa_mat4 *m, ossa_quat c) {
    ossa_vec3 image = mlinear(m, v3(c.x, c.y, c.z));
    return with_axis(c, mdet3(m) < 0.0f ? vmul(image, -1.0f) : image);
}
static bool weight_ok(bool has_weight, float weight) {
    return !has_weight || (isfinite(weight) && weight >= 0.0f && weight <= 1.0f);
}

/* ---- two-bone ---- */

ossa_result ossa_ik_two_bone_job_validate(const ossa_ik_two_bone_job *job, ossa_diagnostic *diag) {
    const ossa_result bad = OSSA_ERROR_INVALID_ARGUMENT;
    if (!job) return ossa__job_fail(diag, bad, "job", "NULL");
    if (!job->start_joint) return ossa__job_fail(diag, bad, "start_joint", "NULL");
    if (!job->mid_joint) return ossa__job_fail(diag, bad, "mid_joint", "NULL");
    if (!job->end_joint) return ossa__job_fail(diag, bad, "end_joint", "NULL");
    if (!job->start_correction) return ossa__job_fail(diag, bad, "start_correction", "NULL");
    if (!job->mid_correction) return ossa__job_fail(diag, bad, "mid_correction", "NULL");
    if (!vfinite(job->target)) return ossa__job_fail(diag, bad, "target", "not finite");
    if (!vfinite(job->pole_vector)) return ossa__job_fail(diag, bad, "pole_vector", "not finite");
    if (!vfinite(job->mid_axis)) return ossa__job_fail(diag, bad, "mid_axis", "not finite");
    if (!(job->softness >= 0.0f && job->softness < 1.0f))
        return ossa__job_fail(diag, bad, "softness", "%g outside [0, 1)", (double)job->softness);
    if (!isfinite(job->twist_angle)) return ossa__job_fail(diag, bad, "twist_angle", "not finite");
    if (!weight_ok(job->has_weight, job->weight))
        return ossa__job_fail(diag, bad, "weight", "%g outside [0, 1]", (double)job->weight);
    return OSSA_OK;
}

/* The bend about unit axis n (model space, through the mid joint) that puts the end
 * joint at distance d from the start: |R(delta) v - u| = d with u = start - mid and
 * v = end - mid, i.e. b cos(delta) + c sin(delta) = k. Of the two roots, the one bending
 * positively about n (n . (R v x u) >= 0), then the smaller turn; the nearest reachable
 * distance when d is out of range. Returns (cos delta, sin delta) without trigonometry;
 * (1, 0) when v or u lies along n (no hinge). */
static void mid_bend(ossa_vec3 u, ossa_vec3 v, ossa_vec3 n, float d, float *cos_out, float *sin_out) {
    float vn = vdot(v, n), uu = vdot(u, u), vv = vdot(v, v);
    ossa_vec3 vperp = vsub(v, vmul(n, vn));
    ossa_vec3 nxv = vcross(n, v);
    float a = vdot(u, n) * vn, b = vdot(u, vperp), c = vdot(u, nxv);
    float r = sqrtf(b * b + c * c);
    *cos_out = 1.0f, *sin_out = 0.0f;
    if (!(r > 1e-12f * (uu + vv))) return;
    float k = 0.5f * (uu + vv - d * d) - a;
    float cphi = b / r, sphi = c / r; /* phi = atan2(c, b), alpha = acos(k / r): delta = phi +- alpha */
    float ca = clampf(k / r, -1.0f, 1.0f), sa = sqrtf(fmaxf(0.0f, 1.0f - ca * ca));
    bool best_positive = false;
    float best_cos = -INFINITY;
    for (int i = 0; i < 2; i++) {
        float sign = i ? -1.0f : 1.0f;
        float cd = cphi * ca - sign * sphi * sa, sd = sphi * ca + sign * cphi * sa;
        /* R v = n vn + vperp cos + (n x v) sin */
        ossa_vec3 rv = vadd(vadd(vmul(n, vn), vmul(vperp, cd)), vmul(nxv, sd));
        bool positive = vdot(n, vcross(rv, u)) >= -1e-7f * (uu + vv);
        if ((positive && !best_positive) || (positive == best_positive && cd > best_cos)) {
            *cos_out = cd, *sin_out = sd;
            best_cos = cd;
            best_positive = positive;
        }
    }
}

/* Rotation about unit `axis` by the angle whose cosine and sine are c and s (c^2 + s^2 = 1),
 * from half-angle identities that stay accurate near 0 and near a half turn. */
static ossa_quat qaxis_cos_sin(ossa_vec3 axis, float c, float s) {
    float hs, hc; /* sin and cos of half the angle */
    if (c >= 0.0f) {
        hc = sqrtf(0.5f * (1.0f + c));
        hs = s / (2.0f * hc);
    } else {
        hs = sqrtf(0.5f * (1.0f - c));
        if (s < 0.0f) hs = -hs;
        hc = s / (2.0f * hs);
    }
    return qmake(axis.x * hs, axis.y * hs, axis.z * hs, hc);
}

/* Rotation about unit `axis` taking a to b, both perpendicular to it (a half turn about
 * axis when they are opposite). */
static ossa_quat qturn_about(ossa_vec3 axis, ossa_vec3 a, ossa_vec3 b) {
    float c = vdot(a, b), s = vdot(axis, vcross(a, b)), r = sqrtf(c * c + s * s);
    if (!(r > 0.0f)) return qidentity();
    return qaxis_cos_sin(axis, c / r, s / r);
}

ossa_result ossa_ik_two_bone_job_run(ossa_ik_two_bone_job *job) {
    ossa_result r = ossa_ik_two_bone_job_validate(job, NULL);
    if (r != OSSA_OK) return r;
    const float w = job->has_weight ? job->weight : 1.0f;
    ossa_vec3 s = mpos(job->start_joint), m = mpos(job->mid_joint), e = mpos(job->end_joint), t = job->target;
    ossa_vec3 u = vsub(s, m), v = vsub(e, m);
    float l1 = vlen(u), l2 = vlen(v), chain = l1 + l2;

    /* Hinge axis in model space: positive rotation about it = positive about mid_axis. */
    ossa_vec3 n;
    ossa_vec3 bend = vcross(v, u);
    ossa_vec3 pole_bend = vcross(job->pole_vector, vsub(e, s)); /* a straight chain bends towards the pole */
    if (vzero(job->mid_axis) && vdot(bend, bend) > 1e-6f * l1 * l1 * l2 * l2) { /* bent by > 0.06 deg */
        n = vnorm_or(bend, v3(0, 0, 1));
    } else if (vzero(job->mid_axis) &&
               vdot(pole_bend, pole_bend) > 1e-12f * vdot(job->pole_vector, job->pole_vector) * chain * chain) {
        n = vnorm_or(pole_bend, v3(0, 0, 1));
    } else {
        ossa_vec3 axis = vzero(job->mid_axis) ? v3(0, 0, 1) : job->mid_axis;
        n = vnorm_or(mlinear(job->mid_joint, axis), v3(0, 0, 1));
        if (mdet3(job->mid_joint) < 0.0f) n = vmul(n, -1.0f);
    }

    /* Soft limit: the reach approaches the full chain length asymptotically. */
    ossa_vec3 st = vsub(t, s);
    float d = vlen(st);
    if (job->softness > 0.0f && chain > 0.0f) {
        float da = (1.0f - job->softness) * chain, ds = job->softness * chain;
        if (d > da) {
            float soft = da + ds * (1.0f - expf(-(d - da) / ds));
            st = vmul(st, soft / d);
            d = soft;
        }
    }

    float cos_d, sin_d;
    mid_bend(u, v, n, d, &cos_d, &sin_d);
    ossa_quat gm = qaxis_cos_sin(n, cos_d, sin_d);
    ossa_quat gs = qidentity();
    if (d > 1e-20f) {
        ossa_vec3 axis = vmul(st, 1.0f / d);
        ossa_vec3 end1 = vsub(vadd(m, qrot(gm, v)), s);
        gs = qfrom_to(end1, st);
        if (!vzero(job->pole_vector)) {
            ossa_vec3 m1 = qrot(gs, vsub(m, s));
            ossa_vec3 mp = vsub(m1, vmul(axis, vdot(axis, m1)));
            ossa_vec3 pp = vsub(job->pole_vector, vmul(axis, vdot(axis, job->pole_vector)));
            if (vlen(mp) > 1e-5f * l1 && vlen(pp) > 1e-5f * vlen(job->pole_vector))
                gs = ossa__quat_mul(qturn_about(axis, mp, pp), gs);
        }
        if (job->twist_angle != 0.0f) gs = ossa__quat_mul(qaxis(axis, job->twist_angle), gs);
    }
    ossa_quat gs_w = gs, gm_w = gm;
    if (w < 1.0f) {
        gs_w = qweight(gs, w);
        gm_w = qaxis(n, atan2f(sin_d, cos_d) * w);
    }
    *job->start_correction = to_joint(job->start_joint, gs_w);
    *job->mid_correction = to_joint(job->mid_joint, gm_w);
    ossa_vec3 end = vadd(s, qrot(gs_w, vadd(vsub(m, s), qrot(gm_w, v))));
    job->reached = vlen(vsub(end, t)) <= 1e-4f * chain;
    return OSSA_OK;
}

/* ---- aim ---- */

ossa_result ossa_ik_aim_job_validate(const ossa_ik_aim_job *job, ossa_diagnostic *diag) {
    const ossa_result bad = OSSA_ERROR_INVALID_ARGUMENT;
    if (!job) return ossa__job_fail(diag, bad, "job", "NULL");
    if (!job->joint) return ossa__job_fail(diag, bad, "joint", "NULL");
    if (!job->joint_correction) return ossa__job_fail(diag, bad, "joint_correction", "NULL");
    if (!vfinite(job->target)) return ossa__job_fail(diag, bad, "target", "not finite");
    if (!vfinite(job->forward)) return ossa__job_fail(diag, bad, "forward", "not finite");
    if (!vfinite(job->up)) return ossa__job_fail(diag, bad, "up", "not finite");
    if (!vfinite(job->offset)) return ossa__job_fail(diag, bad, "offset", "not finite");
    if (!vfinite(job->pole_vector)) return ossa__job_fail(diag, bad, "pole_vector", "not finite");
    if (!isfinite(job->twist_angle)) return ossa__job_fail(diag, bad, "twist_angle", "not finite");
    if (!weight_ok(job->has_weight, job->weight))
        return ossa__job_fail(diag, bad, "weight", "%g outside [0, 1]", (double)job->weight);
    return OSSA_OK;
}

ossa_result ossa_ik_aim_job_run(ossa_ik_aim_job *job) {
    ossa_result res = ossa_ik_aim_job_validate(job, NULL);
    if (res != OSSA_OK) return res;
    const float w = job->has_weight ? job->weight : 1.0f;
    *job->joint_correction = qidentity();
    job->reached = false;
    ossa_mat4 inv;
    if (!ossa_mat4_inverse_affine(job->joint, &inv)) return OSSA_OK; /* singular joint: nothing to aim */
    ossa_vec3 tj = ossa_mat4_transform_point(&inv, job->target);
    float tl = vlen(tj);
    if (!(tl > 1e-20f)) return OSSA_OK; /* target at the joint */
    ossa_vec3 f = vnorm_or(job->forward, v3(1, 0, 0));
    ossa_vec3 up = vzero(job->up) ? v3(0, 1, 0) : job->up;
    ossa_vec3 o = job->offset;

    /* The point of the ray o + s f at the target's distance from the joint. */
    float of = vdot(o, f), disc = of * of - vdot(o, o) + tl * tl;
    bool solvable = disc >= 0.0f;
    float ray_s = solvable ? -of + sqrtf(disc) : 0.0f;
    if (ray_s <= 0.0f) solvable = false;
    ossa_vec3 p = solvable ? vadd(o, vmul(f, ray_s)) : f;
    ossa_quat rot = qfrom_to(p, tj);

    ossa_vec3 axis = vmul(tj, 1.0f / tl);
    if (!vzero(job->pole_vector)) {
        ossa_vec3 pole = ossa_mat4_transform_vector(&inv, job->pole_vector);
        ossa_vec3 u1 = qrot(rot, up);
        ossa_vec3 up_p = vsub(u1, vmul(axis, vdot(axis, u1)));
        ossa_vec3 pole_p = vsub(pole, vmul(axis, vdot(axis, pole)));
        if (vlen(up_p) > 1e-6f * vlen(up) && vlen(pole_p) > 1e-6f * vlen(pole))
            rot = ossa__quat_mul(qturn_about(axis, up_p, pole_p), rot);
    }
    if (job->twist_angle != 0.0f) rot = ossa__quat_mul(qaxis(axis, job->twist_angle), rot);
    if (w < 1.0f) rot = qweight(rot, w);
    rot = qnorm(rot);
    *job->joint_correction = rot;

    /* Distance from the target to the corrected ray, in joint space. */
    ossa_vec3 o2 = qrot(rot, o), f2 = qrot(rot, f), to = vsub(tj, o2);
    float along = vdot(to, f2);
    ossa_vec3 off = vsub(to, vmul(f2, along));
    job->reached = solvable && along > 0.0f && vlen(off) <= 1e-4f * tl;
    return OSSA_OK;
}

/* ---- limits ---- */

/* A limit with its defaults resolved and the sines and cosines of its half angles, so that
 * applying it needs no trigonometry (the chain jobs prepare each limit once per run). */
typedef struct limit_prep {
    ossa_ik_limit_type type;
    bool limit_twist;
    ossa_quat ref;  /* unit */
    ossa_vec3 axis; /* unit */
    float c0, s0;   /* hinge: half min_angle; ball: half cone_angle */
    float c1, s1;   /* hinge: half max_angle; ball: half max_twist */
} limit_prep;

static limit_prep limit_prepare(const ossa_ik_limit *l, ossa_vec3 bone) {
    limit_prep p;
    p.type = l->type;
    p.limit_twist = l->limit_twist;
    p.ref = quat_is_zero(l->reference) ? qidentity() : qnorm(l->reference);
    bool hinge = l->type == OSSA_IK_LIMIT_HINGE;
    p.axis = !vzero(l->axis) ? vnorm_or(l->axis, v3(0, 0, 1)) : hinge ? v3(0, 0, 1) : vnorm_or(bone, v3(0, 1, 0));
    float h0 = 0.5f * (hinge ? l->min_angle : l->cone_angle), h1 = 0.5f * (hinge ? l->max_angle : l->max_twist);
    p.c0 = cosf(h0), p.s0 = sinf(h0), p.c1 = cosf(h1), p.s1 = sinf(h1);
    return p;
}

/* The nearest allowed rotation (see ossa_ik_limit). Half angles are compared through their
 * sines and cosines: with the quaternion's w >= 0 they lie in [-pi/2, pi/2]. */
static ossa_quat limit_apply(const limit_prep *p, ossa_quat q) {
    if (p->type == OSSA_IK_LIMIT_NONE || p->type >= OSSA_IK_LIMIT_TYPE_COUNT) return q;
    ossa_quat r = qnorm(ossa__quat_mul(qconj(p->ref), q));
    if (r.w < 0.0f) r = qmake(-r.x, -r.y, -r.z, -r.w);
    const ossa_vec3 axis = p->axis;
    float proj = vdot(v3(r.x, r.y, r.z), axis), l = sqrtf(proj * proj + r.w * r.w);
    float sh = l > 0.0f ? proj / l : 0.0f, ch = l > 0.0f ? r.w / l : 1.0f; /* the twist's half angle */
    if (p->type == OSSA_IK_LIMIT_HINGE) { /* keep only the twist, clamped to [min, max] */
        if (sh < p->s0) sh = p->s0, ch = p->c0;
        if (sh > p->s1) sh = p->s1, ch = p->c1;
        r = qmake(axis.x * sh, axis.y * sh, axis.z * sh, ch);
    } else {
        ossa_quat twist = qmake(axis.x * sh, axis.y * sh, axis.z * sh, ch);
        ossa_quat swing = ossa__quat_mul(r, qconj(twist));
        if (swing.w < 0.0f) swing = qmake(-swing.x, -swing.y, -swing.z, -swing.w);
        ossa_vec3 sv = v3(swing.x, swing.y, swing.z);
        float sl = vlen(sv);
        if (swing.w < p->c0 && sl > 0.0f) { /* swing beyond the cone: onto its edge */
            sv = vmul(sv, p->s0 / sl);
            swing = qmake(sv.x, sv.y, sv.z, p->c0);
        }
        if (p->limit_twist && ch < p->c1) {
            float st = sh < 0.0f ? -p->s1 : p->s1;
            twist = qmake(axis.x * st, axis.y * st, axis.z * st, p->c1);
        }
        r = ossa__quat_mul(swing, twist);
    }
    return qnorm(ossa__quat_mul(p->ref, r));
}

ossa_quat ossa_ik_limit_apply(const ossa_ik_limit *limit, ossa_vec3 bone, ossa_quat q) {
    if (!limit || limit->type == OSSA_IK_LIMIT_NONE || limit->type >= OSSA_IK_LIMIT_TYPE_COUNT) return q;
    limit_prep p = limit_prepare(limit, bone);
    return limit_apply(&p, q);
}

/* NULL for a valid limit, else what is wrong with it. */
static const char *limit_fault(const ossa_ik_limit *l) {
    if ((unsigned)l->type >= OSSA_IK_LIMIT_TYPE_COUNT) return "unknown type";
    if (l->type == OSSA_IK_LIMIT_NONE) return NULL;
    if (!vfinite(l->axis) || !isfinite(l->reference.x) || !isfinite(l->reference.y) || !isfinite(l->reference.z) ||
        !isfinite(l->reference.w))
        return "axis or reference not finite";
    const float pi = IK_PI * (1.0f + 1e-6f);
    if (l->type == OSSA_IK_LIMIT_HINGE) {
        if (!(l->min_angle <= l->max_angle && l->min_angle >= -pi && l->max_angle <= pi))
            return "hinge angles not min <= max within [-pi, pi]";
    } else {
        if (!(l->cone_angle >= 0.0f && l->cone_angle <= pi)) return "cone_angle outside [0, pi]";
        if (l->limit_twist && !(l->max_twist >= 0.0f && l->max_twist <= pi)) return "max_twist outside [0, pi]";
    }
    return NULL;
}

/* ---- chains ---- */

/* The chain's spans: NULLs and counts. */
static ossa_result chain_spans_validate(const ossa_ik_chain_job *job, ossa_diagnostic *diag) {
    const ossa_result bad = OSSA_ERROR_INVALID_ARGUMENT, small = OSSA_ERROR_BUFFER_TOO_SMALL;
    if (!job->joints) return ossa__job_fail(diag, bad, "joints", "NULL");
    if (job->joint_count < 2 || job->joint_count > OSSA_IK_CHAIN_MAX)
        return ossa__job_fail(diag, bad, "joint_count", "%u outside [2, %d]", job->joint_count, OSSA_IK_CHAIN_MAX);
    if (!job->locals) return ossa__job_fail(diag, bad, "locals", "NULL");
    if (!job->parents) return ossa__job_fail(diag, bad, "parents", "NULL");
    if (!job->models) return ossa__job_fail(diag, bad, "models", "NULL");
    if (!job->rotations) return ossa__job_fail(diag, bad, "rotations", "NULL");
    if (job->parent_count < job->local_count)
        return ossa__job_fail(diag, small, "parent_count", "%u < local_count %u", job->parent_count, job->local_count);
    if (job->model_count < job->local_count)
        return ossa__job_fail(diag, small, "model_count", "%u < local_count %u", job->model_count, job->local_count);
    if (job->rotation_count < job->joint_count)
        return ossa__job_fail(diag, small, "rotation_count", "%u < joint_count %u", job->rotation_count,
                              job->joint_count);
    if (job->limits && job->limit_count < job->joint_count)
        return ossa__job_fail(diag, small, "limit_count", "%u < joint_count %u", job->limit_count, job->joint_count);
    return OSSA_OK;
}

ossa_result ossa_ik_chain_job_validate(const ossa_ik_chain_job *job, ossa_diagnostic *diag) {
    const ossa_result bad = OSSA_ERROR_INVALID_ARGUMENT;
    if (!job) return ossa__job_fail(diag, bad, "job", "NULL");
    if ((unsigned)job->solver >= OSSA_IK_SOLVER_COUNT)
        return ossa__job_fail(diag, bad, "solver", "unknown solver %d", (int)job->solver);
    ossa_result r = chain_spans_validate(job, diag);
    if (r != OSSA_OK) return r;
    if (!vfinite(job->target)) return ossa__job_fail(diag, bad, "target", "not finite");
    if (!(job->tolerance >= 0.0f) || !isfinite(job->tolerance))
        return ossa__job_fail(diag, bad, "tolerance", "negative or not finite");
    if (!weight_ok(job->has_weight, job->weight))
        return ossa__job_fail(diag, bad, "weight", "%g outside [0, 1]", (double)job->weight);
    for (uint32_t k = 0; k < job->joint_count; k++) {
        char field[32];
        uint32_t j = job->joints[k];
        snprintf(field, sizeof field, "joints[%u]", k);
        if (j >= job->local_count) return ossa__job_fail(diag, bad, field, "%u >= local_count %u", j, job->local_count);
        if (k == 0 && job->parents[j] >= (int32_t)job->local_count)
            return ossa__job_fail(diag, bad, field, "its parent %d >= local_count", (int)job->parents[j]);
        if (k > 0 && job->parents[j] != (int32_t)job->joints[k - 1])
            return ossa__job_fail(diag, bad, field, "%u is not the child of joints[%u]", j, k - 1);
        const char *why = job->limits ? limit_fault(&job->limits[k]) : NULL;
        snprintf(field, sizeof field, "limits[%u]", k);
        if (why) return ossa__job_fail(diag, bad, field, "%s", why);
    }
    return OSSA_OK;
}

typedef struct chain_state {
    const ossa_ik_chain_job *job;
    uint32_t n;
    ossa_mat4 root_parent;
    ossa_quat q[OSSA_IK_CHAIN_MAX];
    ossa_mat4 m[OSSA_IK_CHAIN_MAX];
    limit_prep limits[OSSA_IK_CHAIN_MAX]; /* when job->limits */
} chain_state;

static ossa_mat4 joint_matrix(const chain_state *c, uint32_t i) {
    ossa_transform t = c->job->locals[c->job->joints[i]];
    t.rotation = c->q[i];
    ossa_mat4 local, out;
    ossa__trs_to_mat4(&t, &local);
    ossa__mat4_mul_affine(i ? &c->m[i - 1] : &c->root_parent, &local, &out);
    return out;
}
static void chain_forward(chain_state *c, uint32_t from) {
    for (uint32_t i = from; i < c->n; i++) c->m[i] = joint_matrix(c, i);
}
static ossa_vec3 child_offset(const chain_state *c, uint32_t i) {
    return c->job->locals[c->job->joints[i + 1]].translation;
}
/* Rotates joint i (model-space rotation g about it), limited; returns the model-space
 * rotation actually applied. */
static ossa_quat chain_rotate(chain_state *c, uint32_t i, ossa_quat g) {
    ossa_quat qn = qnorm(ossa__quat_mul(c->q[i], to_joint(&c->m[i], g)));
    if (!c->job->limits) { /* free joint: g is what turns */
        c->q[i] = qn;
        return g;
    }
    qn = limit_apply(&c->limits[i], qn);
    ossa_quat applied = to_model(&c->m[i], qnorm(ossa__quat_mul(qconj(c->q[i]), qn)));
    c->q[i] = qn;
    return applied;
}

/* Rotates (and limits) each joint from the root out so its bone points at want[i + 1];
 * refreshes the matrices and pos[] (the positions of the chain joints). */
static void point_bones(chain_state *c, const ossa_vec3 *want, ossa_vec3 *pos) {
    for (uint32_t i = 0; i + 1 < c->n; i++) {
        c->m[i] = joint_matrix(c, i);
        ossa_vec3 p = mpos(&c->m[i]);
        ossa_vec3 child = ossa_mat4_transform_point(&c->m[i], child_offset(c, i));
        chain_rotate(c, i, qfrom_to(vsub(child, p), vsub(want[i + 1], p)));
        c->m[i] = joint_matrix(c, i);
        pos[i] = p;
    }
    c->m[c->n - 1] = joint_matrix(c, c->n - 1);
    pos[c->n - 1] = mpos(&c->m[c->n - 1]);
}

static uint32_t solve_ccd(chain_state *c, ossa_vec3 t, float tol, uint32_t iterations) {
    uint32_t it = 0;
    for (; it < iterations; it++) {
        ossa_vec3 e = mpos(&c->m[c->n - 1]);
        if (vlen(vsub(e, t)) <= tol) break;
        for (uint32_t k = c->n - 1; k-- > 0;) {
            ossa_vec3 p = mpos(&c->m[k]), a = vsub(e, p);
            ossa_quat g = chain_rotate(c, k, qfrom_to(a, vsub(t, p)));
            e = vadd(p, qrot(g, a));
        }
        chain_forward(c, 0);
    }
    return it;
}

static uint32_t solve_fabrik(chain_state *c, ossa_vec3 t, float tol, uint32_t iterations, ossa_vec3 *pos,
                             const float *len) {
    const uint32_t n = c->n;
    ossa_vec3 want[OSSA_IK_CHAIN_MAX];
    uint32_t it = 0;
    for (; it < iterations; it++) {
        if (vlen(vsub(pos[n - 1], t)) <= tol) break;
        /* backward: the effector on the target, each joint at its bone length from the next */
        want[n - 1] = t;
        for (uint32_t i = n - 1; i-- > 0;) {
            ossa_vec3 dir = vnorm_or(vsub(pos[i], want[i + 1]), vnorm_or(vsub(pos[i], pos[i + 1]), v3(0, 1, 0)));
            want[i] = vadd(want[i + 1], vmul(dir, len[i]));
        }
        /* forward: the root stays, each bone turns (within its limit) to its wanted child */
        point_bones(c, want, pos);
    }
    return it;
}

ossa_result ossa_ik_chain_job_run(ossa_ik_chain_job *job) {
    ossa_result r = ossa_ik_chain_job_validate(job, NULL);
    if (r != OSSA_OK) return r;
    chain_state c;
    c.job = job;
    c.n = job->joint_count;
    int32_t parent = job->parents[job->joints[0]];
    c.root_parent = parent >= 0 ? job->models[parent] : ossa_mat4_identity();
    for (uint32_t i = 0; i < c.n; i++) c.q[i] = qnorm(job->locals[job->joints[i]].rotation);
    for (uint32_t i = 0; job->limits && i + 1 < c.n; i++)
        c.limits[i] = limit_prepare(&job->limits[i], child_offset(&c, i));
    chain_forward(&c, 0);
    ossa_vec3 pos[OSSA_IK_CHAIN_MAX];
    float len[OSSA_IK_CHAIN_MAX], chain = 0.0f;
    for (uint32_t i = 0; i < c.n; i++) pos[i] = mpos(&c.m[i]);
    for (uint32_t i = 0; i + 1 < c.n; i++) chain += len[i] = vlen(vsub(pos[i + 1], pos[i]));
    const float tol = job->tolerance > 0.0f ? job->tolerance : 1e-5f * chain;
    const uint32_t iterations = job->iterations ? job->iterations : 16;
    if (vlen(vsub(job->target, pos[0])) >= chain) {
        /* Out of reach: the straight chain towards the target, which CCD and FABRIK both
         * converge to (CCD slowly), in one root-to-tip pass (a second one for limits). */
        ossa_vec3 want[OSSA_IK_CHAIN_MAX], dir = vnorm_or(vsub(job->target, pos[0]), v3(0, 1, 0));
        float along = 0.0f;
        for (uint32_t i = 0; i < c.n; i++) {
            want[i] = vadd(pos[0], vmul(dir, along));
            if (i + 1 < c.n) along += len[i];
        }
        uint32_t passes = iterations < 2 ? iterations : 2;
        for (uint32_t p = 0; p < passes; p++) point_bones(&c, want, pos);
        job->iterations_run = passes;
    } else {
        if (job->solver == OSSA_IK_SOLVER_CCD)
            job->iterations_run = solve_ccd(&c, job->target, tol, iterations);
        else
            job->iterations_run = solve_fabrik(&c, job->target, tol, iterations, pos, len);
    }
    job->distance = vlen(vsub(mpos(&c.m[c.n - 1]), job->target));
    job->reached = job->distance <= tol;
    const float w = job->has_weight ? job->weight : 1.0f;
    for (uint32_t i = 0; i < c.n; i++)
        job->rotations[i] = qslerp_weight(job->locals[job->joints[i]].rotation, c.q[i], w);
    job->rotations[c.n - 1] = job->locals[job->joints[c.n - 1]].rotation;
    return OSSA_OK;
}

/* ---- apply ---- */

/* The local-to-model job that recomputes joints [lowest listed joint, local_count). */
static ossa_local_to_model_job apply_model_job(const ossa_ik_apply_job *job, uint32_t begin) {
    ossa_local_to_model_job lm = {0};
    lm.parents = job->parents;
    lm.parent_count = job->local_count;
    lm.input = job->locals;
    lm.input_count = job->local_count;
    lm.output = job->models;
    lm.output_count = job->model_count;
    lm.begin = begin;
    lm.end = job->local_count;
    return lm;
}

ossa_result ossa_ik_apply_job_validate(const ossa_ik_apply_job *job, ossa_diagnostic *diag) {
    const ossa_result bad = OSSA_ERROR_INVALID_ARGUMENT, small = OSSA_ERROR_BUFFER_TOO_SMALL;
    if (!job) return ossa__job_fail(diag, bad, "job", "NULL");
    if (!job->joints) return ossa__job_fail(diag, bad, "joints", "NULL");
    if (job->joint_count == 0) return ossa__job_fail(diag, bad, "joint_count", "0");
    if (!job->corrections == !job->rotations) /* exactly one */
        return ossa__job_fail(diag, bad, "corrections", "give either corrections or rotations, not %s",
                              job->corrections ? "both" : "neither");
    if (!job->parents) return ossa__job_fail(diag, bad, "parents", "NULL");
    if (!job->locals) return ossa__job_fail(diag, bad, "locals", "NULL");
    if (!job->models) return ossa__job_fail(diag, bad, "models", "NULL");
    if (job->corrections && job->correction_count < job->joint_count)
        return ossa__job_fail(diag, small, "correction_count", "%u < joint_count %u", job->correction_count,
                              job->joint_count);
    if (job->rotations && job->rotation_count < job->joint_count)
        return ossa__job_fail(diag, small, "rotation_count", "%u < joint_count %u", job->rotation_count,
                              job->joint_count);
    if (job->parent_count < job->local_count)
        return ossa__job_fail(diag, small, "parent_count", "%u < local_count %u", job->parent_count, job->local_count);
    if (job->model_count < job->local_count)
        return ossa__job_fail(diag, small, "model_count", "%u < local_count %u", job->model_count, job->local_count);
    uint32_t begin = UINT32_MAX;
    for (uint32_t k = 0; k < job->joint_count; k++) {
        if (job->joints[k] >= job->local_count) {
            char field[32];
            snprintf(field, sizeof field, "joints[%u]", k);
            return ossa__job_fail(diag, bad, field, "%u >= local_count %u", job->joints[k], job->local_count);
        }
        if (job->joints[k] < begin) begin = job->joints[k];
    }
    ossa_local_to_model_job lm = apply_model_job(job, begin); /* parents-first over the range: names "parents" */
    return ossa_local_to_model_job_validate(&lm, diag);
}

ossa_result ossa_ik_apply_job_run(ossa_ik_apply_job *job) {
    ossa_result r = ossa_ik_apply_job_validate(job, NULL);
    if (r != OSSA_OK) return r;
    uint32_t begin = UINT32_MAX;
    for (uint32_t k = 0; k < job->joint_count; k++) {
        uint32_t j = job->joints[k];
        ossa_quat *q = &job->locals[j].rotation;
        *q = job->corrections ? qnorm(ossa__quat_mul(*q, job->corrections[k])) : qnorm(job->rotations[k]);
        if (j < begin) begin = j;
    }
    ossa_local_to_model_job lm = apply_model_job(job, begin);
    return ossa_local_to_model_job_run(&lm);
}

/* ---- ray / triangle ---- */

bool ossa_ray_intersect_triangle(ossa_vec3 origin, ossa_vec3 dir, ossa_vec3 a, ossa_vec3 b, ossa_vec3 c, float *t) {
    ossa_vec3 e1 = vsub(b, a), e2 = vsub(c, a);
    ossa_vec3 p = vcross(dir, e2);
    float det = vdot(e1, p);
    if (fabsf(det) < 1e-20f) return false; /* parallel or degenerate */
    float inv = 1.0f / det;
    ossa_vec3 s = vsub(origin, a);
    float bu = vdot(s, p) * inv;
    if (bu < 0.0f || bu > 1.0f) return false;
    ossa_vec3 qv = vcross(s, e1);
    float bv = vdot(dir, qv) * inv;
    if (bv < 0.0f || bu + bv > 1.0f) return false;
    float hit = vdot(e2, qv) * inv;
    if (!(hit >= 0.0f)) return false;
    if (t) *t = hit;
    return true;
}
