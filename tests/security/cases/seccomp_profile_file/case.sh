# a seccomp profile file in the project needs the exception seccomp-profile
KEY=security_opt ALLOW=seccomp-profile LINE=6
setup() { printf '{"defaultAction":"SCMP_ACT_ALLOW"}\n' >profile.json; }
