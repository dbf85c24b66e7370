# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# a build tagged with another task's image: builds are tagged <task>-<service>, so the
# file names the victim's tag twice: in image: (which no longer names the tag) and by a
# service whose task-scoped tag is the victim's (the victim T-v's service v is T-v-v, this
# task T's service v-v too): refused naming the owner, nothing built
KEY='image|build' ALLOW=refused VERB=up LINE='2|3|4'
case_setup() {
	mkdir -p "$SEC_BASE/victim" && printf 'FROM taskenv-test/busybox:1\nLABEL victim=1\n' >"$SEC_BASE/victim/Dockerfile"
	victim_up 'services:
  v:
    build: .
    image: sectests-victim/app:1
    command: ["sleep", "600"]
    stop_grace_period: 1s'
	local tag
	# Podman names it docker.io/library/NAME:latest
	tag=$(sec_inspect "$VICTIM" v | jq -r '.Config.Image | ltrimstr("docker.io/library/") | rtrimstr(":latest")')
	[ "$tag" = "$SEC_TASK-v-v" ] || fail "the victim's build is tagged '$tag', not $SEC_TASK-v-v"
	subst VIMAGE "$tag"
	printf 'FROM taskenv-test/busybox:1\nLABEL evil=1\n' >Dockerfile
}
