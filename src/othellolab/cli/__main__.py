"""``python -m othellolab.cli``: the ``othellolab`` command."""

from othellolab.cli import main

if __name__ == "__main__":
    main()
