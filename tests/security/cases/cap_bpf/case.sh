# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# BPF: kernel programs
KEY=cap_add ALLOW='cap:BPF' LINE=6
