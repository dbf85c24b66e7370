# a bridge network whose driver options take the engine's docker0
KEY='networks|driver_opts' ALLOW=. LINE=9
