# bash completion for taskenv: verbs, flags, task names (from
# `taskenv ls --json`) and service names (from `taskenv ps -t TASK`).
# shellcheck shell=bash

_taskenv_verbs="up ps down env logs exec run stop start restart top ls version settings agents-md"

_taskenv_flags() {
	case $1 in
	up) echo "-f --file -t --task -h --help" ;;
	ps) echo "-t --task --json -h --help" ;;
	down) echo "-t --task -v --volumes --timeout -h --help" ;;
	env) echo "-t --task --format --json -h --help" ;;
	logs) echo "-t --task -f --follow -n --tail --timestamps --no-color --no-log-prefix -h --help" ;;
	exec) echo "-t --task -u --user -w --workdir -e --env -T --no-TTY --privileged -h --help" ;;
	run) echo "-t --task --rm -e --env -u --user -w --workdir -h --help" ;;
	stop | restart) echo "-t --task --timeout -h --help" ;;
	start) echo "-t --task -h --help" ;;
	top) echo "-t --task --json -h --help" ;;
	ls | version | settings) echo "--json -h --help" ;;
	agents-md) echo "-h --help" ;;
	esac
}

# Task names, from the JSON list (cJSON prints one "task": "name" per line).
_taskenv_tasks() {
	"${_taskenv_cmd[@]}" ls --json 2>/dev/null |
		sed -n 's/^[[:space:]]*"task":[[:space:]]*"\([^"]*\)".*/\1/p'
}

_taskenv_services() {
	[ -n "$1" ] || return 0
	"${_taskenv_cmd[@]}" ps -t "$1" 2>/dev/null | awk '$1 == "container" && $3 != "" { print $3 }' | sort -u
}

_taskenv() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local i verb="" task=${TASKENV_TASK:-} w
	_taskenv_cmd=("${COMP_WORDS[0]}")
	COMPREPLY=()
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [ -z "$verb" ]; then
			case $w in
			--host | -H | --state | --progress)
				_taskenv_cmd+=("$w" "${COMP_WORDS[i + 1]}")
				i=$((i + 1))
				;;
			-*) ;;
			*) verb=$w ;;
			esac
		elif [ "$w" = -t ] || [ "$w" = --task ]; then
			task=${COMP_WORDS[i + 1]}
		fi
	done
	case $prev in
	-t | --task)
		mapfile -t COMPREPLY < <(compgen -W "$(_taskenv_tasks)" -- "$cur")
		return 0
		;;
	--progress)
		mapfile -t COMPREPLY < <(compgen -W "auto tty plain" -- "$cur")
		return 0
		;;
	--format)
		mapfile -t COMPREPLY < <(compgen -W "shell dotenv json" -- "$cur")
		return 0
		;;
	-f | --file | --state)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return 0
		;;
	esac
	if [ -z "$verb" ]; then
		if [[ $cur == -* ]]; then
			mapfile -t COMPREPLY < <(compgen -W "--host --state --progress -v --verbose --help --version" -- "$cur")
		else
			mapfile -t COMPREPLY < <(compgen -W "$_taskenv_verbs" -- "$cur")
		fi
		return 0
	fi
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_taskenv_flags "$verb")" -- "$cur")
		return 0
	fi
	case $verb in
	logs | exec | run | stop | start | restart | top)
		mapfile -t COMPREPLY < <(compgen -W "$(_taskenv_services "$task")" -- "$cur")
		;;
	esac
	return 0
}

complete -F _taskenv taskenv
