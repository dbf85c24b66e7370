# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# a secret taken from a host credential variable
KEY=secrets ALLOW=host-credentials LINE='8|9'
export GITHUB_TOKEN=ghp_sectests_not_a_real_token
