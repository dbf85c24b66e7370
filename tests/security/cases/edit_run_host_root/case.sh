# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# after up the file gains /:/host, then run
RC=125 VERB=run VERB_ARGS='--rm a true' KEY=volumes ALLOW=. LINE=7
case_mutate() { printf '    volumes: ["/:/host"]\n' >>compose.yaml; }
