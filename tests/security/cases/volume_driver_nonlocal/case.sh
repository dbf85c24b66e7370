# a volume driver other than local
KEY='volumes|driver' ALLOW=. LINE=9
