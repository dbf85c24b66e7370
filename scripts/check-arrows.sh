#!/usr/bin/env bash
# The include arrows of docs/internals/ARCHITECTURE.md, checked:
#
#   scripts/check-arrows.sh [ROOT]
#
# Reads every #include "..." of the C files under ROOT (default: this
# repository) in the library and cmd/ (tests/ and bench/ may include
# anything) and fails on one that runs against the arrows below, naming the
# file, the line, the header and what that module may include. Exit 0 when
# every include follows the arrows, 1 when one does not, 2 on bad usage.
#
# The table is an allow-list: a module includes only what its row names.
# A pattern ending in "/" is a folder and everything below it; "services/*.h"
# is a header directly in services/ (settings.h, progress.h), not in a seam;
# anything else is one exact file. The first row whose module is a prefix of
# the file's path decides, so the seams come before services/ itself.
set -euo pipefail

ROOT=${1:-$(cd "$(dirname "$0")/.." && pwd)}
[[ -d $ROOT ]] || {
	echo "usage: check-arrows.sh [ROOT]" >&2
	exit 2
}
cd "$ROOT"

# module                may include
ARROWS='
cmd/                    cmd/ services/ engine/ drivers/ state/ common/
services/contract/      services/contract/ services/lifecycle/ services/gate/ services/model/ services/*.h engine/ drivers/ state/ common/
services/lifecycle/     services/lifecycle/ services/gate/ services/model/ services/*.h engine/ drivers/ state/ common/
services/gate/          services/gate/ services/model/ engine/engine.h common/
services/model/         services/model/ drivers/driver.h common/
services/               services/*.h services/model/ engine/ drivers/ state/ common/
engine/                 engine/ common/
drivers/                drivers/ common/
state/                  state/ common/
common/                 common/
'

# matches PATTERN HEADER: does HEADER fall under PATTERN (see above)?
matches() {
	local pat=$1 hdr=$2
	case $pat in
	services/\*.h) [[ $hdr == services/* && $hdr != services/*/* && $hdr == *.h ]] ;;
	*/) [[ $hdr == "$pat"* ]] ;;
	*) [[ $hdr == "$pat" ]] ;;
	esac
}

# The row of FILE: its module and what it may include, or nothing (not checked).
row_of() {
	local file=$1 mod rest
	while read -r mod rest; do
		[[ -n $mod ]] || continue
		if [[ $file == "$mod"* ]]; then
			printf '%s\t%s\n' "$mod" "$rest"
			return
		fi
	done <<<"$ARROWS"
}

files() {
	if git -C "$ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git ls-files --cached --others --exclude-standard -- '*.c' '*.h'
	else
		find . -name '*.[ch]' -not -path './build*' | sed 's|^\./||'
	fi
}

bad=0
checked=0
while read -r file; do
	[[ -f $file ]] || continue # deleted in the work tree, still in the index
	row=$(row_of "$file")
	[[ -n $row ]] || continue
	mod=${row%%$'\t'*}
	allowed=${row#*$'\t'}
	checked=$((checked + 1))
	while IFS=: read -r line hdr; do
		ok=0
		for pat in $allowed; do
			if matches "$pat" "$hdr"; then
				ok=1
				break
			fi
		done
		if [[ $ok == 0 ]]; then
			echo "$file:$line: includes \"$hdr\": $mod may include only $allowed"
			bad=$((bad + 1))
		fi
	done < <(awk '/^[ \t]*#[ \t]*include[ \t]*"/ {
		h = $0; sub(/^[^"]*"/, "", h); sub(/".*/, "", h); print FNR ":" h }' "$file")
done < <(files)

if [[ $bad -gt 0 ]]; then
	echo "check-arrows: $bad include(s) against the arrows of docs/internals/ARCHITECTURE.md ($checked files)"
	exit 1
fi
echo "check-arrows: $checked files follow the arrows of docs/internals/ARCHITECTURE.md"
