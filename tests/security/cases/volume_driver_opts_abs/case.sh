# a named volume that is a bind of /etc
KEY='volumes|driver_opts|device' ALLOW=. LINE=11
