"""Start a new server from the template: `python -m servers.new NAME` or `make new-server NAME=...`."""
