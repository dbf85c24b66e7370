# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# after up the file gains privileged: true, then run
RC=125 VERB=run VERB_ARGS='--rm a true' KEY=privileged ALLOW=privileged LINE=7
case_mutate() { printf '    privileged: true\n' >>compose.yaml; }
