# Issue 8: build:, secrets/configs, --rmi, on the real engine.
# shellcheck shell=bash

build_project() {
	local d
	d=$(mktemp -d "$WORK/build.XXXX")
	cp -a "$TE_ROOT/tests/projects/$1/." "$d/"
	echo "$d"
}

image_exists() {
	[ "$(api GET "/images/$1/json" | jq -r '.Id // "absent"')" != absent ]
}

# The image a container was created from, as written (Podman reports
# "docker.io/library/NAME:latest" or "localhost/NAME:latest" for NAME).
container_image() {
	api GET "/containers/$1/json" | jq -r '.Config.Image | sub("^(docker.io/library/|localhost/)"; "") | sub(":latest$"; "")'
}

# Acceptance 1: multi-stage, ARG, COPY and a .dockerignore with an exception;
# two tasks build and run at once, each its own image.
test_build_two_tasks() {
	local dir t logs
	dir=$(build_project build-app)
	GREETING=from-a te up -t bld-a -f "$dir/compose.yaml" >"$WORK/bld-a.log" 2>&1 &
	local pa=$!
	GREETING=from-b te up -t bld-b -f "$dir/compose.yaml" >"$WORK/bld-b.log" 2>&1 &
	local pb=$!
	wait "$pa" || { cat "$WORK/bld-a.log" >&2; fail "up bld-a"; }
	wait "$pb" || { cat "$WORK/bld-b.log" >&2; fail "up bld-b"; }
	grep -qi "step 1/" "$WORK/bld-a.log" || fail "no build progress in the output of up"
	for t in a b; do
		image_exists "bld-$t-app" || fail "image bld-$t-app was not built"
		assert_eq "$(api GET "/images/bld-$t-app/json" | jq -r '.Config.Labels["io.taskenv.task"]')" "bld-$t"
		assert_eq "$(api GET "/images/bld-$t-app/json" | jq -r '.Config.Labels["org.example.built-by"]')" "taskenv-test"
		wait_for 20 sh -c "curl -sS --unix-socket '$SOCK' 'http://localhost/containers/bld-$t-app-1/logs?stdout=1' | grep -q listed" ||
			fail "bld-$t-app-1 did not list /app"
		logs=$(container_log "bld-$t-app-1")
		assert_contains "$logs" "greeting=from-$t"
		assert_contains "$logs" "/app/app.txt"
		assert_contains "$logs" "/app/docs/keep.txt"
		assert_not_contains "$logs" "/app/docs/drop.txt"
		assert_not_contains "$logs" "/app/docs/sub"
		assert_not_contains "$logs" "/app/.dockerignore-absent"
	done
	# recorded in the ledger as kind image
	assert_eq "$(sqlite3 "$TASKENV_STATE" "select count(*) from resources where task='bld-a' and kind='image' and state='created'")" "1"
	te down -t bld-a --rmi local --timeout 2 >/dev/null
	te down -t bld-b --rmi local --timeout 2 >/dev/null
	assert_eq "$(count_task_objects bld-a)" "0"
	assert_eq "$(count_task_objects bld-b)" "0"
	! image_exists bld-a-app || fail "bld-a-app left after down --rmi local"
}

# Acceptance 2: a failing RUN fails up with the step and its output; nothing left.
test_build_failure_reported() {
	local dir out
	dir=$(build_project build-fail)
	if te up -t bfail -f "$dir/compose.yaml" >"$WORK/bfail.log" 2>&1; then
		fail "up of a failing build succeeded"
	fi
	out=$(cat "$WORK/bfail.log")
	assert_contains "$out" "build failed"
	assert_contains "$out" "RUN echo about-to-fail-marker && exit 3"
	assert_contains "$out" "about-to-fail-marker"
	assert_eq "$(count_task_objects bfail)" "0"
	! image_exists bfail-app || fail "image bfail-app exists after a failed build"
	assert_eq "$(te ps --json | jq '[.[] | select(.task == "bfail")] | length')" "0"
	assert_eq "$(sqlite3 "$TASKENV_STATE" "select count(*) from resources where task='bfail'")" "0"
}

# Acceptance 4: --rmi local removes the task's "<task>-<service>" images and
# nothing else; without --rmi they are kept and reported. A service with
# image: and build: is built under the task's own name too (issue 13: the
# file's image: never names the tag a build writes), so --rmi local and
# --rmi all both remove exactly what the task built, never a pulled base.
test_build_rmi() {
	local dir out
	dir=$(build_project build-app)
	te up -t brmi --profile named -f "$dir/compose.yaml" >"$WORK/brmi.log" 2>&1 || { cat "$WORK/brmi.log" >&2; fail "up brmi"; }
	image_exists brmi-app || fail "brmi-app not built"
	image_exists brmi-named || fail "brmi-named (image: + build:) not built under the task's name"
	! image_exists taskenv-test/named-build:1 || fail "a build wrote the file's image: tag"
	assert_eq "$(container_image brmi-named-1)" "brmi-named"
	out=$(te down -t brmi --timeout 2 2>&1)
	assert_contains "$out" "kept 2 built image(s)"
	image_exists brmi-app || fail "brmi-app removed without --rmi"
	out=$(te down -t brmi --rmi local 2>&1)
	! image_exists brmi-app || fail "brmi-app kept by --rmi local"
	! image_exists brmi-named || fail "brmi-named kept by --rmi local"
	image_exists taskenv-test/busybox:1 || fail "--rmi local removed the base image"
	te up -t brmi --profile named -f "$dir/compose.yaml" >"$WORK/brmi.log" 2>&1 || { cat "$WORK/brmi.log" >&2; fail "up brmi"; }
	te down -t brmi --rmi all --timeout 2 >/dev/null 2>&1
	! image_exists brmi-named || fail "--rmi all kept a built image"
	image_exists taskenv-test/busybox:1 || fail "--rmi all removed the base (pulled) image"
	assert_eq "$(te ps --json | jq '[.[] | select(.task == "brmi")] | length')" "0"
}

# Builds are the task's (issue 13): tagged "<task>-<service>" with the
# task's labels, whatever image: says; a build never replaces a tag that
# carries another task's label (refused naming the owner) or none (a tag
# someone else made); nothing is created when it refuses. build.network
# other than default/none, and a context or Dockerfile resolving outside
# the project (a symlink included), are refused by check and up with the
# file's line.
test_build_tags_are_the_tasks() {
	local dir id_a out rc verb
	dir=$(mktemp -d "$WORK/bt.XXXX")
	printf 'FROM taskenv-test/busybox:1\nRUN echo built > /built\nCMD ["sleep", "3600"]\n' >"$dir/Dockerfile"
	cat >"$dir/compose.yaml" <<'YAML'
services:
  app:
    image: bta-app
    build: .
    stop_grace_period: 1s
YAML
	te up -t bta -f "$dir/compose.yaml" >"$WORK/bta.log" 2>&1 || { cat "$WORK/bta.log" >&2; fail "up bta"; }
	id_a=$(api GET /images/bta-app/json | jq -r .Id)
	assert_eq "$(api GET /images/bta-app/json | jq -r '.Config.Labels["io.taskenv.task"]')" "bta"
	# Task btb's file names bta's tag: btb builds its own, bta's is untouched.
	te up -t btb -f "$dir/compose.yaml" >"$WORK/btb.log" 2>&1 || { cat "$WORK/btb.log" >&2; fail "up btb"; }
	assert_eq "$(api GET /images/bta-app/json | jq -r .Id)" "$id_a" "(bta's tag moved by btb's build)"
	assert_eq "$(container_image btb-app-1)" "btb-app"
	assert_eq "$(api GET /images/btb-app/json | jq -r '.Config.Labels["io.taskenv.task"]')" "btb"
	te down -t btb --rmi all --timeout 1 >/dev/null 2>&1
	image_exists bta-app || fail "btb's down --rmi all removed bta's image"
	# A tag that carries no task's label is not replaced: refused, nothing created.
	docker -H "unix://$SOCK" tag taskenv-test/busybox:1 btc-app
	rc=0
	out=$(te up -t btc -f "$dir/compose.yaml" 2>&1) || rc=$?
	assert_eq "$rc" "1" "(up over a foreign tag: $out)"
	assert_contains "$out" "the build would replace image 'btc-app', which taskenv did not build for this task (refused)"
	assert_eq "$(api GET /images/btc-app/json | jq -r .Id)" "$(api GET /images/taskenv-test/busybox:1/json | jq -r .Id)"
	assert_no_trace btc
	# Another task's label on the tag (the same task name in another ledger).
	docker -H "unix://$SOCK" rmi btc-app >/dev/null
	docker -H "unix://$SOCK" tag bta-app btc-app
	rc=0
	out=$(te up -t btc -f "$dir/compose.yaml" 2>&1) || rc=$?
	assert_eq "$rc" "1" "(up over another task's tag: $out)"
	assert_contains "$out" "the build would replace image 'btc-app', which another task built (refused)"
	assert_no_trace btc
	docker -H "unix://$SOCK" rmi btc-app >/dev/null
	te down -t bta --rmi local --timeout 1 >/dev/null 2>&1
	! image_exists bta-app || fail "bta-app kept by --rmi local"
	# build.network: host; a context and a Dockerfile outside the project.
	mkdir -p "$dir/net" "$dir/ctx" "$dir/df"
	printf 'services:\n  app:\n    build:\n      context: .\n      network: host\n' >"$dir/net/compose.yaml"
	ln -s / "$dir/ctx/root"
	printf 'services:\n  app:\n    build:\n      context: ./root\n' >"$dir/ctx/compose.yaml"
	printf 'services:\n  app:\n    build:\n      context: .\n      dockerfile: ../../../../../../etc/hostname\n' >"$dir/df/compose.yaml"
	for verb in check "up -t btd"; do
		# shellcheck disable=SC2086 # the verb and its options
		expect_exit 1 te $verb -f "$dir/net/compose.yaml"
		assert_contains "$OUT" "compose.yaml:5:16: services.app.build.network: 'host' refused"
		# shellcheck disable=SC2086
		expect_exit 1 te $verb -f "$dir/ctx/compose.yaml"
		assert_contains "$OUT" "compose.yaml:4:7: services.app.build: context '$dir/ctx/root' resolves to '/', outside the project"
		# shellcheck disable=SC2086
		expect_exit 1 te $verb -f "$dir/df/compose.yaml"
		assert_contains "$OUT" "dockerfile '../../../../../../etc/hostname' resolves to '/etc/hostname', outside the project"
	done
	assert_no_trace btd
}

secrets_project() {
	local d=$1
	printf 'file-secret-value-XYZ' >"$d/token.txt"
	chmod 0644 "$d/token.txt"
	cat >"$d/compose.yaml" <<'YAML'
services:
  app:
    image: taskenv-test/busybox:1
    command: ["sh", "-c", "stat -c '%a %n' /run/secrets/token /run/secrets/api.key /etc/app.conf; md5sum /run/secrets/token /run/secrets/api.key; cat /etc/app.conf; echo checked; trap 'exit 0' TERM; while :; do sleep 1; done"]
    secrets:
      - token
      - source: api_key
        target: api.key
        mode: 0400
    configs:
      - source: app_conf
        target: /etc/app.conf
    stop_grace_period: 1s
secrets:
  token:
    file: ./token.txt
  api_key:
    environment: TE_TEST_API_KEY
configs:
  app_conf:
    content: "config-line"
YAML
}

# Acceptance 3: secrets from a file and the environment at the right path and
# mode; the values never reach the ledger, config, ps or taskenv's output.
test_secrets_not_leaked() {
	local dir logs md5f md5e files_dir
	dir=$(mktemp -d "$WORK/sec.XXXX")
	secrets_project "$dir"
	export TE_TEST_API_KEY=env-secret-value-QRS
	# a secret from a credential-like host variable: the trusted side grants it (docs/security.md)
	expect_exit 1 te up -t sec -f "$dir/compose.yaml"
	assert_contains "$OUT" "passes the host's credential variable TE_TEST_API_KEY into the container (needs --allow host-credentials)"
	te up -t sec -f "$dir/compose.yaml" --allow host-credentials >"$WORK/sec.log" 2>&1 || { cat "$WORK/sec.log" >&2; fail "up sec"; }
	wait_for 20 sh -c "curl -sS --unix-socket '$SOCK' 'http://localhost/containers/sec-app-1/logs?stdout=1' | grep -q checked" ||
		fail "sec-app-1 did not check its secrets"
	logs=$(container_log sec-app-1)
	md5f=$(printf 'file-secret-value-XYZ' | md5sum | cut -d' ' -f1)
	md5e=$(printf 'env-secret-value-QRS' | md5sum | cut -d' ' -f1)
	assert_contains "$logs" "$md5f  /run/secrets/token"
	assert_contains "$logs" "$md5e  /run/secrets/api.key"
	assert_contains "$logs" "644 /run/secrets/token"
	assert_contains "$logs" "400 /run/secrets/api.key"
	assert_contains "$logs" "444 /etc/app.conf"
	assert_contains "$logs" "config-line"
	files_dir="$(dirname "$TASKENV_STATE")/files/sec"
	[ -d "$files_dir" ] || fail "no files directory $files_dir"
	assert_eq "$(stat -c %a "$files_dir")" "700"
	{
		te config -t sec -f "$dir/compose.yaml"
		te config -t sec -f "$dir/compose.yaml" --format json
		te ps --json
		te ps
		te env -t sec
		te contract -t sec --format json
		te contract -t sec
		te events -t sec --json
		te down -t sec --timeout 2
	} >"$WORK/sec-out.log" 2>&1
	cat "$WORK/sec.log" >>"$WORK/sec-out.log"
	for v in file-secret-value-XYZ env-secret-value-QRS; do
		! grep -q "$v" "$WORK/sec-out.log" || fail "secret value '$v' in taskenv's output"
		! grep -qa "$v" "$TASKENV_STATE"* || fail "secret value '$v' in the ledger files"
	done
	assert_contains "$(cat "$WORK/sec-out.log")" "TE_TEST_API_KEY"
	[ ! -e "$files_dir" ] || fail "down left $files_dir"
	assert_eq "$(count_task_objects sec)" "0"
	unset TE_TEST_API_KEY
}

# A missing environment variable for a secret fails up before anything runs.
test_secret_env_missing() {
	local dir out
	dir=$(mktemp -d "$WORK/sec.XXXX")
	secrets_project "$dir"
	unset TE_TEST_API_KEY
	if out=$(te up -t secmiss -f "$dir/compose.yaml" 2>&1); then fail "up without the variable succeeded"; fi
	assert_contains "$out" "secret 'api_key': environment variable 'TE_TEST_API_KEY' is not set"
	assert_eq "$(count_task_objects secmiss)" "0"
	assert_eq "$(te ps --json | jq '[.[] | select(.task == "secmiss")] | length')" "0"
}

# The rest: keys passed to the engine, and platform checked against it.
test_compose_rest_keys() {
	local dir out c
	dir=$(mktemp -d "$WORK/rest.XXXX")
	cat >"$dir/compose.yaml" <<'YAML'
version: "3.8"
name: some-project
services:
  app:
    image: taskenv-test/busybox:1
    command: ["sh", "-c", "echo h=$$(cat /proc/sys/kernel/hostname) d=$$(cat /proc/sys/kernel/domainname) s=$$(cat /proc/sys/net/core/somaxconn) n=$$(ulimit -n) shown; trap 'exit 0' TERM; while :; do sleep 1; done"]
    hostname: app-host
    domainname: example.internal
    expose: ["8080"]
    sysctls:
      net.core.somaxconn: 1024
    # nproc too: Podman (4.3, here) given only nofile tries to set nproc to
    # the host's limits and fails without CAP_SYS_RESOURCE.
    ulimits:
      nofile: {soft: 1000, hard: 1500}
      nproc: 2000
    tty: true
    stdin_open: true
    stop_grace_period: 1s
YAML
	out=$(te up -t rest -f "$dir/compose.yaml" 2>&1) || { echo "$out" >&2; fail "up rest"; }
	assert_contains "$out" "version is obsolete"
	c=$(api GET /containers/rest-app-1/json)
	assert_eq "$(jq -r '.Config.ExposedPorts | has("8080/tcp")' <<<"$c")" "true"
	assert_eq "$(jq -r '.Config.Tty, .Config.OpenStdin' <<<"$c" | tr '\n' ' ')" "true true "
	# Podman's inspect leaves out Domainname and Sysctls: look from inside.
	wait_for 20 sh -c "curl -sS --unix-socket '$SOCK' 'http://localhost/containers/rest-app-1/logs?stdout=1' | grep -q shown" ||
		fail "rest-app-1 printed nothing"
	if [ "$ENGINE_KIND" = podman ]; then
		assert_contains "$out" "domainname is not applied by Podman"
		assert_contains "$(container_log rest-app-1)" "h=app-host d=(none) s=1024 n=1000 shown"
	else
		assert_contains "$(container_log rest-app-1)" "h=app-host d=example.internal s=1024 n=1000 shown"
	fi
	# name: is recorded, the task name names the resources
	[ "$(api GET /containers/some-project-app-1/json | jq -r '.Id // "absent"')" = absent ] || fail "name: named a container"
	te down -t rest --timeout 2 >/dev/null
	sed -i 's/^    hostname: app-host/    platform: linux\/s390x/' "$dir/compose.yaml"
	if [ "$(uname -m)" != s390x ]; then
		if out=$(te up -t rest2 -f "$dir/compose.yaml" 2>&1); then fail "platform linux/s390x ran"; fi
		assert_contains "$out" "platform 'linux/s390x' cannot run on this engine"
		assert_eq "$(count_task_objects rest2)" "0"
	fi
}

# An image that exists is used as it is; up --build and pull_policy: build rebuild it.
test_build_rebuild() {
	local dir id1 id2 id3 out
	dir=$(build_project build-app)
	te up -t breb -f "$dir/compose.yaml" >/dev/null 2>&1 || fail "up breb"
	id1=$(api GET /images/breb-app/json | jq -r .Id)
	echo changed >"$dir/app.txt"
	out=$(te up -t breb -f "$dir/compose.yaml" 2>&1) || fail "second up breb"
	assert_not_contains "$out" "building"
	assert_eq "$(api GET /images/breb-app/json | jq -r .Id)" "$id1" "(rebuilt without --build)"
	out=$(te up -t breb --build -f "$dir/compose.yaml" 2>&1) || { echo "$out" >&2; fail "up --build breb"; }
	assert_contains "$out" "building"
	id2=$(api GET /images/breb-app/json | jq -r .Id)
	[ "$id2" != "$id1" ] || fail "up --build did not rebuild"
	assert_eq "$(sqlite3 "$TASKENV_STATE" "select engine_id from resources where task='breb' and kind='image' and state='created'")" "$id2"
	# the container is recreated on the new image, the replaced image removed
	assert_eq "$(api GET /containers/breb-app-1/json | jq -r .Image)" "$id2"
	assert_eq "$(api GET "/images/$id1/json" | jq -r '.Id // "absent"')" "absent" "(replaced image kept)"
	echo again >"$dir/app.txt"
	sed -i 's/^    stop_grace_period: 1s/    pull_policy: build\n    stop_grace_period: 1s/' "$dir/compose.yaml"
	out=$(te up -t breb -f "$dir/compose.yaml" 2>&1) || { echo "$out" >&2; fail "up breb with pull_policy: build"; }
	assert_contains "$out" "building"
	id3=$(api GET /images/breb-app/json | jq -r .Id)
	[ "$id3" != "$id2" ] || fail "pull_policy: build did not rebuild"
	te down -t breb --rmi local --timeout 2 >/dev/null 2>&1
	assert_eq "$(count_task_objects breb)" "0"
}
