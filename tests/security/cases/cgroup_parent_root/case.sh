# the container in the host's root cgroup (not implemented: exit 2)
KEY=cgroup_parent RC=2 LINE=6
