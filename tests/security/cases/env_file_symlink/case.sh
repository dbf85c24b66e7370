# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# an env file in the project that is a symlink to a file outside
KEY=env_file ALLOW=. LINE=6
case_setup() { ln -s "$SEC_BASE/outside/secret.env" app.env; }
