# a network of the host driver
KEY='networks|driver' ALLOW=. LINE=8
