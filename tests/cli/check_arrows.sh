#!/usr/bin/env bash
# scripts/check-arrows.sh fails when an arrow is reversed on purpose, and
# names the file, the line and the header:
#  1. a small tree with one file per module that follows every arrow passes;
#     each reversed arrow added to it (table below) makes the check fail;
#  2. a copy of this repository's C files with one arrow reversed in a real
#     file (model/ including lifecycle/) fails and names that line, and only
#     that line is new against the unmodified copy.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CHECK=$ROOT/scripts/check-arrows.sh
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
fails=0
fail() {
	echo "FAIL $*"
	fails=$((fails + 1))
}

# ---- 1. a synthetic tree: one file per module, including what it may ----
T=$D/tree
mk() { # mk FILE INCLUDES...: FILE includes each of INCLUDES
	mkdir -p "$T/$(dirname "$1")"
	local f=$1
	shift
	: >"$T/$f"
	for h in "$@"; do echo "#include \"$h\"" >>"$T/$f"; done
}
mk common/a.h
mk common/a.c common/a.h
mk state/s.c state/s.h common/a.h
mk state/s.h
mk engine/engine.h
mk engine/e.c engine/engine.h common/a.h
mk drivers/driver.h
mk drivers/d.c drivers/driver.h common/a.h
mk services/progress.h
mk services/settings.c services/progress.h state/s.h common/a.h
mk services/model/m.h
mk services/model/m.c services/model/m.h drivers/driver.h common/a.h
mk services/gate/g.c services/model/m.h engine/engine.h common/a.h
mk services/lifecycle/l.h
mk services/lifecycle/l.c services/lifecycle/l.h services/gate/g.h services/model/m.h services/progress.h \
	engine/engine.h drivers/driver.h state/s.h common/a.h
mk services/contract/c.c services/lifecycle/l.h services/model/m.h engine/engine.h state/s.h common/a.h
mk cmd/main.c services/contract/c.h services/lifecycle/l.h engine/engine.h state/s.h common/a.h
mk tests/unit/t.c state/sqlite.h services/model/m.h cmd/cmd.h

OUT=$("$CHECK" "$T" 2>&1) || fail "synthetic tree that follows every arrow: $OUT"

# FILE HEADER: each adds one include against the arrows; the check must fail.
reversed='
common/a.c state/s.h
state/s.c services/lifecycle/l.h
state/s.c engine/engine.h
engine/e.c state/s.h
engine/e.c cmd/cmd.h
drivers/d.c services/model/m.h
services/model/m.c services/lifecycle/l.h
services/model/m.c services/gate/g.h
services/model/m.c engine/engine.h
services/model/m.c state/s.h
services/model/m.c drivers/postgres.h
services/model/m.c services/progress.h
services/gate/g.c services/lifecycle/l.h
services/gate/g.c engine/stream.h
services/gate/g.c state/s.h
services/lifecycle/l.c services/contract/c.h
services/lifecycle/l.c cmd/cmd.h
services/contract/c.c cmd/cmd.h
services/settings.c services/lifecycle/l.h
'
n=0
while read -r file hdr; do
	[[ -n $file ]] || continue
	n=$((n + 1))
	cp "$T/$file" "$D/saved"
	echo "#include \"$hdr\"" >>"$T/$file"
	line=$(wc -l <"$T/$file")
	rc=0
	OUT=$("$CHECK" "$T" 2>&1) || rc=$?
	if [[ $rc != 1 ]]; then
		fail "$file including $hdr: check exit $rc, want 1: $OUT"
	elif ! grep -qF "$file:$line: includes \"$hdr\"" <<<"$OUT"; then
		fail "$file including $hdr: the finding does not name $file:$line: $OUT"
	fi
	cp "$D/saved" "$T/$file"
done <<<"$reversed"
[[ $n -ge 19 ]] || fail "only $n reversed arrows were tried"

# ---- 2. this repository, one real arrow reversed ----
R=$D/repo
mkdir -p "$R"
(cd "$ROOT" && git ls-files -z -- "*.c" "*.h" | xargs -0 cp --parents -t "$R") ||
	fail "copy of the repository"
"$CHECK" "$R" >"$D/before" 2>&1
target=services/model/plan.c
[[ -f $R/$target ]] || fail "$target is not in the copy"
echo '#include "services/lifecycle/apply.h"' >>"$R/$target"
line=$(wc -l <"$R/$target")
rc=0
"$CHECK" "$R" >"$D/after" 2>&1 || rc=$?
[[ $rc == 1 ]] || fail "repository with $target including lifecycle/apply.h: exit $rc, want 1"
new=$(grep -vxF -f "$D/before" "$D/after" | grep -v '^check-arrows:')
[[ $new == "$target:$line: includes \"services/lifecycle/apply.h\": services/model/ may include only"* ]] ||
	fail "repository: the new finding is not $target:$line: $new"
[[ $(grep -c . <<<"$new") == 1 ]] || fail "repository: more than one new finding: $new"

if [[ $fails -gt 0 ]]; then
	echo "check_arrows: $fails failed"
	exit 1
fi
echo "check_arrows: the clean tree passes; $n reversed arrows and one in the repository each fail"
