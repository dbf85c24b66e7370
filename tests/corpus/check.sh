#!/usr/bin/env bash
# The Compose corpus: `taskenv config --format json` on every tests/corpus/<name>/
# must match its checked-in expected.json (and the loader's warnings its
# expected.warnings, when there are any). No engine is needed.
#   check.sh TASKENV            compare (ctest unit_corpus)
#   check.sh TASKENV --update   rewrite the expected files after a deliberate change
# Per directory: `files` lists the -f files in order (default compose.yaml),
# `args` holds extra arguments (e.g. --profile debug), `env` KEY=VALUE lines
# for the process environment. Absolute paths become @DIR@ so the expected
# output holds from any clone path; the task name is always "corpus".
# A refusal case has `expected.exit` (the exit code, e.g. 2) and
# `expected.stderr` (warnings and the error, exactly) instead of expected.json:
# `config` must fail with that code and print nothing on stdout.
# Every other entry must also pass `taskenv check` (the policy gate, exit 0,
# no finding: no false refusals), unless it has `expected.check`: a case
# that exists to test a refusal (a self-grant, a profile file), whose check
# must exit 1 with exactly those findings on stdout.
set -uo pipefail

TASKENV=$(realpath "${1:?usage: check.sh TASKENV [--update]}")
UPDATE=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
failed=0 n=0 checked=0 refusals=0
ERRS=$(mktemp)
trap 'rm -f "$ERRS"' EXIT

# run_verb DIR VERB ARGS...: taskenv VERB on DIR's files (files, args, env).
run_verb() {
	local dir=$1 verb=$2 args=() files=() envs=() f
	shift 2
	if [ -f "$dir/files" ]; then mapfile -t files <"$dir/files"; else files=(compose.yaml); fi
	for f in "${files[@]}"; do args+=(-f "$f"); done
	if [ -f "$dir/args" ]; then read -ra extra <"$dir/args" && args+=("${extra[@]}"); fi
	if [ -f "$dir/env" ]; then mapfile -t envs <"$dir/env"; fi
	(cd "$dir" && env -i PATH="$PATH" HOME=/corpus-home TASKENV_TASK=corpus TASKENV_CONFIG=/nonexistent \
		"${envs[@]}" "$TASKENV" "$verb" "$@" "${args[@]}")
}
run_one() { run_verb "$1" config -t corpus --format json; }
run_check() { run_verb "$1" check 2>/dev/null; }

# The gate's verdict on a benign entry: exit 0; or expected.check's findings.
check_gate() {
	local dir=$1 name=$2 real=$3 out rc=0 want=0
	out=$(run_check "$dir") || rc=$?
	out=${out//$real/@DIR@}
	[ -f "$dir/expected.check" ] && want=1
	if [ "$UPDATE" = --update ] && [ $want = 1 ]; then
		printf '%s\n' "$out" >"$dir/expected.check"
		return 0
	fi
	if [ "$rc" != "$want" ]; then
		echo "FAIL $name: taskenv check exited $rc, expected $want: $out" >&2
		return 1
	fi
	if [ $want = 1 ] && [ "$out" != "$(cat "$dir/expected.check")" ]; then
		diff -u "$dir/expected.check" <(printf '%s\n' "$out") >&2
		echo "FAIL $name: check's findings differ from expected.check" >&2
		return 1
	fi
	checked=$((checked + 1))
	[ $want = 1 ] && refusals=$((refusals + 1))
	return 0
}

# A refusal: exit code $3 as expected, stdout $4 empty, stderr $5 as expected.
check_refusal() {
	local dir=$1 name=$2 rc=$3 out=$4 err=$5 want
	want=$(cat "$dir/expected.exit")
	if [ "$UPDATE" = --update ]; then
		printf '%s\n' "$err" >"$dir/expected.stderr"
		return 0
	fi
	if [ "$rc" != "$want" ]; then
		echo "FAIL $name: taskenv config exited $rc, expected $want: $err" >&2
		return 1
	fi
	if [ -n "$out" ]; then
		echo "FAIL $name: a refused file printed a configuration" >&2
		return 1
	fi
	if [ "$err" != "$(cat "$dir/expected.stderr")" ]; then
		diff -u "$dir/expected.stderr" <(printf '%s\n' "$err") >&2
		echo "FAIL $name: stderr differs from expected.stderr" >&2
		return 1
	fi
}

for dir in "$HERE"/*/; do
	dir=${dir%/}
	name=$(basename "$dir")
	real=$(realpath "$dir")
	n=$((n + 1))
	out=$(run_one "$dir" 2>"$ERRS")
	rc=$?
	out=${out//$real/@DIR@}
	warn=$(sed "s#$real#@DIR@#g" "$ERRS")
	if [ -f "$dir/expected.exit" ]; then
		check_refusal "$dir" "$name" "$rc" "$out" "$warn" || failed=$((failed + 1))
		continue
	fi
	if [ $rc -ne 0 ]; then
		echo "FAIL $name: taskenv config exited $rc: $warn" >&2
		failed=$((failed + 1))
		continue
	fi
	check_gate "$dir" "$name" "$real" || failed=$((failed + 1))
	if [ "$UPDATE" = --update ]; then
		printf '%s\n' "$out" >"$dir/expected.json"
		if [ -n "$warn" ]; then printf '%s\n' "$warn" >"$dir/expected.warnings"; else rm -f "$dir/expected.warnings"; fi
		continue
	fi
	if ! diff -u "$dir/expected.json" <(printf '%s\n' "$out") >&2; then
		echo "FAIL $name: config differs from expected.json" >&2
		failed=$((failed + 1))
		continue
	fi
	exp_warn=$(cat "$dir/expected.warnings" 2>/dev/null)
	if [ "$warn" != "$exp_warn" ]; then
		diff -u <(printf '%s\n' "$exp_warn") <(printf '%s\n' "$warn") >&2
		echo "FAIL $name: warnings differ from expected.warnings" >&2
		failed=$((failed + 1))
	fi
done
echo "corpus: $n files, $failed failed; check: $checked judged by the gate, $((checked - refusals)) passed, $refusals refusal cases (expected.check)"
[ "$n" -ge 25 ] || { echo "corpus: fewer than 25 entries" >&2; exit 1; }
[ $failed -eq 0 ]
