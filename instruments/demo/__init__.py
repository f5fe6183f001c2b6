"""The tutorial's worked example (`worked_example.py`, run by `make demo`) and its offline Open-Meteo (`replay.py`)."""
