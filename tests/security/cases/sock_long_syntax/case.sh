# the engine socket as a long-syntax bind
KEY=volumes ALLOW=engine-socket LINE=7
