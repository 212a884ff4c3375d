#!/usr/bin/env python3
"""Runs benchmarks of this tree against the same benchmarks of a baseline commit built from the
repository's history, alternated run by run in the same minutes, and prints every figure of the
current tree's output next to the baseline's and their ratio (median over the runs).

usage: python3 bench/baseline/compare.py COMMIT [--build DIR] [--runs N] [--bench NAME]... [--standalone FILE]...
                                            [--in-process [REPS]] [-- ARGS]

COMMIT is built once in a temporary git worktree (Release, benches only, no GL) and kept in
build-baseline-COMMIT/ next to the current build for later runs. The current tree's benches come
from --build (default build-rel, a Release build). A figure is paired with the baseline's when the
two outputs have a line of the same shape (the same text once numbers are taken out) at the same
rank; lines that exist on one side only are printed as they are. Nothing is downloaded.

--standalone bench/bench_X.c runs a bench the baseline commit does not have: the current file is
compiled against the baseline's public headers (from its history) and libraries, and linked the
way the baseline links bench_built (the file must use only API the baseline already had); the
current tree's bench_X from --build runs against it.

--in-process runs the single-character frame rows (forward and random `Running`, random `PickUp`)
and the crowd of 1,000 of both trees in ONE process instead, alternated rep by rep (REPS, default
31): each tree's bench/baseline/frame_plugin.c and bench/bench_crowd.c (BENCH_CROWD_PLUGIN) are
linked with its own static libraries into a shared object whose only exported symbols are the
frame_* and crowd_* functions, and bench/baseline/inproc.c loads both. On a
machine whose speed swings between phases from one minute to the next, this is the comparison
that holds: alternated processes can land in different phases.

Alternated processes can also land on cores of different speed (a virtual machine's vCPUs are
not always alike): `taskset -c 0 python3 bench/baseline/compare.py ...` pins every run to one core
(the benches' multi-thread rows then mean nothing).

OSSA_SIMD=scalar|sse4|avx2 in the environment caps both sides: this tree through it, a baseline
from before the one SIMD layer through its per-stage OSSA_SAMPLE_KERNEL, OSSA_POSE_KERNEL and
OSSA_SKIN_KERNEL (set to the same level unless already set).
"""
import argparse, os, re, statistics, subprocess, sys, tempfile

NUM = re.compile(r'-?\d[\d,]*\.?\d*(?:e[-+]?\d+)?')


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw).stdout


def build_baseline(root, commit, out):
    if os.path.exists(os.path.join(out, 'build.ninja')):
        return
    src = tempfile.mkdtemp(prefix='ossa-baseline-')
    sh(['git', '-C', root, 'worktree', 'add', '-q', '--detach', src, commit])
    try:
        sh(['cmake', '-S', src, '-B', out, '-G', 'Ninja', '-DCMAKE_BUILD_TYPE=Release', '-DOSSA_BUILD_TESTS=OFF',
            '-DOSSA_BUILD_TOOLS=OFF', '-DOSSA_BUILD_EXAMPLES=OFF', '-DOSSA_BUILD_GL=OFF', '-DOSSA_BUILD_BENCH=ON'])
        sh(['cmake', '--build', out])
    finally:
        sh(['git', '-C', root, 'worktree', 'remove', '--force', src])


def baseline_include(root, commit):
    """A temporary directory holding commit's include/ (from the repository's history)."""
    inc = tempfile.mkdtemp(prefix='ossa-baseline-inc-')
    subprocess.run(f'git -C {root} archive {commit} include | tar -x -C {inc}', shell=True, check=True)
    return os.path.join(inc, 'include')


def build_standalone(root, commit, out, src):
    """out/<name of src>, src compiled against commit's include/ and out's libraries."""
    name = os.path.splitext(os.path.basename(src))[0]
    exe = os.path.join(out, name)
    flags, libs = link_of_bench_built(out)
    sh(['cc', '-std=c11', '-D_POSIX_C_SOURCE=200809L', *flags, '-I', baseline_include(root, commit), '-I',
        os.path.join(root, 'bench'), '-o', exe, os.path.join(root, src), *libs, '-lpthread'])
    return name


def link_of_bench_built(build_dir):
    """The compile flags and link libraries (absolute) of build_dir's bench_built."""
    ninja = open(os.path.join(build_dir, 'build.ninja')).read()
    m = re.search(r'build bench_built:.*?\n\s+FLAGS = (.*?)\n\s+LINK_LIBRARIES = (.*?)\n', ninja, re.S)
    libs = [l if l.startswith(('-', '/')) else os.path.join(build_dir, l) for l in m.group(2).split()]
    return m.group(1).split(), libs


def build_in_process(root, commit, base_dir, now_dir):
    """base_dir/frame_base.so, frame_now.so and inproc: the two trees' frame plugins and the driver."""
    src = os.path.join(root, 'bench', 'baseline')
    out = {}
    for side, include, build in (('base', baseline_include(root, commit), base_dir), ('now', os.path.join(root, 'include'), now_dir)):
        flags, libs = link_of_bench_built(build)
        # a tree whose builder takes the meshes builds as `ossa pack` does: to the skinned vertices' bound
        mesh = 'mesh_count' in open(os.path.join(include, 'ossa', 'built_clip.h')).read()
        out[side] = os.path.join(base_dir, f'frame_{side}.so')
        sh(['cc', '-std=c11', '-D_POSIX_C_SOURCE=200809L', *flags, '-shared', '-fPIC', '-fvisibility=hidden',
            *(['-DFRAME_WITH_MESH'] if mesh else []), '-DBENCH_CROWD_PLUGIN', '-I', include, '-I', os.path.join(root, 'bench'),
            '-o', out[side], os.path.join(src, 'frame_plugin.c'), os.path.join(root, 'bench', 'bench_crowd.c'),
            '-Wl,--exclude-libs,ALL', '-Wl,-Bsymbolic', *libs, '-lpthread'])
    driver = os.path.join(base_dir, 'inproc')
    sh(['cc', '-std=c11', '-D_POSIX_C_SOURCE=200809L', '-O2', '-I', os.path.join(root, 'bench'), '-o', driver,
        os.path.join(src, 'inproc.c'), '-ldl'])
    return driver, out['now'], out['base']


def shape(line):
    return ' '.join(NUM.sub('#', line).split())


def parse(text):
    """[(shape, rank among lines of that shape, [numbers])] for every line."""
    seen, rows = {}, []
    for line in text.splitlines():
        s = shape(line)
        seen[s] = seen.get(s, -1) + 1
        rows.append((s, seen[s], line, [float(n.replace(',', '')) for n in NUM.findall(line)]))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('commit')
    ap.add_argument('--build', default=None)
    ap.add_argument('--runs', type=int, default=5)
    ap.add_argument('--bench', action='append', default=None)
    ap.add_argument('--standalone', action='append', default=[])
    ap.add_argument('--in-process', nargs='?', type=int, const=31, default=None, metavar='REPS')
    ap.add_argument('args', nargs='*')
    a = ap.parse_args()
    root = sh(['git', '-C', os.path.dirname(os.path.abspath(__file__)), 'rev-parse', '--show-toplevel']).strip()
    now_dir = os.path.abspath(a.build or os.path.join(root, 'build-rel'))
    commit = sh(['git', '-C', root, 'rev-parse', '--short', a.commit]).strip()
    base_dir = os.path.join(root, 'build-baseline-' + commit)
    build_baseline(root, commit, base_dir)
    standalone = [build_standalone(root, commit, base_dir, f) for f in a.standalone]
    env = dict(os.environ)
    env.setdefault('OSSA_ASSETS', os.path.join(root, '..', 'shared', 'assets'))
    # OSSA_SIMD caps every stage of this tree; commits before the one SIMD layer (issue #23, e.g.
    # 4aa1c1f) read one variable per stage instead, so the same cap is passed to them in theirs
    # (this tree ignores them): both sides run at the same level.
    legacy = {'scalar': 'scalar', 'sse4': 'sse', 'avx2': 'avx2'}.get(env.get('OSSA_SIMD', ''))
    if legacy:
        for var in ('OSSA_SAMPLE_KERNEL', 'OSSA_POSE_KERNEL', 'OSSA_SKIN_KERNEL'):
            env.setdefault(var, legacy)
    cpu = next((l.split(':', 1)[1].strip() for l in open('/proc/cpuinfo') if l.startswith('model name')), '?')
    flags = open('/proc/cpuinfo').read()
    isa = 'AVX-512' if ' avx512f' in flags else 'AVX2' if ' avx2' in flags else 'SSE4.1' if 'sse4_1' in flags else 'x86-64'
    how = f'{a.in_process} reps in one process' if a.in_process else f'{a.runs} alternated runs'
    print(f'# {cpu}, {isa}; {how}; this tree ({now_dir}) vs {commit}; OSSA_SIMD={env.get("OSSA_SIMD", "-")}'
          f' (older trees: OSSA_SAMPLE/POSE/SKIN_KERNEL={env.get("OSSA_SAMPLE_KERNEL", "-")})')
    if a.in_process:
        driver, now_so, base_so = build_in_process(root, commit, base_dir, now_dir)
        gltf = os.path.join(env['OSSA_ASSETS'], 'Woman', 'Woman.gltf')
        print(f'\n## single-character frames and the crowd, this tree and {commit} in one process')
        print(sh([driver, now_so, base_so, gltf, str(a.in_process)], env=env, cwd=root), end='')
        return
    for bench in (a.bench or ([] if standalone else ['bench_built'])) + standalone:
        runs = {'now': [], 'base': []}
        for _ in range(a.runs):
            for side, d in (('base', base_dir), ('now', now_dir)):
                exe = os.path.join(d, bench)
                if not os.path.exists(exe):
                    sys.exit(f'{exe} does not exist')
                runs[side].append(parse(sh([exe] + a.args, env=env, cwd=root)))
        base_lines = {}
        for rows in runs['base']:
            for s, k, _, nums in rows:
                base_lines.setdefault((s, k), []).append(nums)
        print(f'\n## {bench}: each figure "now [baseline, now/baseline]"')
        first = runs['now'][0]
        for i, (s, k, line, nums) in enumerate(first):
            if not nums:
                print(line)
                continue
            cols = [r[i][3] for r in runs['now'] if i < len(r) and r[i][0] == s and len(r[i][3]) == len(nums)]
            med = [statistics.median(c[j] for c in cols) for j in range(len(nums))]
            base = base_lines.get((s, k))
            bmed = [statistics.median(b[j] for b in base) for j in range(len(nums))] if base else None
            parts, pos = [], 0
            for j, m in enumerate(NUM.finditer(line)):
                parts.append(line[pos:m.start()])
                v = med[j]
                txt = f'{v:.4g}' if abs(v) < 1e6 else f'{v:.0f}'
                if bmed and bmed[j] not in (0.0, v):
                    txt += f' [{bmed[j]:.4g}, x{v / bmed[j]:.3f}]'
                parts.append(txt)
                pos = m.end()
            parts.append(line[pos:])
            print(''.join(parts) + ('' if base else '   (no baseline line)'))


if __name__ == '__main__':
    main()
