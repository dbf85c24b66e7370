# benign: a bind inside the project
VERB=benign
case_setup() { mkdir -p data; }
