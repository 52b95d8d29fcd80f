"""``docs/limits.md`` states each player option's range: check every row against the
declarations the players check values with, so the docs cannot drift from the code."""

from __future__ import annotations

import re

from othellolab.players.registry import get_entry

from helpers import REPO


def _number(text: str) -> float:
    text = text.replace(",", "")
    if text == "2^63-1":
        return 2**63 - 1
    return float(text)


def test_every_range_in_the_limits_table_matches_the_declared_one() -> None:
    doc = (REPO / "docs" / "limits.md").read_text()
    section = doc.split("## Player options", 1)[1].split("## Limits on thinking", 1)[0]
    player = None
    checked = 0
    for row in re.findall(r"^\|(.*)\|$", section, re.M):
        cells = [c.strip() for c in row.split("|")]
        if len(cells) != 3 or cells[0] in ("player", "---"):
            continue
        if cells[0]:
            player = cells[0].split(",")[0].strip("` ")
        if player is None or player.startswith("all"):
            continue
        m = re.match(r"([0-9.e^,-]+)\.\.([0-9.e^,-]+)", cells[2])
        if not m:
            continue
        for name in re.findall(r"`(\w+)`", cells[1]):
            option = get_entry(player).declared()[name]
            assert (option.low, option.high) == (_number(m[1]), _number(m[2])), (player, name)
            checked += 1
    assert checked >= 12
