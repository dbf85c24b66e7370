# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# a symlink inside the project pointing at /etc
KEY=volumes ALLOW='bind-system' LINE=6
case_setup() { ln -s /etc etc-link; }
