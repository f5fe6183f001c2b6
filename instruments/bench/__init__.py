"""`make bench`: the suite's servers measured side by side with a bare SDK server, the floor."""
