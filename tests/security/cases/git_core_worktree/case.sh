# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# core.worktree points the repository's top level at its parent: the project boundary
# is still the directory holding .git, so ../outside stays outside
KEY=volumes ALLOW=bind-outside-project LINE=6
case_setup() { git config core.worktree "$SEC_BASE"; }
