# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# 0.0.0.0 port: warned, and bound to 127.0.0.1 (the engine's binding says so)
VERB=benign
case_after() {
	local ip
	ip=$(sec_inspect "$SEC_TASK" a | jq -r '.HostConfig.PortBindings["80/tcp"][0].HostIp')
	assert_eq "$ip" 127.0.0.1 "(HostIp of 0.0.0.0:8080:80)"
	grep -q 'public-port' "$SEC_BASE/up.log" || fail "no warning naming public-port: $(cat "$SEC_BASE/up.log")"
}
