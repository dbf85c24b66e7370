# the engine's shared default network: every task's neighbour
KEY=network_mode ALLOW=refused LINE=6
