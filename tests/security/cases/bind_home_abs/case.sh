# $HOME written as an absolute path
KEY=volumes ALLOW='bind-home' LINE=6
