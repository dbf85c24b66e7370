# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# /etc as a long-syntax bind
KEY=volumes ALLOW='bind-system' LINE=7
