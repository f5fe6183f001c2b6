"""The tutorial's worked example (`__main__.py`, run by `make demo`) and its offline Open-Meteo (`replay.py`)."""
