# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# a build context that is a symlink pointing outside
KEY='build|context' ALLOW=. LINE='6|7'
case_setup() { ln -s "$SEC_BASE/outside" ctx; }
