# a symlink inside the project pointing at /etc
KEY=volumes ALLOW='bind-system' LINE=6
setup() { ln -s /etc etc-link; }
