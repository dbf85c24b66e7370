# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# benign: a named volume of the task (the engine reports it in Binds with its options)
VERB=benign
