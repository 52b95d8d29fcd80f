#!/bin/sh
# Build a scratch tree holding today's code (HEAD, or $NEW) and d708d82's (as the package
# othellolab_d708) with d708d82's alpha-beta registered as the player "base"; run from the
# repository's root after `make setup` (the compiled core/*.so files are copied in).
# Usage: sh experiments/engine-vs-base/make_both.sh /tmp/both
set -eu
out=${1:?usage: make_both.sh OUT}
here=$(dirname "$0")
if [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ] && [ ! -e "$out/.make_both" ]; then
    echo "make_both.sh: $out exists and is not an earlier build of this script; not replacing it" >&2
    exit 2
fi
rm -rf "$out" && mkdir -p "$out" && touch "$out/.make_both"
git archive "${NEW:-HEAD}" | tar -x -C "$out"
cp src/othellolab/core/*.so "$out/src/othellolab/core/"
old=$(mktemp -d)
git archive d708d82 src/othellolab | tar -x -C "$old"
cp src/othellolab/core/*.so "$old/src/othellolab/core/"
mv "$old/src/othellolab" "$out/src/othellolab_d708"
rm -rf "$old"
find "$out/src/othellolab_d708" -name '*.py' -exec sed -i -E \
    "s/\bothellolab([.:\"' ])/othellolab_d708\1/g; s/^(from|import) othellolab$/\1 othellolab_d708/" {} +
cp "$here/basewrap.py" "$out/src/othellolab/players/basewrap.py"
python3 - "$out/src/othellolab/players/registry.py" <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
anchor = '    register_player("random", simple.RandomPlayer,'
line = '    from othellolab.players import basewrap\n'
line += '    register_player("base", basewrap.BasePlayer, "d708d82 alpha-beta", strength=0)\n'
assert anchor in text, "registry layout changed: register the player by hand"
open(path, "w").write(text.replace(anchor, line + anchor, 1))
PY
echo "built $out: run the match with PYTHONPATH=$out/src"
