# ./data swapped for a symlink to the engine socket's directory, then restart
VERB=restart KEY=volumes ALLOW=. LINE=6
setup() { mkdir -p data; }
mutate() { rmdir data && ln -s "$(dirname "$SOCK")" data; }
