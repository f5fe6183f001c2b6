"""The weather server: daily forecasts from Open-Meteo. Run it with `python -m servers.weather`."""
