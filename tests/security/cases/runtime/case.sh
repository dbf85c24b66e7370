# another OCI runtime
KEY=runtime ALLOW=. LINE=6
