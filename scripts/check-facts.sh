#!/usr/bin/env bash
# The facts issue 12 promises about the tree, checked:
#
#   scripts/check-facts.sh [TASKENV GEN]
#
#  - no library .c file (everything but cmd/, tests/, bench/) over 800 lines;
#  - no library file prints: no printf, fprintf, puts, perror (or their
#    cousins) and no use of stdout/stderr outside cmd/, tests/, bench/, in
#    code (comments and string literals do not count), but for the few
#    lines allowed below, each with its reason;
#  - the include arrows (scripts/check-arrows.sh);
#  - README.md at most 200 lines; no Markdown link points outside the
#    repository, and every relative one reaches a file of the tree;
#  - with TASKENV (the built binary) and GEN (its generated man page and
#    completions): every verb and option of the command table is in
#    --list-verbs, --help, the man page and both completions, and --help
#    works with an unwritable HOME: the CLI's own test tests/cli/cli_table.sh,
#    which loops over the table.
# Prints each violation as FILE:LINE: what; exit 0 when every fact holds, 1
# when one does not.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 2
TASKENV=${1:-}
GEN=${2:-}
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

echo "== README.md at most 200 lines, links inside the repository"
n=$(wc -l <README.md)
if [[ $n -gt 200 ]]; then
	echo "README.md:$n: $n lines (the README stays under 200: reference goes to docs/)"
	bad=$((bad + 1))
fi
python3 - <<'PY' || bad=$((bad + 1))
import os, re, subprocess, sys
files = subprocess.check_output(["git", "ls-files", "--cached", "--others", "--exclude-standard", "*.md"]).decode().split()
broken = 0
for f in files:
    if re.match(r"build[^/]*/", f) or not os.path.isfile(f):
        continue
    text = open(f, encoding="utf-8").read()
    for m in re.finditer(r"\]\(([^)\s]+)\)", text):
        url, line = m.group(1), text.count("\n", 0, m.start()) + 1
        target = url.split("#")[0]
        if re.match(r"[a-z][a-z0-9+.-]*:", url):
            print(f"{f}:{line}: link outside the repository: {url}")
        elif target and not os.path.exists(os.path.normpath(os.path.join(os.path.dirname(f), target))):
            print(f"{f}:{line}: broken link: {url}")
        else:
            continue
        broken += 1
sys.exit(1 if broken else 0)
PY

echo "== every verb of the command table in --list-verbs, --help, the man page and both completions"
if [[ -z $TASKENV || -z $GEN ]]; then
	echo "not checked: no TASKENV binary and GEN directory given (check-facts.sh TASKENV GEN)"
else
	tests/cli/cli_table.sh "$TASKENV" "$GEN" || bad=$((bad + 1))
fi

if [[ $bad -gt 0 ]]; then
	echo "check-facts: $bad fact(s) do not hold"
	exit 1
fi
echo "check-facts: every fact holds"
