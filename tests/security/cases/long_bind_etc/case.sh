# /etc as a long-syntax bind
KEY=volumes ALLOW='bind-system' LINE=7
