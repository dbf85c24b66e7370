# benign: a bind inside the project
VERB=benign
setup() { mkdir -p data; }
