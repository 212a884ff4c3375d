#!/usr/bin/env bash
# Installs every Debian package ossa needs to build, test, render and view.
# Idempotent; run as root on Debian 12. Skips apt when everything is present.
# When another apt or dpkg run holds the package manager's locks (unattended-upgrades, a
# parallel job), waits for them up to OSSA_APT_LOCK_WAIT seconds (600) instead of failing.
set -euo pipefail
PKGS=(
  build-essential cmake ninja-build pkg-config clang   # compilers and build
  libclang-rt-14-dev                                   # libFuzzer + sanitizer runtimes for clang (only Recommended by clang)
  libjsmn-dev                                          # JSON tokenizer (glTF import, test support)
  libassimp-dev                                        # ossa_assimp: FBX, COLLADA, OBJ, ... (optional in CMake)
  assimp-utils                                         # `assimp info/dump` for the FBX checks in test_assimp
  assimp-testmodels                                    # CMU motion capture BVH (retargeting tests, pictures)
  libcmocka-dev                                        # unit tests
  libpng-dev libgif-dev                                # PNG / GIF output
  libjpeg-dev                                          # JPEG textures (Debian's libjpeg-turbo), decoded by the tools
  libepoxy-dev libegl-dev libgl-dev libgles-dev        # GL loading, EGL headless contexts
  libegl-mesa0 libgl1-mesa-dri                         # Mesa llvmpipe (software GL)
  libglfw3-dev                                         # viewer window
  xvfb xauth                                           # viewer test without a display
  valgrind                                             # one leak-checked run of the suite
  python3                                              # independent reference check of `ossa sample`
)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
LOCK_WAIT=${OSSA_APT_LOCK_WAIT:-600}
# apt-get that waits for the locks: DPkg::Lock::Timeout makes `install` wait for dpkg's
# locks (/var/lib/dpkg/lock-frontend, lock); `update` (apt 2.6) fails at once on the lists
# lock (/var/lib/apt/lists/lock) whatever the timeout, so a call that failed on a lock is
# retried every 5 s until LOCK_WAIT seconds have passed.
apt_get() {
  local deadline=$((SECONDS + LOCK_WAIT)) err rc
  err=$(mktemp)
  while :; do
    rc=0
    $SUDO apt-get -o DPkg::Lock::Timeout="$LOCK_WAIT" "$@" 2>"$err" || rc=$?
    if [ $rc -ne 0 ] && grep -qE 'Could not get lock|Unable to lock|Unable to acquire' "$err" &&
       [ $SECONDS -lt $deadline ]; then
      echo "deps.sh: the package manager is busy (another apt/dpkg run); waiting" >&2
      sleep 5
      continue
    fi
    cat "$err" >&2
    rm -f "$err"
    return $rc
  done
}
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  echo "deps.sh: installing ${missing[*]}"
  apt_get update -qq
  apt_get install -y -qq --no-install-recommends "${missing[@]}"
fi
