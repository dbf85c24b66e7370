#!/usr/bin/env bash
# The command table is the one source of the CLI (git's t0012-help): every
# verb and every option it declares (`taskenv --gen options`) is in
# --list-verbs, in `VERB --help`, in the man page's section of the verb and
# in both completions (bash: by running the completion; zsh: in the verb's
# _arguments). --help and a bad flag touch nothing (no ledger, no engine),
# even with an unwritable HOME; a bad flag names itself and the usage line.
#   cli_table.sh TASKENV GENERATED_DIR
set -uo pipefail
TASKENV=$(realpath "${1:?usage: cli_table.sh TASKENV GENERATED_DIR}")
GEN=$(realpath "${2:?usage: cli_table.sh TASKENV GENERATED_DIR}")
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
fails=0
bad() {
	echo "FAIL $*"
	fails=$((fails + 1))
}
unset TASKENV_STATE TASKENV_TASK XDG_STATE_HOME XDG_CONFIG_HOME DOCKER_HOST CONTAINER_HOST
export TASKENV_CONFIG=$D/absent.yaml
mkdir "$D/home"

"$TASKENV" --gen options >"$D/options" || bad "--gen options"
"$TASKENV" --list-verbs >"$D/verbs" || bad "--list-verbs"
if [ ! -s "$D/options" ] || [ ! -s "$D/verbs" ]; then bad "empty table"; fi
man_text=$(MANWIDTH=200 man -l "$GEN/taskenv.1" 2>"$D/man.err")
[ -s "$D/man.err" ] && bad "man page warnings: $(cat "$D/man.err")"
# shellcheck source=/dev/null
. "$GEN/taskenv.bash"
# shellcheck disable=SC2154 # _taskenv_verbs: set by the generated script
verbs_completed=$_taskenv_verbs

# The part of the rendered man page between the heading of VERB and the next.
man_section() {
	awk -v v="$1" '
		/^   [a-z]/ { inside = ($0 == "   " v) }
		/^[A-Z]/ { inside = 0 }
		inside' <<<"$man_text"
}

# What bash completes after "taskenv WORDS... --".
bash_complete() {
	COMP_WORDS=(taskenv "$@" --)
	COMP_CWORD=${#COMP_WORDS[@]}
	COMP_CWORD=$((COMP_CWORD - 1))
	_taskenv
	printf '%s\n' "${COMPREPLY[@]}"
}

# The verbs of the table are those --list-verbs prints, once each.
table_verbs=$(cut -f1 "$D/options" | grep -v '^taskenv$' | cut -d' ' -f1 | uniq)
[ "$table_verbs" = "$(cat "$D/verbs")" ] || bad "--list-verbs differs from the table: $(cat "$D/verbs")"
[ "$(sort "$D/verbs" | uniq -d)" = "" ] || bad "--list-verbs repeats a verb"
n_verbs=0
n_opts=0
while read -r verb; do
	n_verbs=$((n_verbs + 1))
	grep -q "^   $verb$" <<<"$man_text" || bad "man page: no section for $verb"
	grep -qw -- "$verb" <<<"$verbs_completed" || bad "bash: verb $verb not completed"
	grep -q "^		'$verb:" "$GEN/_taskenv" || bad "zsh: verb $verb not in the verb list"
done <"$D/verbs"

while IFS=$'\t' read -r verb opt; do
	n_opts=$((n_opts + 1))
	if [ "$verb" = taskenv ]; then
		words=()
		help=$("$TASKENV" --help)
		section=$(awk '/^GLOBAL OPTIONS/ { inside = 1; next } /^[A-Z]/ { inside = 0 } inside' <<<"$man_text")
		zsh=$(sed -n '/_arguments -C/,/->args/p' "$GEN/_taskenv")
	else
		read -r -a words <<<"$verb"
		help=$(HOME=$D/home "$TASKENV" "${words[@]}" --help) || bad "$verb --help: exit $?"
		section=$(man_section "$verb")
		zsh=$(sed -n "/^	\"$verb\") _arguments/,/&& ret=0 ;;/p" "$GEN/_taskenv")
	fi
	grep -qF -- "$opt" <<<"$help" || bad "$verb --help lacks $opt"
	[ "$opt" = --help ] && [ "$verb" != taskenv ] && continue # -h is the parser's, documented once
	grep -qF -- "$opt" <<<"$section" || bad "man page: $verb lacks $opt"
	got=$(bash_complete "${words[@]}")
	grep -qx -- "$opt" <<<"$got" || bad "bash: $verb $opt not completed: $got"
	grep -qE -- "(\\{|'|,|\\*)${opt}[],[}]" <<<"$zsh" || bad "zsh: $verb lacks $opt"
done <"$D/options"
if [ "$n_verbs" -lt 20 ] || [ "$n_opts" -lt 60 ]; then bad "table too small: $n_verbs verbs, $n_opts options"; fi

# The verbs that run a command answer a usage error as Docker's CLI does
# (125: the command did not run), so it is never read as the command's 2.
usage_exit() {
	case $1 in
	exec | run | with | shell) echo 125 ;;
	*) echo 2 ;;
	esac
}

# --help and bad flags create nothing: no ledger, no state directory.
while IFS=$'\t' read -r verb _; do
	[ "$verb" = taskenv ] && continue
	read -r -a words <<<"$verb"
	rc=0
	out=$(HOME=$D/home "$TASKENV" "${words[@]}" --no-such-flag 2>&1) || rc=$?
	[ "$rc" = "$(usage_exit "$verb")" ] || bad "$verb --no-such-flag: exit $rc"
	grep -qF "taskenv $verb: unknown option '--no-such-flag'" <<<"$out" || bad "$verb bad flag: $out"
	grep -qF "usage: taskenv $verb" <<<"$out" || bad "$verb bad flag without usage line: $out"
done < <(sort -u -k1,1 "$D/options")
[ -z "$(ls -A "$D/home")" ] || bad "--help or a bad flag wrote into HOME: $(find "$D/home")"
if [ ! -e /nonexistent-unwritable ]; then
	out=$(HOME=/nonexistent-unwritable "$TASKENV" ps --help) || bad "ps --help with HOME=/nonexistent-unwritable"
	grep -q "^usage: taskenv ps" <<<"$out" || bad "ps --help: $out"
	[ ! -e /nonexistent-unwritable ] || bad "ps --help created /nonexistent-unwritable"
	rm -rf /nonexistent-unwritable
else
	echo "cli_table: /nonexistent-unwritable exists here; that case is skipped"
fi

# The messages of bad flags, one of each kind.
expect() { # expect DESCRIPTION TEXT -- CMD...
	local what=$1 want=$2 rc=0 out
	shift 3
	out=$(HOME=$D/home "$@" 2>&1) || rc=$?
	[ "$rc" = "$(usage_exit "$2")" ] || bad "$what: exit $rc: $out"
	grep -qF -- "$want" <<<"$out" || bad "$what: want '$want' in: $out"
}
expect near "unknown option '--tiemout'; did you mean '--timeout'?" -- "$TASKENV" down --tiemout 3
expect value "taskenv down: --timeout: 'x' is not a whole number of seconds (0 or more)" -- "$TASKENV" down --timeout x
expect missing "option '--task' needs a value (TASK)" -- "$TASKENV" down -t
expect novalue "option '--volumes' takes no value" -- "$TASKENV" down --volumes=yes
expect choice "--rmi: 'some' is not one of local|all" -- "$TASKENV" down --rmi some
expect ambiguous "ambiguous option '--no' (--no-color, --no-log-prefix)" -- "$TASKENV" logs --no
expect short "unknown option '-x'" -- "$TASKENV" ps -x
expect required "taskenv contract: missing --task TASK" -- "$TASKENV" contract
expect args "taskenv exec: expected SERVICE [--] CMD [ARG...]" -- "$TASKENV" exec web
expect extra "taskenv ps: unexpected argument 'extra'" -- "$TASKENV" ps extra
expect kv "taskenv run: --env: 'NOEQUALS' is not K=V" -- "$TASKENV" run -e NOEQUALS web
expect duration "taskenv up: --lease: invalid duration '5x'" -- "$TASKENV" up --lease 5x
expect verb "taskenv: unknown verb 'bogus'" -- "$TASKENV" bogus
expect global "taskenv: --progress: 'fancy' is not one of auto|tty|plain" -- "$TASKENV" --progress fancy ps
expect sub "taskenv worktree: unknown subcommand 'move'" -- "$TASKENV" worktree move
[ -z "$(ls -A "$D/home")" ] || bad "a bad invocation wrote into HOME: $(find "$D/home")"

# The generated scripts are valid shell, and zsh completes with its own:
# an interactive zsh on a pty (zsh/zpty), LINE typed and TAB pressed. The
# output is read until it holds WANT (a word the listing must show) or 20 s
# pass: under load compinit and the listing can take seconds, and a fixed
# quiet period cut the read before the listing came.
# shellcheck disable=SC2016 # the script is zsh's, expanded there
zsh_complete() {
	PATH="$(dirname "$TASKENV"):$PATH" timeout 30 zsh -f -c '
		zmodload zsh/zpty
		zpty z zsh -f -i
		zpty -w z "PS1=\">\"; fpath=($1 \$fpath); autoload -U compinit; compinit -u -D"
		zpty -w z "zstyle \":completion:*\" list-prompt \"\"; LISTMAX=1000"
		zpty -w -n z "$2"$'"'"'\t'"'"'
		local all="" chunk n=0
		while (( n < 200 )); do
			sleep 0.1
			if zpty -r -t z chunk; then all+=$chunk; fi
			[[ ${all//$'"'"'\r'"'"'/} == *"$3"* ]] && { sleep 0.3; zpty -r -t z chunk && all+=$chunk; break; }
			(( n++ ))
		done
		print -r -- "$all"
		zpty -d z' _ "$GEN" "$1" "$2" | tr -d '\r' | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g'
}

if command -v zsh >/dev/null; then
	zsh -n "$GEN/_taskenv" || bad "zsh -n _taskenv"
	out=$(zsh_complete "taskenv down --" --volumes)
	for o in --task --volumes --rmi --timeout --help; do
		grep -q -- "^$o " <<<"$out" || bad "zsh: 'taskenv down --' does not offer $o: $out"
	done
	out=$(zsh_complete "taskenv worktree add --" --path)
	for o in --base --path; do grep -q -- "^$o " <<<"$out" || bad "zsh: worktree add: no $o: $out"; done
	out=$(zsh_complete "taskenv worktree " remove)
	grep -q "add *remove" <<<"$out" || bad "zsh: worktree subcommands: $out"
	out=$(zsh_complete "taskenv env --format " dotenv)
	grep -q "dotenv" <<<"$out" || bad "zsh: env --format: $out"
else
	echo "cli_table: zsh is not installed; the zsh completion is checked as text only"
fi
echo "cli_table: $n_verbs verbs, $n_opts options; $fails failed"
[ $fails -eq 0 ]
