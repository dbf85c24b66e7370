# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# a host credential interpolated into the command (not Env: the gate judged only Env)
KEY=command ALLOW=host-credentials LINE=4
export GITHUB_TOKEN=ghp_sectests_not_a_real_token
