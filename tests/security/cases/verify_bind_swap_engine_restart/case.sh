# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# ./data swapped for a symlink to /etc, restarted by the engine (not taskenv): verify FAILs
VERB=verify KEY='bind|mount|/etc|Binds|source'
case_setup() { mkdir -p data; }
case_mutate() { rmdir data && ln -s /etc data && api POST "/containers/$SEC_TASK-a-1/restart?t=1" >/dev/null; }
