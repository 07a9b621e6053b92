#!/usr/bin/env bash
# Builds the libFuzzer targets of cpp/fuzz (clang, ASan + UBSan) and runs each one a fixed number
# of times from its checked-in seeds (cpp/fuzz/corpus/<target>). Fails on any finding: a crash,
# a sanitizer report, a leak, a timeout. The input that found it is kept in build/asan/findings
# (add it to cpp/fuzz/regressions/<target>/, which the GoogleTest suite replays).
#   scripts/fuzz.sh                 # every target, FUZZ_RUNS (default 20000) runs each
#   scripts/fuzz.sh pt_fuzz 100000  # one target, more runs
# Needs clang with libFuzzer (Debian: apt-get install clang libclang-rt-14-dev).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${2:-${FUZZ_RUNS:-20000}}
build=build/asan  # shared with scripts/sanitize.sh (tests and fuzzers on one sanitized core)
if ! [ -f "$build/build.ninja" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DMSPROBE_BUILD_PYTHON=OFF -DMSPROBE_BUILD_TESTS=ON -DMSPROBE_BUILD_FUZZERS=ON \
    -DMSPROBE_SANITIZE=address,undefined > /dev/null
fi
targets=${1:-$(cd cpp/fuzz && ls -- *_fuzz.cc | sed 's/\.cc$//')}
cmake --build "$build" --target $targets
mkdir -p "$build/findings"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
status=0
for t in $targets; do
  work=$(mktemp -d)  # new inputs go here; the checked-in seeds stay as they are
  start=$(date +%s)
  if "$build/$t" -runs="$runs" -max_len=65536 -timeout=20 -rss_limit_mb=2048 \
       -artifact_prefix="$build/findings/$t-" "$work" "cpp/fuzz/corpus/${t%_fuzz}" \
       > "$build/$t.log" 2>&1; then
    echo "fuzz $t: $runs runs, no finding ($(( $(date +%s) - start )) s)"
  else
    echo "fuzz $t: FINDING (log: $build/$t.log)"
    grep -E "ERROR|runtime error|SUMMARY|Test unit written" "$build/$t.log" | head -5
    status=1
  fi
  rm -rf "$work"
done
exit $status
