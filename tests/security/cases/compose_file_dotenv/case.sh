# COMPOSE_FILE in .env names a file outside the project (the loader: exit 2)
KEY='COMPOSE_FILE|outside' RC=2 CWD=sub
