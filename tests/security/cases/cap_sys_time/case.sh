# a capability outside Docker's default set (sets the host clock)
KEY=cap_add ALLOW='cap:SYS_TIME' LINE=6
