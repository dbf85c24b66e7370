#!/usr/bin/env bash
# Private container engines for taskenv's tests and example.
#
#   scripts/engine.sh start docker|podman DIR   start an engine whose state lives under DIR,
#                                               wait for _ping, print its socket path
#   scripts/engine.sh stop DIR                  remove its containers, stop it, unmount what
#                                               is left under DIR, remove DIR
#   scripts/engine.sh socket DIR                print the socket path of the engine in DIR
#
# The socket is DIR/docker.sock or DIR/podman.sock. `start` on a DIR whose engine of the
# same kind answers just prints its socket; a dead or different engine there is stopped
# first. Exit status: 0 done, 1 failed (start prints the engine's log tail), 2 bad usage.
#
# Sourcing the file defines te_engine_start, te_engine_stop and te_engine_socket (same
# arguments and results) and changes no shell option.
#
# Everything an engine owns is under DIR, so several engines (and a system one) can run
# side by side. Keep DIR short (/tmp/te-XXXXXX): UNIX socket paths are limited to 107 bytes.
# Nothing here kills by name: only pids read from pidfiles under DIR, their process trees,
# and engine helpers (containerd, shims, conmon...) whose command line names DIR.
#
# Shared host state, by design of the engines: iptables chains (each dockerd start rewrites
# the nat DOCKER chain; loopback ports go through docker-proxy and are not affected),
# Podman's /run/containers/networks (netavark IPAM and aardvark-dns, shared by every rootful
# Podman) and its default network "podman" (bridge podman0, 10.88.0.0/16).
#
# Environment:
#   TE_ENGINE_START_TIMEOUT  seconds to wait for _ping (default 60)
#   TE_ENGINE_STOP_TIMEOUT   seconds between SIGTERM and SIGKILL (default 20)
#   TE_ENGINE_NET_CLAIMS     where address blocks are claimed (default /run/taskenv-netblocks)

# The second octet of the 10.N.0.0/16 block an engine draws its networks from: each engine
# claims its own block so two engines never give the same subnet to two bridges.
TE_NETBLOCK_FIRST=160
TE_NETBLOCK_COUNT=40

te__log() {
	printf 'engine.sh: %s\n' "$*" >&2
}

te__docker_cli() {
	# The docker.io CLI matches the engines' API version; another docker in PATH may not.
	if [[ -x /usr/bin/docker ]]; then
		printf '%s\n' /usr/bin/docker
	else
		command -v docker
	fi
}

te__check_dir() {
	local dir=$1
	if [[ $dir != /* || $dir == / || $dir =~ [[:space:]] ]]; then
		te__log "DIR must be an absolute path other than / without spaces: '$dir'"
		return 1
	fi
}

te_engine_socket() {
	local dir=${1%/}
	local kind
	kind=$(cat "$dir/kind" 2>/dev/null) || {
		te__log "no engine in '$dir'"
		return 1
	}
	printf '%s/%s.sock\n' "$dir" "$kind"
}

# Print the pid in FILE if that process is alive and its command line names DIR.
te__pid_from() {
	local file=$1 dir=$2 pid
	pid=$(cat "$file" 2>/dev/null) || return 1
	[[ $pid =~ ^[0-9]+$ ]] || return 1
	te__pid_owned "$pid" "$dir" || return 1
	printf '%s\n' "$pid"
}

te__pid_owned() {
	local pid=$1 dir=$2 cmdline
	[[ -r /proc/$pid/cmdline ]] || return 1
	cmdline=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
	[[ $cmdline == *"$dir/"* ]]
}

# A claim is stale when its engine never stopped: the engine's directory is gone, or the
# claim is over two minutes old (past any start) and no live engine holds its pidfile.
te__claim_stale() {
	local claim=$1 owner=$2 kind
	[[ -n $owner ]] || return 1
	[[ -d $owner ]] || return 0
	[[ -n $(find "$claim" -maxdepth 0 -mmin +2 2>/dev/null) ]] || return 1
	kind=$(cat "$owner/kind" 2>/dev/null || true)
	case $kind in
	docker | podman) ;;
	*) return 0 ;;
	esac
	! te__pid_from "$(te__pidfile "$owner" "$kind")" "$owner" >/dev/null
}

te__netblock_claim() {
	local dir=$1 claims=${TE_ENGINE_NET_CLAIMS:-/run/taskenv-netblocks}
	local start i n owner
	mkdir -p "$claims" || return 1
	start=$(($(printf '%s' "$dir" | cksum | cut -d' ' -f1) % TE_NETBLOCK_COUNT))
	for ((i = 0; i < TE_NETBLOCK_COUNT; i++)); do
		n=$((TE_NETBLOCK_FIRST + (start + i) % TE_NETBLOCK_COUNT))
		if ip -4 route show | grep -q "^10\.$n\."; then
			continue
		fi
		owner=$(cat "$claims/$n/owner" 2>/dev/null || true)
		if [[ $owner == "$dir" ]] || te__claim_stale "$claims/$n" "$owner"; then
			rm -rf "${claims:?}/$n"
		fi
		if mkdir "$claims/$n" 2>/dev/null; then
			printf '%s\n' "$dir" >"$claims/$n/owner"
			printf '%s\n' "$n" >"$dir/netblock"
			printf '%s\n' "$n"
			return 0
		fi
	done
	te__log "no free 10.N.0.0/16 block in $claims (N = $TE_NETBLOCK_FIRST..)"
	return 1
}

te__netblock_release() {
	local dir=$1 claims=${TE_ENGINE_NET_CLAIMS:-/run/taskenv-netblocks} n owner
	n=$(cat "$dir/netblock" 2>/dev/null) || return 0
	[[ $n =~ ^[0-9]+$ ]] || return 0
	owner=$(cat "$claims/$n/owner" 2>/dev/null || true)
	if [[ $owner == "$dir" ]]; then
		rm -rf "${claims:?}/$n"
	fi
}

te__start_docker() {
	local dir=$1 n=$2
	printf '{}\n' >"$dir/daemon.json"
	# A restart finds the stopped engine's launch.pid; te__wait_ping would take that dead
	# pid for the new engine having exited, if it looked before the new shell wrote its own.
	rm -f "$dir/launch.pid"
	# --config-file: never pick up /etc/docker/daemon.json. --bridge=none: the default
	# bridge docker0 would be shared with every other dockerd. The managed containerd
	# (no --containerd) keeps its socket and state under exec-root and data-root.
	# The inner shell writes its own pid and then becomes dockerd, so launch.pid is
	# dockerd's pid from the first moment, whether or not setsid had to fork.
	# shellcheck disable=SC2016 # expanded by the inner shell
	setsid bash -c 'printf "%s\n" "$$" >"$1/launch.pid"; shift; exec "$@"' dockerd "$dir" \
		dockerd --config-file "$dir/daemon.json" \
		--data-root "$dir/data" \
		--exec-root "$dir/exec" \
		--pidfile "$dir/dockerd.pid" \
		--host "unix://$dir/docker.sock" \
		--bridge=none \
		--iptables=true \
		--userland-proxy=true \
		--default-address-pool "base=10.$n.0.0/16,size=24" \
		--shutdown-timeout 5 \
		>>"$dir/dockerd.log" 2>&1 </dev/null &
}

te__podman_conf() {
	local dir=$1 n=$2 cgroup_manager=cgroupfs
	if [[ -d /run/systemd/system ]]; then
		cgroup_manager=systemd
	fi
	cat >"$dir/containers.conf" <<-EOF
		[containers]
		default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]

		[engine]
		runtime = "runc"
		cgroup_manager = "$cgroup_manager"
		events_logger = "file"
		events_logfile_path = "$dir/run/events.log"
		tmp_dir = "$dir/tmp"
		static_dir = "$dir/storage/libpod"
		volume_path = "$dir/storage/volumes"
		image_copy_tmp_dir = "$dir/imgtmp"
		lock_type = "file"

		[network]
		network_backend = "netavark"
		network_config_dir = "$dir/networks"
		default_subnet_pools = [{"base" = "10.$n.0.0/16", "size" = 24}]
	EOF
	cat >"$dir/storage.conf" <<-EOF
		[storage]
		driver = "overlay"
		graphroot = "$dir/storage"
		runroot = "$dir/run"
	EOF
	mkdir -p "$dir/networks" "$dir/tmp" "$dir/imgtmp"
}

te__start_podman() {
	local dir=$1 n=$2
	te__podman_conf "$dir" "$n" || return 1
	rm -f "$dir/podman.pid" # as in te__start_docker: not the stopped service's pid
	# The inner shell writes its own pid and then becomes podman, so the pidfile is
	# podman's pid whether or not setsid had to fork.
	# shellcheck disable=SC2016 # expanded by the inner shell
	CONTAINERS_CONF="$dir/containers.conf" CONTAINERS_STORAGE_CONF="$dir/storage.conf" \
		setsid bash -c 'printf "%s\n" "$$" >"$1/podman.pid"; shift; exec "$@"' podman "$dir" \
		podman --root "$dir/storage" --runroot "$dir/run" --log-level=info \
		system service --time=0 "unix://$dir/podman.sock" \
		>>"$dir/podman.log" 2>&1 </dev/null &
}

# The pidfile the engine's own process is known by: written by the launching shell just
# before it becomes the engine (dockerd also writes dockerd.pid, later, for the same pid).
te__pidfile() {
	local dir=$1 kind=$2
	if [[ $kind == docker ]]; then
		printf '%s/launch.pid\n' "$dir"
	else
		printf '%s/podman.pid\n' "$dir"
	fi
}

te__wait_ping() {
	local dir=$1 kind=$2 sock=$3 timeout=${TE_ENGINE_START_TIMEOUT:-60}
	local deadline=$((SECONDS + timeout)) pidfile
	pidfile=$(te__pidfile "$dir" "$kind")
	while ((SECONDS < deadline)); do
		if [[ $(curl -s -m 2 --unix-socket "$sock" http://localhost/_ping 2>/dev/null) == OK ]]; then
			return 0
		fi
		# Until the launching shell has written the pidfile there is nothing to check.
		if [[ -s $pidfile ]] && ! te__pid_from "$pidfile" "$dir" >/dev/null; then
			te__log "$kind exited during start"
			return 1
		fi
		sleep 0.2
	done
	te__log "$kind did not answer _ping on $sock within ${timeout}s"
	return 1
}

te_engine_start() {
	local kind=$1 dir=${2%/} sock n log
	case $kind in
	docker | podman) ;;
	*)
		te__log "unknown engine kind '$kind' (docker or podman)"
		return 2
		;;
	esac
	te__check_dir "$dir" || return 2
	sock="$dir/$kind.sock"
	if ((${#sock} > 107)); then
		te__log "socket path '$sock' is longer than 107 bytes; use a shorter DIR"
		return 2
	fi
	if [[ -e $dir/kind && $(cat "$dir/kind") == "$kind" &&
		$(curl -s -m 3 --unix-socket "$sock" http://localhost/_ping 2>/dev/null) == OK ]]; then
		te__log "$kind in '$dir' is running already"
		printf '%s\n' "$sock"
		return 0
	fi
	if [[ -e $dir/kind ]]; then
		te__log "'$dir' holds another or a dead engine; stopping what is left of it"
		te_engine_stop "$dir" || return 1
	elif [[ -d $dir && -n $(ls -A "$dir") ]]; then
		te__log "'$dir' is not empty and holds no engine; refusing to use it"
		return 2
	fi
	mkdir -p "$dir" || return 1
	printf '%s\n' "$kind" >"$dir/kind"
	n=$(te__netblock_claim "$dir") || return 1
	"te__start_$kind" "$dir" "$n" || return 1
	if ! te__wait_ping "$dir" "$kind" "$sock"; then
		log="$dir/$( [[ $kind == docker ]] && echo dockerd || echo podman).log"
		te__log "last lines of $log:"
		tail -n 40 "$log" >&2 || true
		te_engine_stop "$dir" >&2 || true
		return 1
	fi
	printf '%s\n' "$sock"
}

# Remove every container (and then the networks) while the engine still answers:
# a Podman container outlives the service, and a dockerd would wait for each one.
te__drain() {
	local dir=$1 kind=$2 sock=$3 answers=$4 docker ids
	if [[ $kind == podman ]]; then
		CONTAINERS_CONF="$dir/containers.conf" CONTAINERS_STORAGE_CONF="$dir/storage.conf" \
			timeout 60 podman --root "$dir/storage" --runroot "$dir/run" rm -a -f -t 0 \
			>/dev/null 2>&1 || true
		CONTAINERS_CONF="$dir/containers.conf" CONTAINERS_STORAGE_CONF="$dir/storage.conf" \
			timeout 30 podman --root "$dir/storage" --runroot "$dir/run" pod rm -a -f \
			>/dev/null 2>&1 || true
	fi
	# A hung engine is not asked: it would only make each call below wait for its timeout.
	[[ $answers == yes ]] || return 0
	docker=$(te__docker_cli) || return 0
	ids=$(timeout 20 "$docker" -H "unix://$sock" ps -aq 2>/dev/null || true)
	if [[ -n $ids ]]; then
		# shellcheck disable=SC2086 # one id per word
		timeout 60 "$docker" -H "unix://$sock" rm -f -v $ids >/dev/null 2>&1 || true
	fi
	if [[ $kind == docker ]]; then
		timeout 30 "$docker" -H "unix://$sock" network prune -f >/dev/null 2>&1 || true
	fi
}

te__wait_gone() {
	local pid=$1 secs=$2 i
	for ((i = 0; i < secs * 10; i++)); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	return 1
}

# "PID STARTTIME" for PID and all its descendants, so that survivors can be found again
# after the engine is gone without mistaking a recycled pid for one of them.
te__tree() {
	local pid=$1 child
	[[ -r /proc/$pid/stat ]] || return 0
	printf '%s %s\n' "$pid" "$(te__starttime "$pid")"
	for child in $(ps -o pid= --ppid "$pid" 2>/dev/null); do
		te__tree "$child"
	done
}

te__starttime() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
	# Field 22; fields after the parenthesised command name start at 3.
	stat=${stat##*) }
	# shellcheck disable=SC2086 # split the fields
	set -- $stat
	printf '%s\n' "${20}"
}

te__kill_tree() {
	local tree=$1 pid start
	while read -r pid start; do
		[[ -n $pid ]] || continue
		if [[ $(te__starttime "$pid") == "$start" ]]; then
			kill -KILL "$pid" 2>/dev/null || true
		fi
	done <<<"$tree"
}

# SIGTERM the engine by its pidfile, SIGKILL it after SECS, then SIGKILL whatever of its
# process tree (containerd, docker-proxy, netavark...) survived it.
te__stop_engine() {
	local file=$1 dir=$2 secs=$3 pid tree
	pid=$(te__pid_from "$file" "$dir") || return 0
	tree=$(te__tree "$pid")
	kill -TERM "$pid" 2>/dev/null || return 0
	if ! te__wait_gone "$pid" "$secs"; then
		te__log "pid $pid ($file) ignored SIGTERM for ${secs}s; sending SIGKILL"
		kill -KILL "$pid" 2>/dev/null || true
		te__wait_gone "$pid" 5 || te__log "pid $pid did not exit"
	fi
	te__kill_tree "$tree"
}

# Is PID this shell or one of its ancestors? Those may name DIR and must live.
te__is_ancestor() {
	local pid=$1 p=$BASHPID
	while [[ -n $p && $p != 0 ]]; do
		[[ $p == "$pid" ]] && return 0
		p=$(awk '/^PPid:/ { print $2 }' "/proc/$p/status" 2>/dev/null || true)
	done
	return 1
}

# Is PID in a PID namespace other than ours, as a container's init is? A stale pidfile
# whose pid was reused by a host process then names a process we must not touch.
te__in_other_pidns() {
	local ns
	ns=$(readlink "/proc/$1/ns/pid" 2>/dev/null) || return 1
	[[ $ns != "$(readlink /proc/self/ns/pid)" ]]
}

# After a SIGKILL the engine's detached helpers (containerd shims, conmon, container
# inits) may be left. Each has a pidfile under DIR or names DIR on its command line.
te__kill_leftovers() {
	local dir=$1 f pid exe
	# Container inits: their pidfiles are under DIR; they live in their own PID namespace.
	for f in "$dir"/exec/containerd/daemon/io.containerd.runtime.v2.task/*/*/init.pid \
		"$dir"/run/overlay-containers/*/userdata/pidfile; do
		[[ -f $f ]] || continue
		pid=$(cat "$f" 2>/dev/null) || continue
		[[ $pid =~ ^[0-9]+$ ]] || continue
		te__in_other_pidns "$pid" || continue
		kill -KILL "$pid" 2>/dev/null || true
	done
	for f in /proc/[0-9]*; do
		pid=${f#/proc/}
		te__pid_owned "$pid" "$dir" || continue
		exe=$(readlink "$f/exe" 2>/dev/null) || continue
		case ${exe##*/} in
		dockerd | containerd | containerd-shim* | docker-proxy | runc | podman | conmon) ;;
		*) continue ;;
		esac
		te__is_ancestor "$pid" && continue
		te__log "killing leftover pid $pid: $(tr '\0' ' ' <"$f/cmdline" 2>/dev/null)"
		kill -KILL "$pid" 2>/dev/null || true
	done
}

te__mounts_under() {
	local dir=$1
	findmnt -rn -o TARGET 2>/dev/null |
		awk -v d="$dir" 'index($0, d "/") == 1 || $0 == d { print length($0) "\t" $0 }' |
		sort -rn | cut -f2-
}

te__umount_all() {
	local dir=$1 m
	# Deepest first: a parent cannot be unmounted cleanly while a child is mounted.
	te__mounts_under "$dir" | while IFS= read -r m; do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null ||
			te__log "could not unmount $m"
	done
}

te__docker_bridges_save() {
	local dir=$1 sock=$2 docker
	docker=$(te__docker_cli) || return 0
	timeout 20 "$docker" -H "unix://$sock" network ls -q --filter driver=bridge 2>/dev/null |
		sed 's/^\(.\{12\}\).*/br-\1/' >"$dir/bridges" || true
}

# Bridges the engine left behind (a killed dockerd keeps its br-*; a killed Podman may keep
# podmanN): those it listed before stopping, and those holding an address in its own block.
te__bridges_remove() {
	local dir=$1 n br
	n=$(cat "$dir/netblock" 2>/dev/null || true)
	{
		cat "$dir/bridges" 2>/dev/null || true
		if [[ $n =~ ^[0-9]+$ ]]; then
			ip -4 -o addr show 2>/dev/null | awk -v p="10.$n." '
				index($4, p) == 1 { print $2 }'
		fi
	} | sort -u | while IFS= read -r br; do
		[[ $br =~ ^(br-[0-9a-f]{12}|podman[0-9]+)$ ]] || continue
		if ip link show "$br" >/dev/null 2>&1; then
			ip link delete "$br" 2>/dev/null || te__log "could not delete bridge $br"
		fi
		te__iptables_forget "[ ]$br( |$)"
	done
	# The block is this engine's alone, so any rule naming it is a leftover of this engine;
	# so is any rule naming a bridge taskenv called "te-<subnet as hex>" in it: netavark 1.4
	# keeps a network's NETAVARK_ISOLATION_1/2 rules after the network is removed.
	if [[ $n =~ ^[0-9]+$ ]]; then
		te__iptables_forget "[ ]10\.$n\.[0-9]+\.[0-9]+(/[0-9]+)?( |:|$)"
		te__iptables_forget "[ ]te-0a$(printf '%02x' "$n")[0-9a-f]{4}( |$)"
	fi
}

# Delete the iptables rules (FORWARD accepts, MASQUERADE, DNAT) matching the extended
# regex RE that a killed dockerd left behind. Rules with quoted parts (comments) are not
# Docker's and are left alone.
te__iptables_forget() {
	local re=$1 table line
	local -a words
	command -v iptables-save >/dev/null || return 0
	for table in filter nat; do
		{ iptables-save -t "$table" 2>/dev/null || true; } |
			{ grep -E -- "^-A .*$re" || true; } | { grep -v '"' || true; } |
			while IFS= read -r line; do
				read -ra words <<<"$line"
				words[0]=-D
				iptables -t "$table" "${words[@]}" 2>/dev/null || true
			done
	done
}

te_engine_stop() {
	local dir=${1%/} kind sock answers
	te__check_dir "$dir" || return 2
	if [[ ! -e $dir ]]; then
		return 0
	fi
	if [[ ! -f $dir/kind ]]; then
		te__log "'$dir' holds no engine (no $dir/kind); not touching it"
		return 2
	fi
	kind=$(cat "$dir/kind")
	sock="$dir/$kind.sock"
	answers=no
	if [[ $(curl -s -m 3 --unix-socket "$sock" http://localhost/_ping 2>/dev/null) == OK ]]; then
		answers=yes
		[[ $kind == docker ]] && te__docker_bridges_save "$dir" "$sock"
	fi
	te__drain "$dir" "$kind" "$sock" "$answers"
	if [[ $kind == docker ]]; then
		te__stop_engine "$dir/dockerd.pid" "$dir" "${TE_ENGINE_STOP_TIMEOUT:-20}"
	fi
	te__stop_engine "$(te__pidfile "$dir" "$kind")" "$dir" "${TE_ENGINE_STOP_TIMEOUT:-20}"
	te__kill_leftovers "$dir"
	te__bridges_remove "$dir"
	te__umount_all "$dir"
	te__netblock_release "$dir"
	if [[ -n $(te__mounts_under "$dir") ]]; then
		te__log "mounts remain under $dir; leaving it in place"
		return 1
	fi
	rm -rf --one-file-system "$dir"
}

te__main() {
	set -euo pipefail
	local cmd=${1:-}
	case $cmd in
	start)
		[[ $# -eq 3 ]] || {
			te__log "usage: $0 start docker|podman DIR"
			exit 2
		}
		te_engine_start "$2" "$3"
		;;
	stop)
		[[ $# -eq 2 ]] || {
			te__log "usage: $0 stop DIR"
			exit 2
		}
		te_engine_stop "$2"
		;;
	socket)
		[[ $# -eq 2 ]] || {
			te__log "usage: $0 socket DIR"
			exit 2
		}
		te_engine_socket "$2"
		;;
	*)
		te__log "usage: $0 start docker|podman DIR | stop DIR | socket DIR"
		exit 2
		;;
	esac
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	te__main "$@"
fi
