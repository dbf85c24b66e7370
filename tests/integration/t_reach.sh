# Issue 4, acceptance 1, on examples/task-services as it is: db (postgres),
# jobs (rabbitmq) and uploads (s3) with no server:, so on the shared server
# containers taskenv starts itself (taskenv-shared-<driver>-<ledger id[:8]>,
# label io.taskenv.shared=<driver>; s3 on each task's own server container
# <task>-taskenv-s3, label io.taskenv.server=s3). Two tasks come up at once; from inside
# each task's app container (taskenv exec) and from the host (taskenv env)
# each reaches its own schema, vhost and bucket; task A's credentials do not
# open B's, and A's containers cannot reach B's containers by name, nor
# through the shared containers that sit on both tasks' networks (straight
# to B's address through the host is the host firewall's: asserted while its
# rules are in place, see reach_network). After down, no
# role, schema, vhost, user or bucket of either task is left on the servers.
# shellcheck shell=bash
# The "$VAR"s in single quotes expand in the container's shell (SC2016).
# shellcheck disable=SC2016

REACH_PORT=7777

# docker CLI on our private engine.
rdocker() { docker -H "unix://$SOCK" "$@"; }

# Run sh -c SCRIPT in TASK's app container, extra -e K=V before it.
in_app() {
	local task=$1
	shift
	te exec -t "$task" -T "$@" </dev/null
}

# A TCP connect from TASK's app container to HOST:PORT that reads one line;
# prints the line or "no connection" (3 s timeout).
app_connect() {
	in_app "$1" -e "H=$2" app sh -c \
		'timeout 3 bash -c "exec 3<>/dev/tcp/\$H/'"$REACH_PORT"'; head -n 1 <&3" 2>/dev/null || echo "no connection"'
}

inspect_c() { api GET "/containers/$1/json"; }

# The shared server containers of ledger ID, one name per line.
reach_shared() {
	local filter
	filter=$(jq -rn --arg l "io.taskenv.ledger=$1" '{label: ["io.taskenv.shared", $l]} | @uri')
	api GET "/containers/json?all=1&filters=$filter" | jq -er '.[].Names[0] | ltrimstr("/")'
}

# EXIT trap of the test's subshell: take both tasks down, then remove the
# shared containers and the shared network of this ledger (by name, ours only).
reach_cleanup() {
	local id=$1 c
	te down -t rch-a --volumes --timeout 1 >/dev/null 2>&1 || true
	te down -t rch-b --volumes --timeout 1 >/dev/null 2>&1 || true
	[ -n "$id" ] || return 0
	for c in $(reach_shared "$id" 2>/dev/null); do
		api DELETE "/containers/$c?force=1&v=1" >/dev/null || true
	done
	api DELETE "/networks/0--taskenv-shared-${id:0:8}" >/dev/null 2>&1 || true
}

# Inside TASK's app: the injected values name the shared servers by alias,
# and each round-trips: a table, a message, an object.
reach_inside() {
	local t=$1 out
	out=$(in_app "$t" app sh -c 'printf "%s\n" "$DATABASE_URL" "$AMQP_URL" "$S3_ENDPOINT" "$S3_BUCKET"')
	assert_contains "$out" "@db:5432/"
	assert_contains "$out" "@jobs:5672/te_${t}_jobs"
	assert_eq "$(sed -n 3p <<<"$out")" "http://uploads:4568"
	assert_contains "$(sed -n 4p <<<"$out")" "te-$t-avatars-"
	out=$(in_app "$t" -e "T=$t" app sh -c '
		set -e
		psql -X -q -v ON_ERROR_STOP=1 "$DATABASE_URL" -c "create table reach(v text); insert into reach values ('"'"'$T'"'"')"
		psql -X -At "$DATABASE_URL" -c "select current_user || '"'"' '"'"' || v from reach"
		amqp-declare-queue --url "$AMQP_URL" -q reach >/dev/null
		amqp-publish --url "$AMQP_URL" -r reach -b "msg-$T"
		amqp-publish --url "$AMQP_URL" -r reach -b "for-host-$T"
		amqp-get --url "$AMQP_URL" -q reach
		echo
		s3() { curl -fsS --aws-sigv4 "aws:amz:us-east-1:s3" -u "$S3_ACCESS_KEY:$S3_SECRET_KEY" \
			-H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$@"; }
		echo "obj-$T" | s3 -T - "$S3_ENDPOINT/$S3_BUCKET/reach.txt"
		s3 "$S3_ENDPOINT/$S3_BUCKET/reach.txt"')
	assert_eq "$out" "$(te env -t "$t" | sed -n 's/^TASKENV_DB_USER=//p') $t
msg-$t
obj-$t"
}

# From the host through `taskenv env`: what the container wrote is there, and
# an object the host writes is read back from inside.
reach_host() {
	local t=$1 out
	out=$(
		eval "$(te env -t "$t")"
		set -e
		s3() { curl -fsS --aws-sigv4 "aws:amz:us-east-1:s3" -u "$TASKENV_UPLOADS_ACCESS_KEY:$TASKENV_UPLOADS_SECRET_KEY" \
			-H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$@"; }
		psql -X -At "$TASKENV_DB_URL" -c "select current_user || ' ' || v from reach"
		amqp-get --url "$TASKENV_JOBS_URL" -q reach
		echo
		s3 "${TASKENV_UPLOADS_ENDPOINT%/}/$TASKENV_UPLOADS_BUCKET_AVATARS/reach.txt"
		echo "host-$t" | s3 -T - "${TASKENV_UPLOADS_ENDPOINT%/}/$TASKENV_UPLOADS_BUCKET_AVATARS/host.txt"
		printf '%s\n' "$TASKENV_DB_URL" "$TASKENV_JOBS_URL" "$TASKENV_UPLOADS_ENDPOINT"
	)
	assert_eq "$(sed -n 1,3p <<<"$out")" "$(te env -t "$t" | sed -n 's/^TASKENV_DB_USER=//p') $t
for-host-$t
obj-$t"
	assert_contains "$(sed -n 4p <<<"$out")" "@127.0.0.1:"
	assert_contains "$(sed -n 5p <<<"$out")" "@127.0.0.1:"
	assert_contains "$(sed -n 6p <<<"$out")" "//127.0.0.1:"
	out=$(in_app "$t" app sh -c 'curl -fsS --aws-sigv4 "aws:amz:us-east-1:s3" -u "$S3_ACCESS_KEY:$S3_SECRET_KEY" \
		-H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$S3_ENDPOINT/$S3_BUCKET/host.txt"')
	assert_eq "$out" "host-$t"
}

# Task A's credentials do not open B's scopes.
reach_credentials() {
	local out rc=0
	# The same URL surgery on A's own vhost works: a refusal below is about the vhost.
	in_app rch-a -e V=te_rch-a_jobs app sh -c 'amqp-declare-queue --url "${AMQP_URL%/*}/$V" -q own' >/dev/null ||
		fail "A's AMQP user could not open its own vhost by name"
	in_app rch-a -e V=te_rch-b_jobs app sh -c 'amqp-declare-queue --url "${AMQP_URL%/*}/$V" -q intruder' \
		>/dev/null 2>&1 || rc=$?
	[ "$rc" != 0 ] || fail "A's AMQP user opened B's vhost"
	rc=0
	# B's schema by its real name (unquoted: Postgres names are [a-z0-9_]).
	in_app rch-a -e "S=$(te env -t rch-b | sed -n 's/^TASKENV_DB_SCHEMA=//p')" app \
		sh -c 'test -n "$S" && psql -X -At "$DATABASE_URL" -c "select * from $S.reach"' >/dev/null 2>&1 || rc=$?
	[ "$rc" != 0 ] || fail "A's role read B's schema"
	out=$(in_app rch-a app sh -c 'echo "$S3_BUCKET $S3_EXPORTS_BUCKET"')
	assert_not_contains "$out" "$(in_app rch-b app sh -c 'echo "$S3_BUCKET"')"
	assert_not_contains "$out" "$(in_app rch-b app sh -c 'echo "$S3_EXPORTS_BUCKET"')"
}

# The bridge of the host route to SUBNET.
reach_bridge() {
	ip -4 route show "$1" | awk '{for (i = 1; i < NF; i++) if ($i == "dev") print $(i + 1)}'
}

# Whether the host firewall would drop A's bridge BA -> B's bridge BB right
# now: "isolated" when every rule of the engine's own scheme is in place
# (dockerd: DOCKER-ISOLATION-STAGE-1/2, shared by every dockerd on the host;
# netavark: its FORWARD jump and NETAVARK_ISOLATION_1/2), else what is missing.
reach_host_rules() {
	local ba=$1 bb=$2 missing="" c1 c2 fwd
	command -v iptables >/dev/null || {
		echo "no iptables to look at"
		return 0
	}
	# Read whole, then match: grep -q on a pipe can end iptables with SIGPIPE.
	if [ "$ENGINE_KIND" = docker ]; then
		c1=DOCKER-ISOLATION-STAGE-1 c2=DOCKER-ISOLATION-STAGE-2
	else
		c1=NETAVARK_ISOLATION_1 c2=NETAVARK_ISOLATION_2
	fi
	fwd=$(iptables -S FORWARD 2>/dev/null)
	grep -qx -- "-A FORWARD -j $c1" <<<"$fwd" || missing+=" FORWARD jump to $c1"
	grep -q -- "-A $c1 -i $ba ! -o $ba -j $c2" <<<"$(iptables -S "$c1" 2>/dev/null)" || missing+=" $c1 rule of $ba"
	grep -q -- "-A $c2 -o $bb -j DROP" <<<"$(iptables -S "$c2" 2>/dev/null)" || missing+=" $c2 rule of $bb"
	echo "${missing:+missing:}${missing:-isolated}"
}

# B's app listens on REACH_PORT. The shared containers reach it (they are on
# B's network: the listener is up and they are the bridge to test); A's app
# does not, by name or address, and not through any shared container even
# when both apps route the other's subnet through it (what a container with
# NET_ADMIN could do; with NET_RAW alone it could still hand packets to the
# shared container): the shared containers must not forward between networks.
reach_network() {
	local shared=$1 pa pb na nb ipb sa sb ba bb before after s via_a via_b out
	in_app rch-b app sh -c 'nohup perl -MIO::Socket::INET -e '"'"'
		my $s = IO::Socket::INET->new(LocalPort => '"$REACH_PORT"', Listen => 5, ReuseAddr => 1) or die;
		while (my $c = $s->accept) { print $c "hello-from-b\n"; close $c }'"'"' >/dev/null 2>&1 &'
	na=$(inspect_c rch-a-app-1 | jq -r '.NetworkSettings.Networks | keys[0]')
	nb=$(inspect_c rch-b-app-1 | jq -r '.NetworkSettings.Networks | keys[0]')
	ipb=$(inspect_c rch-b-app-1 | jq -r --arg n "$nb" '.NetworkSettings.Networks[$n].IPAddress')
	sa=$(api GET "/networks/$na" | jq -r '.IPAM.Config[0].Subnet')
	sb=$(api GET "/networks/$nb" | jq -r '.IPAM.Config[0].Subnet')
	pa=$(inspect_c rch-a-app-1 | jq -r '.State.Pid')
	pb=$(inspect_c rch-b-app-1 | jq -r '.State.Pid')
	wait_for 10 in_app rch-b app timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$REACH_PORT" ||
		fail "the listener in B's app did not start"
	assert_eq "$(app_connect rch-a rch-b-app-1)" "no connection" "(A's app to B's app by name)"
	# Straight to B's address, A's packets go to its gateway: whether the host forwards them
	# between bridges is the host firewall's, shared by every engine on the machine, and on
	# the versions here its isolation comes and goes (docs/tasks.md, "Between tasks' networks").
	# dockerd 20.10: a dockerd that starts empties the shared DOCKER-ISOLATION-STAGE-1/2
	# chains, and the other dockerds' networks stay open. Podman 4.3.1 + netavark 1.4.0: the
	# compat API makes every network isolate=true (and ignores an isolate option sent to it),
	# but the one FORWARD jump to NETAVARK_ISOLATION_1 is deleted whenever any isolated network
	# on the host loses its last container (any task's down) until the next container start.
	# So it is asserted only while the engine's rules for A's and B's bridges are all in place
	# before and after the probe (then a connection means taskenv's networks are outside the
	# engine's isolation), and logged with the rules' state either way.
	# The same probe from B's own app to the same address answers: "no connection" below is the path.
	assert_eq "$(app_connect rch-b "$ipb")" "hello-from-b" "(B's app to its own address, the probe's control)"
	ba=$(reach_bridge "$sa")
	bb=$(reach_bridge "$sb")
	before=$(reach_host_rules "$ba" "$bb")
	out=$(app_connect rch-a "$ipb")
	after=$(reach_host_rules "$ba" "$bb")
	if [ "$before$after" = isolatedisolated ]; then
		assert_eq "$out" "no connection" "(A's app to B's app at $ipb via the host, $ba -> $bb, with the host's isolation rules in place)"
	fi
	log "    (A's app to B's app at $ipb via the host: $out; host rules $ba -> $bb before: $before, after: $after)"
	for s in $shared; do
		assert_eq "$(rdocker exec "$s" timeout 3 bash -c "exec 3<>/dev/tcp/$ipb/$REACH_PORT; head -n 1 <&3")" \
			"hello-from-b" "(shared container $s to B's app)"
		via_a=$(inspect_c "$s" | jq -r --arg n "$na" '.NetworkSettings.Networks[$n].IPAddress')
		via_b=$(inspect_c "$s" | jq -r --arg n "$nb" '.NetworkSettings.Networks[$n].IPAddress')
		nsenter -t "$pa" -n ip route replace "$sb" via "$via_a"
		nsenter -t "$pb" -n ip route replace "$sa" via "$via_b"
		out=$(app_connect rch-a "$ipb")
		nsenter -t "$pa" -n ip route del "$sb"
		nsenter -t "$pb" -n ip route del "$sa"
		assert_eq "$out" "no connection" "(A's app to B's app routed through $s: it forwards between networks;
		its net.ipv4.ip_forward is $(rdocker exec "$s" cat /proc/sys/net/ipv4/ip_forward))"
	done
}

# After down: nothing of either task on any of the three servers (asked
# inside each shared container, as its administrator).
reach_no_traces() {
	local id=$1 pg rmq out
	pg=taskenv-shared-postgres-${id:0:8}
	rmq=taskenv-shared-rabbitmq-${id:0:8}
	out=$(rdocker exec "$pg" psql -X -At -U postgres -d postgres -c \
		"select rolname from pg_roles where rolname like 'te\\_rch\\_%'
		 union all select nspname from pg_namespace where nspname like 'te\\_rch\\_%'
		 union all select datname from pg_database where datname like 'te\\_rch\\_%'
		 union all select 'alive'")
	assert_eq "$out" "alive" "(postgres roles, schemas, databases of rch-a/rch-b)"
	out=$(rdocker exec "$rmq" rabbitmqctl -q list_vhosts name)
	assert_contains "$out" "/"
	assert_not_contains "$out" "te_rch-"
	out=$(rdocker exec "$rmq" rabbitmqctl -q list_users)
	assert_not_contains "$out" "te_rch-"
	# Each task's s3 server (and every bucket on it) went with the task.
	assert_eq "$(engine_names containers io.taskenv.server=s3 | grep -c '^rch-')" "0" "(s3 servers of rch-a/rch-b)"
}

test_reach_two_tasks() {
	local dir out shared d id
	dir=$(copy_example task-services)
	out=$(cd "$dir" && te config -t rch-a 2>&1 >/dev/null) || fail "taskenv config of examples/task-services: $out"
	for d in nsenter ip psql amqp-get; do command -v "$d" >/dev/null || fail "$d is not installed"; done
	# The trap runs when the test's subshell exits, after this function's locals are gone.
	REACH_ID=
	trap 'reach_cleanup "${REACH_ID:-}"' EXIT
	(cd "$dir" && te up -t rch-a >"$WORK/rch-a.log" 2>&1) & local ja=$!
	(cd "$dir" && te up -t rch-b >"$WORK/rch-b.log" 2>&1) & local jb=$!
	wait $ja || { cat "$WORK/rch-a.log" >&2; fail "up rch-a"; }
	wait $jb || { cat "$WORK/rch-b.log" >&2; fail "up rch-b"; }
	id=$(inspect_c rch-a-app-1 | jq -r '.Config.Labels["io.taskenv.ledger"]')
	REACH_ID=$id
	shared=$(reach_shared "$id")
	for d in postgres rabbitmq; do
		assert_eq "$(grep -c "^taskenv-shared-$d-${id:0:8}$" <<<"$shared")" "1" "(one shared $d container: $shared)"
	done
	assert_eq "$(grep -c "^taskenv-shared-s3" <<<"$shared")" "0" "(no shared s3 container: $shared)"
	for d in rch-a rch-b; do
		assert_eq "$(inspect_c "$d-taskenv-s3" | jq -r '.NetworkSettings.Networks | keys | join(",")')" \
			"${d}_default" "($d's own s3 server, on its network only)"
	done
	reach_inside rch-a
	reach_inside rch-b
	reach_host rch-a
	reach_host rch-b
	reach_credentials
	reach_network "$shared"
	te down -t rch-a --volumes --timeout 1 >/dev/null
	te down -t rch-b --volumes --timeout 1 >/dev/null
	assert_eq "$(count_task_objects rch-a)$(count_task_objects rch-b)" "00"
	reach_no_traces "$id"
}
