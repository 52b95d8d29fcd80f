"""One config mechanism for every option a user can set: declared fields (``Option``, with type,
range, default and doc), tables of them (``CheckedTable``), player options
(``checked_options``), and the readers of TOML run configs (``tables``), whose errors name the
file, the table and the key.

It ranks just above ``core``: player specs, network configs and every run config use it.
"""

from othellolab.config.options import SEED, CheckedTable, Option, checked_options, device_option
from othellolab.config.overrides import load_with_overrides, merge_overrides, parse_overrides
from othellolab.config.tables import (
    check_count,
    check_number,
    read_toml,
    refuse_unknown,
    run_name,
    table_from_dict,
    whole_number,
)

__all__ = [
    "SEED",
    "CheckedTable",
    "Option",
    "check_count",
    "check_number",
    "checked_options",
    "device_option",
    "load_with_overrides",
    "merge_overrides",
    "parse_overrides",
    "read_toml",
    "refuse_unknown",
    "run_name",
    "table_from_dict",
    "whole_number",
]
