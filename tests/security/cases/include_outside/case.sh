# include of a file outside the project (the loader: exit 2)
KEY='include|outside' RC=2
