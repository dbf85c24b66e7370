# Issue 14: one dependency level at once (up and down), each service's own
# stop settings, the label sweep that ends `down`, gc --orphans of other
# ledgers, and a plan that cannot fit refused before anything is created.
# shellcheck shell=bash
# SOCK is exported by tests/integration/run.sh.
# shellcheck disable=SC2153

SLOW_FILE="$TE_ROOT/tests/data/compose/slowstop/compose.yaml"

# die_times SINCE UNTIL TASK: "name exitcode timeNano" of each container of
# TASK that died between SINCE and UNTIL (seconds), from the engine's events.
die_times() {
	# Filtered here, not by the engine: Podman's compat filter on event
	# names does not match its "died".
	api GET "/events?since=$1&until=$2" |
		jq -r --arg p "$3-" 'select((.Action // .status) == "die" and ((.Actor.Attributes.name // "") | startswith($p))) |
			"\(.Actor.Attributes.name) \(.Actor.Attributes.exitCode) \(.timeNano)"'
}

# Acceptance 6: four services that ignore SIGTERM with stop_grace_period: 3s
# are stopped together. Each stop lasts at least its grace period (the
# engine kills after 3 s: exit 137), so stops one after the other would die
# at least 3 s apart; all four dying within less than one grace period of
# each other means their stop intervals overlapped. (The wall time of
# `down` is the benchmark's, bench/compare.sh.)
test_slow_stop_overlaps() {
	local t0 t1 out dies span
	te up -f "$SLOW_FILE" -t pslow >/dev/null 2>&1
	# The plan sends each service's own stop settings.
	out=$(api GET /containers/pslow-s1-1/json)
	assert_eq "$(jq -r '.Config.StopTimeout' <<<"$out")" "3" "(StopTimeout)"
	t0=$(date +%s)
	out=$(te down -t pslow 2>&1)
	t1=$(($(date +%s) + 1))
	grep -Eq 'container +pslow-s1-1 +stopping' <<<"$out" || fail "no stopping line: $out"
	assert_contains "$out" "stopped and removed ("
	dies=$(die_times "$t0" "$t1" pslow)
	assert_eq "$(grep -c . <<<"$dies")" "4" "(die events: $dies)"
	# Killed after the grace period, not asked to stop at once.
	assert_eq "$(awk '{print $2}' <<<"$dies" | sort -u)" "137" "(exit codes: $dies)"
	span=$(awk 'NR == 1 {lo = hi = $3} {if ($3 < lo) lo = $3; if ($3 > hi) hi = $3} END {printf "%d", (hi - lo) / 1e6}' <<<"$dies")
	[ "$span" -lt 3000 ] || fail "stops did not overlap: deaths ${span} ms apart (grace 3000 ms): $dies"
	assert_no_trace pslow
}

# --timeout overrides every service's own grace period.
test_timeout_overrides_grace() {
	local t0 t1 dies late
	te up -f "$SLOW_FILE" -t ptimeout >/dev/null 2>&1
	t0=$(date +%s%N)
	te down -t ptimeout --timeout 0 >/dev/null 2>&1
	t1=$(($(date +%s) + 1))
	dies=$(die_times "$((t0 / 1000000000))" "$t1" ptimeout)
	assert_eq "$(grep -c . <<<"$dies")" "4" "(die events: $dies)"
	# Killed at once: each died well before its own 3 s would have ended.
	late=$(awk -v t0="$t0" '($3 - t0) / 1e6 >= 2500' <<<"$dies")
	assert_eq "$late" "" "(died after 2.5 s despite --timeout 0)"
	assert_no_trace ptimeout
}
