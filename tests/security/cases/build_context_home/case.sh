# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# $HOME shipped into an image as the build context
KEY='build|context' ALLOW=. LINE=7
