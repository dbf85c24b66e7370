# after up the file gains /:/host, then run
VERB=run VERB_ARGS='--rm a true' KEY=volumes ALLOW=. LINE=6
case_mutate() { printf '    volumes: ["/:/host"]\n' >>compose.yaml; }
