# template: the server's system database postgres
KEY=template ALLOW='template:postgres|refused' LINE=7
