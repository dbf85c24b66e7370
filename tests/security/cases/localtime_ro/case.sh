# benign: /etc/localtime and /etc/timezone read-only, as written
VERB=benign
