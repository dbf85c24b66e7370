# ipc joins another task's container (its shared memory)
KEY=ipc ALLOW=refused LINE=6
setup() { victim_up; }
