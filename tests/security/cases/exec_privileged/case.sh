# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# exec --privileged needs an exception the up did not grant
RC=125 VERB=exec VERB_ARGS='--privileged -T a true' KEY=privileged ALLOW=privileged
case_mutate() { :; }
