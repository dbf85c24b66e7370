# Shared by the integration tests: a private engine, assertions, and checks
# that list the engine itself (never taskenv) for what was left behind.
# shellcheck shell=bash

TE_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PASSED=0
FAILED=0
SKIPPED=0
FAILED_NAMES=()
SKIPPED_NAMES=()

log() { printf '%s\n' "$*" >&2; }

# api METHOD PATH: the Engine API on our private socket, JSON on stdout.
api() {
	curl -sS --unix-socket "$SOCK" -X "$1" "http://localhost$2"
}

# Objects of a kind (containers|networks|volumes) carrying LABEL (k or k=v),
# one name per line. Fails (rather than printing nothing) when the engine's
# answer is not the expected list, so a broken check never reads as "zero".
engine_names() {
	local kind=$1 label=$2 filter out
	filter=$(jq -rn --arg l "$label" '{label: [$l]} | @uri') || return 1
	case $kind in
	containers) out=$(api GET "/containers/json?all=1&filters=$filter") || return 1
		jq -er 'if type == "array" then .[].Names[0] | ltrimstr("/") else error("not a list") end' <<<"$out" ;;
	networks) out=$(api GET "/networks?filters=$filter") || return 1
		jq -er 'if type == "array" then .[].Name else error("not a list") end' <<<"$out" ;;
	volumes) out=$(api GET "/volumes?filters=$filter") || return 1
		jq -er 'if type == "object" then (.Volumes // [])[].Name else error("not a list") end' <<<"$out" ;;
	images) out=$(api GET "/images/json?filters=$filter") || return 1
		jq -er 'if type == "array" then .[] | ((.RepoTags // [])[0] // .Id) else error("not a list") end' <<<"$out" ;;
	esac
	# jq -e exits 4 when the list is empty: that is a valid answer.
	local rc=$?
	[ $rc -eq 0 ] || [ $rc -eq 4 ]
}

# The number of engine objects of every kind labelled with TASK (or any
# task), or "error" when the engine could not be listed.
count_task_objects() {
	local label="io.taskenv.task${1:+=$1}" n=0 k names
	for k in containers networks volumes images; do
		names=$(engine_names "$k" "$label") || { echo error; return; }
		n=$((n + $(grep -c . <<<"$names")))
	done
	echo "$n"
}

fail() {
	log "    FAIL: $*"
	return 1
}

assert_eq() { [ "$1" = "$2" ] || fail "expected '$2', got '$1' ${3:-}"; }
assert_contains() { grep -qF -- "$2" <<<"$1" || fail "expected output to contain '$2'; got: $1"; }
assert_not_contains() { ! grep -qF -- "$2" <<<"$1" || fail "expected output not to contain '$2'; got: $1"; }

# skip REASON: end the current test as skipped (not passed), saying why.
# Only for a test that cannot run here by design, never to hide a failure;
# call it in the test function itself, not inside $(...).
skip() {
	log "    SKIP: $*"
	exit 77
}

# run_test NAME: runs the function test_NAME in a subshell with errexit and
# counts it: passed (0), skipped (skip, 77) or failed (anything else).
run_test() {
	local name=$1 start rc
	start=$(date +%s)
	log "--- $name"
	(set -eE; "test_$name")
	rc=$?
	if [ $rc -eq 0 ]; then
		PASSED=$((PASSED + 1))
		log "    ok ($(($(date +%s) - start)) s)"
	elif [ $rc -eq 77 ]; then
		SKIPPED=$((SKIPPED + 1))
		SKIPPED_NAMES+=("$name")
		log "    skipped ($(($(date +%s) - start)) s)"
	else
		FAILED=$((FAILED + 1))
		FAILED_NAMES+=("$name")
		log "    FAILED ($(($(date +%s) - start)) s)"
	fi
}

# te ARGS...: taskenv with our engine and ledger; output on stdout+stderr.
te() { "$TASKENV" "$@"; }

# Wait until CMD succeeds, at most SECONDS.
wait_for() {
	local secs=$1 i
	shift
	for ((i = 0; i < secs * 2; i++)); do
		if "$@" >/dev/null 2>&1; then return 0; fi
		sleep 0.5
	done
	return 1
}

# The host port taskenv gave SERVICE's container PORT in TASK.
task_port() {
	local key
	key="TASKENV_PORT_$(tr 'a-z-' 'A-Z_' <<<"$2")_$3"
	te env -t "$1" | sed -n "s/^$key=//p"
}

# Make a private copy of an example so tests can delete it.
copy_example() {
	local d
	d=$(mktemp -d "$WORK/proj.XXXX")
	cp -a "$TE_ROOT/examples/$1/." "$d/"
	echo "$d"
}

# The engine's log of container $1 (stdout and stderr), frame bytes dropped.
container_log() {
	curl -sS --unix-socket "$SOCK" "http://localhost/containers/$1/logs?stdout=1&stderr=1" | tr -d '\000-\010'
}

# Run taskenv expecting exit CODE; the combined output goes to $OUT.
expect_exit() {
	local code=$1 rc=0
	shift
	OUT=$("$@" 2>&1) || rc=$?
	[ "$rc" = "$code" ] || fail "expected exit $code, got $rc from: $* -- output: $OUT"
}

# Nothing of TASK in the engine or the ledger.
assert_no_trace() {
	assert_eq "$(count_task_objects "$1")" "0" "(engine objects of $1)"
	assert_eq "$(te ps --json | jq -r --arg t "$1" '[.[] | select(.task == $t)] | length')" "0" "(ledger row of $1)"
}
