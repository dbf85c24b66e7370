# $HOME itself
KEY=volumes ALLOW='bind-home' LINE=6
