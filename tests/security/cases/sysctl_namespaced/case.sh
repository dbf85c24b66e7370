# benign: a namespaced sysctl
VERB=benign
