# the host's network namespace
KEY=network_mode ALLOW='host-network|refused' LINE=6
