# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# ./data swapped for a symlink to the engine socket's directory, then restart
VERB=restart KEY=volumes ALLOW='engine-socket|refused'
case_setup() { mkdir -p data; }
case_mutate() { rmdir data && ln -s "$(dirname "$SOCK")" data; }
