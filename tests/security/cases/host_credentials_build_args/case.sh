# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# a host credential interpolated into build.args: baked into the image, read by RUN
KEY='build' ALLOW=host-credentials LINE='4|6|7'
export GITHUB_TOKEN=ghp_sectests_not_a_real_token
