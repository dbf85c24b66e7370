# Issue 5: the workspace contract (worktree, contract, verify, events, evidence).
# shellcheck shell=bash

# A git repository with a Compose file: "web" runs as 1000:1000 with a
# read-only bind of ./data and prints a line; "worker" mounts the whole
# checkout read-write (a worktree, when run from one). *.log is ignored.
contract_repo() {
	local d
	d=$(mktemp -d "$WORK/repo.XXXX")
	mkdir -p "$d/data"
	echo "seed" >"$d/data/seed.txt"
	echo "notes" >"$d/notes.txt"
	printf '*.log\n' >"$d/.gitignore"
	cat >"$d/compose.yaml" <<'YAML'
services:
  web:
    image: taskenv-test/busybox:1
    user: "1000:1000"
    command: ["sh", "-c", "echo hello-from-web; mkdir -p /tmp/www && echo web > /tmp/www/index.html && exec httpd -f -p 8080 -h /tmp/www"]
    ports:
      - "8080:8080"
    volumes:
      - ./data:/data:ro
      - cache:/cache
  worker:
    image: taskenv-test/busybox:1
    command: ["sleep", "3600"]
    volumes:
      - ./:/src
volumes:
  cache: {}
YAML
	git -C "$d" init -q
	git -C "$d" add -A
	git -C "$d" -c user.email=t@example.com -c user.name=t commit -qm init
	echo "$d"
}

ledger_id() { te contract -t "$1" --format json | jq -r .ledger_id; }

# Create and start a container by hand (Engine API, as a user with the
# docker CLI would) carrying TASK's labels; BODY is merged into the create body.
hand_container() {
	local task=$1 name=$2 extra=$3 lid body id
	lid=$(ledger_id "$task")
	[ -n "$lid" ] || fail "no ledger id from contract"
	body=$(jq -n --arg t "$task" --arg l "$lid" --argjson x "$extra" \
		'{Image: "taskenv-test/busybox:1", Cmd: ["sleep", "3600"],
		  Labels: {"io.taskenv.task": $t, "io.taskenv.ledger": $l}} * $x')
	id=$(curl -sS --unix-socket "$SOCK" -H 'Content-Type: application/json' -d "$body" \
		"http://localhost/containers/create?name=$name" | jq -r .Id)
	if [ -z "$id" ] || [ "$id" = null ]; then fail "could not create $name"; fi
	api POST "/containers/$id/start" >/dev/null
	echo "$id"
}

# Acceptance 1: worktree, up inside it, change a file; the JSON contract
# reports base commit, dirty count, mounts with rw/ro, ports, limits, users.
test_contract_in_worktree() {
	local repo wt base out j port
	repo=$(contract_repo)
	base=$(git -C "$repo" rev-parse HEAD)
	out=$(cd "$repo" && te worktree add c1)
	wt="$repo-c1"
	assert_contains "$out" "branch task/c1"
	[ -f "$wt/.git" ] || fail "no worktree at $wt"
	out=$(cd "$wt" && te up 2>&1)
	assert_contains "$out" "task 'c1' is up"
	assert_contains "$out" "warning: service 'worker' bind-mounts the git worktree"
	assert_contains "$out" "also mount '$(realpath "$repo")/.git:$(realpath "$repo")/.git:ro'"
	echo "changed" >>"$wt/notes.txt"
	j=$(te contract -t c1 --format json)
	assert_eq "$(jq -r .schema_version <<<"$j")" "1"
	assert_eq "$(jq -r .source.base_commit <<<"$j")" "$base"
	assert_eq "$(jq -r .source.worktree_path <<<"$j")" "$(realpath "$wt")"
	assert_eq "$(jq -r .source.dirty_files <<<"$j")" "1"
	assert_eq "$(jq -r '.filesystem.mounts[] | select(.target == "/data") | .mode' <<<"$j")" "ro"
	assert_eq "$(jq -r '.filesystem.mounts[] | select(.target == "/data") | .inside_project' <<<"$j")" "true"
	assert_eq "$(jq -r '.filesystem.mounts[] | select(.target == "/src") | .mode' <<<"$j")" "rw"
	assert_eq "$(jq -r '.filesystem.mounts[] | select(.target == "/src") | .git_worktree' <<<"$j")" "true"
	assert_eq "$(jq -r '.filesystem.mounts[] | select(.target == "/cache") | .type' <<<"$j")" "volume"
	assert_eq "$(jq -r '[.filesystem.absent[] | select(.absent | not)] | length' <<<"$j")" "0"
	port=$(task_port c1 web 8080)
	assert_eq "$(jq -r '.process.ports[] | "\(.host_ip):\(.host_port):\(.ledger_host_port):\(.container_port)"' <<<"$j")" \
		"127.0.0.1:$port:$port:8080"
	assert_eq "$(jq -r '.process.networks[0].subnets | length' <<<"$j")" "1"
	assert_eq "$(jq -r '.environment.limits | length' <<<"$j")" "2"
	# The policy's default memory limit (2g) is in force when the file is silent.
	assert_eq "$(jq -r '.environment.limits[] | select(.container == "c1-web-1") | .memory_bytes' <<<"$j")" "2147483648"
	assert_eq "$(jq -r '.identity.users[] | select(.container == "c1-web-1") | .user' <<<"$j")" "1000:1000"
	assert_eq "$(jq -r '.identity.users[] | select(.container == "c1-worker-1") | .user' <<<"$j")" "root (image default)"
	assert_eq "$(jq -r '.identity.policy_exceptions | length' <<<"$j")" "0"
	assert_eq "$(jq -r '.promotion.branch' <<<"$j")" "task/c1"
	assert_contains "$(jq -r '.promotion.diff_stat' <<<"$j")" "notes.txt"
	assert_contains "$(jq -r '.warnings[0]' <<<"$j")" "git worktree"
	assert_contains "$(te contract -t c1)" "## Promotion"
	# Every ledger change is an event.
	te down -t c1 --volumes --timeout 1 >/dev/null 2>&1
	j=$(te events -t c1 --json)
	assert_eq "$(jq -r '[.[] | select(.resource == "container c1-web-1") | "\(.verb):\(.outcome)"] | join(" ")' <<<"$j")" \
		"up:intended up:created up:detail recorded down:removing down:removed"
	assert_eq "$(jq -r '[.[] | select(.resource == "worktree")] | .[0].outcome' <<<"$j")" "created"
	(cd "$repo" && te worktree remove c1 --force --delete-branch >/dev/null)
	assert_eq "$(count_task_objects c1)" "0"
}

# Acceptance 2: verify passes on the example.
test_verify_passes_on_example() {
	local dir out
	dir=$(copy_example agent-pair)
	(cd "$dir" && te up -t vok >/dev/null 2>&1)
	out=$(te verify -t vok) || fail "verify failed: $out"
	assert_contains "$out" "PASS  ledger-engine"
	assert_contains "$out" "PASS  ports         vok-app-1 3000/tcp"
	assert_contains "$out" "PASS  engine-socket vok-app-1"
	assert_contains "$out" "PASS  limits        vok-app-1 memory"
	assert_contains "$out" "verify: 0 failed"
	assert_not_contains "$out" "FAIL"
	te down -t vok --volumes --timeout 1 >/dev/null 2>&1
	assert_eq "$(count_task_objects vok)" "0"
}

# Acceptance 2, break 1: a container started by hand under the task's
# labels with a host mount nobody declared.
test_verify_catches_extra_host_mount() {
	local repo id out rc=0
	repo=$(contract_repo)
	(cd "$repo" && te up -t vmount >/dev/null 2>&1)
	te verify -t vmount >/dev/null || fail "verify failed before the break"
	id=$(hand_container vmount vmount-extra-1 '{"HostConfig": {"Binds": ["/etc:/host-etc:ro"]}}')
	out=$(te verify -t vmount) || rc=$?
	api DELETE "/containers/$id?force=1" >/dev/null
	assert_eq "$rc" "1"
	assert_contains "$out" "FAIL  mounts        vmount-extra-1 /host-etc: host path '/etc' is mounted but the Compose file did not declare it"
	assert_contains "$out" "FAIL  ledger-engine vmount-extra-1"
	te down -t vmount --volumes --timeout 1 >/dev/null 2>&1
	assert_eq "$(count_task_objects vmount)" "0"
}

# Acceptance 2, break 2: a port published on 0.0.0.0 by hand under the task's labels.
test_verify_catches_public_port() {
	local repo id out port rc=0
	repo=$(contract_repo)
	(cd "$repo" && te up -t vport >/dev/null 2>&1)
	port=$(shuf -i 30000-39999 -n 1)
	id=$(hand_container vport vport-public-1 \
		"{\"ExposedPorts\": {\"80/tcp\": {}}, \"HostConfig\": {\"PortBindings\": {\"80/tcp\": [{\"HostIp\": \"0.0.0.0\", \"HostPort\": \"$port\"}]}}}")
	out=$(te verify -t vport) || rc=$?
	api DELETE "/containers/$id?force=1" >/dev/null
	assert_eq "$rc" "1"
	assert_contains "$out" "FAIL  ports         vport-public-1 80/tcp: published on '0.0.0.0:$port', not on 127.0.0.1 only"
	te down -t vport --volumes --timeout 1 >/dev/null 2>&1
	assert_eq "$(count_task_objects vport)" "0"
}

# Acceptance 2, break 3: a resource removed behind taskenv's back.
test_verify_catches_removed_resource() {
	local repo out rc=0
	repo=$(contract_repo)
	(cd "$repo" && te up -t vgone >/dev/null 2>&1)
	api DELETE "/containers/vgone-worker-1?force=1" >/dev/null
	out=$(te verify -t vgone) || rc=$?
	assert_eq "$rc" "1"
	assert_contains "$out" "FAIL  ledger-engine vgone-worker-1: recorded container (ledger state created) is missing from the engine"
	te down -t vgone --volumes --timeout 1 >/dev/null 2>&1
	assert_eq "$(count_task_objects vgone)" "0"
}
# Issue 13 acceptance 2: verify sees what the gate enforces. Each runtime
# case applied by hand with Engine calls of the test's own (containers
# carrying the task's labels that join a task container's network or PID
# namespace, add a capability, turn seccomp off, run privileged, take a
# device, mount /etc; and a declared bind directory swapped for a symlink
# to /etc after up) makes verify FAIL naming the container and the field.
# Then the cross-task probe: from inside vgate's container, another task's
# container answers ping (OPEN, the engine firewall's) or not (PASS); not
# counted in the exit code unless --strict.
test_verify_sees_the_gate() {
	local repo web out rc=0 ids=() id c line
	repo=$(contract_repo)
	(cd "$repo" && te up -t vgate >/dev/null 2>&1) || fail "up vgate"
	out=$(te verify -t vgate) || fail "verify failed before the breaks: $out"
	assert_contains "$out" "PASS  hostconfig    vgate-web-1: namespaces, privileged"
	web=$(api GET /containers/vgate-web-1/json | jq -r .Id)
	ids+=("$(hand_container vgate vgate-netns-1 "{\"HostConfig\": {\"NetworkMode\": \"container:$web\"}}")")
	ids+=("$(hand_container vgate vgate-pidns-1 "{\"HostConfig\": {\"PidMode\": \"container:$web\"}}")")
	ids+=("$(hand_container vgate vgate-cap-1 '{"HostConfig": {"CapAdd": ["SYS_ADMIN"]}}')")
	ids+=("$(hand_container vgate vgate-secopt-1 '{"HostConfig": {"SecurityOpt": ["seccomp=unconfined"]}}')")
	ids+=("$(hand_container vgate vgate-priv-1 '{"HostConfig": {"Privileged": true}}')")
	ids+=("$(hand_container vgate vgate-dev-1 '{"HostConfig": {"Devices": [{"PathOnHost": "/dev/null", "PathInContainer": "/dev/xnull", "CgroupPermissions": "rwm"}]}}')")
	ids+=("$(hand_container vgate vgate-etc-1 '{"HostConfig": {"Binds": ["/etc:/host-etc:ro"]}}')")
	mv "$repo/data" "$repo/data.orig"
	ln -s /etc "$repo/data"
	out=$(te verify -t vgate) || rc=$?
	rm "$repo/data"
	mv "$repo/data.orig" "$repo/data"
	for id in "${ids[@]}"; do api DELETE "/containers/$id?force=1" >/dev/null; done
	assert_eq "$rc" "1"
	assert_contains "$out" "FAIL  hostconfig    vgate-netns-1: HostConfig.NetworkMode is 'container:"
	assert_contains "$out" "FAIL  hostconfig    vgate-pidns-1: HostConfig.PidMode is 'container:"
	for c in "vgate-cap-1: HostConfig.CapAdd has '" "vgate-secopt-1: HostConfig.SecurityOpt has '" \
		"vgate-priv-1: HostConfig.Privileged is true" "vgate-dev-1: HostConfig.Devices has '/dev/null'" \
		"vgate-etc-1: bind source '/etc' (at /host-etc)"; do
		assert_contains "$out" "FAIL  hostconfig    $c"
	done
	line=$(grep "vgate-cap-1: HostConfig.CapAdd" <<<"$out")
	assert_contains "$line" "SYS_ADMIN"
	line=$(grep "vgate-secopt-1: HostConfig.SecurityOpt" <<<"$out")
	assert_contains "$line" "unconfined"
	assert_contains "$out" "FAIL  hostconfig    vgate-web-1: bind source '$repo/data' (at /data) now resolves to '/etc', not '$repo/data'"
	out=$(te verify -t vgate) || fail "verify after the breaks were undone: $out"
	# Cross-task: another task's container, then the probe from vgate's.
	mkdir -p "$repo/other"
	printf 'services:\n  o:\n    image: taskenv-test/busybox:1\n    command: ["sleep", "3600"]\n' >"$repo/other/compose.yaml"
	(cd "$repo/other" && te up -t vgate-o >/dev/null 2>&1) || fail "up vgate-o"
	rc=0
	out=$(te verify -t vgate) || rc=$?
	line=$(grep "cross-task" <<<"$out") || fail "no cross-task line: $out"
	log "    $line"
	case $line in
	"OPEN  cross-task    vgate: from "*)
		assert_eq "$rc" "0" "(OPEN is not counted without --strict)"
		rc=0
		te verify -t vgate --strict >/dev/null || rc=$?
		assert_eq "$rc" "1" "(--strict counts OPEN)" ;;
	"PASS  cross-task    vgate: from "*)
		assert_eq "$rc" "0"
		te verify -t vgate --strict >/dev/null || fail "--strict failed with the cross-task probe passing" ;;
	*) fail "cross-task is neither OPEN nor PASS: $line" ;;
	esac
	te down -t vgate-o --timeout 1 >/dev/null 2>&1
	te down -t vgate --volumes --timeout 1 >/dev/null 2>&1
	assert_eq "$(count_task_objects vgate)$(count_task_objects vgate-o)" "00"
}

# Acceptance 2, break 4 ("a credential granted across tasks by hand") needs
# the drivers (issue 4): the probe hook is check_credentials in
# services/verify.c; its test lands with the merge.

# Acceptance 3: remove shows an ignored file first, refuses with running
# containers and with uncommitted tracked changes, removes cleanly after down.
test_worktree_remove_inventory() {
	local repo wt out rc=0
	repo=$(contract_repo)
	(cd "$repo" && te worktree add r1 >/dev/null)
	wt="$repo-r1"
	# The ledger names the task inside its worktree, whatever the branch is now.
	git -C "$wt" checkout -q -b scratch
	out=$(cd "$wt" && te up 2>&1)
	assert_contains "$out" "task 'r1' is up"
	echo "build output" >"$wt/app.log"
	out=$(cd "$repo" && te worktree remove r1 2>&1) || rc=$?
	assert_eq "$rc" "1"
	assert_contains "$out" "!! app.log"
	assert_contains "$out" "has 2 running container(s)"
	[ -f "$wt/app.log" ] || fail "the worktree was touched while refusing"
	te down -t r1 --volumes --timeout 1 >/dev/null 2>&1
	echo "edit" >>"$wt/notes.txt"
	rc=0
	out=$(cd "$repo" && te worktree remove r1 2>&1) || rc=$?
	assert_eq "$rc" "1"
	assert_contains "$out" "uncommitted changes to tracked files"
	git -C "$wt" checkout -q notes.txt
	out=$(cd "$repo" && te worktree remove r1 2>&1) || fail "remove after down: $out"
	assert_contains "$out" "!! app.log"
	assert_contains "$out" "branch task/r1 kept"
	[ ! -e "$wt" ] || fail "worktree directory still there"
	git -C "$repo" rev-parse --verify -q task/r1 >/dev/null || fail "branch task/r1 was deleted"
	assert_eq "$(count_task_objects r1)" "0"
}

# Acceptance 4: the evidence folder.
test_evidence_folder() {
	local repo wt dir j
	repo=$(contract_repo)
	(cd "$repo" && te worktree add e1 >/dev/null)
	wt="$repo-e1"
	(cd "$wt" && te up >/dev/null 2>&1)
	echo "changed" >>"$wt/notes.txt"
	wait_for 20 sh -c "curl -sS --unix-socket '$SOCK' 'http://localhost/containers/e1-web-1/logs?stdout=1' | grep -q hello-from-web" ||
		fail "web did not print"
	dir="$WORK/evidence-e1"
	te evidence -t e1 -o "$dir" >/dev/null
	for f in contract.md contract.json verify.txt events.json git-diff.patch git-status.txt; do
		[ -s "$dir/$f" ] || fail "$f is missing or empty"
	done
	j=$(jq -S 'del(.generated)' "$dir/contract.json") || fail "contract.json does not parse"
	assert_eq "$j" "$(te contract -t e1 --format json | jq -S 'del(.generated)')"
	assert_contains "$(cat "$dir/logs/e1-web-1.log")" "hello-from-web"
	assert_contains "$(cat "$dir/git-diff.patch")" "+++ b/notes.txt"
	assert_contains "$(cat "$dir/git-status.txt")" " M notes.txt"
	assert_contains "$(cat "$dir/verify.txt")" "PASS  ledger-engine"
	assert_eq "$(jq -r '.[0].task' "$dir/events.json")" "e1"
	te down -t e1 --volumes --timeout 1 >/dev/null 2>&1
	(cd "$repo" && te worktree remove e1 --force --delete-branch >/dev/null)
	assert_eq "$(count_task_objects e1)" "0"
}

# Issue 13, git: the repository's own config is untrusted. A hostile
# .git/config (core.fsmonitor and filter clean/smudge commands writing
# marker files, core.worktree = /, a post-checkout hook, an alias named
# like a built-in) runs nothing through taskenv's git commands (worktree
# add / remove, contract's status and diff, evidence), and the project
# boundary is the directory holding .git, not "/": the worktree lands next
# to the repository and the contract names it.
test_git_hostile_config() {
	local repo wt marks j dir
	repo=$(contract_repo)
	marks="$WORK/git-marks"
	mkdir -p "$marks"
	echo '* filter=hostile' >"$repo/.gitattributes"
	git -C "$repo" add .gitattributes
	git -C "$repo" -c user.email=t@example.com -c user.name=t commit -qm attrs
	cat >>"$repo/.git/config" <<EOF2
[core]
	fsmonitor = "touch $marks/fsmonitor; false"
	worktree = /
[filter "hostile"]
	clean = "touch $marks/clean; cat"
	smudge = "touch $marks/smudge; cat"
[alias]
	status = "!touch $marks/alias"
EOF2
	mkdir -p "$repo/.git/hooks"
	printf '#!/bin/sh\ntouch %s/hook\n' "$marks" >"$repo/.git/hooks/post-checkout"
	chmod +x "$repo/.git/hooks/post-checkout"
	# The same config does run things under a plain git: the probe works.
	echo probe >>"$repo/notes.txt"
	git -C "$repo" --work-tree="$repo" status >/dev/null 2>&1 || true
	git -C "$repo" --work-tree="$repo" checkout -q -- notes.txt
	[ -e "$marks/fsmonitor" ] || [ -e "$marks/clean" ] || fail "the hostile config runs nothing even under plain git"
	rm -f "$marks"/*
	(cd "$repo" && te worktree add gh >/dev/null) || fail "worktree add in the hostile repository"
	wt="$repo-gh"
	[ -f "$wt/.git" ] || fail "no worktree at $wt (the boundary came from core.worktree?)"
	(cd "$wt" && te up >/dev/null 2>&1) || fail "up in the worktree"
	echo "changed" >>"$wt/notes.txt"
	j=$(te contract -t gh --format json) || fail "contract"
	assert_eq "$(jq -r .source.worktree_path <<<"$j")" "$(realpath "$wt")"
	assert_eq "$(jq -r .source.dirty_files <<<"$j")" "1"
	dir="$WORK/evidence-gh"
	te evidence -t gh -o "$dir" >/dev/null || fail "evidence"
	assert_contains "$(cat "$dir/git-status.txt")" " M notes.txt"
	te down -t gh --volumes --timeout 1 >/dev/null 2>&1
	(cd "$repo" && te worktree remove gh --force --delete-branch >/dev/null) || fail "worktree remove"
	assert_eq "$(find "$marks" -type f | wc -l)" "0" "(markers written: $(ls "$marks"))"
	assert_eq "$(count_task_objects gh)" "0"
}

# Issue 13, evidence -o DIR: an existing non-empty folder is refused (a
# pre-planted symlink to a file of the user's is not written through), a
# DIR that is itself a symlink is refused, nothing outside DIR changes; an
# existing empty folder is used.
test_evidence_refuses_planted() {
	local repo dir victim out rc=0
	repo=$(contract_repo)
	(cd "$repo" && te up -t evp >/dev/null 2>&1) || fail "up evp"
	victim="$WORK/victim.txt"
	echo "precious" >"$victim"
	dir="$WORK/evidence-planted"
	mkdir -p "$dir"
	ln -s "$victim" "$dir/contract.md"
	out=$(te evidence -t evp -o "$dir" 2>&1) || rc=$?
	assert_eq "$rc" "2" "(evidence into a non-empty folder: $out)"
	assert_contains "$out" "exists and is not empty"
	assert_eq "$(cat "$victim")" "precious"
	assert_eq "$(find "$dir" -mindepth 1 | wc -l)" "1" "(files written into the refused folder)"
	# DIR itself a symlink to an (empty) folder elsewhere.
	mkdir -p "$WORK/elsewhere"
	ln -s "$WORK/elsewhere" "$WORK/evidence-link"
	rc=0
	out=$(te evidence -t evp -o "$WORK/evidence-link" 2>&1) || rc=$?
	[ "$rc" != 0 ] || fail "evidence wrote through a symlinked DIR"
	assert_contains "$out" "symlink"
	assert_eq "$(find "$WORK/elsewhere" -mindepth 1 | wc -l)" "0"
	# An empty folder is fine.
	mkdir -p "$WORK/evidence-empty"
	te evidence -t evp -o "$WORK/evidence-empty" >/dev/null || fail "evidence into an empty folder"
	[ -s "$WORK/evidence-empty/contract.json" ] || fail "no contract.json"
	te down -t evp --volumes --timeout 1 >/dev/null 2>&1
	assert_eq "$(count_task_objects evp)" "0"
}
