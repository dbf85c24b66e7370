#!/usr/bin/env bash
# Integration tests on a real engine: run.sh docker|podman PATH/TO/taskenv
# Starts a private engine (own socket, data dir), builds the test images
# locally, runs every tests/integration/t_*.sh, stops the engine.
# Outside CI a missing engine skips (exit 77, with the reason); under CI=true
# it is a failure.
set -uo pipefail

ENGINE_KIND=${1:?usage: run.sh docker|podman TASKENV}
TASKENV=$(realpath "${2:?usage: run.sh docker|podman TASKENV}")
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/integration/lib.sh
. "$HERE/lib.sh"

WORK=$(mktemp -d "/tmp/te-${ENGINE_KIND:0:1}XXXX")
export TASKENV TASKENV_STATE="$WORK/state.db" WORK
unset CONTAINER_HOST TASKENV_TASK TASKENV_PORT_RANGE TASKENV_FAULT TASKENV_SUBNET_PREFIX
# An absent config file: a developer's own ~/.config/taskenv/config.yaml must not leak in.
export TASKENV_CONFIG="$WORK/config.yaml"

skip_or_fail() {
	log "integration ($ENGINE_KIND): $*"
	if [ "${CI:-}" = true ]; then exit 1; fi
	log "integration ($ENGINE_KIND): SKIPPED: $* (set CI=true to make this a failure)"
	exit 77
}

cleanup() {
	local t
	# Our tasks first, through taskenv itself, then a check by label.
	if [ -n "${SOCK:-}" ] && [ -S "$SOCK" ]; then
		for t in $("$TASKENV" ps --json 2>/dev/null | jq -r '.[].task' 2>/dev/null); do
			"$TASKENV" down -t "$t" --volumes --rmi all >/dev/null 2>&1 || true
		done
	fi
	"$TE_ROOT/scripts/engine.sh" stop "$WORK/engine" >/dev/null 2>&1 || true
	# Servers the driver tests started (t_drivers.sh), by pid.
	if [ -d "$WORK/servers" ]; then "$TE_ROOT/scripts/servers.sh" stop "$WORK/servers" >/dev/null 2>&1 || true; fi
	rm -rf "$WORK"
}
trap cleanup EXIT

command -v jq >/dev/null || skip_or_fail "jq is not installed (run .ci/install-deps.sh)"
SOCK=$("$TE_ROOT/scripts/engine.sh" start "$ENGINE_KIND" "$WORK/engine") ||
	skip_or_fail "could not start a private $ENGINE_KIND engine"
export SOCK DOCKER_HOST="unix://$SOCK"
# taskenv's subnets come from the upper half of the 10.N.0.0/16 block this
# engine claimed (scripts/engine.sh): the engine draws its own networks from
# the bottom, and engines started side by side never share a block.
TASKENV_SUBNET_POOL="10.$(cat "$WORK/engine/netblock").128.0/17"
export TASKENV_SUBNET_POOL
"$TE_ROOT/scripts/images.sh" "$SOCK" all >&2 || skip_or_fail "could not build the test images"

# TE_EXTRA_TESTS: a directory of more t_*.sh (tests/soak), outside the default suite.
for f in "$HERE"/t_*.sh ${TE_EXTRA_TESTS:+"$TE_EXTRA_TESTS"/t_*.sh}; do
	# shellcheck source=/dev/null
	. "$f"
done
for name in $(declare -F | awk '{print $3}' | sed -n 's/^test_//p'); do
	if [ -n "${TE_ONLY:-}" ] && ! grep -qw -- "$name" <<<"$TE_ONLY"; then continue; fi
	run_test "$name"
done

# Tasks a failed test left in the ledger are taken down (and were already
# counted as failures); what still carries our label after that is a leak
# that even the ledger does not know about.
for t in $("$TASKENV" ps --json | jq -r '.[].task'); do
	log "taking down task '$t' left by a failed test"
	"$TASKENV" down -t "$t" --volumes --rmi all >/dev/null 2>&1 || log "down of '$t' failed"
done
leftover=$(count_task_objects "")
if [ "$leftover" != 0 ]; then
	log "leftover objects labelled io.taskenv.task on $ENGINE_KIND:"
	for k in containers networks volumes images; do engine_names "$k" io.taskenv.task >&2; done
	FAILED=$((FAILED + 1))
	FAILED_NAMES+=(leftovers)
fi
echo "integration ($ENGINE_KIND): ${FAILED_NAMES[*]:+failed: ${FAILED_NAMES[*]}}"
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
