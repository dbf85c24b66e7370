# the shared server's image named in the Compose file
KEY=image ALLOW=. LINE=4
