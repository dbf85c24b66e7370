#!/usr/bin/env bash
# The floor of bench/compare.sh: the Engine API calls `up` and `down` of a
# Compose file need, made directly with curl over the engine's socket, in
# the best order the dependency graph allows (each level's containers
# created and started at once, each created-then-started without waiting
# for its siblings; down in reverse levels, each at once). No client can do
# these calls faster; the bodies come from `taskenv config --json`, so the
# containers are the ones taskenv makes (host ports picked by the engine).
#
#   floor.sh prepare CONFIG.json DIR   (not timed) bodies and the level plan into DIR
#   floor.sh up DIR                    networks, volumes, containers level by level
#   floor.sh down DIR [TIMEOUT]        stop (?t=TIMEOUT, else each container's own
#                                      StopTimeout) and remove, deepest level first
# DOCKER_HOST=unix://PATH names the socket.
set -euo pipefail

SOCK=${DOCKER_HOST#unix://}
call() { # METHOD PATH [BODYFILE]
	curl -sS -f -o /dev/null --unix-socket "$SOCK" -X "$1" ${3:+-H 'Content-Type: application/json' --data-binary "@$3"} \
		"http://localhost/v1.41$2"
}
# Two calls, one after the other, from one curl process on one connection
# (a process per call would put fork and exec on the floor).
call2() { # METHOD1 PATH1 BODYFILE1|"" METHOD2 PATH2
	curl -sS -f -o /dev/null --unix-socket "$SOCK" -X "$1" ${3:+-H 'Content-Type: application/json' --data-binary "@$3"} \
		"http://localhost/v1.41$2" --next -sS -f -o /dev/null --unix-socket "$SOCK" -X "$4" "http://localhost/v1.41$5"
}

prepare() {
	local cfg=$1 dir=$2
	mkdir -p "$dir"
	jq -r '.name' "$cfg" >"$dir/project"
	# Level of each service: 0 without depends_on, else one more than its deepest dependency.
	jq -r 'def lvl($s): (.services[$s].depends_on // {} | keys) as $d |
		if ($d | length) == 0 then 0 else ([$d[] as $x | lvl($x)] | max + 1) end;
		. as $r | .services | keys[] as $k | "\($r | lvl($k)) \($k)"' "$cfg" | sort -n >"$dir/levels"
	# Services another one waits to see exit (service_completed_successfully).
	jq -r '[.services[].depends_on // {} | to_entries[] | select(.value.condition == "service_completed_successfully") | .key] | unique[]' \
		"$cfg" >"$dir/waited"
	jq -r '.networks | to_entries[] | .value.name' "$cfg" >"$dir/networks"
	jq -r '(.volumes // {}) | to_entries[] | .value.name' "$cfg" >"$dir/volumes"
	while read -r n; do
		jq -n --arg n "$n" --arg p "$(cat "$dir/project")" \
			'{Name: $n, CheckDuplicate: true, Labels: {"com.docker.compose.project": $p, "io.taskenv.bench": $p}}' >"$dir/net.$n.json"
	done <"$dir/networks"
	while read -r v; do
		jq -n --arg n "$v" --arg p "$(cat "$dir/project")" \
			'{Name: $n, Labels: {"com.docker.compose.project": $p, "io.taskenv.bench": $p}}' >"$dir/vol.$v.json"
	done <"$dir/volumes"
	while read -r _ s; do
		jq --arg s "$s" '. as $r | .services[$s] as $c | ($c.networks | keys[0]) as $nk | {
			Image: $c.image,
			Cmd: $c.command, Entrypoint: $c.entrypoint,
			Env: (($c.environment // {}) | to_entries | map("\(.key)=\(.value)")),
			Labels: {"com.docker.compose.project": $r.name, "com.docker.compose.service": $s, "io.taskenv.bench": $r.name},
			ExposedPorts: (($c.ports // []) | map({key: "\(.target)/\(.protocol)", value: {}}) | from_entries),
			StopTimeout: (if $c.stop_grace_period then ($c.stop_grace_period | rtrimstr("s") | tonumber) else null end),
			HostConfig: {
				PortBindings: (($c.ports // []) | map({key: "\(.target)/\(.protocol)", value: [{HostIp: .host_ip, HostPort: ""}]}) | from_entries),
				Mounts: (($c.volumes // []) | map({Type: "volume", Source: $r.volumes[.source].name, Target: .target})),
				Memory: $c.mem_limit, PidsLimit: $c.pids_limit, NanoCpus: ($c.cpus * 1000000000 | floor),
				SecurityOpt: $c.security_opt},
			NetworkingConfig: {EndpointsConfig: {($r.networks[$nk].name): {Aliases: $c.networks[$nk].aliases}}}
		} | with_entries(select(.value != null))' "$cfg" >"$dir/c.$s.json"
		jq -r --arg s "$s" '.services[$s].container_name' "$cfg" >"$dir/name.$s"
	done <"$dir/levels"
}

up() {
	local dir=$1 lv s top
	while read -r n; do call POST /networks/create "$dir/net.$n.json" & done <"$dir/networks"
	while read -r v; do call POST /volumes/create "$dir/vol.$v.json" & done <"$dir/volumes"
	wait
	top=$(tail -1 "$dir/levels" | cut -d' ' -f1)
	for ((lv = 0; lv <= top; lv++)); do
		while read -r l s; do
			[ "$l" = "$lv" ] || continue
			call2 POST "/containers/create?name=$(cat "$dir/name.$s")" "$dir/c.$s.json" \
				POST "/containers/$(cat "$dir/name.$s")/start" &
		done <"$dir/levels"
		wait
		while read -r l s; do
			if [ "$l" != "$lv" ] || ! grep -qx "$s" "$dir/waited"; then continue; fi
			call POST "/containers/$(cat "$dir/name.$s")/wait" &
		done <"$dir/levels"
		wait
	done
}

down() {
	local dir=$1 t=${2:-} lv s top
	top=$(tail -1 "$dir/levels" | cut -d' ' -f1)
	for ((lv = top; lv >= 0; lv--)); do
		while read -r l s; do
			[ "$l" = "$lv" ] || continue
			call2 POST "/containers/$(cat "$dir/name.$s")/stop${t:+?t=$t}" "" \
				DELETE "/containers/$(cat "$dir/name.$s")?v=1&force=1" &
		done <"$dir/levels"
		wait
	done
	while read -r n; do call DELETE "/networks/$n" & done <"$dir/networks"
	while read -r v; do call DELETE "/volumes/$v" & done <"$dir/volumes"
	wait
}

case ${1:-} in
prepare) prepare "$2" "$3" ;;
up) up "$2" ;;
down) down "$2" "${3:-}" ;;
*)
	echo "usage: floor.sh prepare CONFIG.json DIR | up DIR | down DIR [TIMEOUT]" >&2
	exit 2
	;;
esac
