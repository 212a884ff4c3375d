#!/usr/bin/env python3
"""Independent reference implementation of the `ossa sample` JSON contract.

Written from the glTF 2.0 specification and the JSON contract in docs/architecture.md only (not from
ossa's C sources), in plain Python 3 with the standard library, in double
precision.  It is slow and obvious on purpose.

Usage as a tool (prints the same JSON structure as `ossa sample`):
    gltf_reference.py FILE [--clip INDEX|NAME] [--time T]... [--vertices N|all] [--loop]

Usage as a module:
    g = load_gltf(path)
    result = sample(g, clip_index_or_None, [times], vertices=64 or None, loop=False)
"""

import base64
import json
import math
import os
import struct
import sys
import urllib.parse

# ---------------------------------------------------------------------------
# Loading: .gltf (external / data: buffers) and .glb
# ---------------------------------------------------------------------------

GLB_MAGIC = 0x46546C67  # 'glTF'
CHUNK_JSON = 0x4E4F534A
CHUNK_BIN = 0x004E4942


class GltfError(Exception):
    pass


class Gltf:
    def __init__(self, path, doc, buffers):
        self.path = path
        self.doc = doc
        self.buffers = buffers  # list of bytes
        self._acc_cache = {}

    def get(self, key):
        return self.doc.get(key, [])


def _decode_data_uri(uri):
    head, sep, payload = uri.partition(',')
    if not sep:
        raise GltfError('bad data URI')
    if head.endswith(';base64'):
        return base64.b64decode(payload)
    return urllib.parse.unquote_to_bytes(payload)


def load_gltf(path):
    with open(path, 'rb') as f:
        raw = f.read()
    glb_bin = None
    if raw[:4] == b'glTF':
        if len(raw) < 12:
            raise GltfError('GLB header truncated')
        magic, version, length = struct.unpack_from('<III', raw, 0)
        if version != 2:
            raise GltfError('GLB version %d' % version)
        if length != len(raw):
            raise GltfError('GLB length mismatch')
        off = 12
        json_bytes = None
        while off + 8 <= length:
            clen, ctype = struct.unpack_from('<II', raw, off)
            off += 8
            data = raw[off:off + clen]
            if len(data) != clen:
                raise GltfError('GLB chunk truncated')
            if ctype == CHUNK_JSON and json_bytes is None:
                json_bytes = data
            elif ctype == CHUNK_BIN and glb_bin is None:
                glb_bin = data
            off += (clen + 3) & ~3
        if json_bytes is None:
            raise GltfError('GLB without JSON chunk')
        doc = json.loads(json_bytes.decode('utf-8'))
    else:
        doc = json.loads(raw.decode('utf-8-sig'))
    base = os.path.dirname(os.path.abspath(path))
    buffers = []
    for i, b in enumerate(doc.get('buffers', [])):
        uri = b.get('uri')
        if uri is None:
            if glb_bin is None:
                raise GltfError('buffer %d has no uri and no GLB BIN chunk' % i)
            data = glb_bin
        elif uri.startswith('data:'):
            data = _decode_data_uri(uri)
        else:
            fname = os.path.join(base, urllib.parse.unquote(uri))
            with open(fname, 'rb') as f:
                data = f.read()
        if len(data) < b.get('byteLength', 0):
            raise GltfError('buffer %d shorter than byteLength' % i)
        buffers.append(data)
    return Gltf(path, doc, buffers)


# ---------------------------------------------------------------------------
# Accessors
# ---------------------------------------------------------------------------

COMP = {5120: ('b', 1), 5121: ('B', 1), 5122: ('h', 2), 5123: ('H', 2),
        5125: ('I', 4), 5126: ('f', 4)}
NCOMP = {'SCALAR': 1, 'VEC2': 2, 'VEC3': 3, 'VEC4': 4,
         'MAT2': 4, 'MAT3': 9, 'MAT4': 16}


def _normalize(ct, v):
    if ct == 5120:
        return max(v / 127.0, -1.0)
    if ct == 5121:
        return v / 255.0
    if ct == 5122:
        return max(v / 32767.0, -1.0)
    if ct == 5123:
        return v / 65535.0
    if ct == 5125:
        return v / 4294967295.0
    return float(v)


def _element_layout(acc_type, ct):
    """Byte offsets of each component inside one element, and the element size
    (matrix columns start on 4-byte boundaries)."""
    fmt, size = COMP[ct]
    n = NCOMP[acc_type]
    if acc_type in ('MAT2', 'MAT3', 'MAT4'):
        rows = {'MAT2': 2, 'MAT3': 3, 'MAT4': 4}[acc_type]
        col_bytes = (rows * size + 3) & ~3
        offs = [c * col_bytes + r * size for c in range(rows) for r in range(rows)]
        return offs, col_bytes * rows
    return [k * size for k in range(n)], n * size


def _read_view_elements(g, view_index, byte_offset, count, acc_type, ct, normalized):
    fmt, size = COMP[ct]
    offs, elem_size = _element_layout(acc_type, ct)
    views = g.get('bufferViews')
    view = views[view_index]
    buf = g.buffers[view['buffer']]
    vstart = view.get('byteOffset', 0)
    vlen = view['byteLength']
    stride = view.get('byteStride') or elem_size
    if vstart + vlen > len(buf):
        raise GltfError('bufferView %d outside its buffer' % view_index)
    if count and byte_offset + stride * (count - 1) + elem_size > vlen:
        raise GltfError('accessor outside bufferView %d' % view_index)
    out = []
    st = struct.Struct('<' + fmt)
    for e in range(count):
        base = vstart + byte_offset + e * stride
        comps = [st.unpack_from(buf, base + o)[0] for o in offs]
        if normalized:
            comps = [_normalize(ct, c) for c in comps]
        elif ct == 5126:
            comps = [float(c) for c in comps]
        out.append(comps)
    return out


def read_accessor(g, index):
    """List of elements, each a list of components (floats if normalized or
    float; ints otherwise)."""
    if index in g._acc_cache:
        return g._acc_cache[index]
    acc = g.get('accessors')[index]
    ct = acc['componentType']
    acc_type = acc['type']
    count = acc['count']
    normalized = acc.get('normalized', False)
    n = NCOMP[acc_type]
    if 'bufferView' in acc:
        data = _read_view_elements(g, acc['bufferView'], acc.get('byteOffset', 0),
                                   count, acc_type, ct, normalized)
    else:
        zero = 0.0 if (normalized or ct == 5126) else 0
        data = [[zero] * n for _ in range(count)]
    sp = acc.get('sparse')
    if sp:
        scount = sp['count']
        ind = sp['indices']
        idx = _read_view_elements(g, ind['bufferView'], ind.get('byteOffset', 0),
                                  scount, 'SCALAR', ind['componentType'], False)
        val = sp['values']
        vals = _read_view_elements(g, val['bufferView'], val.get('byteOffset', 0),
                                   scount, acc_type, ct, normalized)
        for (i,), v in zip(idx, vals):
            if i >= count:
                raise GltfError('sparse index out of range')
            data[i] = v
    g._acc_cache[index] = data
    return data


# ---------------------------------------------------------------------------
# Math (double precision; quaternions x y z w; matrices column-major 16)
# ---------------------------------------------------------------------------

IDENTITY = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0,
            0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0]


def mat_mul(a, b):
    r = [0.0] * 16
    for c in range(4):
        for row in range(4):
            r[c * 4 + row] = (a[row] * b[c * 4] + a[4 + row] * b[c * 4 + 1] +
                              a[8 + row] * b[c * 4 + 2] + a[12 + row] * b[c * 4 + 3])
    return r


def trs_matrix(t, q, s):
    x, y, z, w = q
    xx, yy, zz = x * x, y * y, z * z
    xy, xz, yz = x * y, x * z, y * z
    wx, wy, wz = w * x, w * y, w * z
    r00 = 1 - 2 * (yy + zz); r01 = 2 * (xy - wz);     r02 = 2 * (xz + wy)
    r10 = 2 * (xy + wz);     r11 = 1 - 2 * (xx + zz); r12 = 2 * (yz - wx)
    r20 = 2 * (xz - wy);     r21 = 2 * (yz + wx);     r22 = 1 - 2 * (xx + yy)
    return [r00 * s[0], r10 * s[0], r20 * s[0], 0.0,
            r01 * s[1], r11 * s[1], r21 * s[1], 0.0,
            r02 * s[2], r12 * s[2], r22 * s[2], 0.0,
            t[0], t[1], t[2], 1.0]


def quat_from_rotmat(m):
    """m: 3x3 as m[row][col], a proper rotation."""
    tr = m[0][0] + m[1][1] + m[2][2]
    if tr > 0:
        s = math.sqrt(tr + 1.0) * 2
        w = 0.25 * s
        x = (m[2][1] - m[1][2]) / s
        y = (m[0][2] - m[2][0]) / s
        z = (m[1][0] - m[0][1]) / s
    elif m[0][0] > m[1][1] and m[0][0] > m[2][2]:
        s = math.sqrt(1.0 + m[0][0] - m[1][1] - m[2][2]) * 2
        w = (m[2][1] - m[1][2]) / s
        x = 0.25 * s
        y = (m[0][1] + m[1][0]) / s
        z = (m[0][2] + m[2][0]) / s
    elif m[1][1] > m[2][2]:
        s = math.sqrt(1.0 + m[1][1] - m[0][0] - m[2][2]) * 2
        w = (m[0][2] - m[2][0]) / s
        x = (m[0][1] + m[1][0]) / s
        y = 0.25 * s
        z = (m[1][2] + m[2][1]) / s
    else:
        s = math.sqrt(1.0 + m[2][2] - m[0][0] - m[1][1]) * 2
        w = (m[1][0] - m[0][1]) / s
        x = (m[0][2] + m[2][0]) / s
        y = (m[1][2] + m[2][1]) / s
        z = 0.25 * s
    return quat_normalize([x, y, z, w])


def decompose(mat):
    """Column-major affine matrix -> (t, q, s).  A negative determinant is
    folded into the x scale."""
    t = [mat[12], mat[13], mat[14]]
    cols = [[mat[0], mat[1], mat[2]], [mat[4], mat[5], mat[6]], [mat[8], mat[9], mat[10]]]
    s = [math.sqrt(sum(v * v for v in c)) for c in cols]
    det = (cols[0][0] * (cols[1][1] * cols[2][2] - cols[2][1] * cols[1][2]) -
           cols[1][0] * (cols[0][1] * cols[2][2] - cols[2][1] * cols[0][2]) +
           cols[2][0] * (cols[0][1] * cols[1][2] - cols[1][1] * cols[0][2]))
    if det < 0:
        s[0] = -s[0]
    rc = [[c[k] / s[i] if s[i] != 0 else 0.0 for k in range(3)] for i, c in enumerate(cols)]
    m = [[rc[col][row] for col in range(3)] for row in range(3)]
    return t, quat_from_rotmat(m), s


def matrix_is_trs(node):
    """False for a node matrix that no TRS reproduces (shear, perspective,
    zero scale): its local TRS is then undefined, only its world matrix is."""
    if 'matrix' not in node:
        return True
    m = [float(c) for c in node['matrix']]
    if m[3] != 0 or m[7] != 0 or m[11] != 0 or m[15] != 1:
        return False
    t, q, s = decompose(m)
    if any(abs(c) < 1e-12 for c in s):
        return False
    r = trs_matrix(t, q, s)
    tol = 1e-5 * max(1.0, max(abs(c) for c in m))
    return all(abs(a - b) <= tol for a, b in zip(r, m))


def quat_normalize(q):
    n = math.sqrt(sum(c * c for c in q))
    if n == 0:
        return [0.0, 0.0, 0.0, 1.0]
    return [c / n for c in q]


def slerp(a, b, u):
    d = sum(x * y for x, y in zip(a, b))
    if d < 0:
        b = [-c for c in b]
        d = -d
    if d > 0.9999995:
        r = [x + (y - x) * u for x, y in zip(a, b)]
        return quat_normalize(r)
    theta = math.acos(min(1.0, d))
    sn = math.sin(theta)
    wa = math.sin((1 - u) * theta) / sn
    wb = math.sin(u * theta) / sn
    return quat_normalize([wa * x + wb * y for x, y in zip(a, b)])


def transform_point(m, p, w):
    return [m[0] * p[0] + m[4] * p[1] + m[8] * p[2] + m[12] * w,
            m[1] * p[0] + m[5] * p[1] + m[9] * p[2] + m[13] * w,
            m[2] * p[0] + m[6] * p[1] + m[10] * p[2] + m[14] * w]


# ---------------------------------------------------------------------------
# Animation sampling
# ---------------------------------------------------------------------------

def clip_range(g, anim_index):
    anim = g.get('animations')[anim_index]
    lo, hi = math.inf, -math.inf
    for s in anim['samplers']:
        inp = read_accessor(g, s['input'])
        for (t,) in inp:
            lo = min(lo, t)
            hi = max(hi, t)
    if lo == math.inf:
        lo = hi = 0.0
    return lo, hi


def sampler_input_valid(g, sampler):
    """glTF: sampler input times MUST increase strictly.  A channel whose
    input does not (e.g. an input accessor without bufferView, i.e. all
    zeros) has no defined value and is ignored, leaving the rest pose."""
    times = [e[0] for e in read_accessor(g, sampler['input'])]
    if not times:
        return False
    return all(b > a for a, b in zip(times, times[1:]))


def eval_sampler(g, sampler, path, t, ncomp):
    """Value of a sampler at time t (clamped to its keys)."""
    times = [e[0] for e in read_accessor(g, sampler['input'])]
    out = read_accessor(g, sampler['output'])
    # Flatten the output into per-key vectors of ncomp components.
    flat = [c for e in out for c in e]
    interp = sampler.get('interpolation', 'LINEAR')
    n = len(times)
    cubic = interp == 'CUBICSPLINE'

    def value(k):
        if cubic:
            base = (3 * k + 1) * ncomp
        else:
            base = k * ncomp
        return [float(c) for c in flat[base:base + ncomp]]

    def in_tangent(k):
        base = (3 * k) * ncomp
        return [float(c) for c in flat[base:base + ncomp]]

    def out_tangent(k):
        base = (3 * k + 2) * ncomp
        return [float(c) for c in flat[base:base + ncomp]]

    if n == 0:
        return None
    if n == 1 or t <= times[0]:
        v = value(0)
    elif t >= times[-1]:
        v = value(n - 1)
    else:
        # largest i with times[i] <= t
        lo, hi = 0, n - 1
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if times[mid] <= t:
                lo = mid
            else:
                hi = mid
        i = lo
        t0, t1 = times[i], times[i + 1]
        dt = t1 - t0
        u = (t - t0) / dt
        if interp == 'STEP':
            v = value(i)
        elif cubic:
            p0, p1 = value(i), value(i + 1)
            m0 = [c * dt for c in out_tangent(i)]
            m1 = [c * dt for c in in_tangent(i + 1)]
            u2, u3 = u * u, u * u * u
            h00 = 2 * u3 - 3 * u2 + 1
            h10 = u3 - 2 * u2 + u
            h01 = -2 * u3 + 3 * u2
            h11 = u3 - u2
            v = [h00 * a + h10 * b + h01 * c + h11 * d for a, b, c, d in zip(p0, m0, p1, m1)]
        else:
            a, b = value(i), value(i + 1)
            if path == 'rotation':
                v = slerp(a, b, u)
            else:
                v = [x + (y - x) * u for x, y in zip(a, b)]
    if path == 'rotation':
        v = quat_normalize(v)
    return v


# ---------------------------------------------------------------------------
# Pose, world matrices, skinning
# ---------------------------------------------------------------------------

def rest_trs(node):
    if 'matrix' in node:
        return decompose([float(c) for c in node['matrix']])
    return ([float(c) for c in node.get('translation', [0, 0, 0])],
            quat_normalize([float(c) for c in node.get('rotation', [0, 0, 0, 1])]),
            [float(c) for c in node.get('scale', [1, 1, 1])])


def morph_target_count(g, mesh):
    return max((len(p.get('targets', [])) for p in mesh.get('primitives', [])), default=0)


def pose_at(g, anim_index, t):
    """Local TRS per node, animated morph weights per node, and whether the
    node's local matrix is its own (un-animated) glTF matrix."""
    nodes = g.get('nodes')
    local = [list(rest_trs(n)) for n in nodes]
    animated = [False] * len(nodes)
    weights = {}
    if anim_index is not None:
        anim = g.get('animations')[anim_index]
        for ch in anim['channels']:
            tgt = ch['target']
            if 'node' not in tgt:
                continue
            ni = tgt['node']
            path = tgt['path']
            sampler = anim['samplers'][ch['sampler']]
            if not sampler_input_valid(g, sampler):
                continue
            if path == 'translation':
                v = eval_sampler(g, sampler, path, t, 3)
                if v is not None:
                    local[ni][0] = v
                    animated[ni] = True
            elif path == 'rotation':
                v = eval_sampler(g, sampler, path, t, 4)
                if v is not None:
                    local[ni][1] = v
                    animated[ni] = True
            elif path == 'scale':
                v = eval_sampler(g, sampler, path, t, 3)
                if v is not None:
                    local[ni][2] = v
                    animated[ni] = True
            elif path == 'weights':
                node = nodes[ni]
                if 'mesh' not in node:
                    continue
                nt = morph_target_count(g, g.get('meshes')[node['mesh']])
                if nt:
                    v = eval_sampler(g, sampler, path, t, nt)
                    if v is not None:
                        weights[ni] = v
    return local, animated, weights


def world_matrices(g, local, animated):
    nodes = g.get('nodes')
    parent = [None] * len(nodes)
    for i, n in enumerate(nodes):
        for c in n.get('children', []):
            parent[c] = i
    locm = []
    for i, n in enumerate(nodes):
        if 'matrix' in n and not animated[i]:
            locm.append([float(c) for c in n['matrix']])
        else:
            locm.append(trs_matrix(*local[i]))
    world = [None] * len(nodes)

    def get(i, depth=0):
        if world[i] is None:
            if depth > len(nodes):
                raise GltfError('node cycle')
            p = parent[i]
            world[i] = locm[i] if p is None else mat_mul(get(p, depth + 1), locm[i])
        return world[i]

    for i in range(len(nodes)):
        get(i)
    return world


def node_morph_weights(g, ni, weights_anim):
    """Morph weights of node ni's mesh: animated, else node.weights, else mesh.weights,
    else zeros (glTF); None when the node has no mesh with morph targets."""
    node = g.get('nodes')[ni]
    if 'mesh' not in node:
        return None
    mesh = g.get('meshes')[node['mesh']]
    nt = morph_target_count(g, mesh)
    if not nt:
        return None
    if ni in weights_anim:
        return list(weights_anim[ni])
    if len(node.get('weights', [])) == nt:
        return [float(c) for c in node['weights']]
    if len(mesh.get('weights', [])) == nt:
        return [float(c) for c in mesh['weights']]
    return [0.0] * nt


def skin_primitives(g, world, weights_anim, vertices):
    out = []
    nodes = g.get('nodes')
    for ni, node in enumerate(nodes):
        if 'mesh' not in node or 'skin' not in node:
            continue
        mesh = g.get('meshes')[node['mesh']]
        skin = g.get('skins')[node['skin']]
        joints = skin['joints']
        if 'inverseBindMatrices' in skin:
            ibms = [[float(c) for c in m] for m in read_accessor(g, skin['inverseBindMatrices'])]
        else:
            ibms = [IDENTITY] * len(joints)
        palette = [mat_mul(world[j], ibms[k]) for k, j in enumerate(joints)]
        mw = node_morph_weights(g, ni, weights_anim)
        for pi, prim in enumerate(mesh.get('primitives', [])):
            attrs = prim.get('attributes', {})
            if 'POSITION' not in attrs:
                continue
            pos = read_accessor(g, attrs['POSITION'])
            nor = read_accessor(g, attrs['NORMAL']) if 'NORMAL' in attrs else None
            nv = len(pos) if vertices is None else min(vertices, len(pos))
            pos = [list(p) for p in pos[:nv]]
            nor = [list(n) for n in nor[:nv]] if nor is not None else None
            for k, tgt in enumerate(prim.get('targets', [])):
                w = mw[k] if k < len(mw) else 0.0
                if w == 0.0:
                    continue
                if 'POSITION' in tgt:
                    d = read_accessor(g, tgt['POSITION'])
                    for v in range(nv):
                        for c in range(3):
                            pos[v][c] += w * d[v][c]
                if nor is not None and 'NORMAL' in tgt:
                    d = read_accessor(g, tgt['NORMAL'])
                    for v in range(nv):
                        for c in range(3):
                            nor[v][c] += w * d[v][c]
            sets = []
            for s in range(8):
                if 'JOINTS_%d' % s in attrs and 'WEIGHTS_%d' % s in attrs:
                    sets.append((read_accessor(g, attrs['JOINTS_%d' % s]),
                                 read_accessor(g, attrs['WEIGHTS_%d' % s])))
                else:
                    break
            spos, snor = [], []
            for v in range(nv):
                infl = []
                for js, ws in sets:
                    for j, w in zip(js[v], ws[v]):
                        if w != 0:
                            infl.append((int(j), float(w)))
                total = sum(w for _, w in infl)
                p = [0.0, 0.0, 0.0]
                n = [0.0, 0.0, 0.0]
                if total > 0:
                    for j, w in infl:
                        w /= total
                        m = palette[j]
                        tp = transform_point(m, pos[v], 1.0)
                        for c in range(3):
                            p[c] += w * tp[c]
                        if nor is not None:
                            tn = transform_point(m, nor[v], 0.0)
                            for c in range(3):
                                n[c] += w * tn[c]
                else:
                    p = list(pos[v])
                    if nor is not None:
                        n = list(nor[v])
                spos.append(p)
                if nor is not None:
                    ln = math.sqrt(sum(c * c for c in n))
                    snor.append([c / ln for c in n] if ln > 0 else n)
            out.append({'node': ni, 'mesh': node['mesh'], 'primitive': pi,
                        'positions': spos, 'normals': snor})
    return out


def resolve_clip(g, clip):
    """clip: None, an int, or a string (index or name)."""
    if clip is None:
        return None
    anims = g.get('animations')
    if isinstance(clip, int):
        idx = clip
    elif clip.lstrip('-').isdigit():
        idx = int(clip)
    else:
        idx = next((i for i, a in enumerate(anims) if a.get('name') == clip), -1)
    if not 0 <= idx < len(anims):
        raise GltfError('no clip %r' % (clip,))
    return idx


def sample(g, clip, times, vertices=64, loop=False):
    anim_index = resolve_clip(g, clip)
    result = {'file': g.path, 'clip': None, 'samples': []}
    if anim_index is not None:
        start, end = clip_range(g, anim_index)
        result['clip'] = {'name': g.get('animations')[anim_index].get('name', ''),
                          'index': anim_index, 'start': start, 'end': end}
    if not times:
        times = [0.0]
    nodes = g.get('nodes')
    for t in times:
        if anim_index is not None:
            dur = end - start
            if loop:
                tt = start + math.fmod(t - start, dur) if dur > 0 else start
                if tt < start:
                    tt += dur
            else:
                tt = min(max(t, start), end)
        else:
            tt = t
        local, animated, mweights = pose_at(g, anim_index, tt)
        world = world_matrices(g, local, animated)
        out_nodes = []
        for i, n in enumerate(nodes):
            tr, q, s = local[i]
            out_nodes.append({'index': i, 'name': n.get('name', ''), 'translation': tr,
                              'rotation': q, 'scale': s, 'world': world[i],
                              'trs_defined': animated[i] or matrix_is_trs(n)})
            mw = node_morph_weights(g, i, mweights)
            if mw is not None:
                out_nodes[-1]['weights'] = mw
        # "time" is the time actually sampled (docs/architecture.md); 'requested' keeps the input
        result['samples'].append({'time': tt, 'requested': t, 'nodes': out_nodes,
                                  'skinned': skin_primitives(g, world, mweights, vertices)})
    return result


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('file')
    ap.add_argument('--clip')
    ap.add_argument('--time', type=float, action='append', default=[])
    ap.add_argument('--vertices', default='64')
    ap.add_argument('--loop', action='store_true')
    a = ap.parse_args(argv)
    verts = None if a.vertices == 'all' else int(a.vertices)
    g = load_gltf(a.file)
    json.dump(sample(g, a.clip, a.time, verts, a.loop), sys.stdout)
    sys.stdout.write('\n')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
