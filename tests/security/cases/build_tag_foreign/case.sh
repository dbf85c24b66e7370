# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# a build tagged with another task's image name: refused naming the owner
KEY='image|build' ALLOW=refused VERB=up LINE='3|4'
case_setup() {
	printf 'FROM taskenv-test/busybox:1\nLABEL victim=1\n' >"$SEC_BASE/Dockerfile.victim"
	mkdir -p "$SEC_BASE/victim" && cp "$SEC_BASE/Dockerfile.victim" "$SEC_BASE/victim/Dockerfile"
	victim_up 'services:
  v:
    build: .
    image: sectests-victim/app:1
    command: ["sleep", "600"]
    stop_grace_period: 1s'
	local tag
	tag=$(sec_inspect "$VICTIM" v | jq -r .Config.Image)
	subst VIMAGE "$tag"
	printf 'FROM taskenv-test/busybox:1\nLABEL evil=1\n' >Dockerfile
	api GET "/images/$tag/json" | jq -r .Id >"$SEC_BASE/victim.id"
}
