"""The tutorial's worked example, run for real: `make demo` or `.venv/bin/python -m instruments.demo`.

A person asks about cycling 12 miles in Frederick tomorrow. The (scripted) model asks for the forecast and
the unit conversion in one reply; the host runs both concurrently on the real weather and convert servers
over stdio; the model answers from the results it got. Then the same question with one call per reply, to
show that k sequential calls cost k + 1 requests, and the checker's verdict on both transcripts.

Weather comes from Open-Meteo when it answers within a few seconds. Otherwise the weather server is pointed
at a loopback replay of recorded responses, and the output says so, with the recording's date.
"""
