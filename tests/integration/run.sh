#!/usr/bin/env bash
# Integration tests on a real engine.
#
#   run.sh docker|podman TASKENV          the whole suite: start a private engine (own socket,
#                                         data dir), build the test images, run every
#                                         tests/integration/t_*.sh, stop the engine
#   run.sh docker|podman TASKENV setup    start the engine and build the images once, for the
#                                         files below; the run's directory goes to $TE_FIXTURE
#   run.sh docker|podman TASKENV t_NAME   one file (t_NAME.sh) on the engine `setup` started
#   run.sh docker|podman TASKENV cleanup  take down what is left, stop that engine
#
# ctest runs setup, each file and cleanup as tests of their own (a fixture per
# engine, CMakeLists.txt), so each file shows up with its own result and time.
# Each file runs in a shell of its own: a file uses only lib.sh and itself.
# After each file, tasks it left in the ledger are taken down and any engine
# object still labelled io.taskenv.task counts as a failure ("leftovers").
#
# TE_ONLY="name1 name2": only those tests (the names without test_).
# TE_EXTRA_TESTS: a directory of more t_*.sh (tests/soak), run by the whole suite.
# Exit: 0 passed, 1 a failure, 77 skipped: nothing ran, with the reason (a missing
# engine outside CI, every test of a file skipped or not selected by TE_ONLY).
# Under CI=true a missing engine is a failure, not a skip.
set -uo pipefail

USAGE="usage: run.sh docker|podman TASKENV [setup|cleanup|t_NAME]"
ENGINE_KIND=${1:?$USAGE}
TASKENV=$(realpath "${2:?$USAGE}")
MODE=${3:-all}
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/integration/lib.sh
. "$HERE/lib.sh"

unset CONTAINER_HOST TASKENV_TASK TASKENV_PORT_RANGE TASKENV_FAULT TASKENV_SUBNET_PREFIX

# The variables every file sees, all derived from WORK (the run's directory).
engine_env() {
	export TASKENV WORK TASKENV_STATE="$WORK/state.db"
	# An absent config file: a developer's own ~/.config/taskenv/config.yaml must not leak in.
	export TASKENV_CONFIG="$WORK/config.yaml"
	SOCK=$("$TE_ROOT/scripts/engine.sh" socket "$WORK/engine") || return 1
	export SOCK DOCKER_HOST="unix://$SOCK"
	# taskenv's subnets come from the upper half of the 10.N.0.0/16 block this
	# engine claimed (scripts/engine.sh): the engine draws its own networks from
	# the bottom, and engines started side by side never share a block.
	TASKENV_SUBNET_POOL="10.$(cat "$WORK/engine/netblock").128.0/17"
	export TASKENV_SUBNET_POOL
	# The two engines' suites run side by side (ctest -j2) with ledgers of their own,
	# and the same task names hash to the same ports: each engine gets its own half of
	# the default range, so a port one suite probed free is not bound by the other
	# before its container starts.
	case $ENGINE_KIND in
	docker) TASKENV_PORT_RANGE=20000-24999 ;;
	*) TASKENV_PORT_RANGE=25000-29999 ;;
	esac
	export TASKENV_PORT_RANGE
}

# Outside CI an engine that cannot start skips the run (77), saying why.
skip_or_fail() {
	log "integration ($ENGINE_KIND): $*"
	if [ -n "${TE_FIXTURE:-}" ]; then printf 'skip\t%s\n' "$*" >"$TE_FIXTURE"; fi
	if [ "${CI:-}" = true ]; then exit 1; fi
	log "integration ($ENGINE_KIND): SKIPPED: $* (set CI=true to make this a failure)"
	exit 77
}

# Our tasks first, through taskenv itself, then the engine, the servers the
# driver tests started (by pid), the directory.
teardown() {
	local t
	if [ -n "${SOCK:-}" ] && [ -S "$SOCK" ]; then
		for t in $("$TASKENV" ps --json 2>/dev/null | jq -r '.[].task' 2>/dev/null); do
			"$TASKENV" down -t "$t" --volumes --rmi all >/dev/null 2>&1 || true
		done
	fi
	"$TE_ROOT/scripts/engine.sh" stop "$WORK/engine" >/dev/null 2>&1 || true
	if [ -d "$WORK/servers" ]; then "$TE_ROOT/scripts/servers.sh" stop "$WORK/servers" >/dev/null 2>&1 || true; fi
	rm -rf "$WORK"
}

setup() {
	WORK=$(mktemp -d "/tmp/te-${ENGINE_KIND:0:1}XXXX")
	trap teardown EXIT
	command -v jq >/dev/null || skip_or_fail "jq is not installed (run .ci/install-deps.sh)"
	"$TE_ROOT/scripts/engine.sh" start "$ENGINE_KIND" "$WORK/engine" >/dev/null ||
		skip_or_fail "could not start a private $ENGINE_KIND engine"
	engine_env || skip_or_fail "no socket for the $ENGINE_KIND engine in $WORK/engine"
	"$TE_ROOT/scripts/images.sh" "$SOCK" all >&2 || skip_or_fail "could not build the test images"
}

# run_file PATH: the file's tests in a shell of their own, then its leftovers.
# Appends "PASSED FAILED SKIPPED" to $WORK/counts; exit status as run.sh's.
run_file() (
	local f=$1 name t leftover names=()
	# shellcheck source=/dev/null
	. "$f"
	for name in $(declare -F | awk '{print $3}' | sed -n 's/^test_//p'); do
		if [ -n "${TE_ONLY:-}" ] && ! grep -qw -- "$name" <<<"$TE_ONLY"; then continue; fi
		names+=("$name")
	done
	if [ ${#names[@]} -eq 0 ]; then
		echo "0 0 0" >>"$WORK/counts"
		# The whole suite says nothing of files TE_ONLY leaves out.
		[ "$MODE" = all ] || log "SKIPPED: no test of $(basename "$f") is selected by TE_ONLY='${TE_ONLY:-}'"
		exit 77
	fi
	log "=== $(basename "$f" .sh) ($ENGINE_KIND)"
	for name in "${names[@]}"; do run_test "$name"; done
	# Tasks a failed test left in the ledger are taken down (and were already
	# counted as failures); what still carries our label after that is a leak
	# that even the ledger does not know about.
	for t in $("$TASKENV" ps --json | jq -r '.[].task'); do
		log "taking down task '$t' left by a failed test"
		"$TASKENV" down -t "$t" --volumes --rmi all >/dev/null 2>&1 || log "down of '$t' failed"
	done
	leftover=$(count_task_objects "")
	if [ "$leftover" != 0 ]; then
		log "leftover objects labelled io.taskenv.task on $ENGINE_KIND after $(basename "$f"):"
		for k in containers networks volumes images; do engine_names "$k" io.taskenv.task >&2; done
		FAILED=$((FAILED + 1))
		FAILED_NAMES+=(leftovers)
	fi
	log "$(basename "$f" .sh) ($ENGINE_KIND): $PASSED passed, $FAILED failed${FAILED_NAMES[*]:+ (${FAILED_NAMES[*]})}, $SKIPPED skipped${SKIPPED_NAMES[*]:+ (${SKIPPED_NAMES[*]})}"
	echo "$PASSED $FAILED $SKIPPED" >>"$WORK/counts"
	[ "$FAILED" -eq 0 ] || exit 1
	[ "$PASSED" -gt 0 ] || exit 77 # every test skipped, each said why
)

case $MODE in
all)
	setup
	total_p=0 total_f=0 total_s=0
	for f in "$HERE"/t_*.sh ${TE_EXTRA_TESTS:+"$TE_EXTRA_TESTS"/t_*.sh}; do
		: >"$WORK/counts"
		run_file "$f"
		# A file that died before its summary (a syntax error, say) is a failure.
		read -r p fl s <"$WORK/counts" || { p=0 fl=1 s=0; }
		total_p=$((total_p + p)) total_f=$((total_f + fl)) total_s=$((total_s + s))
	done
	echo "integration ($ENGINE_KIND): $total_p passed, $total_f failed, $total_s skipped"
	[ "$total_f" -eq 0 ]
	;;
setup)
	: "${TE_FIXTURE:?run.sh setup: set TE_FIXTURE to the file that keeps the work directory}"
	rm -f "$TE_FIXTURE"
	setup
	printf 'work\t%s\n' "$WORK" >"$TE_FIXTURE"
	trap - EXIT # the engine stays up for the files; cleanup stops it
	log "integration ($ENGINE_KIND): engine at $SOCK, work directory $WORK"
	;;
cleanup)
	: "${TE_FIXTURE:?run.sh cleanup: set TE_FIXTURE}"
	IFS=$'\t' read -r state WORK <"$TE_FIXTURE" 2>/dev/null || state=none
	rm -f "$TE_FIXTURE"
	if [ "$state" != work ] || [ ! -d "$WORK" ]; then
		log "integration ($ENGINE_KIND): no engine to stop (setup did not start one)"
		exit 0
	fi
	engine_env || true
	teardown
	;;
t_*)
	: "${TE_FIXTURE:?run.sh $MODE: set TE_FIXTURE (run.sh ... setup first)}"
	f=$HERE/$MODE.sh
	[ -f "$f" ] || {
		echo "run.sh: no test file $f" >&2
		exit 2
	}
	IFS=$'\t' read -r state value <"$TE_FIXTURE" 2>/dev/null || state=missing
	case $state in
	work) WORK=$value ;;
	skip)
		log "SKIPPED: $value"
		[ "${CI:-}" != true ] || exit 1
		exit 77
		;;
	*)
		log "integration ($ENGINE_KIND): no engine: '$TE_FIXTURE' is not there (run setup first)"
		exit 1
		;;
	esac
	engine_env || {
		log "integration ($ENGINE_KIND): the engine of $WORK is gone"
		exit 1
	}
	run_file "$f"
	;;
*)
	echo "$USAGE" >&2
	exit 2
	;;
esac
