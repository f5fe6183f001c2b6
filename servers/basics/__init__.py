"""The basics server: CPU usage and exact addition. Run it with `python -m servers.basics`."""
