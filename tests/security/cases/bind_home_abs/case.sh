# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# $HOME written as an absolute path
KEY=volumes ALLOW='bind-home' LINE=6
