# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# the engine's default network (bridge; podman on Podman) as an external network
KEY=networks ALLOW=refused LINE='2|7|8|9' VERB=up CHECK_RC='0|1'
case_setup() { if [ "$ENGINE_KIND" = podman ]; then subst DEFNET podman; else subst DEFNET bridge; fi; }
