#!/usr/bin/env bash
# The whole test suite (what CI runs): install what is missing, build twice
# (plain, and ASan+UBSan), run the unit tests on both builds, then the
# integration tests on a private dockerd and a private Podman service.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
JOBS=$(nproc)

.ci/install-deps.sh

echo "== format check (clang-format)"
# shellcheck disable=SC2046
clang-format --dry-run --Werror $(git ls-files '*.c' '*.h')

echo "== shellcheck"
# shellcheck disable=SC2046
shellcheck $(git ls-files '*.sh') .ci/run

echo "== include arrows (docs/internals/ARCHITECTURE.md)"
scripts/check-arrows.sh

echo "== build (Debug, -Werror)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build -j"$JOBS"

echo "== build (RelWithDebInfo, -Werror: what scripts/demo.sh builds)"
cmake -S . -B build-rel -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTASKENV_TESTS=OFF >/dev/null
cmake --build build-rel -j"$JOBS"

echo "== build (clang, -Werror)"
CC=clang cmake -S . -B build-clang -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-clang -j"$JOBS"


echo "== build (ASan + UBSan)"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DTASKENV_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$JOBS"

echo "== unit tests under ASan + UBSan"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	ctest --test-dir build-asan -L unit --output-on-failure

echo "== fuzz: loader + interpolation + policy, 60 s (libFuzzer, ASan + UBSan)"
scripts/fuzz.sh 60

# Two at a time: the dockerd files and the Podman files run side by side
# (each engine's files one after another, on its own engine: ctest fixtures
# and resource locks in CMakeLists.txt), which took the suite from ~17.5 to
# ~14.5 min on 2 shared cores.
echo "== unit and integration tests (dockerd and Podman side by side)"
ctest --test-dir build -j2 --output-on-failure
