# any io.taskenv. label is reserved
KEY=labels ALLOW=refused LINE=6
