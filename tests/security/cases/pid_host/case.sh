# the host's pid namespace
KEY=pid ALLOW='host-pid|refused' LINE=6
