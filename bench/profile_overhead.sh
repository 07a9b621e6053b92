#!/usr/bin/env bash
# Where does our probe's overhead go? Profiles bench/gpt_step.py with py-spy (native frames) and
# attributes every sample of the timed loop to: training compute, Python wrapper/hook code,
# C++ statistics kernel, C++ stack capture, C++ record building, tensor views, other C++ work,
# torch calls made by the probe, hook registration.
#
# Builds a symbolized copy of msprobe._core (RelWithDebInfo with -O3, so nanobind does not strip
# it) into build/dev-bench-prof; nothing is installed.
#
# Usage: bench/profile_overhead.sh [MODE ...]     (default: none L1_statistics mix_statistics L1_md5)
# Env:   STEPS (default 8), RATE (samples/s, default 200), OUT (default build/bench-profile)
set -euo pipefail
cd "$(dirname "$0")/.."
modes=("$@")
[ ${#modes[@]} -eq 0 ] && modes=(none L1_statistics mix_statistics L1_md5)
steps=${STEPS:-8}
rate=${RATE:-200}
out=${OUT:-build/bench-profile}
build=build/dev-bench-prof
mkdir -p "$out"

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O3 -g -DNDEBUG" >/dev/null
cmake --build "$build" --target _core >&2
pkg=$PWD/$build/pkg/msprobe
rm -rf "$pkg"; mkdir -p "$pkg"
for f in python/msprobe/*; do
  case "$f" in *.so) continue;; esac
  ln -s "$PWD/$f" "$pkg/"
done
cp "$build"/_core*.so "$pkg/"
export PYTHONPATH=$PWD/$build/pkg

for m in "${modes[@]}"; do
  echo "profiling $m ($steps steps at $rate Hz)" >&2
  py-spy record --native -f raw -r "$rate" -o "$out/$m.raw" -- \
    python bench/gpt_step.py --mode "$m" --steps "$steps" --warmup 1 --out "$out/$m.json" \
    >"$out/$m.log" 2>&1
done
python bench/profile_summary.py --rate "$rate" "${modes[@]/#/$out/}"
