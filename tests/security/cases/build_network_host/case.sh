# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# a build on the host's network
KEY='build|network' ALLOW=. LINE='6|8'
case_setup() { printf 'FROM taskenv-test/busybox:1\n' >Dockerfile; }
