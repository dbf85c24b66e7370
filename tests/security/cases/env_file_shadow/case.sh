# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# the host's /etc/shadow into the environment
KEY=env_file ALLOW=. LINE=6
