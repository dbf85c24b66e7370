# a named volume that is a bind of ../../etc (local driver options)
KEY='volumes|driver_opts|device' ALLOW=. LINE=11
