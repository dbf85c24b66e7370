# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# benign: network_mode and pid service:NAME join this task's own container
VERB=benign
case_after() { [ "$(sec_inspect "$SEC_TASK" b | jq -r .HostConfig.NetworkMode)" = "container:$(sec_inspect "$SEC_TASK" a | jq -r .Id)" ] || fail 'b did not join a'; }
