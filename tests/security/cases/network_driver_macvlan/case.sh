# a macvlan network (on the host's interface)
KEY='networks|driver' ALLOW=. LINE=8
