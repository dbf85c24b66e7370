# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# a path that goes down, then up past the repository
KEY=volumes ALLOW='bind-outside-project' LINE=6
case_setup() { mkdir -p data; }
