# Issue 16: `taskenv mcp -t TASK`, the Model Context Protocol server over
# stdio, driven by a test client (broker/mcp_client.py) on a real task:
# initialize, tools/list, every tool; a service only another task has is a
# tool error for each tool that takes one, and that task is not touched.
# shellcheck shell=bash

mcp_project() {
	local d
	d=$(mktemp -d "$WORK/proj.XXXX")
	cat >"$d/compose.yaml" <<YAML
services:
  $1:
    image: taskenv-test/busybox:1
    command: ["sh", "-c", "i=0; while true; do i=\$\$((i+1)); echo tick \$\$i; sleep 1; done"]
YAML
	echo "$d"
}

test_mcp_every_tool() {
	local da db started execs
	da=$(mcp_project web)
	db=$(mcp_project other)
	(cd "$da" && te up -t mcp-a >/dev/null 2>&1) || fail "up mcp-a"
	(cd "$db" && te up -t mcp-b >/dev/null 2>&1) || fail "up mcp-b"
	started=$(api GET /containers/mcp-b-other-1/json | jq -r .State.StartedAt)
	execs=$(api GET /containers/mcp-b-other-1/json | jq -r '.ExecIDs | length')
	sleep 2 # a few log lines
	timeout 300 python3 "$TE_ROOT/tests/integration/broker/mcp_client.py" "$TASKENV" mcp-a web other ||
		fail "the MCP client"
	assert_eq "$(api GET /containers/mcp-b-other-1/json | jq -r .State.StartedAt)" "$started" "(mcp-b restarted)"
	assert_eq "$(api GET /containers/mcp-b-other-1/json | jq -r '.ExecIDs | length')" "$execs" "(exec in mcp-b)"
	# A task the ledger does not know: the server does not start.
	expect_exit 1 te mcp -t mcp-none </dev/null
	assert_contains "$OUT" "no task 'mcp-none'"
	te down -t mcp-a
	te down -t mcp-b
	assert_no_trace mcp-a
	assert_no_trace mcp-b
	rm -rf "$da" "$db"
}
