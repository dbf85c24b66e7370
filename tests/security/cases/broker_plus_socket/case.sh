# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# the broker (trusted, task-scoped) does not open the real engine socket the same service binds
KEY=volumes ALLOW=engine-socket LINE=7
