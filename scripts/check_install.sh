#!/usr/bin/env bash
# Installs ossa into a scratch prefix that is NOT the one it was configured with
# (`cmake --install --prefix`), then builds consumers with find_package(ossa) and with
# pkg-config and runs them. The runtime consumer links the runtime library (ossa) ALONE: it
# loads a .ossa file made here by the installed `ossa pack`, samples, builds the palette and
# skins, and its centroid must match `ossa sample` of the same file and time. Finally `nm`
# of the installed runtime library must show no tokenizer, importer, builder or writer.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-install}
PREFIX=$(mktemp -d)
trap 'rm -rf "$PREFIX"' EXIT
fail() { echo "install check: $*" >&2; exit 1; }
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DOSSA_BUILD_TESTS=OFF -DOSSA_BUILD_BENCH=OFF \
      -DOSSA_BUILD_EXAMPLES=OFF -DOSSA_BUILD_TOOLS=ON -DCMAKE_INSTALL_PREFIX=/usr/local > /dev/null
cmake --build "$BUILD" > /dev/null
cmake --install "$BUILD" --prefix "$PREFIX" > /dev/null
LIBDIR=$(dirname "$(find "$PREFIX" -name libossa.a | head -1)")
[[ -n $LIBDIR ]] || fail "libossa.a not installed"

# A packed file to load, from the built-in demo character (no external assets needed).
TIME=0.5
"$PREFIX/bin/ossa" pack demo "$PREFIX/demo.ossa" > /dev/null
expected=$("$PREFIX/bin/ossa" sample "$PREFIX/demo.ossa" --clip 0 --time $TIME --vertices all | python3 -c '
import json, sys
p = json.load(sys.stdin)["samples"][0]["skinned"][0]["positions"]
print(" ".join("%.6f" % (sum(v[k] for v in p) / len(p)) for k in range(3)))')
# Runs the runtime consumer $1 and compares its centroid with `ossa sample`'s.
check_runtime() {
  local out got
  out=$("$@" "$PREFIX/demo.ossa" $TIME) || fail "$1 failed"
  got=$(sed -n 's/^centroid //p' <<< "$out")
  python3 -c 'import sys; a, b = (list(map(float, s.split())) for s in sys.argv[1:3]); sys.exit(max(abs(x - y) for x, y in zip(a, b)) > 1e-4 or len(a) != 3)' \
    "$got" "$expected" || fail "$1: centroid '$got', ossa sample gives '$expected'"
}

# find_package: each consumer links only the target it needs
cmake -S tests/install -B "$PREFIX/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$PREFIX" > /dev/null
cmake --build "$PREFIX/consumer" > /dev/null
check_runtime "$PREFIX/consumer/runtime_consumer"
"$PREFIX/consumer/consumer" > /dev/null
test -x "$PREFIX/consumer/consumer_offline" || fail "consumer of ossa::ossa_gltf + ossa::ossa_offline missing"
test -x "$PREFIX/consumer/consumer_gl" || fail "ossa::ossa_gl target missing"
"$PREFIX/consumer/consumer_gl" > /dev/null
rc=0; "$PREFIX/consumer/consumer_import" 2>/dev/null || rc=$?  # no arguments: usage, exit 2
test $rc -eq 2 || fail "consumer_import exited $rc"

# pkg-config: every .pc resolves to the scratch prefix, not the configured one
export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig:$PREFIX/lib/x86_64-linux-gnu/pkgconfig"
pcs="ossa ossa_offline ossa_gltf ossa_retarget ossa_import ossa_gl"
if pkg-config --exists assimp; then pcs="$pcs ossa_assimp"; fi
for pc in $pcs; do
  case "$(pkg-config --variable=libdir $pc)" in
    "$PREFIX"/*) ;;
    *) fail "$pc.pc libdir $(pkg-config --variable=libdir $pc) is outside $PREFIX" ;;
  esac
done
cc -std=c11 tests/install/runtime_consumer.c $(pkg-config --cflags --libs ossa) -lm -o "$PREFIX/runtime_pc"
LD_LIBRARY_PATH="$LIBDIR" check_runtime "$PREFIX/runtime_pc"            # shared libossa.so
cc -std=c11 tests/install/runtime_consumer.c $(pkg-config --cflags --libs --static ossa | sed 's/-lossa\b/-l:libossa.a/') \
   -lm -o "$PREFIX/runtime_pc_static"
check_runtime "$PREFIX/runtime_pc_static"                              # static libossa.a
cc -std=c11 examples/01_sample_clip.c $(pkg-config --cflags --libs --static ossa_gltf) -o "$PREFIX/consumer_pc"
LD_LIBRARY_PATH="$LIBDIR" "$PREFIX/consumer_pc" > /dev/null
cc -std=c11 examples/11_model_and_animation.c $(pkg-config --cflags --libs --static ossa_import) -o "$PREFIX/import_pc"
rc=0; LD_LIBRARY_PATH="$LIBDIR" "$PREFIX/import_pc" 2>/dev/null || rc=$?
test $rc -eq 2 || fail "import_pc exited $rc"
cc -std=c11 examples/03_gpu_skin.c $(pkg-config --cflags --libs --static ossa_gl) -lm -o "$PREFIX/consumer_gl_pc"
LD_LIBRARY_PATH="$LIBDIR" "$PREFIX/consumer_gl_pc" > /dev/null

# The runtime library holds no tokenizer, importer, builder or writer.
forbidden='jsmn|ossa_gltf_|ossa__json|ossa_clip_build|ossa__build_|ossa_built_clip_measure|ossa_pack_write|ossa_assimp|ossa_import_|ossa__builder_|ossa__ctx_|ossa_format_|ossa_clip_make_additive|ossa_root_motion_extract'
for lib in "$LIBDIR/libossa.a" "$LIBDIR"/libossa.so.*.*; do
  hits=$( { nm "$lib" 2>/dev/null || true; nm -D "$lib" 2>/dev/null || true; } | grep -E "$forbidden" | sort -u || true)
  [[ -z $hits ]] || fail "$(basename "$lib") holds offline/import symbols: $(head -5 <<< "$hits" | tr '\n' ' ')"
done
[[ -n $(nm "$LIBDIR/libossa.a" | grep -E ' T ossa_pack_load_file$') ]] || fail "nm: libossa.a lacks ossa_pack_load_file (is nm working?)"
echo "install check: ossa::ossa alone loads, samples and skins a .ossa file (centroid $expected, as ossa sample);"
echo "  ossa, ossa_offline, ossa_gltf, ossa_import, ossa_gl$(pkg-config --exists assimp && echo ', ossa_assimp') work through find_package and pkg-config from $PREFIX;"
echo "  nm: libossa.a and libossa.so hold no tokenizer, importer, builder or writer symbols"
