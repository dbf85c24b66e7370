# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# image: the image another task built (its build args, its files): only up can tell whose it is
KEY=image ALLOW=refused LINE=3 VERB=up CHECK_RC=0
case_setup() {
	mkdir -p "$SEC_BASE/victim"
	printf 'FROM taskenv-test/busybox:1\nRUN echo victim-secret >/s\n' >"$SEC_BASE/victim/Dockerfile"
	victim_up 'services:
  v:
    build: .
    command: ["sleep", "600"]
    stop_grace_period: 1s'
	subst VIMAGE "$(sec_inspect "$VICTIM" v | jq -r .Config.Image)"
}
