# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# the host's SSH agent forwarded into a build
KEY='build|ssh' ALLOW=. LINE=8
export SSH_AUTH_SOCK=/tmp/sectests-no-agent.sock
case_setup() { printf 'FROM taskenv-test/busybox:1\n' >Dockerfile; }
