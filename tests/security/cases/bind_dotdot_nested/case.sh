# a path that goes down, then up past the repository
KEY=volumes ALLOW='bind-outside-project' LINE=6
setup() { mkdir -p data; }
