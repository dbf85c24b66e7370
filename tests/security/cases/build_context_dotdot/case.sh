# a build context above the repository
KEY='build|context' ALLOW=. LINE=7
