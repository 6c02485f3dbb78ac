"""The HTTP edge: Flask views that parse, call the application service, and serialise."""
