# an external network named after another task's network
KEY=networks ALLOW=refused LINE=8 VERB=up CHECK_RC='0|1'
case_setup() { victim_up; }
