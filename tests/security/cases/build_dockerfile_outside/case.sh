# a Dockerfile above the repository
KEY='build|dockerfile' ALLOW=. LINE=8
