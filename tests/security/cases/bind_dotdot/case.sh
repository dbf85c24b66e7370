# .. above the repository
KEY=volumes ALLOW='bind-outside-project' LINE=6
