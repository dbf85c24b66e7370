# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# an additional build context of the host's /etc (not implemented: exit 2)
KEY='build|additional_contexts' RC=2 LINE=8
case_setup() { printf 'FROM taskenv-test/busybox:1\n' >Dockerfile; }
