# ~/.ssh
KEY=volumes ALLOW='bind-credentials' LINE=6
