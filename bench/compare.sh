#!/usr/bin/env bash
# taskenv against Debian's docker-compose 1.29 (and podman-compose on Podman,
# and the raw docker CLI on the seed file), with a floor: the same Engine API
# calls made directly with curl over the socket in the best order the
# dependency graph allows (bench/floor.sh), on one private engine started here.
#
#   bench/compare.sh [docker|podman] [PATH/TO/taskenv]      (as root; not part of the suite)
#
# Environment: RUNS (alternating runs per measurement, default 7), FILES (default
# "seed ten slow"), PS_COUNTS (default "1 10 100"), CONC (default "1 16"),
# BENCH_KEEP=1 keeps the work dir.
# Files: seed (examples/agent-pair: app + Postgres with a named volume), ten
# (bench/files/ten: app, worker, three Postgres, cache, queue, two sidecars, a
# one-shot migration), slow (tests/data/compose/slowstop: four services that
# ignore SIGTERM, stop_grace_period: 3s; `down` without a timeout, so each
# tool's own handling of the grace period is measured). All with container-only
# ports, so every tool can run N at once.
# Prints, per file, medians of up, down and the up+down cycle, taskenv's peak
# RSS, ratios to docker-compose and to the floor; then `up` with nothing
# changed, `ps` with 1/10/100 tasks, and N concurrent up+down (the busybox pair
# file); then each target of issue 14, met or missed.
# shellcheck disable=SC2154 # up_*, down_*, cyc_*, rss_*, conc_*: set by eval
set -euo pipefail

KIND=${1:-docker}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TASKENV=$(realpath "${2:-$ROOT/build/taskenv}")
RUNS=${RUNS:-7}
FILES=${FILES:-"seed ten slow"}
PS_COUNTS=${PS_COUNTS:-"1 10 100"}
CONC=${CONC:-"1 16"}
WORK=$(mktemp -d /tmp/te-bXXXX)
export TASKENV_STATE=$WORK/state.db
unset TASKENV_FAULT TASKENV_TASK

cleanup() {
	"$ROOT/scripts/engine.sh" stop "$WORK/engine" >/dev/null 2>&1 || true
	[ -n "${BENCH_KEEP:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT

need() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed" ||
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$1" >/dev/null
}
need time
need docker-compose
[ "$KIND" = podman ] && need podman-compose

SOCK=$("$ROOT/scripts/engine.sh" start "$KIND" "$WORK/engine")
export DOCKER_HOST=unix://$SOCK
TASKENV_SUBNET_POOL="10.$(cat "$WORK/engine/netblock").128.0/17"
export TASKENV_SUBNET_POOL
"$ROOT/scripts/images.sh" "$SOCK" busybox app postgres rabbitmq >/dev/null 2>&1

# The files, each in a directory of its own (the tools run there).
mkdir -p "$WORK/seed" "$WORK/ten" "$WORK/slow" "$WORK/pair" "$WORK/floor"
sed -e 's/"3000:3000"/"3000"/' -e 's/"5432:5432"/"5432"/' "$ROOT/examples/agent-pair/compose.yaml" \
	>"$WORK/seed/compose.yaml"
cp "$ROOT/bench/files/ten/compose.yaml" "$WORK/ten/compose.yaml"
cp "$ROOT/tests/data/compose/slowstop/compose.yaml" "$WORK/slow/compose.yaml"
cp "$ROOT/tests/data/compose/pair/compose.yaml" "$WORK/pair/compose.yaml"
sed -i 's/"8080:8080"/"8080"/' "$WORK/pair/compose.yaml"

podman_args() { printf -- '--root %s --runroot %s' "$WORK/engine/storage" "$WORK/engine/run"; }

# ---- one tool, one verb, one project: run it under /usr/bin/time ----
# tool_cmd TOOL VERB FILE PROJECT [STOP_SECONDS]: the command line. Without
# STOP_SECONDS `down` leaves each container its own grace period.
tool_cmd() {
	local tool=$1 verb=$2 file=$3 p=$4 t=${5:-}
	case $tool/$verb in
	taskenv/up) echo "$TASKENV up -f $file -t $p" ;;
	taskenv/down) echo "$TASKENV down -t $p --volumes${t:+ --timeout $t}" ;;
	compose/up) echo "docker-compose -p $p -f $file up -d --no-color" ;;
	compose/down) echo "docker-compose -p $p -f $file down -v${t:+ -t $t}" ;;
	pcompose/up) echo "podman-compose --podman-args=\"$(podman_args)\" -p $p -f $file up -d" ;;
	pcompose/down) echo "podman-compose --podman-args=\"$(podman_args)\" -p $p -f $file down -v${t:+ -t $t}" ;;
	docker/up) echo "$ROOT/bench/docker-cli.sh up $file $p" ;;
	docker/down) echo "$ROOT/bench/docker-cli.sh down $file $p" ;;
	floor/up) echo "$ROOT/bench/floor.sh up $WORK/floor/$p" ;;
	floor/down) echo "$ROOT/bench/floor.sh down $WORK/floor/$p $t" ;;
	esac
}

# The floor's bodies and level plan for PROJECT (not timed: what taskenv
# computes is in its own time, the floor only sends).
floor_prepare() {
	TASKENV_STATE=$WORK/floor.db "$TASKENV" config --json -f "$1" -t "$2" >"$WORK/floor/$2.json"
	"$ROOT/bench/floor.sh" prepare "$WORK/floor/$2.json" "$WORK/floor/$2"
}

# measure TOOL VERB FILE PROJECT TAG [STOP_SECONDS]: appends "wall user sys
# rss_kib" to $WORK/m.TAG.TOOL.VERB
measure() {
	local tool=$1 verb=$2 file=$3 p=$4 tag=$5 t=${6:-} dir
	dir=$(dirname "$file")
	if [ "$tool/$verb" = floor/up ]; then floor_prepare "$file" "$p"; fi
	(cd "$dir" && CONTAINERS_CONF=$WORK/engine/containers.conf CONTAINERS_STORAGE_CONF=$WORK/engine/storage.conf \
		/usr/bin/time -f '%e %U %S %M' -o "$WORK/t" bash -c "$(tool_cmd "$tool" "$verb" "$file" "$p" "$t")" \
		>/dev/null 2>"$WORK/err.$tool") || { echo "$tool $verb $p failed:" >&2; tail -5 "$WORK/err.$tool" >&2; }
	tail -1 "$WORK/t" >>"$WORK/m.$tag.$tool.$verb"
}

median() { sort -n | awk '{a[NR]=$1} END {if (NR) print (NR % 2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2); else print "nan"}'; }
col() { awk -v c="$2" '{print $c}' "$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "nan" }'; }
# verdict NAME VALUE OP LIMIT: one line of the targets table.
VERDICTS=()
verdict() {
	local ok
	ok=$(awk -v v="$2" -v l="$4" -v op="$3" 'BEGIN { print ((op == "<=" ? v <= l : v >= l) ? "met" : "MISSED") }')
	VERDICTS+=("$(printf '%-44s %10s %s %-8s %s' "$1" "$2" "$3" "$4" "$ok")")
}

TOOLS="taskenv compose floor"
[ "$KIND" = podman ] && TOOLS="taskenv compose pcompose floor"
TASKENV_RSS=0

# bench_file NAME STOP_SECONDS: RUNS alternating rounds of up+down of each
# tool on $WORK/NAME/compose.yaml, then the table.
bench_file() {
	local name=$1 t=$2 file=$WORK/$1/compose.yaml tools=$TOOLS r order tool
	[ "$name" = seed ] && [ "$KIND" = docker ] && tools="$TOOLS docker"
	echo "== $name: up / down / cycle, $RUNS alternating runs on $KIND ($SOCK)${t:+, stop timeout ${t}s}"
	for ((r = 0; r < RUNS; r++)); do
		# Rotate the order so no tool always runs first (warm caches, page cache).
		order=$(echo "$tools" | tr ' ' '\n' | awk -v r="$r" '{a[NR-1]=$0} END {for (i=0;i<NR;i++) print a[(i+r)%NR]}')
		for tool in $order; do
			measure "$tool" up "$file" "b$name$r$tool" "$name"
			measure "$tool" down "$file" "b$name$r$tool" "$name" "$t"
		done
	done
	printf '%-9s %8s %8s %8s %10s %9s %11s %10s\n' tool up_s down_s cycle_s cpu_s rss_kib cyc/compose cyc/floor
	for tool in $tools; do
		paste -d' ' "$WORK/m.$name.$tool.up" "$WORK/m.$name.$tool.down" | awk '{print $1+$5}' >"$WORK/cyc.$name.$tool"
		paste -d' ' "$WORK/m.$name.$tool.up" "$WORK/m.$name.$tool.down" | awk '{print $2+$3+$6+$7}' >"$WORK/cpu.$name.$tool"
		eval "up_$tool=$(col "$WORK/m.$name.$tool.up" 1 | median) down_$tool=$(col "$WORK/m.$name.$tool.down" 1 | median)"
		eval "cyc_$tool=$(median <"$WORK/cyc.$name.$tool") cpu_$tool=$(median <"$WORK/cpu.$name.$tool")"
		eval "rss_$tool=$(cat "$WORK/m.$name.$tool.up" "$WORK/m.$name.$tool.down" | col /dev/stdin 4 | sort -n | tail -1)"
	done
	for tool in $tools; do
		eval "printf '%-9s %8s %8s %8s %10s %9s %11s %10s\n' $tool \$up_$tool \$down_$tool \$cyc_$tool \$cpu_$tool \$rss_$tool \
			\$(ratio \$cyc_$tool \$cyc_compose) \$(ratio \$cyc_$tool \$cyc_floor)"
	done
	verdict "$name: taskenv cycle / floor" "$(ratio "$cyc_taskenv" "$cyc_floor")" "<=" 1.1
	case $name in
	seed) verdict "seed: taskenv cycle / docker-compose" "$(ratio "$cyc_taskenv" "$cyc_compose")" "<=" 0.6 ;;
	ten) verdict "ten: taskenv cycle / docker-compose" "$(ratio "$cyc_taskenv" "$cyc_compose")" "<=" 0.5 ;;
	slow) verdict "slow: taskenv down / one grace period (3 s)" "$(ratio "$down_taskenv" 3)" "<=" 1.3 ;;
	esac
	if [ "$rss_taskenv" -gt "$TASKENV_RSS" ]; then TASKENV_RSS=$rss_taskenv; fi
	echo "(cpu = user+sys of the tool's process tree for up+down; rss = peak of any one process, KiB;"
	echo " the floor is curl processes; for the docker CLI, one docker process per call)"
}

for f in $FILES; do
	case $f in
	slow) bench_file slow "" ;;
	*) bench_file "$f" 1 ;;
	esac
done

echo "== up with nothing changed (seed file), median of $RUNS, ms"
(cd "$WORK/seed" && "$TASKENV" up -t same >/dev/null 2>&1 && docker-compose -p samec up -d >/dev/null 2>&1)
for ((r = 0; r < RUNS; r++)); do
	(cd "$WORK/seed" && /usr/bin/time -f '%e %M' -o "$WORK/t" "$TASKENV" up -t same >/dev/null 2>&1)
	cat "$WORK/t" >>"$WORK/same.taskenv"
	(cd "$WORK/seed" && /usr/bin/time -f '%e %M' -o "$WORK/t" docker-compose -p samec up -d >/dev/null 2>&1)
	cat "$WORK/t" >>"$WORK/same.compose"
done
same_te=$(col "$WORK/same.taskenv" 1 | median | awk '{print $1*1000}')
same_dc=$(col "$WORK/same.compose" 1 | median | awk '{print $1*1000}')
printf '%-9s %8s\n' taskenv "$same_te" compose "$same_dc"
verdict "seed: up with nothing changed (ms)" "$same_te" "<=" 50
(cd "$WORK/seed" && "$TASKENV" down -t same --volumes --timeout 0 >/dev/null 2>&1 &&
	docker-compose -p samec down -v -t 0 >/dev/null 2>&1)

echo "== ps with N tasks (busybox pair file), median of $RUNS"
printf '%-6s %14s %16s %20s\n' tasks taskenv_ps_ms taskenv_ps_t_ms docker_ps_filter_ms
have=0
for n in $PS_COUNTS; do
	seq $((have + 1)) "$n" | xargs -P 8 -I{} "$TASKENV" up -f "$WORK/pair/compose.yaml" -t ps-{} >/dev/null 2>&1
	have=$n
	for ((r = 0; r < RUNS; r++)); do
		/usr/bin/time -f '%e' -o "$WORK/t" "$TASKENV" ps >/dev/null 2>&1; cat "$WORK/t" >>"$WORK/ps.$n"
		/usr/bin/time -f '%e' -o "$WORK/t" "$TASKENV" ps -t ps-1 >/dev/null 2>&1; cat "$WORK/t" >>"$WORK/pst.$n"
		/usr/bin/time -f '%e' -o "$WORK/t" docker ps -a --filter label=io.taskenv.task >/dev/null 2>&1
		cat "$WORK/t" >>"$WORK/dps.$n"
	done
	printf '%-6s %14s %16s %20s\n' "$n" "$(median <"$WORK/ps.$n" | awk '{print $1*1000}')" \
		"$(median <"$WORK/pst.$n" | awk '{print $1*1000}')" "$(median <"$WORK/dps.$n" | awk '{print $1*1000}')"
done
seq 1 "$have" | xargs -P 8 -I{} "$TASKENV" down -t ps-{} --timeout 0 >/dev/null 2>&1

echo "== N concurrent up then N concurrent down (busybox pair file), wall seconds"
printf '%-9s' tool; for n in $CONC; do printf ' %9s' "N=$n"; done; echo
for tool in $TOOLS; do
	printf '%-9s' "$tool"
	for n in $CONC; do
		if [ "$tool" = floor ]; then
			for i in $(seq 1 "$n"); do floor_prepare "$WORK/pair/compose.yaml" "c$i$tool"; done
		fi
		start=$(date +%s.%N)
		seq 1 "$n" | xargs -P "$n" -I{} bash -c "cd $WORK/pair && $(tool_cmd "$tool" up "$WORK/pair/compose.yaml" "c{}$tool") >/dev/null 2>&1"
		seq 1 "$n" | xargs -P "$n" -I{} bash -c "cd $WORK/pair && $(tool_cmd "$tool" down "$WORK/pair/compose.yaml" "c{}$tool" 0) >/dev/null 2>&1"
		wall=$(echo "$(date +%s.%N) - $start" | bc)
		printf ' %9.2f' "$wall"
		eval "conc_${tool}_$n=$wall"
	done
	echo
done
for n in $CONC; do
	eval "verdict \"$n concurrent up+down: taskenv / docker-compose\" \"\$(ratio \$conc_taskenv_$n \$conc_compose_$n)\" '<=' 0.5"
done
verdict "taskenv peak RSS (KiB, any file)" "$TASKENV_RSS" "<=" 12288
left=$(docker ps -aq --filter label=com.docker.compose.project | wc -l)
echo "containers left with a compose project label: $left"

echo "== targets (issue 14); the machine is shared: read them as ratios of one run"
printf '%s\n' "${VERDICTS[@]}"
