# network_mode joins another task's container by name
KEY=network_mode ALLOW=refused LINE=6
case_setup() { victim_up; }
