# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# a build tagged with an existing image name no task owns
KEY='image|build' ALLOW=refused VERB=up LINE='3|4'
case_setup() { tag_image taskenv-test/busybox:1 sectests-plain/x "$SEC_TASK"; subst PTAG "$SEC_TASK"; printf 'FROM taskenv-test/busybox:1\nLABEL evil=1\n' >Dockerfile; }
