"""The convert server: exact unit conversion. Run it with `python -m servers.convert`."""
