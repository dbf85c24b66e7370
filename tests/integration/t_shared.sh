# Shared server containers for every driver (services/shared.h): resources
# without server: run on one container per driver and ledger, started by
# taskenv from taskenv-example/{postgres:15,rabbitmq:3}; s3 on one s3rver
# container per task (taskenv-example/s3rver:3.1, its own keys and port).
# shellcheck shell=bash

# The published host port of container port PORT of shared container NAME.
shared_port() {
	api GET "/containers/$1/json" | jq -r --arg p "$2/tcp" '.HostConfig.PortBindings[$p][0].HostPort'
}

# A value of `taskenv env -t TASK` (KEY without TASKENV_).
shared_env() { te env -t "$1" | sed -n "s/^TASKENV_$2=//p"; }

# S3 request signed with keys AK SK: curl ARGS.
shared_s3() {
	local ak=$1 sk=$2
	shift 2
	curl -sS --aws-sigv4 "aws:amz:us-east-1:s3" --user "$ak:$sk" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$@"
}

# Two tasks up at once with postgres, rabbitmq and s3 resources and no
# server: one shared container per driver (s3: one per task, on its own
# networks only, test_s3_own_instance has the boundary); each task reaches its own vhost
# (AMQP at the published port) and bucket from the host through `taskenv
# env`, not the other task's vhost; its app container gets the
# container-side values and reaches "<key>:<port>"; the shared containers
# do not forward between networks; down -v leaves no role, vhost, user or
# bucket, and the shared containers survive it.
test_shared_rmq_s3_two_tasks() {
	local dir t0 rmq s3 pg id8 mport aport s3port ua ub ep ak sk ba bb out pw f verb rc
	dir=$(mktemp -d "$WORK/proj.XXXX")
	cat >"$dir/compose.yaml" <<'YAML'
x-taskenv:
  resources:
    db: {driver: postgres}
    jobs: {driver: rabbitmq}
    uploads: {driver: s3, buckets: [files]}
services:
  app:
    image: taskenv-test/busybox:1
    command: ["sleep", "3600"]
    x-taskenv:
      env: {AMQP_URL: jobs.url, S3_ENDPOINT: uploads.endpoint, BUCKET: uploads.bucket_files, DATABASE_URL: db.url}
YAML
	t0=$SECONDS
	(cd "$dir" && te up -t sha >"$WORK/sha.log" 2>&1) & local ja=$!
	(cd "$dir" && te up -t shb >"$WORK/shb.log" 2>&1) & local jb=$!
	wait $ja || { cat "$WORK/sha.log" >&2; fail "up sha"; }
	wait $jb || { cat "$WORK/shb.log" >&2; fail "up shb"; }
	log "    two ups with three shared servers: $((SECONDS - t0)) s"
	rmq=$(engine_names containers io.taskenv.shared=rabbitmq)
	s3=$(engine_names containers io.taskenv.server=s3 | sort | tr '\n' ' ')
	pg=$(engine_names containers io.taskenv.shared=postgres)
	assert_eq "$(wc -l <<<"$rmq")$(wc -l <<<"$pg")" "11" "(one shared container per driver)"
	assert_eq "$(engine_names containers io.taskenv.shared=s3 | grep -c .)" "0" "(no shared s3 container)"
	assert_eq "$s3" "sha-taskenv-s3 shb-taskenv-s3 " "(one s3 server container per task)"
	s3=sha-taskenv-s3
	id8=${rmq#taskenv-shared-rabbitmq-}
	assert_eq "$pg" "taskenv-shared-postgres-$id8"

	# Host side: AMQP at the published 5672, each user in its own vhost only.
	aport=$(shared_port "$rmq" 5672)
	mport=$(shared_port "$rmq" 15672)
	ua=$(shared_env sha JOBS_URL)
	ub=$(shared_env shb JOBS_URL)
	assert_contains "$ua" "@127.0.0.1:$aport/te_sha_jobs"
	assert_contains "$ub" "@127.0.0.1:$aport/te_shb_jobs"
	amqp-declare-queue --url="$ua" -q work >/dev/null || fail "A cannot use its own vhost"
	amqp-declare-queue --url="$ub" -q work >/dev/null || fail "B cannot use its own vhost"
	! amqp-declare-queue --url="${ua%/*}/te_shb_jobs" -q work >/dev/null 2>&1 || fail "A opened B's vhost"
	# The task users have no management tag: the API refuses them altogether.
	assert_eq "$(curl -s -o /dev/null -w '%{http_code}' -u "te_sha_jobs:$(shared_env sha JOBS_PASSWORD)" \
		"http://127.0.0.1:$mport/api/vhosts/te_sha_jobs")" "401"

	# Host side S3: A's server's published 4568 (not B's), own bucket PUT/GET; names differ per task.
	s3port=$(shared_port "$s3" 4568)
	assert_not_contains "$(shared_port shb-taskenv-s3 4568)" "$s3port"
	ep=$(shared_env sha UPLOADS_ENDPOINT)
	ak=$(shared_env sha UPLOADS_ACCESS_KEY)
	sk=$(shared_env sha UPLOADS_SECRET_KEY)
	ba=$(shared_env sha UPLOADS_BUCKET_FILES)
	bb=$(shared_env shb UPLOADS_BUCKET_FILES)
	assert_eq "$ep" "http://127.0.0.1:$s3port"
	if [ -z "$ba" ] || [ "$ba" = "$bb" ]; then fail "bucket names '$ba' '$bb'"; fi
	echo hello >"$WORK/sh-obj"
	assert_eq "$(shared_s3 "$ak" "$sk" -o /dev/null -w '%{http_code}' -T "$WORK/sh-obj" "$ep/$ba/k")" "200"
	assert_eq "$(shared_s3 "$ak" "$sk" "$ep/$ba/k")" "hello"

	# Container side: injected "<key>:<container port>", reachable.
	out=$(docker -H "unix://$SOCK" exec sha-app-1 sh -c 'echo "$AMQP_URL $S3_ENDPOINT $DATABASE_URL"
		for hp in jobs:5672 uploads:4568 db:5432; do
			nc -w 3 "${hp%:*}" "${hp#*:}" -e /bin/true && echo "$hp=ok"
		done')
	assert_contains "$out" "@jobs:5672/te_sha_jobs"
	assert_contains "$out" "http://uploads:4568"
	assert_contains "$out" "@db:5432/"
	assert_contains "$out" "jobs:5672=ok"
	assert_contains "$out" "uploads:4568=ok"
	assert_contains "$out" "db:5432=ok"

	# The first ups say what they did; a second up of sha creates nothing:
	# the shared servers run already and the task's driver objects exist.
	assert_contains "$(cat "$WORK/sha.log" "$WORK/shb.log")" "started (shared server)"
	out=$(cd "$dir" && te --progress plain up -t sha 2>&1) || fail "second up of sha: $out"
	assert_contains "$out" "taskenv-shared-rabbitmq"
	assert_eq "$(grep -c 'running (shared server)' <<<"$out")" "2" "($out)"
	assert_eq "$(grep -c "sha-taskenv-s3 .*running (the task's own server)" <<<"$out")" "1" "($out)"
	assert_eq "$(grep -Ec '^ *(postgres|rabbitmq|s3)-[a-z]+ .* exists$' <<<"$out")" "5" "($out)"
	assert_not_contains "$out" "created"

	# The shared containers are on both tasks' networks and do not route.
	log "    ip_forward: host $(cat /proc/sys/net/ipv4/ip_forward), task container" \
		"$(docker -H "unix://$SOCK" exec sha-app-1 cat /proc/sys/net/ipv4/ip_forward)"
	for f in "$rmq" "$s3" "$pg"; do
		assert_eq "$(docker -H "unix://$SOCK" exec "$f" cat /proc/sys/net/ipv4/ip_forward \
			/proc/sys/net/ipv6/conf/all/forwarding | tr -d '\n')" "00" "($f forwarding)"
	done

	# The same RabbitMQ by server: URL: the AMQP port it reports (5672,
	# inside its container) is wrong on the host; amqp_port: fixes it.
	pw=$(jq -r '."rabbitmq-admin"' "$TASKENV_STATE.secrets/_shared.json")
	mkdir "$dir/url"
	cat >"$dir/url/compose.yaml" <<YAML
x-taskenv:
  resources:
    mq: {driver: rabbitmq, server: "\${SH_RMQ}", amqp_port: "$aport"}
    mq2: {driver: rabbitmq, server: "\${SH_RMQ}"}
services:
  app: {image: taskenv-test/busybox:1, command: ["sleep", "3600"]}
YAML
	(cd "$dir/url" && SH_RMQ="http://taskenv_admin:$pw@127.0.0.1:$mport" te up -t shc >/dev/null 2>&1) || fail "up shc"
	assert_contains "$(shared_env shc MQ_URL)" "@127.0.0.1:$aport/te_shc_mq"
	assert_eq "$(shared_env shc MQ2_PORT)" "5672"
	amqp-declare-queue --url="$(shared_env shc MQ_URL)" -q work >/dev/null || fail "amqp_port URL does not work"
	te down -t shc --timeout 1 >/dev/null

	# A server image in the Compose file is refused at load, with its
	# file:line (the trusted side picks it: shared_images.<driver>), and
	# nothing of the task is created.
	mkdir -p "$dir/img"
	cat >"$dir/img/compose.yaml" <<'YAML'
x-taskenv:
  resources:
    db: {driver: postgres, image: "taskenv-test/busybox:1"}
services:
  app: {image: taskenv-test/busybox:1, command: ["sleep", "3600"]}
YAML
	for verb in check "up -t shd"; do
		rc=0
		# shellcheck disable=SC2086 # the verb and its options
		out=$(cd "$dir/img" && te $verb 2>&1) || rc=$?
		assert_eq "$rc" "1" "($verb with a server image in the file: $out)"
		assert_contains "$out" "compose.yaml:3:"
		assert_contains "$out" "never from the Compose file"
	done
	assert_eq "$(count_task_objects shd)" "0"
	# An image: from the trusted config other than the running shared
	# container's is refused, not silently served by the existing container.
	printf 'shared_images:\n  postgres: taskenv-test/busybox:1\n' >"$dir/img/config.yaml"
	sed -i 's/, image: "taskenv-test\/busybox:1"//' "$dir/img/compose.yaml"
	out=$(cd "$dir/img" && TASKENV_CONFIG="$dir/img/config.yaml" te up -t shd 2>&1) && fail "up with another shared image succeeded"
	assert_contains "$out" "runs image"
	assert_contains "$out" "taskenv-example/postgres:15, not taskenv-test/busybox:1"
	assert_eq "$(count_task_objects shd)" "0"

	te down -t sha -v --timeout 1 >/dev/null
	te down -t shb -v --timeout 1 >/dev/null
	assert_eq "$(count_task_objects sha)$(count_task_objects shb)$(count_task_objects shc)" "000"
	# Nothing of any task is left on the servers.
	assert_eq "$(curl -fsS -u "taskenv_admin:$pw" "http://127.0.0.1:$mport/api/vhosts" "http://127.0.0.1:$mport/api/users" |
		jq -s '[.[][] | select(.name | startswith("te_sh"))] | length')" "0"
	# Each task's s3 server went with it.
	assert_eq "$(engine_names containers io.taskenv.server=s3 | grep -c .)" "0" "(s3 servers after down)"
	pw=$(jq -r '."postgres-admin"' "$TASKENV_STATE.secrets/_shared.json")
	assert_eq "$(PGPASSWORD=$pw psql -X -At -h 127.0.0.1 -p "$(shared_port "$pg" 5432)" -U postgres -d postgres \
		-c "select count(*) from pg_roles where rolname like 'te_sh%'")" "0"
	# The shared containers survive down, on their own network only.
	for f in "$rmq" "$pg"; do
		assert_eq "$(api GET "/containers/$f/json" | jq -r '.State.Running, (.NetworkSettings.Networks | keys | join(","))' | tr '\n' ' ')" \
			"true 0--taskenv-shared-$id8 " "($f after down)"
	done
	for f in "$rmq" "$pg"; do
		api DELETE "/containers/$(api GET "/containers/$f/json" | jq -r .Id)?force=1&v=1" >/dev/null
	done
	api DELETE "/networks/$(api GET "/networks/0--taskenv-shared-$id8" | jq -r .Id)" >/dev/null
	assert_eq "$(engine_names containers io.taskenv.shared | grep -c .)" "0"
}

# A shared server whose image is missing: `up` fails naming the resource,
# the driver and the image, and leaves no task, no task object and no
# shared container behind.
test_shared_image_missing() {
	local dir out rc=0 net left
	dir=$(mktemp -d "$WORK/proj.XXXX")
	cat >"$dir/compose.yaml" <<'YAML'
x-taskenv:
  resources:
    jobs: {driver: rabbitmq}
services:
  app: {image: taskenv-test/busybox:1, command: ["sleep", "3600"]}
YAML
	# The other shared tests remove their shared network; this one must not find one.
	assert_eq "$(engine_names networks io.taskenv.shared | grep -c .)" "0" "(a shared network before the test)"
	out=$(cd "$dir" && TASKENV_SHARED_IMAGE_RABBITMQ=taskenv-test/no-such-rabbitmq:1 te up -t shm 2>&1) || rc=$?
	[ "$rc" -ne 0 ] || fail "up succeeded without the image"
	assert_contains "$out" "resource 'jobs' (driver rabbitmq, shared server)"
	assert_contains "$out" "taskenv-test/no-such-rabbitmq:1"
	assert_eq "$(count_task_objects shm)" "0"
	assert_eq "$(te ps --json | jq '[.[] | select(.task == "shm")] | length')" "0"
	assert_eq "$(engine_names containers io.taskenv.shared=rabbitmq | grep -c .)" "0"
	# The shared network made for it is gone again (it held nothing else).
	left=$(engine_names networks io.taskenv.shared || true)
	for net in $left; do
		api DELETE "/networks/$(api GET "/networks/$net" | jq -r .Id)" >/dev/null
	done
	assert_eq "$left" "" "(shared network left after the failed up)"
}

# S3, a boundary that holds (issue 13): each task's s3 resources live on its
# own s3rver container, on its own networks only, with its own random keys
# (S3RVER/S3RVER revoked, unsigned requests refused). From inside A's app,
# through every endpoint A can reach or try (its own uploads:4568, B's
# server at each of its addresses, B's published port at A's gateways and
# at A's loopback), B's buckets are neither listed nor read: with A's keys,
# with s3rver's default keys, and unsigned. B's own app, the control, reads
# its object at its own endpoint; the cross-network paths are the engine
# firewall's, and the keys hold even where it lets a packet through.
test_s3_own_instance() {
	local dir t bb ipb portb gws out targets
	dir=$(mktemp -d "$WORK/proj.XXXX")
	cat >"$dir/compose.yaml" <<'YAML'
x-taskenv:
  resources:
    uploads: {driver: s3, buckets: [files]}
services:
  app:
    image: taskenv-example/postgres:15
    entrypoint: ["sleep", "infinity"]
    x-taskenv:
      env: {S3_ENDPOINT: uploads.endpoint, S3_ACCESS_KEY: uploads.access_key, S3_SECRET_KEY: uploads.secret_key, S3_BUCKET: uploads.bucket_files}
YAML
	for t in s3i-a s3i-b; do
		(cd "$dir" && te up -t "$t" >"$WORK/$t.log" 2>&1) || { cat "$WORK/$t.log" >&2; fail "up $t"; }
	done
	assert_eq "$(api GET /containers/s3i-b-taskenv-s3/json | jq -r '.NetworkSettings.Networks | keys | join(",")')" \
		"s3i-b_default" "(B's server on B's network only)"
	assert_eq "$(api GET /containers/s3i-b-taskenv-s3/json | jq -r '.Config.Labels["io.taskenv.task"]')" "s3i-b"
	bb=$(shared_env s3i-b UPLOADS_BUCKET_FILES)
	echo "secret-of-b" >"$WORK/s3i-obj"
	assert_eq "$(shared_s3 "$(shared_env s3i-b UPLOADS_ACCESS_KEY)" "$(shared_env s3i-b UPLOADS_SECRET_KEY)" \
		-o /dev/null -w '%{http_code}' -T "$WORK/s3i-obj" "$(shared_env s3i-b UPLOADS_ENDPOINT)/$bb/k")" "200"
	# The keys differ per task and are not s3rver's default.
	if [ "$(shared_env s3i-a UPLOADS_ACCESS_KEY)" = "$(shared_env s3i-b UPLOADS_ACCESS_KEY)" ] ||
		[ "$(shared_env s3i-a UPLOADS_ACCESS_KEY)" = S3RVER ]; then
		fail "access keys: $(shared_env s3i-a UPLOADS_ACCESS_KEY) $(shared_env s3i-b UPLOADS_ACCESS_KEY)"
	fi
	# The control: B reads its object at its own endpoint from inside.
	out=$(docker -H "unix://$SOCK" exec s3i-b-app-1 sh -c 'curl -sS -m 5 --aws-sigv4 "aws:amz:us-east-1:s3" \
		-u "$S3_ACCESS_KEY:$S3_SECRET_KEY" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$S3_ENDPOINT/$S3_BUCKET/k"')
	assert_eq "$out" "secret-of-b" "(B's app reads its own object: the probe's control)"
	ipb=$(api GET /containers/s3i-b-taskenv-s3/json | jq -r '[.NetworkSettings.Networks[].IPAddress] | join(" ")')
	portb=$(shared_port s3i-b-taskenv-s3 4568)
	gws=$(api GET /containers/s3i-a-app-1/json | jq -r '[.NetworkSettings.Networks[].Gateway] | join(" ")')
	targets="uploads:4568 127.0.0.1:$portb"
	for t in $ipb; do targets+=" $t:4568"; done
	for t in $gws; do targets+=" $t:$portb $t:4568"; done
	out=$(docker -H "unix://$SOCK" exec -e "TARGETS=$targets" -e "BB=$bb" s3i-a-app-1 sh -c '
		for t in $TARGETS; do
			for cred in "$S3_ACCESS_KEY:$S3_SECRET_KEY" S3RVER:S3RVER unsigned; do
				for path in / "/$BB/k" "/$BB"; do
					if [ "$cred" = unsigned ]; then
						r=$(curl -sS -m 3 "http://$t$path" 2>&1)
					else
						r=$(curl -sS -m 3 --aws-sigv4 "aws:amz:us-east-1:s3" -u "$cred" \
							-H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "http://$t$path" 2>&1)
					fi
					case $r in
					*"<Name>$BB</Name>"*|*secret-of-b*|*ListBucketResult*) echo "LEAK $t ${cred%%:*} $path: $r" ;;
					*"Failed to connect"*|*"timed out"*|*"Could not resolve"*|*"Connection refused"*) echo "closed $t" ;;
					*) echo "answered $t ${cred%%:*} $path: $(printf %s "$r" | tr -d "\n" | grep -o "<Code>[A-Za-z]*</Code>" | head -n 1)" ;;
					esac
				done
			done
		done' 2>&1)
	log "    from A's app: $(sort -u <<<"$out" | grep -v '^answered uploads' | tr '\n' ';')"
	assert_not_contains "$out" "LEAK"
	# A's own endpoint answers with A's keys only, and lists A's bucket, not B's.
	out=$(docker -H "unix://$SOCK" exec s3i-a-app-1 sh -c 'curl -sS -m 5 --aws-sigv4 "aws:amz:us-east-1:s3" \
		-u "$S3_ACCESS_KEY:$S3_SECRET_KEY" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$S3_ENDPOINT/"')
	assert_contains "$out" "<Name>$(shared_env s3i-a UPLOADS_BUCKET_FILES)</Name>"
	# The contract says which boundary it is.
	assert_contains "$(te contract -t s3i-a --json | jq -r '.identity.credentials[].username')" "own emulator instance"
	te down -t s3i-a --timeout 1 >/dev/null 2>&1
	te down -t s3i-b --timeout 1 >/dev/null 2>&1
	assert_eq "$(engine_names containers io.taskenv.server=s3 | grep -c .)" "0" "(the s3 servers went with their tasks)"
	assert_eq "$(count_task_objects s3i-a)$(count_task_objects s3i-b)" "00"
}
