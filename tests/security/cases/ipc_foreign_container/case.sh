# ipc joins another task's container (its shared memory)
KEY=ipc ALLOW=refused LINE=6
case_setup() { victim_up; }
