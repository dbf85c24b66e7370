#!/usr/bin/env bash
# Run the libFuzzer harnesses for a bounded time, ASan + UBSan on; any crash,
# leak or sanitizer report fails the run and leaves the reproducer in
# build-fuzz/artifacts/:
#  - fuzz_load: the Compose loader + interpolation + merge + policy + config,
#    seeded with tests/corpus, tests/fuzz/corpus, tests/data/compose;
#  - fuzz_env: the .env parser and interpolation, seeded with
#    tests/fuzz/corpus-env.
#   scripts/fuzz.sh [SECONDS]     default 60, shared: 3/4 fuzz_load, 1/4 fuzz_env
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SECS=${1:-60}
BUILD=$ROOT/build-fuzz
cd "$ROOT"

cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=clang -DTASKENV_FUZZ=ON \
	-DTASKENV_TESTS=OFF -DTASKENV_WERROR=OFF >/dev/null
cmake --build "$BUILD" -j"$(nproc)" --target fuzz_load fuzz_env >/dev/null

SEEDS=$(mktemp -d)
trap 'rm -rf "$SEEDS"' EXIT
mkdir -p "$SEEDS/load" "$SEEDS/env"
find tests/corpus tests/fuzz/corpus tests/data/compose -type f \( -name '*.yaml' -o -name '*.yml' \) |
	while read -r f; do cp "$f" "$SEEDS/load/$(echo "$f" | tr / _)"; done
cp tests/fuzz/corpus-env/* "$SEEDS/env/"
mkdir -p "$BUILD/artifacts" "$BUILD/fuzz-corpus" "$BUILD/fuzz-corpus-env"

# fuzz HARNESS SECONDS CORPUS SEEDS MAX_LEN
fuzz() {
	echo "== $1 for ${2}s with $(find "$4" -type f | wc -l) seeds"
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"$BUILD/$1" -max_total_time="$2" -timeout=10 -rss_limit_mb=2048 -max_len="$5" \
		-artifact_prefix="$BUILD/artifacts/$1-" -print_final_stats=1 "$3" "$4"
}
fuzz fuzz_load $((SECS - SECS / 4)) "$BUILD/fuzz-corpus" "$SEEDS/load" 16384
fuzz fuzz_env $((SECS / 4 > 0 ? SECS / 4 : 1)) "$BUILD/fuzz-corpus-env" "$SEEDS/env" 4096
