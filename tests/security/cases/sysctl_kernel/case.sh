# a sysctl of the host kernel (not namespaced)
KEY=sysctls ALLOW='host-sysctl|refused' LINE=6
