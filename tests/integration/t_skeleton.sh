# Issue 2: the walking skeleton on a real engine.
# shellcheck shell=bash

# Two tasks of the example at once: distinct loopback ports, both apps and
# both databases answer, ps shows both; down of one leaves the other.
test_two_tasks_side_by_side() {
	local dir pa pb da db out
	dir=$(copy_example agent-pair)
	(cd "$dir" && te up -t pair-a >"$WORK/up-a.log" 2>&1) &
	local ja=$!
	(cd "$dir" && te up -t pair-b >"$WORK/up-b.log" 2>&1) &
	local jb=$!
	wait $ja || { cat "$WORK/up-a.log" >&2; fail "up pair-a"; }
	wait $jb || { cat "$WORK/up-b.log" >&2; fail "up pair-b"; }
	pa=$(task_port pair-a app 3000) pb=$(task_port pair-b app 3000)
	da=$(task_port pair-a database 5432) db=$(task_port pair-b database 5432)
	if [ -z "$pa" ] || [ -z "$pb" ] || [ -z "$da" ] || [ -z "$db" ]; then fail "missing ports: $pa $pb $da $db"; fi
	[ "$(printf '%s\n' "$pa" "$pb" "$da" "$db" | sort -u | wc -l)" = 4 ] || fail "ports not distinct: $pa $pb $da $db"
	# Every binding the engine holds for these tasks is on 127.0.0.1.
	out=$(api GET "/containers/json?filters=$(jq -rn '{label:["io.taskenv.task"]}|@uri')" |
		jq -r '.[].Ports[] | select(.PublicPort != null) | .IP')
	[ -n "$out" ] || fail "no published ports found"
	assert_eq "$(sort -u <<<"$out")" "127.0.0.1"
	wait_for 30 curl -fsS "http://127.0.0.1:$pa/" || fail "app of pair-a does not answer"
	wait_for 30 curl -fsS "http://127.0.0.1:$pb/" || fail "app of pair-b does not answer"
	for p in "$da" "$db"; do
		wait_for 90 env PGPASSWORD=example psql -h 127.0.0.1 -p "$p" -U postgres -Atc 'select 1' ||
			fail "database on $p does not accept a connection"
	done
	out=$(curl -fsS "http://127.0.0.1:$pa/cgi-bin/db")
	assert_contains "$out" "database=reachable"
	out=$(te ps)
	assert_contains "$out" "pair-a"
	assert_contains "$out" "pair-b"
	assert_contains "$(te ps -t pair-a)" "127.0.0.1:$pa->3000/tcp"

	# Each task writes its own data.
	PGPASSWORD=example psql -h 127.0.0.1 -p "$da" -U postgres -qc 'create table only_a(x int)'
	out=$(PGPASSWORD=example psql -h 127.0.0.1 -p "$db" -U postgres -Atc "select count(*) from pg_tables where tablename='only_a'")
	assert_eq "$out" "0" "(pair-b sees pair-a's table)"

	# down of one leaves the other untouched and running.
	te down -t pair-a
	assert_eq "$(count_task_objects pair-a)" "1" "(pair-a keeps only its volume)"
	curl -fsS "http://127.0.0.1:$pb/" >/dev/null || fail "pair-b stopped answering after down of pair-a"
	assert_contains "$(te ps -t pair-b)" "running"
	te down -t pair-a --volumes
	te down -t pair-b --volumes
	assert_eq "$(count_task_objects pair-a)" "0"
	assert_eq "$(count_task_objects pair-b)" "0"
	rm -rf "$dir"
}

# down is driven by the ledger: it works with the project directory gone,
# and a second down succeeds and removes nothing.
test_down_after_directory_deleted() {
	local dir out
	dir=$(copy_example agent-pair)
	(cd "$dir" && te up -t gone-dir)
	rm -rf "$dir"
	out=$(te down -t gone-dir --volumes 2>&1)
	assert_contains "$out" "remaining 0"
	assert_eq "$(count_task_objects gone-dir)" "0"
	out=$(te down -t gone-dir --volumes 2>&1)
	assert_contains "$out" "nothing to remove"
}

fixed_names_file() {
	cat >"$1/compose.yaml" <<'YAML'
services:
  web:
    image: taskenv-test/busybox:1
    container_name: db
    command: ["sh", "-c", "mkdir -p /tmp/www && echo web > /tmp/www/index.html && exec httpd -f -p 80 -h /tmp/www"]
    ports:
      - "8080:80"
  client:
    image: taskenv-test/busybox:1
    command: ["sleep", "3600"]
    depends_on: [web]
YAML
}

# A fixed container_name and a hard-coded host port still come up twice;
# the container_name still resolves inside each task's network.
test_fixed_names_twice() {
	local dir pa pb
	dir=$(mktemp -d "$WORK/proj.XXXX")
	fixed_names_file "$dir"
	(cd "$dir" && te up -t fixed-a && te up -t fixed-b)
	pa=$(task_port fixed-a web 80) pb=$(task_port fixed-b web 80)
	[ "$pa" != "$pb" ] || fail "same host port $pa"
	if [ "$pa" = 8080 ] || [ "$pb" = 8080 ]; then fail "the file's port was used verbatim"; fi
	wait_for 20 curl -fsS -o /dev/null "http://127.0.0.1:$pa/" || fail "fixed-a web"
	wait_for 20 curl -fsS -o /dev/null "http://127.0.0.1:$pb/" || fail "fixed-b web"
	assert_eq "$(engine_names containers io.taskenv.task=fixed-a | sort | tr '\n' ' ')" "fixed-a-client-1 fixed-a-web-1 "
	# "db" is an alias on each task's network.
	# Podman's aardvark-dns registers aliases a moment after start: retry briefly.
	wait_for 15 docker -H "unix://$SOCK" exec fixed-a-client-1 nc -w 2 db 80 -e /bin/true ||
		fail "container_name 'db' does not resolve inside fixed-a"
	te down -t fixed-a --timeout 2
	te down -t fixed-b --timeout 2
	assert_eq "$(count_task_objects fixed-a)$(count_task_objects fixed-b)" "00"
}

# up again reuses what exists: same containers, same ports.
test_up_is_idempotent() {
	local dir p1 p2 id1 id2 out
	dir=$(mktemp -d "$WORK/proj.XXXX")
	fixed_names_file "$dir"
	(cd "$dir" && te up -t again)
	p1=$(task_port again web 80)
	id1=$(api GET /containers/again-web-1/json | jq -r .Id)
	out=$(cd "$dir" && te up -t again 2>&1)
	assert_contains "$out" "unchanged"
	p2=$(task_port again web 80)
	id2=$(api GET /containers/again-web-1/json | jq -r .Id)
	assert_eq "$p2" "$p1"
	assert_eq "$id2" "$id1"
	# stopped containers are started again, on the same port
	api POST /containers/again-web-1/stop >/dev/null
	(cd "$dir" && te up -t again)
	assert_eq "$(api GET /containers/again-web-1/json | jq -r .State.Running)" "true"
	assert_eq "$(task_port again web 80)" "$p1"
	te down -t again --timeout 2
	assert_eq "$(count_task_objects again)" "0"
}

# An object with a planned name that is not ours is refused and never removed.
test_foreign_object_left_alone() {
	local dir id out rc=0
	dir=$(mktemp -d "$WORK/proj.XXXX")
	fixed_names_file "$dir"
	id=$(curl -sS --unix-socket "$SOCK" -H 'Content-Type: application/json' \
		-d '{"Name":"foreign_default"}' http://localhost/networks/create | jq -r .Id)
	[ -n "$id" ] || fail "could not create the foreign network"
	out=$(cd "$dir" && te up -t foreign 2>&1) || rc=$?
	assert_eq "$rc" "1"
	assert_contains "$out" "network 'foreign_default' already exists and does not belong to task 'foreign'"
	te down -t foreign --volumes >/dev/null
	assert_eq "$(api GET "/networks/$id" | jq -r .Id)" "$id" "(foreign network was removed)"
	api DELETE "/networks/$id" >/dev/null
	assert_eq "$(count_task_objects foreign)" "0"
}
