#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (fuzz/corpus/<target>/) from small
glTF documents generated here: a skinned, morphed, animated triangle pair (.gltf with a
data: URI and the same as .glb), a sparse accessor, a matrix node, STEP/LINEAR/CUBICSPLINE
samplers. No third-party file is copied.
The other files of fuzz/corpus/<target>/ (named by their SHA-1) were grown from these seeds
alone by `scripts/fuzz.sh` runs without --assets and minimised with libFuzzer's
-merge=1 -max_len=1024. fuzz_sample seeds are the same files followed by
32 parameter bytes (times as raw floats, dt, a morph weight, flags)."""
import base64, json, os, struct, sys

def f32(*v): return struct.pack('<%df' % len(v), *v)

def build(variant):
    bin_ = bytearray(); views = []; accs = []
    def add(data, ctype, count, typ, target=None, extra=None):
        while len(bin_) % 4: bin_.append(0)
        views.append({"buffer": 0, "byteOffset": len(bin_), "byteLength": len(data)})
        if target: views[-1]["target"] = target
        bin_.extend(data)
        a = {"bufferView": len(views) - 1, "componentType": ctype, "count": count, "type": typ}
        if extra: a.update(extra)
        accs.append(a); return len(accs) - 1
    pos = add(f32(0,0,0, 1,0,0, 0,1,0, 1,1,0), 5126, 4, "VEC3", 34962, {"min": [0,0,0], "max": [1,1,0]})
    nrm = add(f32(0,0,1)*4, 5126, 4, "VEC3", 34962)
    jnt = add(bytes([0,1,0,0, 1,0,0,0, 0,1,0,0, 1,0,0,0]), 5121, 4, "VEC4", 34962)
    wgt = add(f32(0.5,0.5,0,0, 1,0,0,0, 0.75,0.25,0,0, 1,0,0,0), 5126, 4, "VEC4", 34962)
    idx = add(struct.pack('<6H', 0,1,2, 2,1,3), 5123, 6, "SCALAR", 34963)
    ibm = add(f32(1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1) + f32(1,0,0,0, 0,1,0,0, 0,0,1,0, 0,-1,0,1), 5126, 2, "MAT4")
    tgt = add(f32(0,0,1)*4, 5126, 4, "VEC3")
    t3 = add(f32(0, 0.5, 1), 5126, 3, "SCALAR", None, {"min": [0], "max": [1]})
    rot = add(f32(0,0,0,1, 0,0,0.7071068,0.7071068, 0,0,1,0), 5126, 3, "VEC4")
    cub = add(f32(*([0,0,0, 0,0,0, 1,0,0] + [1,0,0, 0,1,0, 0,0,0] + [0,0,0, 1,1,0, 0,0,0])), 5126, 9, "VEC3")
    scl = add(f32(1,1,1, 2,2,2, 1,1,1), 5126, 3, "VEC3")
    mw = add(f32(0, 1, 0.5), 5126, 3, "SCALAR")
    # sparse: 4 zeros with element 2 replaced
    si = add(struct.pack('<H', 2) + b'\0\0', 5123, 1, "SCALAR")
    sv = add(f32(0, 0, 0.5), 5126, 1, "VEC3")
    sparse = len(accs)
    accs.append({"componentType": 5126, "count": 4, "type": "VEC3",
                 "sparse": {"count": 1, "indices": {"bufferView": accs[si]["bufferView"], "componentType": 5123},
                            "values": {"bufferView": accs[sv]["bufferView"]}}})
    prim = {"attributes": {"POSITION": pos, "NORMAL": nrm, "JOINTS_0": jnt, "WEIGHTS_0": wgt},
            "indices": idx, "targets": [{"POSITION": tgt}, {"POSITION": sparse}]}
    nodes = [{"name": "skinned", "mesh": 0, "skin": 0},
             {"name": "root", "children": [2], "translation": [0, 0, 0]},
             {"name": "child", "rotation": [0, 0, 0, 1], "translation": [0, 1, 0], "scale": [1, 1, 1]}]
    if variant == "matrix":
        nodes.append({"name": "m", "matrix": [1,0,0,0, 0,1,0,0, 0,0,1,0, 1,2,3,1]})
        nodes[1]["children"].append(3)
    doc = {"asset": {"version": "2.0", "generator": "ossa fuzz/gen_seeds.py"},
           "extensionsUsed": ["KHR_materials_unlit"],
           "scene": 0, "scenes": [{"nodes": [0, 1]}], "nodes": nodes,
           "meshes": [{"name": "quad", "primitives": [prim], "weights": [0, 0]}],
           "skins": [{"joints": [1, 2], "inverseBindMatrices": ibm, "skeleton": 1}],
           "animations": [{"name": "walk", "samplers": [
                {"input": t3, "output": rot, "interpolation": "LINEAR"},
                {"input": t3, "output": cub, "interpolation": "CUBICSPLINE"},
                {"input": t3, "output": scl, "interpolation": "STEP"},
                {"input": t3, "output": mw}],
               "channels": [{"sampler": 0, "target": {"node": 2, "path": "rotation"}},
                            {"sampler": 1, "target": {"node": 1, "path": "translation"}},
                            {"sampler": 2, "target": {"node": 2, "path": "scale"}},
                            {"sampler": 3, "target": {"node": 0, "path": "weights"}}]}],
           "bufferViews": views, "accessors": accs}
    # two morph targets but 3 weight outputs per key would be wrong: use 6 outputs (3 keys x 2)
    doc["accessors"][mw]["count"] = 3
    bin_ = bytes(bin_)
    return doc, bin_

def fix_weights(doc, bin_):
    # weights channel needs keys x targets = 6 outputs: append a 6-float accessor
    b = bytearray(bin_)
    while len(b) % 4: b.append(0)
    doc["bufferViews"].append({"buffer": 0, "byteOffset": len(b), "byteLength": 24})
    b.extend(f32(0, 0, 1, 0.5, 0.25, 1))
    doc["accessors"].append({"bufferView": len(doc["bufferViews"]) - 1, "componentType": 5126, "count": 6, "type": "SCALAR"})
    doc["animations"][0]["samplers"][3]["output"] = len(doc["accessors"]) - 1
    return bytes(b)

def as_gltf(doc, bin_):
    d = json.loads(json.dumps(doc))
    d["buffers"] = [{"byteLength": len(bin_), "uri": "data:application/octet-stream;base64," + base64.b64encode(bin_).decode()}]
    return json.dumps(d, separators=(',', ':')).encode()

def as_glb(doc, bin_):
    d = json.loads(json.dumps(doc)); d["buffers"] = [{"byteLength": len(bin_)}]
    j = json.dumps(d, separators=(',', ':')).encode()
    j += b' ' * (-len(j) % 4); b = bin_ + b'\0' * (-len(bin_) % 4)
    body = struct.pack('<II', len(j), 0x4E4F534A) + j + struct.pack('<II', len(b), 0x004E4942) + b
    return b'glTF' + struct.pack('<II', 2, 12 + len(body)) + body

def main(out):
    files = {}
    for variant in ("basic", "matrix"):
        doc, b = build(variant); b = fix_weights(doc, b)
        files[variant + ".gltf"] = as_gltf(doc, b)
        files[variant + ".glb"] = as_glb(doc, b)
    files["triangle.gltf"] = json.dumps({"asset": {"version": "2.0"}, "nodes": [{"mesh": 0}], "meshes": [{"primitives": [
        {"attributes": {"POSITION": 0}}]}], "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"}],
        "bufferViews": [{"buffer": 0, "byteLength": 36}], "buffers": [{"byteLength": 36, "uri":
        "data:application/octet-stream;base64," + base64.b64encode(f32(0,0,0,1,0,0,0,1,0)).decode()}]}).encode()
    files["empty.gltf"] = b'{"asset":{"version":"2.0"}}'
    params = [f32(0.25, -1.5, 7.0, 1e9, 0.5) + f32(0.016, 0.5) + bytes([0, 0, 30, 0]),
              f32(float('nan'), float('inf'), -0.0, 1e-40, 2.0) + f32(-0.1, 2.0) + bytes([15, 1, 0, 0])]
    # raw-mode seeds of fuzz_sample (not a file: first byte neither '{' nor 'g'): header
    # (keys-1, interp, weight comps-1, joint), then times and translation/rotation/weight keys
    raw = {}
    for name, hdr, times in (("raw-linear", bytes([2, 2, 1, 1]), [0.0, 0.5, 1.0]),
                             ("raw-cubic", bytes([1, 3, 0, 0]), [0.25, 4.0]),
                             ("raw-huge", bytes([1, 1, 0, 1]), [-3.0e38, 3.0e38]),
                             ("raw-denormal", bytes([1, 2, 3, 2]), [0.0, 1e-44])):
        n = len(times); mult = 3 if hdr[1] == 3 else 1; comps = hdr[2] + 1
        vals = [0.5] * (n * mult * (3 + 4 + comps))
        raw[name] = hdr + f32(*times) + f32(*vals)
    for target in ("fuzz_load", "fuzz_sample"):
        os.makedirs(os.path.join(out, target), exist_ok=True)
        for name, data in files.items():
            if target == "fuzz_load":
                open(os.path.join(out, target, name), "wb").write(data)
            else:
                for name2, data2 in raw.items():
                    open(os.path.join(out, target, name2), "wb").write(data2 + params[0])
                for i, p in enumerate(params):
                    assert len(p) == 32
                    open(os.path.join(out, target, "%s.%d" % (name, i)), "wb").write(data + p)

if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus"))
