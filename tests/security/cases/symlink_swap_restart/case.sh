# ./data swapped for a symlink to /etc after up, then restart
VERB=restart KEY=volumes ALLOW=. LINE=6
setup() { mkdir -p data; }
mutate() { rmdir data && ln -s /etc data; }
