#!/usr/bin/env bash
# The facts issue 12 promises about the tree, checked:
#
#   scripts/check-facts.sh [TASKENV]
#
#  - no library .c file (everything but cmd/, tests/, bench/) over 800 lines;
#  - no library file prints: no printf, fprintf, puts, perror (or their
#    cousins) and no use of stdout/stderr outside cmd/, tests/, bench/, in
#    code (comments and string literals do not count), but for the few
#    lines allowed below, each with its reason;
#  - the include arrows (scripts/check-arrows.sh);
#  - with TASKENV (the built binary): every verb of the command table is in
#    --list-verbs, the man page and both completions, checked by the CLI's
#    own test tests/cli/verbs_everywhere.sh TASKENV (the hook: it loops over
#    the table; until it exists this fact is reported as not checked).
# Prints each violation as FILE:LINE: what; exit 0 when every fact holds, 1
# when one does not.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 2
TASKENV=${1:-}
MAX_LINES=800
bad=0

# Library code: what is not the CLI, a test, a benchmark or a fuzz harness.
library_files() {
	git ls-files --cached --others --exclude-standard -- "$@" |
		grep -Ev '^(cmd|tests|bench|contrib|examples|build[^/]*)/' |
		while read -r f; do [[ -f $f ]] && printf '%s\n' "$f"; done
}

echo "== library .c files over $MAX_LINES lines"
while read -r f; do
	n=$(wc -l <"$f")
	if [[ $n -gt $MAX_LINES ]]; then
		echo "$f:$n: $n lines (library files stay under $MAX_LINES: split along its sections)"
		bad=$((bad + 1))
	fi
done < <(library_files '*.c')

# Lines a library file may print, FILE<TAB>text the line contains: the
# message right before abort() when an invariant broke or memory ran out,
# and the fault-injection kill (tests only, TASKENV_FAULT).
ALLOWED_PRINTS=$(printf '%s\t%s\n' \
	common/err.c 'fprintf(stderr, "taskenv: BUG at' \
	common/mem.c 'fprintf(stderr, "taskenv: out of memory' \
	common/fault.c 'fprintf(stderr, "taskenv: fault injection: killed at')

# Code without comments and string literals (same line numbers), so a
# comment that mentions stderr is not a print.
strip_c() {
	awk '
	BEGIN { inc = 0 }
	{
		out = ""; s = $0; i = 1; n = length(s)
		while (i <= n) {
			c = substr(s, i, 1); d = substr(s, i, 2)
			if (inc) { if (d == "*/") { inc = 0; i += 2 } else i++; continue }
			if (d == "/*") { inc = 1; i += 2; continue }
			if (d == "//") break
			if (c == "\"" || c == "\047") {
				q = c; out = out q; i++
				while (i <= n) {
					c = substr(s, i, 1)
					if (c == "\\") { i += 2; continue }
					i++
					if (c == q) break
				}
				out = out q; continue
			}
			out = out c; i++
		}
		print out
	}' "$1"
}

echo "== library files that print"
PRINT_RE='(^|[^_[:alnum:]])(printf|fprintf|vprintf|vfprintf|dprintf|vdprintf|puts|fputs|putchar|fputc|putc|perror|fwrite_unlocked)[[:space:]]*\(|(^|[^_[:alnum:]])(stdout|stderr)([^_[:alnum:]]|$)'
while read -r f; do
	while IFS=: read -r line _; do
		text=$(sed -n "${line}p" "$f")
		allowed=0
		while IFS=$'\t' read -r af at; do
			if [[ $f == "$af" && $text == *"$at"* ]]; then allowed=1; fi
		done <<<"$ALLOWED_PRINTS"
		[[ $allowed == 1 ]] && continue
		echo "$f:$line: prints (only cmd/ prints; report through te_err or a callback): ${text#"${text%%[![:space:]]*}"}"
		bad=$((bad + 1))
	done < <(strip_c "$f" | grep -nE "$PRINT_RE")
done < <(library_files '*.c' '*.h')

echo "== include arrows"
scripts/check-arrows.sh "$ROOT" || bad=$((bad + 1))

echo "== every verb of the command table in --list-verbs, the man page and both completions"
if [[ -z $TASKENV ]]; then
	echo "not checked: no TASKENV binary given (check-facts.sh TASKENV)"
elif [[ ! -x tests/cli/verbs_everywhere.sh ]]; then
	echo "not checked: tests/cli/verbs_everywhere.sh (the test that loops over the command table) is not in the tree yet"
	bad=$((bad + 1))
else
	tests/cli/verbs_everywhere.sh "$TASKENV" || bad=$((bad + 1))
fi

if [[ $bad -gt 0 ]]; then
	echo "check-facts: $bad fact(s) do not hold"
	exit 1
fi
echo "check-facts: every fact holds"
