"""User interfaces: the terminal board (``terminal``) and the web board (``web``)."""
