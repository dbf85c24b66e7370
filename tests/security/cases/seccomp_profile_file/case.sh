# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# a seccomp profile file in the project needs the exception seccomp-profile
KEY=security_opt ALLOW=seccomp-profile LINE=6
case_setup() { printf '{"defaultAction":"SCMP_ACT_ALLOW"}\n' >profile.json; }
