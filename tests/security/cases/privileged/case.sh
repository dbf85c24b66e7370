# privileged: every device, every capability, no seccomp
KEY=privileged ALLOW=privileged LINE=6
