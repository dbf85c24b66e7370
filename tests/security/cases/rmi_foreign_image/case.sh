# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# a file naming another task's built image is refused at up (the gate: reading
# another task's build is out of the room); with a base image instead, down --rmi
# all removes only images this task built
VERB=custom KEY=image ALLOW=refused
case_setup() {
	mkdir -p "$SEC_BASE/victim"
	printf 'FROM taskenv-test/busybox:1\nLABEL victim=1\n' >"$SEC_BASE/victim/Dockerfile"
	victim_up 'services:
  v:
    build: .
    image: sectests-victim/app:1
    command: ["sleep", "600"]
    stop_grace_period: 1s'
	subst VIMAGE "$(sec_inspect "$VICTIM" v | jq -r .Config.Image)"
}
case_run() {
	local img vid bid
	img=$(sec_inspect "$VICTIM" v | jq -r .Config.Image)
	vid=$(api GET "/images/$img/json" | jq -r .Id)
	bid=$(api GET "/images/taskenv-test/busybox:1/json" | jq -r .Id)
	sec_refused up -t "$SEC_TASK"
	assert_eq "$(api GET "/images/$img/json" | jq -r .Id)" "$vid" "(the other task's image $img after the refused up)"
	sed -i 's|image: .*|image: taskenv-test/busybox:1|' compose.yaml
	sec_ok up -t "$SEC_TASK"
	te down -t "$SEC_TASK" --rmi all --volumes --timeout 1 >/dev/null
	assert_eq "$(api GET "/images/$img/json" | jq -r .Id)" "$vid" "(the other task's image $img after down --rmi all)"
	assert_eq "$(api GET "/images/taskenv-test/busybox:1/json" | jq -r .Id)" "$bid" "(the base image after down --rmi all)"
}
