# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# benign: a capability of the default set
VERB=benign
case_after() { sec_inspect "$SEC_TASK" a | jq -e '.HostConfig.CapAdd | tostring | test("NET_BIND_SERVICE")' >/dev/null || fail 'CapAdd lost'; }
