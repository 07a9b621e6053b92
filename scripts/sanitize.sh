#!/usr/bin/env bash
# The GoogleTest suite under AddressSanitizer + UndefinedBehaviorSanitizer, and the writer and
# session tests (the threaded code) under ThreadSanitizer. Builds with clang into build/asan (shared
# with scripts/fuzz.sh: the same sanitized core) and build/tsan; fails on any test failure or
# sanitizer report.
#   scripts/sanitize.sh            # both
#   scripts/sanitize.sh asan|tsan  # one
set -euo pipefail
cd "$(dirname "$0")/.."
which=${1:-all}

build() {  # build DIR SANITIZERS FUZZERS
  if ! [ -f "$1/build.ninja" ]; then
    CC=clang CXX=clang++ cmake -S . -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DMSPROBE_BUILD_PYTHON=OFF -DMSPROBE_BUILD_TESTS=ON -DMSPROBE_SANITIZE="$2" \
      -DMSPROBE_BUILD_FUZZERS="$3" > /dev/null
  fi
  cmake --build "$1" --target msprobe_cpp_tests
}

if [ "$which" = all ] || [ "$which" = asan ]; then
  build build/asan address,undefined ON
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    MSPROBE_WRITER_KILLS=20 ./build/asan/msprobe_cpp_tests --gtest_brief=1
fi
if [ "$which" = all ] || [ "$which" = tsan ]; then
  build build/tsan thread OFF
  # The threaded code: the background writer, the dump session that feeds it, and repair.
  TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 MSPROBE_WRITER_KILLS=10 \
    ./build/tsan/msprobe_cpp_tests --gtest_brief=1 \
    --gtest_filter='AsyncWriter*:DumpSession*:WriterKill*:DumpRepair.Quick*:DumpRepair.Complete*'
fi
