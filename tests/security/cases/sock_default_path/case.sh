# the default docker socket path
KEY=volumes ALLOW=engine-socket LINE=6
