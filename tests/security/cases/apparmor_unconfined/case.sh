# AppArmor off
KEY=security_opt ALLOW=refused LINE=6
