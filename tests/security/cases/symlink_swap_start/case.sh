# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# ./data swapped for a symlink to /etc while stopped, then start
VERB=start KEY=volumes ALLOW='bind-system|refused'
case_setup() { mkdir -p data; }
case_mutate() { rmdir data && ln -s /etc data; }
