# benign: no-new-privileges
VERB=benign
