#!/usr/bin/env bash
# Time `taskenv config` of generated Compose files of 1 MB and 10 MB (not
# part of the suite; no engine). The loader must stay linear in its input
# below the caps (docs/compose.md): one row per file, median of RUNS.
#
#   bench/compose_load.sh [PATH/TO/taskenv]     RUNS (default 5), SIZES (default "1 10", MB)
#
# Shapes: "labels" is one service with a label per line (~110 bytes each; a
# 10 MB file has ~95,000), the case that was quadratic; "services" is one
# service of six keys per ~100 bytes (a 10 MB file has ~100,000 services,
# each depending on the one before). Wall time and CPU time (user + system)
# are both shown: on a shared machine the CPU time is the steadier figure.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TASKENV=$(realpath "${1:-$ROOT/build/taskenv}")
RUNS=${RUNS:-5}
SIZES=${SIZES:-"1 10"}
WORK=$(mktemp -d /tmp/te-bench-load.XXXX)
trap 'rm -rf "$WORK"' EXIT

gen_labels() {
	awk -v max="$2" 'BEGIN {
		print "services:\n  app:\n    image: example/app:1\n    labels:"; n = 40
		for (i = 0; n < max; i++) {
			l = sprintf("      com.example.label.number.%08d: \"value of label %d with some padding to look real\"", i, i)
			print l; n += length(l) + 1
		}
	}' >"$1"
}

gen_services() {
	awk -v max="$2" 'BEGIN {
		print "services:"; n = 10
		for (i = 0; n < max; i++) {
			l = sprintf("  s%d:\n    image: example/s:1\n    environment: {N: \"%d\"}", i, i)
			if (i) l = l sprintf("\n    depends_on: [s%d]", i - 1)
			print l; n += length(l) + 1
		}
	}' >"$1"
}

# The median of column COL of "wall cpu" lines.
median() { awk -v c="$1" '{print $c}' | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

command -v /usr/bin/time >/dev/null || { echo "needs GNU time (apt-get install time)" >&2; exit 1; }
printf '%-10s %4s %10s %8s %8s\n' shape MB bytes "wall s" "cpu s"
for mb in $SIZES; do
	for shape in labels services; do
		f=$WORK/$shape-$mb.yaml
		"gen_$shape" "$f" $((mb * 1024 * 1024))
		for ((r = 0; r < RUNS; r++)); do
			/usr/bin/time -f '%e %U %S' -o "$WORK/t" "$TASKENV" config -t bench -f "$f" --format json >/dev/null
			awk '{printf "%s %.2f\n", $1, $2 + $3}' "$WORK/t"
		done >"$WORK/runs"
		printf '%-10s %4s %10s %8s %8s\n' "$shape" "$mb" "$(stat -c %s "$f")" "$(median 1 <"$WORK/runs")" \
			"$(median 2 <"$WORK/runs")"
	done
done
