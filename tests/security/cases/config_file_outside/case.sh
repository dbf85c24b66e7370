# a config read from a file above the repository
KEY=configs ALLOW=. LINE=9
