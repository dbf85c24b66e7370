# this engine's own socket (--host / DOCKER_HOST)
KEY=volumes ALLOW=engine-socket LINE=6
