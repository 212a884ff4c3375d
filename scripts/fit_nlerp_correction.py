#!/usr/bin/env python3
"""Derives the nlerp time correction of compressed rotations (ossa__slerp_fit, built format 7).

The built clips interpolate a rotation's two keys a, b (dot d = a.b >= 0 after the shorter arc) as
nlerp(a, b, s') with a corrected parameter s'. slerp(a, b, s) lies on the chord direction of
nlerp(a, b, s*) for

    s* = 1/2 + tan(h W) / (2 tan(W / 2)),   h = s - 1/2,  W = acos(d)

(sin(s W) / (sin(s W) + sin((1 - s) W)), by the sum-to-product identities), so the kernels need a
cheap s' close to s*. The form is

    s' = s + s h (s - 1) k,   k = q0 + x (q1 + x q2),   x = h^2,
    q_j = u (c0j + u (c1j + u (c2j + u c3j))),          u = 1 - d,

exact at s = 0, 1/2, 1 and at d = 1 for every coefficient. The 12 coefficients are a weighted
least-squares fit of k to the exact one over d in [0, 1) and h in (0, 1/2), weighted so that the
rotation-angle error is held near 1e-7 rad for d >= 0.7 (a rotation of up to 91 degrees between
two keys) and allowed to grow below it. Run with plain python3: prints the C literals and the
error table (coefficients rounded to float, arithmetic in double), against Zeux's correction that
format 6 used.
"""
import math
import struct

I, J, CUT = 4, 3, 0.7  # powers of u (1..4), of x (0..2), the dot above which the weight is flat


def exact_k(h, d):
    w = math.acos(d)
    p = math.tan(h * w) / (2.0 * h * math.tan(w / 2.0))  # (s* - 1/2) / h
    return (p - 1.0) / (h * h - 0.25)


def basis(h, u):
    return [u ** (i + 1) * h ** (2 * j) for i in range(I) for j in range(J)]


def solve(a, b):
    n = len(a)
    m = [row[:] + [v] for row, v in zip(a, b)]
    for i in range(n):
        p = max(range(i, n), key=lambda r: abs(m[r][i]))
        m[i], m[p] = m[p], m[i]
        for r in range(n):
            if r != i:
                f = m[r][i] / m[i][i]
                for c in range(i, n + 1):
                    m[r][c] -= f * m[i][c]
    return [m[i][n] / m[i][i] for i in range(n)]


def target(d):
    return 1e-7 if d >= CUT else 1e-7 * math.exp(12.0 * (CUT - d))


def fit():
    n = I * J
    ata = [[0.0] * n for _ in range(n)]
    atb = [0.0] * n
    for a in range(400):
        d = 1.0 - (a / 400.0) ** 1.5
        if d >= 1.0:
            continue
        for b in range(1, 33):
            h = b / 66.0
            row = basis(h, 1.0 - d)
            k = exact_k(h, d)
            wt = (2.0 * math.acos(d) * abs(h * (h * h - 0.25)) / target(d)) ** 2  # the angle error's scale
            for i in range(n):
                atb[i] += wt * row[i] * k
                for j in range(n):
                    ata[i][j] += wt * row[i] * row[j]
    return [struct.unpack('f', struct.pack('f', c))[0] for c in solve(ata, atb)]


def corrected(s, d, c):
    u, h = 1.0 - d, s - 0.5
    q = [0.0] * J
    for j in range(J):
        acc = c[(I - 1) * J + j]
        for i in range(I - 2, -1, -1):
            acc = c[i * J + j] + u * acc
        q[j] = u * acc
    x = h * h
    return s + s * h * (s - 1.0) * (q[0] + x * (q[1] + x * q[2]))


def zeux(s, d):
    a = 1.0904 + d * (-3.2452 + d * (3.55645 - d * 1.43519))
    b = 0.848013 + d * (-1.06021 + d * 0.215638)
    h = s - 0.5
    return s + s * h * (s - 1.0) * (a * h * h + b)


def angle_error(sp, s, d):
    """Rotation angle (2 x the quaternion angle, rad) between nlerp at sp and slerp at s."""
    w = math.acos(d)
    along = math.atan2(sp * math.sin(w), (1.0 - sp) + sp * math.cos(w))
    return 2.0 * abs(along - s * w)


if __name__ == '__main__':
    c = fit()
    for i in range(I):
        print('    {' + ', '.join('%.9gf' % c[i * J + j] for j in range(J)) + '},  /* u^%d */' % (i + 1))
    print('dot      new max err   Zeux max err (rad)')
    for d in [0.0, 0.2, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.998, 0.9999]:
        e_new = max(angle_error(corrected(s / 256.0, d, c), s / 256.0, d) for s in range(1, 256))
        e_old = max(angle_error(zeux(s / 256.0, d), s / 256.0, d) for s in range(1, 256))
        print('%.4f   %.2e      %.2e' % (d, e_new, e_old))
