#!/usr/bin/env python3
"""Compare `ossa sample` output with the independent Python reference
(gltf_reference.py) on every glTF/GLB asset under an assets folder, plus the
generated files of make_synthetic.py (8 influences, sparse, strides, morph +
skin, normalized keys, .glb, percent-encoded URIs; --no-synthetic to omit).
Per clip: start, end, an interior time, one before start, one after end, an
exact key time, and two wrapped (--loop) times; the rest pose once per file.

    compare_sample.py [--tool PATH] [--assets DIR] [--max-clips N] [--verbose]

The tool defaults to $OSSA_TOOL, the assets to ../shared/assets relative to the
repository.  Unit of the final count: one (file, clip) pair, the rest pose
counting as one clip.  Exits non-zero on any mismatch.
"""

import argparse
import json
import math
import os
import subprocess
import sys
import time as _time

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gltf_reference as ref  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
UNIT_TOL = 1e-4
# Skinned primitives bigger than this are compared on their first
# BIG_LIMIT vertices except for the rest pose and the first clip (keeps the
# run short under sanitizers; every vertex is still checked once per pose
# kind).
BIG_VERTS = 2000
BIG_LIMIT = 200
MAX_REPORTED = 12


def find_assets(root):
    out = []
    for d, dirs, files in os.walk(root):
        dirs.sort()
        for f in sorted(files):
            if f.lower().endswith(('.gltf', '.glb')):
                out.append(os.path.join(d, f))
    return out


def log_skip(what):
    """Appends "<test>: <case>: <what>" to $OSSA_SKIP_LOG (set by CMake, printed by
    scripts/test.sh at the end), as the C tests' skip() does (tests/support/test_support.h)."""
    log = os.environ.get('OSSA_SKIP_LOG')
    if log:
        with open(log, 'a') as f:
            f.write('%s: compare_sample: %s\n' % (os.environ.get('OSSA_TEST_NAME', 'test_sample_reference'), what))


def skip_reason(path, root):
    rel = os.path.relpath(path, root).replace(os.sep, '/')
    if rel.startswith('malformed/') or '/malformed/' in rel:
        return 'malformed/ (negative test data)'
    if 'glTF-Validator-tests/' in rel:
        report = path + '.report.json'
        if os.path.exists(report):
            try:
                with open(report) as f:
                    n = json.load(f)['issues']['numErrors']
                if n > 0:
                    return 'glTF-Validator-tests: invalid (%d errors in its report)' % n
            except (OSError, ValueError, KeyError):
                return 'glTF-Validator-tests: unreadable report'
        elif not os.path.basename(path).startswith('valid'):
            return 'glTF-Validator-tests: no report, not a valid* file'
    return None


def run_tool(tool, path, clip, times, vertices, loop):
    cmd = [tool, 'sample', path]
    if clip is not None:
        cmd += ['--clip', str(clip)]
    for t in times:
        cmd += ['--time', repr(float(t))]
    cmd += ['--vertices', 'all' if vertices is None else str(vertices)]
    if loop:
        cmd.append('--loop')
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
    if p.returncode != 0:
        return None, p.stderr.decode('utf-8', 'replace').strip(), cmd
    try:
        return json.loads(p.stdout.decode('utf-8')), None, cmd
    except ValueError as e:
        return None, 'tool printed invalid JSON: %s' % e, cmd


class Checker:
    def __init__(self, label):
        self.label = label
        self.errors = []

    def fail(self, where, msg):
        self.errors.append('%s %s: %s' % (self.label, where, msg))

    def vec(self, where, got, exp, tol_fn):
        if not isinstance(got, list) or len(got) != len(exp):
            self.fail(where, 'got %r, expected %r' % (got, exp))
            return
        for k, (a, b) in enumerate(zip(got, exp)):
            if not isinstance(a, (int, float)) or not math.isfinite(a) or abs(a - b) > tol_fn(b):
                self.fail(where, 'got %s, expected %s (component %d, |diff| %.3g > tol %.3g)'
                          % (fmt(got), fmt(exp), k,
                             abs(a - b) if isinstance(a, (int, float)) else float('nan'),
                             tol_fn(b)))
                return

    def quat(self, where, got, exp):
        if not isinstance(got, list) or len(got) != 4:
            self.fail(where, 'got %r, expected %r' % (got, exp))
            return
        d1 = max(abs(a - b) for a, b in zip(got, exp))
        d2 = max(abs(a + b) for a, b in zip(got, exp))
        if min(d1, d2) > UNIT_TOL:
            self.fail(where, 'got %s, expected %s (up to sign; |diff| %.3g)'
                      % (fmt(got), fmt(exp), min(d1, d2)))


def fmt(v):
    if isinstance(v, list):
        return '[' + ', '.join(fmt(x) for x in v) + ']'
    if isinstance(v, float):
        return '%.9g' % v
    return repr(v)


def scene_size(sample):
    s = 0.0
    for n in sample['nodes']:
        s = max(s, max(abs(c) for c in n['world'][12:15]))
    for sk in sample['skinned']:
        for p in sk['positions']:
            s = max(s, max(abs(c) for c in p))
    return max(1.0, s)


def compare(chk, got, exp):
    if (got.get('clip') is None) != (exp['clip'] is None):
        chk.fail('clip', 'got %r, expected %r' % (got.get('clip'), exp['clip']))
        return
    if exp['clip'] is not None:
        gc, ec = got['clip'], exp['clip']
        if gc.get('index') != ec['index'] or gc.get('name', '') != ec['name']:
            chk.fail('clip', 'got index/name %r/%r, expected %r/%r'
                     % (gc.get('index'), gc.get('name'), ec['index'], ec['name']))
        for k in ('start', 'end'):
            if abs(gc.get(k, math.nan) - ec[k]) > UNIT_TOL * max(1.0, abs(ec[k])):
                chk.fail('clip ' + k, 'got %s, expected %s' % (fmt(gc.get(k)), fmt(ec[k])))
    gs, es = got.get('samples', []), exp['samples']
    if len(gs) != len(es):
        chk.fail('samples', 'got %d samples, expected %d' % (len(gs), len(es)))
        return
    for g, e in zip(gs, es):
        tlabel = 'time %s' % fmt(e['requested'])
        if e['requested'] != e['time']:
            tlabel += ' (sampled at %s)' % fmt(e['time'])
        # "time" is the time actually sampled (float clock in the tool, double here)
        if abs(g.get('time', math.nan) - e['time']) > 1e-6 * max(1.0, abs(e['requested'])):
            chk.fail(tlabel, 'sample time field %r, expected the sampled time %s' % (g.get('time'), fmt(e['time'])))
        size = scene_size(e)
        ptol = UNIT_TOL * size
        gn = g.get('nodes', [])
        if len(gn) != len(e['nodes']):
            chk.fail(tlabel, 'got %d nodes, expected %d' % (len(gn), len(e['nodes'])))
            continue
        for a, b in zip(gn, e['nodes']):
            w = '%s node %d%s' % (tlabel, b['index'], (' "%s"' % b['name']) if b['name'] else '')
            if a.get('index') != b['index'] or a.get('name', '') != b['name']:
                chk.fail(w, 'index/name %r/%r' % (a.get('index'), a.get('name')))
            if b['trs_defined']:  # a sheared node matrix has no TRS: world only
                chk.vec(w + ' translation', a.get('translation'), b['translation'], lambda x: ptol)
                chk.quat(w + ' rotation', a.get('rotation'), b['rotation'])
                chk.vec(w + ' scale', a.get('scale'), b['scale'],
                        lambda x: UNIT_TOL * max(1.0, abs(x)))
            chk.vec(w + ' world', a.get('world'), b['world'],
                    lambda x: max(ptol, UNIT_TOL * abs(x)))
            if 'weights' in b:
                chk.vec(w + ' weights', a.get('weights'), b['weights'],
                        lambda x: UNIT_TOL * max(1.0, abs(x)))
            elif 'weights' in a:
                chk.fail(w, 'has "weights" but its mesh has no morph targets')
        gsk = {(s.get('node'), s.get('mesh'), s.get('primitive')): s for s in g.get('skinned', [])}
        esk = {(s['node'], s['mesh'], s['primitive']): s for s in e['skinned']}
        if set(gsk) != set(esk):
            chk.fail(tlabel + ' skinned', 'primitives (node, mesh, primitive) got %s, expected %s'
                     % (sorted(gsk), sorted(esk)))
        for key in sorted(set(gsk) & set(esk)):
            a, b = gsk[key], esk[key]
            w = '%s skinned node %d mesh %d primitive %d' % ((tlabel,) + key)
            for attr, tol in (('positions', ptol), ('normals', UNIT_TOL)):
                ga, ea = a.get(attr, []), b[attr]
                if len(ga) != len(ea):
                    chk.fail(w, '%s: got %d vertices, expected %d' % (attr, len(ga), len(ea)))
                    continue
                for vi, (x, y) in enumerate(zip(ga, ea)):
                    chk.vec('%s vertex %d %s' % (w, vi, attr[:-1]), x, y, lambda _: tol)
                    if len(chk.errors) > 200:
                        return


def pick_times(g, anim_index):
    start, end = ref.clip_range(g, anim_index)
    dur = end - start
    anim = g.get('animations')[anim_index]
    # an exact key time: a middle key of the longest sampler input
    best = []
    for s in anim['samplers']:
        ts = [e[0] for e in ref.read_accessor(g, s['input'])]
        if len(ts) > len(best):
            best = ts
    key = best[len(best) // 2] if best else start
    times = [start, end, start + 0.37 * dur, start - 0.5 - 0.25 * dur, end + 0.75 + 0.5 * dur, key]
    loop_times = [start - 2.3 * dur - 0.01 if dur > 0 else start - 1.0,
                  start + 3.61 * dur if dur > 0 else start + 1.0]
    return times, loop_times


def max_prim_vertices(g):
    n = 0
    for node in g.get('nodes'):
        if 'mesh' in node and 'skin' in node:
            for p in g.get('meshes')[node['mesh']].get('primitives', []):
                if 'POSITION' in p.get('attributes', {}):
                    n = max(n, g.get('accessors')[p['attributes']['POSITION']]['count'])
    return n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--tool', default=os.environ.get('OSSA_TOOL'))
    ap.add_argument('--assets', default=os.path.join(REPO, '..', 'shared', 'assets'))
    ap.add_argument('--max-clips', type=int, default=0, help='0 = every clip')
    ap.add_argument('--all-vertices', action='store_true',
                    help='compare every vertex of big meshes in every clip')
    ap.add_argument('--no-synthetic', action='store_true',
                    help='skip the generated files of make_synthetic.py')
    a = ap.parse_args()
    if not a.tool:
        print('compare_sample: no tool given (--tool or $OSSA_TOOL)')
        return 2
    files = []  # (path, root for display and skip rules)
    tmp = None
    if not a.no_synthetic:
        import tempfile
        import make_synthetic
        tmp = tempfile.TemporaryDirectory(prefix='ossa-ref-')
        files += [(p, tmp.name) for p in make_synthetic.write_all(os.path.join(tmp.name, 'synthetic'))]
    if os.path.isdir(a.assets):
        root = os.path.abspath(a.assets)
        files += [(p, root) for p in find_assets(root)]
    else:
        print('SKIP: assets folder %s not found (only the synthetic files are compared)' % a.assets)
        log_skip('part not tried: shared assets folder %s not found (only the synthetic files are compared)'
                 % a.assets)
    passed = failed = 0
    all_errors = []
    t0 = _time.time()
    for path, root in files:
        rel = os.path.relpath(path, root)
        why = skip_reason(path, root)
        if why:
            print('skip %s: %s' % (rel, why))
            continue
        rest, err, cmd = run_tool(a.tool, path, None, [], None, False)
        if rest is None and tmp is not None and root == tmp.name:
            failed += 1
            msg = '%s: tool rejects a valid generated file: %s' % (rel, err)
            all_errors.append(msg)
            print('FAIL ' + msg)
            continue
        if rest is None:
            print('skip %s: tool rejects it (%s)' % (rel, err.splitlines()[-1] if err else 'error'))
            continue
        try:
            g = ref.load_gltf(path)
        except Exception as e:  # the tool accepted a file the reference cannot read
            failed += 1
            msg = '%s: reference cannot load a file the tool accepts: %s' % (rel, e)
            all_errors.append(msg)
            print('FAIL ' + msg)
            continue
        big = max_prim_vertices(g) > BIG_VERTS
        units = []  # (label, [(clip, times, loop, vertices)])
        units.append(('rest', [(None, [], False, None)]))
        nanim = len(g.get('animations'))
        nclips = nanim if a.max_clips <= 0 else min(nanim, a.max_clips)
        for ci in range(nclips):
            times, loop_times = pick_times(g, ci)
            verts = None if (not big or ci == 0 or a.all_vertices) else BIG_LIMIT
            units.append(('clip %d' % ci, [(ci, times, False, verts), (ci, loop_times, True, verts)]))
        fpass = ffail = 0
        ntimes = 0
        for label, runs in units:
            chk = Checker('%s %s' % (rel, label))
            for clip, times, loop, verts in runs:
                got, err, cmd = (rest, None, None) if clip is None else \
                    run_tool(a.tool, path, clip, times, verts, loop)
                tag = ' --loop' if loop else ''
                if got is None:
                    chk.fail('run' + tag, 'tool failed: %s' % err)
                    continue
                try:
                    exp = ref.sample(g, clip, times, verts, loop)
                except Exception as e:
                    chk.fail('reference' + tag, 'error: %r' % e)
                    continue
                ntimes += len(exp['samples'])
                if loop:
                    chk.label += ' --loop'
                compare(chk, got, exp)
                chk.label = chk.label.replace(' --loop', '')
            if chk.errors:
                ffail += 1
                all_errors.extend(chk.errors)
            else:
                fpass += 1
        passed += fpass
        failed += ffail
        print('%s %s: %d clip(s) + rest pose, %d sample times, %d passed, %d failed'
              % ('ok  ' if ffail == 0 else 'FAIL', rel, nclips, ntimes, fpass, ffail))
        sys.stdout.flush()
    if all_errors:
        print('\nFirst mismatches:')
        for e in all_errors[:MAX_REPORTED]:
            print('  ' + e)
        if len(all_errors) > MAX_REPORTED:
            print('  ... and %d more' % (len(all_errors) - MAX_REPORTED))
    if passed + failed == 0:
        print('nothing was compared (every file skipped)')
        failed = 1
    print('(%.1f s)' % (_time.time() - t0))
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
