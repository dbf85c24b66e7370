# another task's volumes through volumes_from
KEY=volumes_from ALLOW='other-container|refused' LINE=6
case_setup() { victim_up; }
