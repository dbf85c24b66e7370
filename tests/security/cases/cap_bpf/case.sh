# BPF: kernel programs
KEY=cap_add ALLOW='cap:BPF' LINE=6
