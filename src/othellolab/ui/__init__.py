"""User interfaces: the terminal board now, the web board later."""
