# benign: the Compose file in docker/ mounts .. (the repository)
VERB=benign CWD=docker FILE=docker/compose.yaml
