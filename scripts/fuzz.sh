#!/usr/bin/env bash
# Run the libFuzzer harness over the Compose loader + interpolation + merge +
# policy for a bounded time, with the corpus (tests/corpus, tests/fuzz/corpus,
# tests/data/compose) as seeds. ASan + UBSan on; any crash, leak or sanitizer
# report fails the run and leaves the reproducer in build-fuzz/artifacts/.
#   scripts/fuzz.sh [SECONDS]     default 60
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SECS=${1:-60}
BUILD=$ROOT/build-fuzz
cd "$ROOT"

cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=clang -DTASKENV_FUZZ=ON \
	-DTASKENV_TESTS=OFF -DTASKENV_WERROR=OFF >/dev/null
cmake --build "$BUILD" -j"$(nproc)" --target fuzz_load >/dev/null

SEEDS=$(mktemp -d)
trap 'rm -rf "$SEEDS"' EXIT
find tests/corpus tests/fuzz/corpus tests/data/compose -type f \( -name '*.yaml' -o -name '*.yml' \) |
	while read -r f; do cp "$f" "$SEEDS/$(echo "$f" | tr / _)"; done
mkdir -p "$BUILD/artifacts" "$BUILD/fuzz-corpus"
echo "== fuzz_load for ${SECS}s with $(find "$SEEDS" -type f | wc -l) seeds"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	"$BUILD/fuzz_load" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
	-artifact_prefix="$BUILD/artifacts/" -print_final_stats=1 "$BUILD/fuzz-corpus" "$SEEDS"
