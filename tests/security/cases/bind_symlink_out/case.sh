# a symlink inside the project pointing outside it
KEY=volumes ALLOW='bind-outside-project' LINE=6
case_setup() { ln -s "$SEC_BASE/outside" out; }
