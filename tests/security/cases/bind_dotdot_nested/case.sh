# a path that goes down, then up past the repository
KEY=volumes ALLOW='bind-outside-project' LINE=6
case_setup() { mkdir -p data; }
