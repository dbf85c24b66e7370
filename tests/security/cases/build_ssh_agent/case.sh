# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# the host's SSH agent forwarded into a build (not implemented: exit 2)
KEY='build|ssh' RC=2 LINE=8
export SSH_AUTH_SOCK=/tmp/sectests-no-agent.sock
case_setup() { printf 'FROM taskenv-test/busybox:1\n' >Dockerfile; }
