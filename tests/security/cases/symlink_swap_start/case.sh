# ./data swapped for a symlink to /etc while stopped, then start
VERB=start KEY=volumes ALLOW=. LINE=6
setup() { mkdir -p data; }
mutate() { rmdir data && ln -s /etc data; }
