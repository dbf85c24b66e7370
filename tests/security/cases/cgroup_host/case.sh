# the host's cgroup namespace (the host's cgroup tree visible)
KEY=cgroup ALLOW='host-cgroup|refused' LINE=6
