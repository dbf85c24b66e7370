# an inline seccomp profile that allows everything
KEY=security_opt ALLOW=refused LINE=6
