# an env file in the project that is a symlink to a file outside
KEY=env_file ALLOW=. LINE=6
case_setup() { ln -s "$SEC_BASE/outside/secret.env" app.env; }
