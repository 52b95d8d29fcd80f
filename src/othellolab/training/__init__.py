"""Training stages: supervised learning from game records (self-play comes later)."""
