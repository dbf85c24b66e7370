# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# a build over an existing tag no task owns: the task-scoped tag (<task>-a) made
# beforehand by hand from a plain image, and image: naming another plain tag
KEY='image|build' ALLOW=refused VERB=up LINE='2|3|4'
case_setup() {
	tag_image taskenv-test/busybox:1 "$SEC_TASK-a" latest
	tag_image taskenv-test/busybox:1 sectests-plain/x "$SEC_TASK"
	subst PTAG "$SEC_TASK"
	printf 'FROM taskenv-test/busybox:1\nLABEL evil=1\n' >Dockerfile
}
