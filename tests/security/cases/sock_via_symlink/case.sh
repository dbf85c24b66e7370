# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# a symlink in the project pointing at the engine socket
KEY=volumes ALLOW=engine-socket LINE=6
case_setup() { ln -s "$SOCK" engine.sock; }
