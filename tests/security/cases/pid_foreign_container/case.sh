# pid joins another task's container (its processes visible, ptrace-able)
KEY=pid ALLOW=refused LINE=6
case_setup() { victim_up; }
