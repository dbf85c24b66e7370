# pid joins another task's container (its processes visible, ptrace-able)
KEY=pid ALLOW=refused LINE=6
setup() { victim_up; }
