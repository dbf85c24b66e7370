# a secret read from a host file outside the project
KEY=secrets ALLOW=. LINE=9
