# io.taskenv.shared in the file: the container poses as a shared server
KEY=labels ALLOW=refused LINE=6
