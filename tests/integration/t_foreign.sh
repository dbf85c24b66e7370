# Issue 17: a container outside the task on a task's network or volume.
# Every path that removes one (down, gc of an expired task, retain expiry,
# gc of an orphan) keeps it while the foreign container is there, exits 1
# naming it, leaves the row pending, and removes it once the foreign
# container is gone. Podman's compat DELETE /networks/{id} removes a network
# with a running container attached: the engine does not stop it for us.
# The foreign containers are made and removed here with the Engine API
# itself, never through taskenv.
# shellcheck shell=bash
# SOCK is exported by tests/integration/run.sh.
# shellcheck disable=SC2153
# The traps remove what each test made by id, expanded when they are set.
# shellcheck disable=SC2064

# A one-service file with a named volume, in a fresh project dir (printed).
foreign_project() {
	local d
	d=$(mktemp -d "$WORK/proj.XXXX")
	cat >"$d/compose.yaml" <<-'EOF'
		services:
		  app:
		    image: taskenv-test/busybox:1
		    command: ["sh", "-c", "trap 'exit 0' TERM; while :; do sleep 1; done"]
		    volumes: ["data:/data"]
		volumes:
		  data: {}
	EOF
	echo "$d"
}

# api_json METHOD PATH BODY: the Engine API with a JSON body.
api_json() {
	curl -sS --unix-socket "$SOCK" -H 'Content-Type: application/json' -X "$1" -d "$3" "http://localhost$2"
}

# foreign_run NAME [VOLUME]: a running busybox container that is no task's
# (no taskenv label), mounting VOLUME at /d when given; prints its id. The
# calling test removes it by id (foreign_rm) on every way out.
foreign_run() {
	local body id
	body=$(jq -n --arg v "${2:-}" '{Image: "taskenv-test/busybox:1", Cmd: ["sleep", "600"]}
		+ (if $v == "" then {} else {HostConfig: {Mounts: [{Type: "volume", Source: $v, Target: "/d"}]}} end)')
	id=$(api_json POST "/containers/create?name=$1" "$body" | jq -er .Id) || return 1
	api POST "/containers/$id/start" >/dev/null
	echo "$id"
}

# foreign_connect ID NETWORK: as `docker network connect NETWORK ID`.
foreign_connect() {
	local out
	out=$(api_json POST "/networks/$2/connect" "$(jq -n --arg c "$1" '{Container: $c}')")
	case $out in "" | OK) ;; *) fail "connect $1 to $2: $out" ;; esac
}

foreign_rm() {
	local id
	for id in "$@"; do api DELETE "/containers/$id?force=1" >/dev/null 2>&1 || true; done
}

# The ledger state of TASK's row NAME ("" when there is none).
row_state() {
	python3 - "$TASKENV_STATE" "$1" "$2" <<-'PY'
		import sqlite3, sys
		r = sqlite3.connect(sys.argv[1]).execute(
		    "select state from resources where task = ? and name = ? order by id desc", (sys.argv[2], sys.argv[3])).fetchone()
		print(r[0] if r else "")
	PY
}

# The foreign container ID still runs and still has its network or volume.
assert_foreign_intact() {
	local obj
	obj=$(api GET "/containers/$1/json")
	assert_eq "$(jq -r .State.Running <<<"$obj")" "true" "(foreign container running)"
	case $2 in
	network) assert_eq "$(jq -r --arg n "$3" '.NetworkSettings.Networks | has($n)' <<<"$obj")" "true" "(foreign still on $3)" ;;
	volume) assert_eq "$(jq -r --arg n "$3" '[.Mounts[] | select(.Type == "volume" and .Name == $n)] | length' <<<"$obj")" "1" "(foreign still mounts $3)" ;;
	esac
}

# The engine's own answer: does network/volume NAME exist?
engine_has() {
	local code
	code=$(curl -s -o /dev/null -w '%{http_code}' --unix-socket "$SOCK" "http://localhost/${1}s/$2")
	[ "$code" = 200 ]
}

# Acceptance 1: the reproduction of the issue (network connect of a running
# container, then down --volumes).
test_foreign_network_down() {
	local d fid
	d=$(foreign_project)
	te up -f "$d/compose.yaml" -t fn1 >/dev/null 2>&1 || fail "up fn1"
	fid=$(foreign_run fn1-foreign)
	trap "foreign_rm $fid" EXIT
	foreign_connect "$fid" fn1_default

	expect_exit 1 te down -t fn1 --volumes --timeout 0
	assert_contains "$OUT" "network 'fn1_default' is in use by container 'fn1-foreign' (not of task 'fn1'): left in place"
	assert_contains "$OUT" "remain (network fn1_default)"
	assert_foreign_intact "$fid" network fn1_default
	engine_has network fn1_default || fail "fn1_default was removed"
	assert_eq "$(row_state fn1 fn1_default)" "pending"
	assert_eq "$(engine_names containers io.taskenv.task=fn1 | grep -c .)" "0" "(the task's own container went)"
	engine_has volume fn1_data && fail "fn1_data (no foreign user) was kept"

	foreign_rm "$fid"
	expect_exit 0 te down -t fn1 --volumes --timeout 0
	engine_has network fn1_default && fail "fn1_default is still there"
	assert_no_trace fn1
}

# Acceptance 2: a foreign container mounting the task's volume.
test_foreign_volume_down() {
	local d fid
	d=$(foreign_project)
	te up -f "$d/compose.yaml" -t fv1 >/dev/null 2>&1 || fail "up fv1"
	fid=$(foreign_run fv1-foreign fv1_data)
	trap "foreign_rm $fid" EXIT

	expect_exit 1 te down -t fv1 --volumes --timeout 0
	assert_contains "$OUT" "volume 'fv1_data' is in use by container 'fv1-foreign' (not of task 'fv1'): left in place"
	assert_foreign_intact "$fid" volume fv1_data
	engine_has volume fv1_data || fail "fv1_data was removed"
	assert_eq "$(row_state fv1 fv1_data)" "pending"
	engine_has network fv1_default && fail "fv1_default (no foreign user) was kept"

	foreign_rm "$fid"
	expect_exit 0 te down -t fv1 --volumes --timeout 0
	engine_has volume fv1_data && fail "fv1_data is still there"
	assert_no_trace fv1
}

# Containers that are not running count too: one created on the network and
# never started (dockerd's {"network":[ID]} filter leaves it out: it has no
# endpoint yet), one stopped after it was connected.
test_foreign_not_running() {
	local d created stopped body
	d=$(foreign_project)
	te up -f "$d/compose.yaml" -t fs1 >/dev/null 2>&1 || fail "up fs1"
	body=$(jq -n '{Image: "taskenv-test/busybox:1", Cmd: ["true"], HostConfig: {NetworkMode: "fs1_default"}}')
	created=$(api_json POST "/containers/create?name=fs1-created" "$body" | jq -er .Id)
	stopped=$(foreign_run fs1-stopped)
	trap "foreign_rm $created $stopped" EXIT
	foreign_connect "$stopped" fs1_default
	api POST "/containers/$stopped/stop?t=0" >/dev/null

	expect_exit 1 te down -t fs1 --volumes --timeout 0
	assert_contains "$OUT" "network 'fs1_default' is in use by containers"
	assert_contains "$OUT" "'fs1-created'"
	assert_contains "$OUT" "'fs1-stopped'"
	engine_has network fs1_default || fail "fs1_default was removed"

	foreign_rm "$created" "$stopped"
	expect_exit 0 te down -t fs1 --volumes --timeout 0
	assert_no_trace fs1
}

# gc of an expired lease: the same, and the next gc finishes.
test_foreign_gc_expired() {
	local d fid
	d=$(foreign_project)
	te up -f "$d/compose.yaml" -t fg1 --lease 1s >/dev/null 2>&1 || fail "up fg1"
	fid=$(foreign_run fg1-foreign)
	trap "foreign_rm $fid" EXIT
	foreign_connect "$fid" fg1_default
	sleep 1.1

	expect_exit 1 te gc --timeout 0
	assert_contains "$OUT" "network 'fg1_default' is in use by container 'fg1-foreign' (not of task 'fg1')"
	assert_foreign_intact "$fid" network fg1_default
	engine_has network fg1_default || fail "fg1_default was removed"
	assert_eq "$(row_state fg1 fg1_default)" "pending"

	foreign_rm "$fid"
	expect_exit 0 te gc --timeout 0
	assert_no_trace fg1
}

# retain, then its expiry (gc takes the retained task down, volumes too).
test_foreign_retain_expiry() {
	local d fid
	d=$(foreign_project)
	te up -f "$d/compose.yaml" -t fr1 >/dev/null 2>&1 || fail "up fr1"
	fid=$(foreign_run fr1-foreign fr1_data)
	trap "foreign_rm $fid" EXIT
	foreign_connect "$fid" fr1_default
	te retain -t fr1 --for 1s --timeout 0 --reason "foreign test" >/dev/null 2>&1 || fail "retain fr1"
	sleep 1.1

	expect_exit 1 te gc --timeout 0
	assert_contains "$OUT" "network 'fr1_default' is in use by container 'fr1-foreign' (not of task 'fr1')"
	assert_contains "$OUT" "volume 'fr1_data' is in use by container 'fr1-foreign' (not of task 'fr1')"
	assert_foreign_intact "$fid" network fr1_default
	assert_foreign_intact "$fid" volume fr1_data
	assert_eq "$(row_state fr1 fr1_default)" "pending"
	assert_eq "$(row_state fr1 fr1_data)" "pending"

	foreign_rm "$fid"
	expect_exit 0 te gc --timeout 0
	assert_no_trace fr1
}

# An orphan (this ledger's labels, no row): gc keeps it while a container
# is on it, whoever that container is.
test_foreign_gc_orphan() {
	local d ledger body fid
	d=$(foreign_project)
	te up -f "$d/compose.yaml" -t fo1 >/dev/null 2>&1 || fail "up fo1"
	ledger=$(api GET /networks/fo1_default | jq -er '.Labels["io.taskenv.ledger"]')
	te down -t fo1 --volumes --timeout 0 >/dev/null 2>&1 || fail "down fo1"
	body=$(jq -n --arg l "$ledger" '{Name: "fo1_orphan", Labels: {"io.taskenv.task": "fo1", "io.taskenv.ledger": $l}}')
	api_json POST /networks/create "$body" | jq -e .Id >/dev/null || fail "create fo1_orphan"
	fid=$(foreign_run fo1-foreign)
	trap "foreign_rm $fid; api DELETE /networks/fo1_orphan >/dev/null 2>&1 || true" EXIT
	foreign_connect "$fid" fo1_orphan

	expect_exit 1 te gc --timeout 0
	assert_contains "$OUT" "network 'fo1_orphan' is in use by container 'fo1-foreign': left in place"
	assert_foreign_intact "$fid" network fo1_orphan
	engine_has network fo1_orphan || fail "fo1_orphan was removed"

	foreign_rm "$fid"
	expect_exit 0 te gc --timeout 0
	assert_contains "$OUT" "orphan, removed"
	engine_has network fo1_orphan && fail "fo1_orphan is still there"
	return 0
}

# Hostile: a second project joins the first task's network as an external
# one. Taking the first task down must not pull the network from under the
# second (on Podman it did); the second's down never removes it (external).
test_foreign_task_on_network() {
	local d1 d2 fid
	d1=$(foreign_project)
	te up -f "$d1/compose.yaml" -t fh1 >/dev/null 2>&1 || fail "up fh1"
	d2=$(mktemp -d "$WORK/proj.XXXX")
	cat >"$d2/compose.yaml" <<-'EOF'
		services:
		  squat:
		    image: taskenv-test/busybox:1
		    command: ["sh", "-c", "trap 'exit 0' TERM; while :; do sleep 1; done"]
		networks:
		  default:
		    external: true
		    name: fh1_default
	EOF
	# Another task's network as external: the gate refuses it outright
	# (docs/security.md), even with --allow external-network.
	expect_exit 1 te up -f "$d2/compose.yaml" -t fh2 --allow external-network
	assert_contains "$OUT" "another task"
	assert_no_trace fh2
	# What the file may not do, a container made by hand may: it keeps
	# fh1's network, and fh1's down says so.
	fid=$(foreign_run fh2-squat-1) || fail "hand-made container"
	trap "foreign_rm $fid" EXIT
	foreign_connect "$fid" fh1_default

	expect_exit 1 te down -t fh1 --volumes --timeout 0
	assert_contains "$OUT" "network 'fh1_default' is in use by container 'fh2-squat-1' (not of task 'fh1')"
	assert_eq "$(api GET /containers/fh2-squat-1/json | jq -r .State.Running)" "true" "(the squatter runs)"
	engine_has network fh1_default || fail "fh1_default was removed under fh2-squat-1"

	foreign_rm "$fid"
	trap - EXIT
	expect_exit 0 te down -t fh1 --volumes --timeout 0
	assert_no_trace fh1
}

# Hostile: the Compose file names a foreign anonymous volume (left by a
# container removed without -v) as an external volume. DELETE
# /containers/{id}?v=1 removes the container's anonymous volumes: dockerd
# never one the container was given by name, Podman 4.3 any anonymous one
# it mounts. `down` (and --volumes: external is never the task's) keeps it.
test_foreign_anonymous_volume() {
	local vol d body fid own
	body=$(jq -n '{Image: "taskenv-test/busybox:1", Cmd: ["true"], Volumes: {"/anon": {}}}')
	fid=$(api_json POST /containers/create?name=fa1-foreign "$body" | jq -er .Id)
	vol=$(api GET "/containers/$fid/json" | jq -er '.Mounts[0].Name')
	trap "foreign_rm $fid; api DELETE /volumes/$vol >/dev/null 2>&1 || true" EXIT
	api DELETE "/containers/$fid?v=0" >/dev/null
	engine_has volume "$vol" || fail "the anonymous volume went with its container"
	d=$(mktemp -d "$WORK/proj.XXXX")
	cat >"$d/compose.yaml" <<-EOF2
		services:
		  loot:
		    image: taskenv-test/busybox:1
		    command: ["sh", "-c", "trap 'exit 0' TERM; while :; do sleep 1; done"]
		    volumes: ["loot:/x", "/own"]
		volumes:
		  loot:
		    external: true
		    name: $vol
	EOF2
	# The trusted side grants the external volume; down must still keep it.
	te up -f "$d/compose.yaml" -t fa1 --allow external-volume >/dev/null 2>&1 || fail "up fa1"
	own=$(api GET /containers/fa1-loot-1/json | jq -er '.Mounts[] | select(.Destination == "/own") | .Name')
	expect_exit 0 te down -t fa1 --volumes --timeout 0
	engine_has volume "$vol" || fail "down removed the foreign volume $vol"
	engine_has volume "$own" && fail "the task's own anonymous volume $own was kept"
	assert_no_trace fa1
}
