# a fixed MAC address
KEY=mac_address ALLOW=mac-address LINE=6
