"""Start a new server from the template: `python -m instruments.new NAME` or `make new-server NAME=...`."""
