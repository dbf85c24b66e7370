# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# the container recreated by hand with a host device: verify FAILs
VERB=verify KEY='device|Device'
case_mutate() { recreate_with "$SEC_TASK" a '.Devices = [{PathOnHost: "/dev/null", PathInContainer: "/dev/extra-null", CgroupPermissions: "rwm"}]'; }
