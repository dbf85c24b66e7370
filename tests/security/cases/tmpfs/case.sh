# benign: a tmpfs
VERB=benign
