# the host's /etc/shadow into the environment
KEY=env_file ALLOW=. LINE=6
