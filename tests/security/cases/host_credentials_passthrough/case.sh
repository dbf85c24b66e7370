# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# a host credential passed in by name
KEY=environment ALLOW=host-credentials LINE=6
export GITHUB_TOKEN=ghp_sectests_not_a_real_token
