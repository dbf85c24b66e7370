#!/usr/bin/env bash
# taskenv against Debian's docker-compose 1.29, podman-compose (Podman only) and the
# raw docker CLI doing the same creates, on one private engine started here.
#
#   bench/compare.sh [docker|podman] [PATH/TO/taskenv]      (as root; not part of the suite)
#
# Environment: RUNS (alternating runs per measurement, default 7), PS_COUNTS
# (default "1 10 100"), CONC (default "1 8 32 64"), BENCH_KEEP=1 keeps the work dir.
# Prints medians and ratios (tool / taskenv) for: up, down, up+down cycle, taskenv's own
# CPU, peak RSS, `ps` with 1/10/100 tasks, wall time of N concurrent up+down.
# The seed-shaped file: an app with a published port, a Postgres with a named volume
# (examples/agent-pair with container-only ports, so every tool can run N at once).
# ps and concurrency use a two-service busybox file (64 Postgres would not fit in RAM).
set -euo pipefail

KIND=${1:-docker}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TASKENV=$(realpath "${2:-$ROOT/build/taskenv}")
RUNS=${RUNS:-7}
PS_COUNTS=${PS_COUNTS:-"1 10 100"}
CONC=${CONC:-"1 8 32 64"}
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
"$ROOT/scripts/images.sh" "$SOCK" >/dev/null 2>&1

# The files: the seed shape, and the small pair for ps and concurrency.
mkdir -p "$WORK/seed" "$WORK/pair"
sed -e 's/"3000:3000"/"3000"/' -e 's/"5432:5432"/"5432"/' "$ROOT/examples/agent-pair/compose.yaml" \
	>"$WORK/seed/compose.yaml"
cp "$ROOT/tests/data/compose/pair/compose.yaml" "$WORK/pair/compose.yaml"
sed -i 's/"8080:8080"/"8080"/' "$WORK/pair/compose.yaml"

podman_args() { printf -- '--root %s --runroot %s' "$WORK/engine/storage" "$WORK/engine/run"; }

# ---- one tool, one verb, one project: run it under /usr/bin/time ----
# up|down TOOL FILE PROJECT -> appends "wall user sys rss_kib" to $WORK/m.<tool>.<verb>
tool_cmd() {
	local tool=$1 verb=$2 file=$3 p=$4
	case $tool/$verb in
	taskenv/up) echo "$TASKENV up -f $file -t $p" ;;
	taskenv/down) echo "$TASKENV down -t $p --volumes --timeout 1" ;;
	compose/up) echo "docker-compose -p $p -f $file up -d --no-color" ;;
	compose/down) echo "docker-compose -p $p -f $file down -v -t 1" ;;
	pcompose/up) echo "podman-compose --podman-args=\"$(podman_args)\" -p $p -f $file up -d" ;;
	pcompose/down) echo "podman-compose --podman-args=\"$(podman_args)\" -p $p -f $file down -v -t 1" ;;
	docker/up) echo "$ROOT/bench/docker-cli.sh up $file $p" ;;
	docker/down) echo "$ROOT/bench/docker-cli.sh down $file $p" ;;
	esac
}

measure() {
	local tool=$1 verb=$2 file=$3 p=$4 dir
	dir=$(dirname "$file")
	(cd "$dir" && CONTAINERS_CONF=$WORK/engine/containers.conf CONTAINERS_STORAGE_CONF=$WORK/engine/storage.conf \
		/usr/bin/time -f '%e %U %S %M' -o "$WORK/t" bash -c "$(tool_cmd "$tool" "$verb" "$file" "$p")" \
		>/dev/null 2>"$WORK/err.$tool") || { echo "$tool $verb $p failed:" >&2; tail -5 "$WORK/err.$tool" >&2; }
	tail -1 "$WORK/t" >>"$WORK/m.$tool.$verb"
}

median() { sort -n | awk '{a[NR]=$1} END {if (NR) print (NR % 2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2); else print "nan"}'; }
col() { awk -v c="$2" '{print $c}' "$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "nan" }'; }

TOOLS="taskenv compose docker"
[ "$KIND" = podman ] && TOOLS="taskenv pcompose"

echo "== up / down / cycle, seed file, $RUNS alternating runs on $KIND ($SOCK)"
for ((r = 0; r < RUNS; r++)); do
	# Rotate the order so no tool always runs first (warm caches, page cache).
	order=$(echo "$TOOLS" | tr ' ' '\n' | awk -v r="$r" '{a[NR-1]=$0} END {for (i=0;i<NR;i++) print a[(i+r)%NR]}')
	for tool in $order; do
		measure "$tool" up "$WORK/seed/compose.yaml" "b$r$tool"
		measure "$tool" down "$WORK/seed/compose.yaml" "b$r$tool"
	done
done
printf '%-9s %8s %8s %8s %10s %9s %12s %12s\n' tool up_s down_s cycle_s cpu_up_s rss_kib cycle/taskenv cpu/taskenv
for tool in $TOOLS; do
	paste -d' ' "$WORK/m.$tool.up" "$WORK/m.$tool.down" | awk '{print $1+$5}' >"$WORK/cyc.$tool"
	awk '{print $2+$3+$6+$7}' <(paste -d' ' "$WORK/m.$tool.up" "$WORK/m.$tool.down") >"$WORK/cpu.$tool"
	eval "up_$tool=$(col "$WORK/m.$tool.up" 1 | median) down_$tool=$(col "$WORK/m.$tool.down" 1 | median)"
	eval "cyc_$tool=$(median <"$WORK/cyc.$tool") cpu_$tool=$(median <"$WORK/cpu.$tool")"
	eval "rss_$tool=$(cat "$WORK/m.$tool.up" "$WORK/m.$tool.down" | col /dev/stdin 4 | sort -n | tail -1)"
done
for tool in $TOOLS; do
	eval "printf '%-9s %8s %8s %8s %10s %9s %12s %12s\n' $tool \$up_$tool \$down_$tool \$cyc_$tool \$cpu_$tool \$rss_$tool \
		\$(ratio \$cyc_$tool \$cyc_taskenv) \$(ratio \$cpu_$tool \$cpu_taskenv)"
done
echo "(cpu = user+sys of the tool's process tree for up+down; rss = peak of any one process, KiB;"
echo " for the docker CLI, one docker process per call)"

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
		start=$(date +%s.%N)
		seq 1 "$n" | xargs -P "$n" -I{} bash -c "cd $WORK/pair && $(tool_cmd "$tool" up "$WORK/pair/compose.yaml" "c{}$tool") >/dev/null 2>&1"
		seq 1 "$n" | xargs -P "$n" -I{} bash -c "cd $WORK/pair && $(tool_cmd "$tool" down "$WORK/pair/compose.yaml" "c{}$tool" | sed 's/-t 1$/-t 0/; s/--timeout 1/--timeout 0/') >/dev/null 2>&1"
		printf ' %9.2f' "$(echo "$(date +%s.%N) - $start" | bc)"
	done
	echo
done
left=$(docker ps -aq --filter label=com.docker.compose.project | wc -l)
echo "containers left with a compose project label: $left"
