# $HOME shipped into an image as the build context
KEY='build|context' ALLOW=. LINE=7
