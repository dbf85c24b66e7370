# the host's uts namespace (sethostname on the host)
KEY=uts ALLOW='host-uts|refused' LINE=6
