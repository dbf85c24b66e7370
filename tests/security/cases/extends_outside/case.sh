# extends a service of a file outside the project (the loader: exit 2)
KEY='extends|outside' RC=2
