#!/usr/bin/env bash
# The GoogleTest suite under AddressSanitizer + UndefinedBehaviorSanitizer, a short Python run
# (dump, run_ut, api_precision_compare, repair) with the module built the same way, and the
# writer and session tests (the threaded code) under ThreadSanitizer. Builds with clang into
# build/asan (shared with scripts/fuzz.sh: one sanitized core) and build/tsan; fails on any test
# failure or sanitizer report.
#   scripts/sanitize.sh                   # all three
#   scripts/sanitize.sh asan|python|tsan  # one
set -euo pipefail
cd "$(dirname "$0")/.."
which=${1:-all}

build() {  # build DIR SANITIZERS FUZZERS_AND_MODULE TARGET
  if ! [ -f "$1/build.ninja" ]; then
    # The module links the shared ASan runtime, which the interpreter preloads.
    CC=clang CXX=clang++ cmake -S . -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DMSPROBE_BUILD_TESTS=ON -DMSPROBE_SANITIZE="$2" -DMSPROBE_BUILD_FUZZERS="$3" \
      -DMSPROBE_BUILD_PYTHON="$3" -DCMAKE_MODULE_LINKER_FLAGS=-shared-libasan > /dev/null
  fi
  cmake --build "$1" --target "$4"
}

if [ "$which" = all ] || [ "$which" = asan ]; then
  build build/asan address,undefined ON msprobe_cpp_tests
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    MSPROBE_WRITER_KILLS=20 ./build/asan/msprobe_cpp_tests --gtest_brief=1
fi
if [ "$which" = all ] || [ "$which" = python ]; then
  build build/asan address,undefined ON _core
  pkg=build/asan/pkg/msprobe  # the Python sources with the sanitized module (as dev_build.sh)
  rm -rf "$pkg" && mkdir -p "$pkg"
  for f in python/msprobe/*; do case "$f" in *.so) ;; *) ln -s "$PWD/$f" "$pkg/" ;; esac; done
  cp build/asan/_core*.so "$pkg/"
  export LD_PRELOAD ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 PYTHONPATH=$PWD/build/asan/pkg
  LD_PRELOAD=$(clang -print-file-name=libclang_rt.asan-x86_64.so)
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 python3 -m pytest -q -p no:cacheprovider \
    tests/test_api_precision_compare.py tests/test_repair.py tests/test_run_ut.py \
    tests/test_dump_pytorch.py -k "precision or repair or real_dump_outputs or pt_reader or \
    npy_tensor_files or l1_statistics or tensor_task or l0_modules or value_encodings" \
    --deselect tests/test_repair.py::test_kill_9_at_random_moments_then_repair
  unset LD_PRELOAD ASAN_OPTIONS PYTHONPATH
fi
if [ "$which" = all ] || [ "$which" = tsan ]; then
  build build/tsan thread OFF msprobe_cpp_tests
  # The threaded code: the background writer, the dump session that feeds it, repair, and the
  # compare job (its workbook is written on a thread of its own), grad_probe's step writer, the
  # thread pool of parallel_for and the monitor's background flush (run apart: TSan stops a
  # child forked by the writer tests that starts threads once the pool's threads exist).
  TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 MSPROBE_WRITER_KILLS=10 \
    ./build/tsan/msprobe_cpp_tests --gtest_brief=1 \
    --gtest_filter='AsyncWriter*:DumpSession*:WriterKill*:DumpRepair.Quick*:DumpRepair.Complete*:CompareJob*:GradStepWriter*'
  TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 ./build/tsan/msprobe_cpp_tests --gtest_brief=1 \
    --gtest_filter='ParallelFor*:MonitorStats.Many*:MonitorWriter.Background*'
fi
