# a host device node
KEY=devices ALLOW=devices LINE=6
