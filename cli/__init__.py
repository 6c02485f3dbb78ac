"""The `cardems` command: serve the API, run bot workers, play bots against each other."""
