# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# a long-syntax bind of a symlink pointing outside
KEY=volumes ALLOW='bind-outside-project' LINE=7
case_setup() { ln -s "$SEC_BASE/outside" out; }
