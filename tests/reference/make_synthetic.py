#!/usr/bin/env python3
"""Write small synthetic glTF 2.0 files that exercise what the shared assets
do not: 8 influences (JOINTS_1/WEIGHTS_1), normalized integer weights that do
not sum to 1, u8/u16 joints, interleaved and padded byteStride (vertex data,
inverse bind matrices, animation output), sparse accessors with and without
a bufferView, morph targets on a skinned mesh (mesh.weights, node.weights,
animated weights, LINEAR and CUBICSPLINE), normalized short/byte rotation
keys, a rotation key pair on opposite hemispheres (shorter arc), clips that
start after 0, tracks shorter than their clip, a one-key track, a node given
as a matrix, two mesh nodes sharing a mesh with different skins (one without
inverse bind matrices), a mesh node with its own (ignored) transform, an
external buffer with a percent-encoded URI, and the same model as .glb.

    make_synthetic.py OUTDIR     -> writes the files, prints their paths
"""

import base64
import json
import math
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gltf_reference as ref  # noqa: E402

FMT = {5120: 'b', 5121: 'B', 5122: 'h', 5123: 'H', 5125: 'I', 5126: 'f'}
SIZE = {5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4}


class Builder:
    def __init__(self):
        self.bin = bytearray()
        self.views = []
        self.accessors = []

    def _align(self):
        while len(self.bin) % 4:
            self.bin.append(0)

    def view(self, data, stride=None):
        self._align()
        v = {'buffer': 0, 'byteOffset': len(self.bin), 'byteLength': len(data)}
        if stride:
            v['byteStride'] = stride
        self.bin += data
        self.views.append(v)
        return len(self.views) - 1

    @staticmethod
    def pack(values, ct):
        return b''.join(struct.pack('<' + FMT[ct], c) for e in values for c in e)

    def accessor(self, values, ct, typ, normalized=False, view=None, offset=0,
                 sparse=None, count=None, minmax=False):
        a = {'componentType': ct, 'type': typ,
             'count': count if count is not None else len(values)}
        if view is None and values is not None:
            view = self.view(self.pack(values, ct))
        if view is not None:
            a['bufferView'] = view
            if offset:
                a['byteOffset'] = offset
        if normalized:
            a['normalized'] = True
        if sparse:
            idx, vals, ict = sparse
            a['sparse'] = {'count': len(idx),
                           'indices': {'bufferView': self.view(self.pack([[i] for i in idx], ict)),
                                       'componentType': ict},
                           'values': {'bufferView': self.view(self.pack(vals, ct))}}
        if minmax:
            full = values if values is not None else [[0.0] * len(sparse[1][0])] * a['count']
            full = [list(e) for e in full]
            if sparse:
                for i, v in zip(sparse[0], sparse[1]):
                    full[i] = list(v)
            a['min'] = [min(e[k] for e in full) for k in range(len(full[0]))]
            a['max'] = [max(e[k] for e in full) for k in range(len(full[0]))]
        self.accessors.append(a)
        return len(self.accessors) - 1

    def interleaved(self, columns, stride):
        """columns: list of (values, ct, type, normalized); returns accessor ids."""
        n = len(columns[0][0])
        offs, o = [], 0
        for vals, ct, typ, norm in columns:
            offs.append(o)
            o += (len(vals[0]) * SIZE[ct] + 3) & ~3
        assert o <= stride
        data = bytearray(stride * n)
        for e in range(n):
            for (vals, ct, typ, norm), off in zip(columns, offs):
                b = self.pack([vals[e]], ct)
                data[e * stride + off:e * stride + off + len(b)] = b
        v = self.view(bytes(data), stride)
        ids = []
        for (vals, ct, typ, norm), off in zip(columns, offs):
            ids.append(self.accessor(None, ct, typ, norm, view=v, offset=off, count=n))
            if typ == 'VEC3' and ct == 5126:
                a = self.accessors[ids[-1]]
                a['min'] = [min(x[k] for x in vals) for k in range(3)]
                a['max'] = [max(x[k] for x in vals) for k in range(3)]
        return ids

    def strided(self, values, ct, typ, stride):
        """One accessor in a view with padding between elements."""
        n = len(values)
        esize = len(values[0]) * SIZE[ct]
        data = bytearray(stride * n)
        for e in range(n):
            b = self.pack([values[e]], ct)
            data[e * stride:e * stride + esize] = b
        v = self.view(bytes(data), stride)
        return self.accessor(None, ct, typ, view=v, count=n)


def qaxis(axis, deg):
    ax = [c / math.sqrt(sum(x * x for x in axis)) for c in axis]
    h = math.radians(deg) / 2
    return [ax[0] * math.sin(h), ax[1] * math.sin(h), ax[2] * math.sin(h), math.cos(h)]


def inverse(m):
    a = [[m[c * 4 + r] for c in range(4)] + [1.0 if r == k else 0.0 for k in range(4)]
         for r in range(4)]
    for col in range(4):
        piv = max(range(col, 4), key=lambda r: abs(a[r][col]))
        a[col], a[piv] = a[piv], a[col]
        p = a[col][col]
        a[col] = [x / p for x in a[col]]
        for r in range(4):
            if r != col:
                f = a[r][col]
                a[r] = [x - f * y for x, y in zip(a[r], a[col])]
    return [a[r][4 + c] for c in range(4) for r in range(4)]


def snorm(v, bits):
    m = (1 << (bits - 1)) - 1
    return [int(round(max(-1.0, min(1.0, c)) * m)) for c in v]


def build_model():
    b = Builder()
    nodes = [
        {'name': 'Root', 'translation': [0.5, -0.25, 0.0], 'rotation': qaxis([0, 1, 0], 30),
         'scale': [1.0, 1.5, 1.0], 'children': [1, 4, 5, 7]},
        {'name': 'J0', 'translation': [0.0, 1.0, 0.0], 'children': [2]},
        {'name': 'J1', 'translation': [0.0, 1.0, 0.0], 'rotation': qaxis([1, 0, 0], 10), 'children': [3]},
        {'name': 'J2', 'translation': [0.0, 0.8, 0.1], 'scale': [1.0, 1.0, 1.2]},
        {'name': 'MeshNode', 'mesh': 0, 'skin': 0, 'translation': [10.0, 0.0, 3.0],
         'rotation': qaxis([0, 0, 1], 45), 'scale': [2.0, 2.0, 2.0]},
        {'name': 'MatrixNode', 'children': [6],
         'matrix': ref.trs_matrix([1.0, 0.5, -0.5], qaxis([0, 0, 1], 90), [1.0, 2.0, 1.0])},
        {'name': 'J3', 'translation': [0.0, 0.5, 0.0]},
        {'name': 'MeshNode2', 'mesh': 0, 'skin': 1, 'weights': [0.3, 0.6]},
    ]
    # rest world matrices -> inverse bind matrices of skin 0
    g = ref.Gltf('', {'nodes': nodes}, [])
    local, animated, _ = ref.pose_at(g, None, 0.0)
    world = ref.world_matrices(g, local, animated)
    skin0_joints = [1, 2, 3, 6, 0]
    ibm0 = [inverse(world[j]) for j in skin0_joints]
    # perturb one bind matrix so the bind pose is not the rest pose
    ibm0[1] = ref.mat_mul(ibm0[1], ref.trs_matrix([0.05, 0.0, 0.0], qaxis([0, 1, 0], 5), [1, 1, 1]))
    ibm_acc = b.strided(ibm0, 5126, 'MAT4', 68)

    # primitive 0: 6 vertices, 8 influences
    pos = [[-0.5, 0.0, 0.0], [0.5, 0.0, 0.0], [-0.5, 1.5, 0.2], [0.5, 1.5, -0.2],
           [-0.3, 2.8, 0.0], [0.3, 2.8, 0.1]]
    nor = [ref.quat_normalize(v + [0.0])[:3] for v in
           [[0, 0, 1], [0.2, 0, 1], [-0.3, 0.1, 1], [1, 0, 0.2], [0, 1, 0.1], [0.5, 0.5, 0.5]]]
    pos_acc, nor_acc = b.interleaved([(pos, 5126, 'VEC3', False), (nor, 5126, 'VEC3', False)], 28)
    j0 = [[0, 1, 2, 3], [0, 1, 4, 2], [1, 2, 0, 3], [2, 1, 3, 0], [3, 2, 1, 4], [4, 3, 2, 1]]
    w0 = [[100, 50, 0, 0], [128, 64, 32, 0], [60, 60, 60, 60], [200, 0, 0, 0], [10, 20, 30, 40], [255, 0, 0, 0]]
    j1 = [[4, 3, 2, 1], [3, 2, 1, 0], [4, 3, 2, 1], [4, 0, 1, 2], [0, 1, 2, 3], [0, 1, 2, 3]]
    w1 = [[6553, 13107, 0, 0], [0, 0, 0, 65535], [9000, 100, 7, 0], [30000, 20000, 10000, 5535],
          [0, 0, 0, 0], [0, 0, 0, 0]]
    j0_acc = b.accessor(j0, 5123, 'VEC4')
    w0_acc = b.accessor(w0, 5121, 'VEC4', normalized=True)
    j1_acc, = b.interleaved([(j1, 5121, 'VEC4', False)], 8)
    w1_acc = b.accessor(w1, 5123, 'VEC4', normalized=True)
    # morph targets: 0 = sparse without bufferView, 1 = dense position + normal
    t0_pos = b.accessor(None, 5126, 'VEC3', count=6, minmax=True,
                        sparse=([1, 4, 5], [[0.1, 0.2, 0.0], [0.0, -0.3, 0.25], [0.05, 0.05, 0.05]], 5121))
    t1_posv = [[0.0, 0.0, 0.1 * i] for i in range(6)]
    t1_pos = b.accessor(t1_posv, 5126, 'VEC3', minmax=True)
    t1_nor = b.accessor([[0.1, -0.1, 0.0]] * 6, 5126, 'VEC3')
    # primitive 1: 3 vertices, float weights (sum 1), sparse-on-bufferView positions
    p1 = [[0.0, 0.5, 0.5], [0.2, 1.0, 0.5], [0.0, 2.0, 0.5]]
    p1_acc = b.accessor(p1, 5126, 'VEC3', minmax=True,
                        sparse=([2], [[0.1, 2.2, 0.4]], 5123))
    p1_j = b.accessor([[0, 1, 0, 0], [1, 2, 0, 0], [2, 3, 4, 0]], 5121, 'VEC4')
    p1_w = b.accessor([[0.7, 0.3, 0, 0], [0.5, 0.5, 0, 0], [0.2, 0.3, 0.5, 0]], 5126, 'VEC4')
    p1_t0 = b.accessor([[0.0, 0.1, 0.0]] * 3, 5126, 'VEC3', minmax=True)
    p1_t1 = b.accessor([[0.2, 0.0, 0.0]] * 3, 5126, 'VEC3', minmax=True)
    meshes = [{'name': 'Body', 'weights': [0.5, 0.25], 'primitives': [
        {'attributes': {'POSITION': pos_acc, 'NORMAL': nor_acc, 'JOINTS_0': j0_acc,
                        'WEIGHTS_0': w0_acc, 'JOINTS_1': j1_acc, 'WEIGHTS_1': w1_acc},
         'targets': [{'POSITION': t0_pos}, {'POSITION': t1_pos, 'NORMAL': t1_nor}]},
        {'attributes': {'POSITION': p1_acc, 'JOINTS_0': p1_j, 'WEIGHTS_0': p1_w},
         'targets': [{'POSITION': p1_t0}, {'POSITION': p1_t1}]}]}]
    skins = [{'joints': skin0_joints, 'inverseBindMatrices': ibm_acc, 'skeleton': 0},
             {'joints': [3, 2, 1, 0, 6]}]

    def times(ts):
        return b.accessor([[t] for t in ts], 5126, 'SCALAR', minmax=True)

    anims = []
    # clip 0 "mixed": 0.5 .. 2.5
    q = [qaxis([0, 0, 1], 0), qaxis([0, 0, 1], 60), qaxis([1, 0, 0], 170)]
    q.append([-c for c in qaxis([1, 0, 0], -170)])  # opposite hemisphere: short arc via 180
    q.append(qaxis([0, 1, 1], 45))
    rot_s16 = b.accessor([snorm(x, 16) for x in q], 5122, 'VEC4', normalized=True)
    cub_t = []
    for k, v in enumerate([[0, 1, 0], [0.3, 1.2, 0], [0.1, 0.9, 0.4]]):
        cub_t += [[0.5 * k, -1.0, 0.2], v, [1.0, 0.5 * k, -0.3]]
    s_out = b.strided([[1, 1, 1], [1.5, 0.5, 1], [0.8, 0.8, 2.0], [1, 1, 1]], 5126, 'VEC3', 16)
    wts = [[0.0, 0.0], [1.0, 0.0], [0.2, 0.9], [0.0, 0.0]]
    j3_cub = []
    for k, v in enumerate([qaxis([0, 0, 1], 0), qaxis([0, 0, 1], 80), qaxis([1, 1, 0], 40)]):
        j3_cub += [[0.1 * k, 0.0, 0.2, 0.0], v, [0.0, -0.2, 0.1 * k, 0.05]]
    anims.append({'name': 'mixed', 'samplers': [
        {'input': times([0.5, 1.0, 1.5, 2.0, 2.5]), 'output': rot_s16},
        {'input': times([0.75, 1.25, 2.25]), 'output': b.accessor(cub_t, 5126, 'VEC3'),
         'interpolation': 'CUBICSPLINE'},
        {'input': times([0.5, 1.1, 1.7, 2.4]), 'output': s_out, 'interpolation': 'STEP'},
        {'input': times([0.5, 1.0, 2.0, 2.5]), 'output': b.accessor([[w] for ws in wts for w in ws], 5126, 'SCALAR')},
        {'input': times([0.6, 1.6, 2.5]), 'output': b.accessor(j3_cub, 5126, 'VEC4'),
         'interpolation': 'CUBICSPLINE'},
        {'input': times([1.0, 2.0]), 'output': b.accessor([[0.5, -0.25, 0.0], [0.7, 0.0, -0.4]], 5126, 'VEC3')},
    ], 'channels': [
        {'sampler': 0, 'target': {'node': 1, 'path': 'rotation'}},
        {'sampler': 1, 'target': {'node': 2, 'path': 'translation'}},
        {'sampler': 2, 'target': {'node': 3, 'path': 'scale'}},
        {'sampler': 3, 'target': {'node': 4, 'path': 'weights'}},
        {'sampler': 4, 'target': {'node': 6, 'path': 'rotation'}},
        {'sampler': 5, 'target': {'node': 0, 'path': 'translation'}},
    ]})
    # clip 1 "cubic_weights": CUBICSPLINE weights on both mesh nodes, STEP byte rotation
    wc = []
    for k, v in enumerate([[0.0, 0.0], [0.8, 0.3], [0.1, 1.0]]):
        wc += [[0.5, -0.5], v, [-1.0, 0.25 * k]]
    wc_acc = b.accessor([[c] for e in wc for c in e], 5126, 'SCALAR')
    rb = b.accessor([snorm(x, 8) for x in [qaxis([0, 1, 0], 10), qaxis([0, 1, 0], 100), qaxis([1, 0, 0], -50)]],
                    5120, 'VEC4', normalized=True)
    t1 = times([0.0, 0.4, 1.0])
    anims.append({'name': 'cubic_weights', 'samplers': [
        {'input': t1, 'output': wc_acc, 'interpolation': 'CUBICSPLINE'},
        {'input': t1, 'output': rb, 'interpolation': 'STEP'},
    ], 'channels': [
        {'sampler': 0, 'target': {'node': 4, 'path': 'weights'}},
        {'sampler': 0, 'target': {'node': 7, 'path': 'weights'}},
        {'sampler': 1, 'target': {'node': 2, 'path': 'rotation'}},
    ]})
    # clip 2 "sparse_onekey": sparse animation output, a one-key track, u8 rotation
    sp_out = b.accessor([[0, 1, 0], [0, 1, 0], [0, 1, 0], [0, 1, 0]], 5126, 'VEC3',
                        sparse=([1, 3], [[0.5, 1.5, 0.0], [-0.5, 2.0, 1.0]], 5121))
    anims.append({'name': 'sparse_onekey', 'samplers': [
        {'input': times([2.0, 2.5, 3.0, 4.0]), 'output': sp_out},
        {'input': times([3.0]), 'output': b.accessor([qaxis([0, 0, 1], -30)], 5126, 'VEC4')},
        {'input': times([2.0, 4.0]), 'output': b.accessor([[1, 1, 1], [0.5, 0.5, 0.5]], 5126, 'VEC3')},
    ], 'channels': [
        {'sampler': 0, 'target': {'node': 3, 'path': 'translation'}},
        {'sampler': 1, 'target': {'node': 1, 'path': 'rotation'}},
        {'sampler': 2, 'target': {'node': 0, 'path': 'scale'}},
    ]})
    doc = {'asset': {'version': '2.0', 'generator': 'ossa tests/reference/make_synthetic.py'},
           'scene': 0, 'scenes': [{'nodes': [0]}], 'nodes': nodes, 'meshes': meshes,
           'skins': skins, 'animations': anims, 'accessors': b.accessors,
           'bufferViews': b.views}
    b._align()
    return doc, bytes(b.bin)


def build_order_model():
    """Parents after children, two roots, a node outside the scene, a sheared
    matrix node inside a skeleton, unordered skin joints, an indexed
    primitive (u32 indices) and a second primitive sharing its accessors."""
    b = Builder()
    shear = [1.0, 0.0, 0.0, 0.0, 0.4, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.2, 1.0, 0.0, 1.0]
    nodes = [
        {'name': 'Leaf', 'translation': [0.0, 0.7, 0.0], 'rotation': qaxis([0, 0, 1], 20)},
        {'name': 'Mesh', 'mesh': 0, 'skin': 0, 'translation': [5.0, 5.0, 5.0]},
        {'name': 'Shear', 'matrix': shear, 'children': [3]},
        {'name': 'Mid', 'translation': [0.0, 1.0, 0.0], 'scale': [1.0, 0.5, 2.0], 'children': [0]},
        {'name': 'Root2', 'rotation': qaxis([1, 0, 0], -90), 'children': [2]},
        {'name': 'Orphan', 'translation': [3.0, 0.0, 0.0]},
    ]
    g = ref.Gltf('', {'nodes': nodes}, [])
    local, animated, _ = ref.pose_at(g, None, 0.0)
    world = ref.world_matrices(g, local, animated)
    joints = [0, 3, 2, 4]
    ibm = b.accessor([inverse(world[j]) for j in joints], 5126, 'MAT4')
    pos = [[0.0, 0.0, 0.0], [0.5, 1.0, 0.0], [0.0, 1.8, 0.3], [-0.4, 1.2, 0.1]]
    nor = [[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.6, 0.0, 0.8]]
    pa = b.accessor(pos, 5126, 'VEC3', minmax=True)
    na = b.accessor(nor, 5126, 'VEC3')
    ja = b.accessor([[3, 2, 0, 0], [2, 1, 0, 0], [1, 0, 0, 0], [0, 1, 2, 3]], 5123, 'VEC4')
    wa = b.accessor([[0.75, 0.25, 0, 0], [0.5, 0.5, 0, 0], [0.6, 0.4, 0, 0], [0.1, 0.2, 0.3, 0.4]],
                    5126, 'VEC4')
    ia = b.accessor([[0], [1], [2], [2], [3], [0]], 5125, 'SCALAR')
    meshes = [{'primitives': [
        {'attributes': {'POSITION': pa, 'NORMAL': na, 'JOINTS_0': ja, 'WEIGHTS_0': wa},
         'indices': ia},
        {'attributes': {'POSITION': pa, 'JOINTS_0': ja, 'WEIGHTS_0': wa}, 'mode': 4}]}]

    def times(ts):
        return b.accessor([[t] for t in ts], 5126, 'SCALAR', minmax=True)

    anims = [{'name': 'bend', 'samplers': [
        {'input': times([0.0, 1.0, 2.0]),
         'output': b.accessor([qaxis([0, 0, 1], 20), qaxis([0, 0, 1], 100), qaxis([0, 1, 0], 30)],
                              5126, 'VEC4')},
        {'input': times([0.5, 1.5]), 'output': b.accessor([[0, 1, 0], [0.5, 1.5, -0.5]], 5126, 'VEC3')},
        {'input': times([0.0, 2.0]), 'output': b.accessor([[3, 0, 0], [3, 2, 0]], 5126, 'VEC3')},
    ], 'channels': [
        {'sampler': 0, 'target': {'node': 0, 'path': 'rotation'}},
        {'sampler': 1, 'target': {'node': 3, 'path': 'translation'}},
        {'sampler': 2, 'target': {'node': 5, 'path': 'translation'}},
    ]}]
    doc = {'asset': {'version': '2.0', 'generator': 'ossa tests/reference/make_synthetic.py'},
           'scene': 0, 'scenes': [{'nodes': [4, 1]}], 'nodes': nodes, 'meshes': meshes,
           'skins': [{'joints': joints, 'inverseBindMatrices': ibm}], 'animations': anims,
           'accessors': b.accessors, 'bufferViews': b.views}
    b._align()
    return doc, bytes(b.bin)


def write_all(outdir):
    os.makedirs(outdir, exist_ok=True)
    doc, binary = build_model()
    paths = []
    # 1. external buffer with a percent-encoded URI
    d = json.loads(json.dumps(doc))
    d['buffers'] = [{'uri': 'syn%20data.bin', 'byteLength': len(binary)}]
    with open(os.path.join(outdir, 'syn data.bin'), 'wb') as f:
        f.write(binary)
    p = os.path.join(outdir, 'synthetic_external.gltf')
    with open(p, 'w') as f:
        json.dump(d, f, indent=1)
    paths.append(p)
    # 2. data: URI
    d = json.loads(json.dumps(doc))
    d['buffers'] = [{'uri': 'data:application/octet-stream;base64,' +
                     base64.b64encode(binary).decode('ascii'), 'byteLength': len(binary)}]
    p = os.path.join(outdir, 'synthetic_datauri.gltf')
    with open(p, 'w') as f:
        json.dump(d, f)
    paths.append(p)
    # 3. GLB
    d = json.loads(json.dumps(doc))
    d['buffers'] = [{'byteLength': len(binary)}]
    js = json.dumps(d).encode('utf-8')
    js += b' ' * ((4 - len(js) % 4) % 4)
    bn = binary + b'\0' * ((4 - len(binary) % 4) % 4)
    total = 12 + 8 + len(js) + 8 + len(bn)
    p = os.path.join(outdir, 'synthetic.glb')
    with open(p, 'wb') as f:
        f.write(struct.pack('<III', 0x46546C67, 2, total))
        f.write(struct.pack('<II', len(js), 0x4E4F534A) + js)
        f.write(struct.pack('<II', len(bn), 0x004E4942) + bn)
    paths.append(p)
    # 4. node order, shear, orphan node, indexed primitive
    d, binary = build_order_model()
    d['buffers'] = [{'uri': 'data:application/octet-stream;base64,' +
                     base64.b64encode(binary).decode('ascii'), 'byteLength': len(binary)}]
    p = os.path.join(outdir, 'synthetic_order.gltf')
    with open(p, 'w') as f:
        json.dump(d, f)
    paths.append(p)
    return paths


if __name__ == '__main__':
    for path in write_all(sys.argv[1] if len(sys.argv) > 1 else 'synthetic-out'):
        print(path)
