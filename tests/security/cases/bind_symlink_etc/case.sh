# a symlink inside the project pointing at /etc
KEY=volumes ALLOW='bind-system' LINE=6
case_setup() { ln -s /etc etc-link; }
