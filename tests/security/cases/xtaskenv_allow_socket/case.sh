# x-taskenv.allow engine-socket next to a bind of the engine socket
KEY=volumes ALLOW=engine-socket LINE=8
