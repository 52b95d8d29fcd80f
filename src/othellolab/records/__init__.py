"""Game-record formats: readers and writers, streaming and strict."""
