# the directory that holds this engine's socket
KEY=volumes ALLOW=engine-socket LINE=6
