# the host's user namespace
KEY=userns_mode ALLOW='host-userns|refused' LINE=6
