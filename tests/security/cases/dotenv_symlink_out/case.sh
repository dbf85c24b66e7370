# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# the project's .env is a symlink to a file outside: its values (a host file's) would reach the
# container by interpolation (the loader: exit 2)
KEY='\.env|outside' RC=2
case_setup() { ln -s "$SEC_BASE/outside/secret.env" .env; }
