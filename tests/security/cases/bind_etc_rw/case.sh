# the host's /etc read-write
KEY=volumes ALLOW='bind-system' LINE=6
