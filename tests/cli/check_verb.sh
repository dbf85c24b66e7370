#!/usr/bin/env bash
# `taskenv check` without an engine: exit codes 0 / 1 / 2, the finding line
# format, --format json, --allow, and an unknown exception name.
set -uo pipefail
TASKENV=$(realpath "${1:?usage: check_verb.sh TASKENV}")
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
fails=0
export TASKENV_CONFIG=$D/absent.yaml
expect() { # expect CODE DESCRIPTION -- CMD...
	local code=$1 what=$2 rc=0
	shift 3
	OUT=$("$@" 2>&1) || rc=$?
	if [ "$rc" != "$code" ]; then echo "FAIL $what: exit $rc, want $code: $OUT"; fails=$((fails + 1)); fi
}
has() { grep -qF -- "$2" <<<"$OUT" || { echo "FAIL $1: missing '$2' in: $OUT"; fails=$((fails + 1)); }; }

printf 'services:\n  ok:\n    image: x\n' >"$D/clean.yaml"
printf 'services:\n  web:\n    image: x\n    privileged: true\n    volumes:\n      - /etc:/e\n' >"$D/bad.yaml"
printf 'services:\n  web:\n    image: [oops\n' >"$D/broken.yaml"

expect 0 clean -- "$TASKENV" check -f "$D/clean.yaml"
expect 1 findings -- "$TASKENV" check -f "$D/bad.yaml"
has findings "$D/bad.yaml:4:5: web: privileged: privileged: true"
has findings "$D/bad.yaml:6:9: web: volumes: '/etc' is a system path (needs --allow bind-system)"
[ "$(grep -c . <<<"$OUT")" = 2 ] || { echo "FAIL findings: want 2 lines: $OUT"; fails=$((fails + 1)); }
expect 1 json -- "$TASKENV" check -f "$D/bad.yaml" --format json
[ "$(jq -r '(.schema_version|tostring) + " " + .findings[1].allow + " " + (.findings[1].line|tostring)' <<<"$OUT")" = "1 bind-system 6" ] ||
	{ echo "FAIL json: $OUT"; fails=$((fails + 1)); }
expect 0 allowed -- "$TASKENV" check -f "$D/bad.yaml" --allow privileged,bind-system
expect 1 partly -- "$TASKENV" check -f "$D/bad.yaml" --allow privileged
expect 2 unknown-allow -- "$TASKENV" check -f "$D/bad.yaml" --allow privilegd
has unknown-allow "unknown exception 'privilegd'"
expect 2 unreadable -- "$TASKENV" check -f "$D/missing.yaml"
expect 2 broken -- "$TASKENV" check -f "$D/broken.yaml"
has broken "$D/broken.yaml:4:1:"
# The trusted config file grants exceptions too: globally, and for one project directory.
printf 'allow: [privileged]\nprojects:\n  %s: {allow: [bind-system]}\n' "$D" >"$D/config.yaml"
TASKENV_CONFIG=$D/config.yaml expect 0 config-allow -- "$TASKENV" check -f "$D/bad.yaml"
printf 'allow: [privileged]\nprojects:\n  %s/elsewhere: {allow: [bind-system]}\n' "$D" >"$D/config.yaml"
TASKENV_CONFIG=$D/config.yaml expect 1 config-allow-other-project -- "$TASKENV" check -f "$D/bad.yaml"
has config-allow-other-project "(needs --allow bind-system)"
printf 'allow: [privilegd]\n' >"$D/config.yaml"
TASKENV_CONFIG=$D/config.yaml expect 2 config-allow-unknown -- "$TASKENV" check -f "$D/bad.yaml"
has config-allow-unknown "unknown exception 'privilegd'"
expect 0 config-yaml -- "$TASKENV" config -f "$D/bad.yaml" -t cfg
has config-yaml "container_name: cfg-web-1"
has config-yaml "privileged: true"
# ${COMPOSE_PROJECT_NAME} is the task, as Compose makes it the project name,
# whatever the environment says.
# shellcheck disable=SC2016 # the ${...} is for taskenv, not for bash
printf 'services:\n  web:\n    image: x\n    environment:\n      P: "${COMPOSE_PROJECT_NAME:-none}"\n' >"$D/pn.yaml"
COMPOSE_PROJECT_NAME=other expect 0 project-name -- "$TASKENV" config -f "$D/pn.yaml" -t pntask
has project-name "P: pntask"
echo "check_verb: $fails failed"
[ $fails -eq 0 ]
