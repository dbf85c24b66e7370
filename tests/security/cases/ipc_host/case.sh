# the host's ipc namespace
KEY=ipc ALLOW='host-ipc|refused' LINE=6
