"""The application service that every edge goes through, and the bots' dispatchers."""
