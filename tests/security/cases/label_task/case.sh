# io.taskenv.task in the file: the container poses as another task's
KEY=labels ALLOW=refused LINE=6
