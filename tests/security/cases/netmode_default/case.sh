# network_mode default is the engine's bridge
KEY=network_mode ALLOW=refused LINE=6
