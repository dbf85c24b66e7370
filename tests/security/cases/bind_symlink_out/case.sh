# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# a symlink inside the project pointing outside it
KEY=volumes ALLOW='bind-outside-project' LINE=6
case_setup() { ln -s "$SEC_BASE/outside" out; }
