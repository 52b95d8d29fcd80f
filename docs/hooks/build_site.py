"""The documentation site's generated pages and its links to the rest of the repository, as a
MkDocs hook (``mkdocs.yml``: ``hooks``).

At build time, never committed (so that nothing goes stale):

- the course: each ``course/NN-name.py`` (jupytext percent format) as a page of its text and
  code;
- the reference: the API of ``othellolab`` and of each subpackage (mkdocstrings, from their
  ``__all__`` and docstrings), every CLI command's ``--help``, every config table's keys
  (``othellolab.config.reference``), the players and their options (the registry's
  ``describe_options``), the shipped models (each ``nn/pretrained/*/TRAINING.md``);
- the repository's files that a page links to outside ``docs/`` (an experiment's README, a
  config, a script, a figure): copied into the site under ``repo/``, with the links rewritten
  to them, so that the site stands alone offline and strict mode checks every link.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import pkgutil
import posixpath
import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files, InclusionLevel

REPO = Path(__file__).resolve().parents[2]
COURSE = REPO / "course"
PRETRAINED = REPO / "src" / "othellolab" / "nn" / "pretrained"
MIRROR = "repo"
"""The site folder that holds the repository files linked from pages outside ``docs/``."""

LINK = re.compile(r"(!?\[[^\]]*\]\(\s*<?)([^)\s>]+)(>?(?:\s+\"[^\"]*\")?\s*\))")
REFERENCE = re.compile(r"^(\s{0,3}\[[^\]]+\]:\s*<?)(\S+?)(>?(?:\s|$))", re.M)
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
FENCE = re.compile(r"^\s*(```|~~~)")

ORIGIN: dict[str, Path] = {}
"""Site path of each page -> the repository file its links are relative to."""
SITE_PATH: dict[Path, str] = {}
"""Repository file or folder -> its site path (``docs/x.md`` -> ``x.md``)."""


# ------------------------------------------------------------------------------------------
# Generated pages


def course_pages() -> dict[str, str]:
    """``course/NAME.md`` -> the page of each ``course/NAME.py`` that exists, and the
    course's index page listing them."""
    pages = {f"course/{p.stem}.md": percent_to_markdown(p.read_text()) for p in course_files()}
    rows = []
    for site, text in pages.items():
        title = next((x[2:] for x in text.splitlines() if x.startswith("# ")), site)
        rows.append(f"- [{title.strip()}]({Path(site).name})")
    pages["course/index.md"] = (
        "# The course\n\nThe path from the rules to AlphaZero, one chapter a page. Each chapter "
        "is a notebook stored as text in `course/`: it runs as a script "
        "(`python course/NN-name.py`) in a quick mode of under 45 seconds on 2 cores, or in "
        "Jupyter, and states the full-budget command and its measured figures beside each "
        "step.\n\n" + ("\n".join(rows) or "No chapter is written yet.") + "\n"
    )
    return pages


def course_files() -> list[Path]:
    return sorted(COURSE.glob("[0-9]*.py")) if COURSE.is_dir() else []


def percent_to_markdown(text: str) -> str:
    """A jupytext percent script as Markdown: its markdown cells as text, its code cells as
    Python blocks (the jupytext header and empty cells left out)."""
    lines = text.splitlines()
    if lines and lines[0].strip() == "# ---":  # the jupytext header
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == "# ---"), 0)
        lines = lines[end + 1 :]
    cells: list[tuple[str, list[str]]] = []
    for line in lines:
        if line.startswith("# %%"):
            kind = "markdown" if re.match(r"# %%.*\[(markdown|md)\]", line) else "code"
            cells.append((kind, []))
        elif cells:
            cells[-1][1].append(line)
        elif line.strip():
            cells.append(("code", [line]))
    out = []
    for kind, body in cells:
        if kind == "markdown":
            text = "\n".join(re.sub(r"^# ?", "", x) if x.startswith("#") else x for x in body)
        else:
            text = "\n".join(body).strip("\n")
            text = f"```python\n{text}\n```" if text.strip() else ""
        if text.strip():
            out.append(text.strip("\n"))
    return "\n\n".join(out) + "\n"


def api_modules() -> list[str]:
    """``othellolab``, each of its packages and each top-level module with an ``__all__``."""
    import othellolab

    names = ["othellolab"]
    for info in pkgutil.walk_packages(othellolab.__path__, "othellolab."):
        if info.name.rsplit(".", 1)[-1].startswith("_"):
            continue
        top = info.name.count(".") == 1
        if info.ispkg or (top and hasattr(importlib.import_module(info.name), "__all__")):
            names.append(info.name)
    return names


def api_pages() -> dict[str, str]:
    """``reference/api/NAME.md`` -> a mkdocstrings page of each module of ``api_modules``."""
    pages = {}
    for name in api_modules():
        if _has_all(name):
            pages[f"reference/api/{name}.md"] = f"# `{name}`\n\n::: {name}\n"
    return pages


def _has_all(name: str) -> bool:
    return bool(getattr(importlib.import_module(name), "__all__", None))


def _help_of(path: list[str]) -> str:
    """The ``--help`` text of ``othellolab PATH``, as a terminal 100 columns wide shows it."""
    from typer.testing import CliRunner

    from othellolab.cli import app

    env = {"NO_COLOR": "1", "TERM": "dumb", "COLUMNS": "100"}
    result = CliRunner().invoke(
        app, [*path, "--help"], env=env, terminal_width=100, prog_name="othellolab"
    )
    if result.exit_code != 0:
        raise RuntimeError(f"othellolab {' '.join(path)} --help failed: {result.output}")
    return "\n".join(line.rstrip() for line in result.output.rstrip().splitlines())


def cli_page() -> str:
    """Every command's help, from the typer app itself."""
    import click
    import typer

    from othellolab.cli import app

    root = typer.main.get_command(app)
    ctx = click.Context(root, info_name="othellolab")
    out = [
        "# Command line",
        "",
        "Every command of `othellolab` with its `--help`, generated from the command itself "
        "when the site is built.",
        "",
    ]

    def walk(group: Any, path: list[str], ctx: click.Context) -> None:
        title = " ".join(["othellolab", *path])
        out.extend([f"## `{title}`", "", "```text", _help_of(path), "```", ""])
        if hasattr(group, "list_commands"):  # a group (typer's own, not always click's class)
            for name in group.list_commands(ctx):
                command = group.get_command(ctx, name)
                if command is None or command.hidden:
                    continue
                walk(command, [*path, name], click.Context(command, parent=ctx, info_name=name))

    walk(root, [], ctx)
    return "\n".join(out)


def config_page() -> str:
    """Every config table declared in the package, one Markdown table each (key, default,
    values, meaning), from ``othellolab.config.reference``."""
    import othellolab
    from othellolab.config.options import CheckedTable
    from othellolab.config.reference import reference_table

    for info in pkgutil.walk_packages(othellolab.__path__, "othellolab."):
        if info.name.rsplit(".", 1)[-1] != "__main__":
            importlib.import_module(info.name)
    seen: dict[str, type] = {}
    todo = list(CheckedTable.__subclasses__())
    while todo:
        klass = todo.pop()
        todo += klass.__subclasses__()
        if klass.__module__.startswith("othellolab."):
            seen[f"{klass.__module__}.{klass.__qualname__}"] = klass
    out = [
        "# Config keys",
        "",
        "Every table of every TOML config (supervised and self-play training, the engine's "
        "fit, tournaments) and of the batched search, generated from the declarations in the "
        "code when the site is built: each key's default, the values it takes (anything else "
        "is refused with an error naming the file, the table and the key) and its meaning.",
        "",
    ]
    for path, klass in sorted(seen.items()):
        doc = (klass.__doc__ or "").strip().split("\n\n")[0]
        out += [f"## `{klass.__name__}`", "", f"`{path}`: {' '.join(doc.split())}", ""]
        out += [reference_table(klass), ""]
    return "\n".join(out)


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("<", "&lt;")


def players_page() -> str:
    """The players that specs name, their games and options, from the registry."""
    from othellolab.nn.pretrained import ModelCatalog
    from othellolab.players import available_players
    from othellolab.players.registry import describe_options

    catalog = ModelCatalog(())
    out = [
        "# Players",
        "",
        "Every player a spec can name (`NAME:key=value,...`), strongest first, with the games "
        "it plays and each option's values and default; generated from the players' registry "
        "(as `othellolab players` prints it) when the site is built. The "
        "[players page](../players.md) explains them.",
        "",
    ]
    for entry in available_players():
        out += [f"## `{entry.name}`", "", _escape(entry.help), ""]
        out += [f"Games: {', '.join(entry.games())}.", ""]
        options = describe_options(entry, models=catalog)
        if options:
            out += ["| option | values (default) |", "|---|---|"]
            out += [f"| `{k}` | {_escape(v)} |" for k, v in options.items()]
            out.append("")
        if entry.defaults:
            chosen = ",".join(f"{k}={v}" for k, v in entry.defaults.items())
            out += [f"As the strongest player: `{entry.name}:{chosen}`.", ""]
    return "\n".join(out)


def model_pages() -> dict[str, tuple[str, Path]]:
    """``reference/models/NAME.md`` -> (each shipped model's TRAINING.md, its path)."""
    return {
        f"reference/models/{p.parent.name}.md": (p.read_text(), p)
        for p in sorted(PRETRAINED.glob("*/TRAINING.md"))
    }


def models_index(names: list[str]) -> str:
    rows = "\n".join(f"- [{n}](models/{n}.md)" for n in names)
    return (
        "# Shipped models\n\nThe networks that ship with othellolab (`model=NAME` in a player "
        "spec), each with how it was trained and its measured figures, from its "
        "`TRAINING.md`:\n\n" + rows + "\n"
    )


# ------------------------------------------------------------------------------------------
# Links to the repository outside docs/


def _prose_lines(text: str) -> list[bool]:
    """For each line of a Markdown text, whether it is prose (not inside a fenced block)."""
    prose, fenced = [], False
    for line in text.splitlines(keepends=True):
        if FENCE.match(line):
            fenced = not fenced
            prose.append(False)
        else:
            prose.append(not fenced)
    return prose


def _map_links(text: str, fn: Any) -> str:
    """``text`` with each relative link target of its prose replaced by ``fn(target)``."""
    lines = text.splitlines(keepends=True)
    for i, prose in enumerate(_prose_lines(text)):
        if prose:
            line = LINK.sub(lambda m: m[1] + fn(m[2]) + m[3], lines[i])
            lines[i] = REFERENCE.sub(lambda m: m[1] + fn(m[2]) + m[3], line)
    return "".join(lines)


def _repo_target(target: str, origin: Path) -> tuple[Path, str] | None:
    """The repository file or folder a relative link of ``origin`` names, and its anchor."""
    if SCHEME.match(target) or target.startswith("#"):
        return None
    path, _, anchor = target.partition("#")
    path = path.split("?", 1)[0]
    resolved = (REPO / path.lstrip("/")) if path.startswith("/") else (origin.parent / path)
    resolved = resolved.resolve()
    if not resolved.is_relative_to(REPO) or not resolved.exists():
        return None  # left for strict mode to report
    return resolved, anchor


def _mirror(path: Path, config: Any, files: Files, todo: list[str]) -> str:
    """The site path of repository file or folder ``path``, added to the site if needed."""
    if path in SITE_PATH:
        return SITE_PATH[path]
    relative = path.relative_to(REPO).as_posix()
    if path.is_dir():
        readme = path / "README.md"
        if readme.exists():
            SITE_PATH[path] = _mirror(readme, config, files, todo)
            return SITE_PATH[path]
        site = f"{MIRROR}/{relative}/index.md"
        entries = sorted(p for p in path.iterdir() if not p.name.startswith("."))
        listing = "\n".join(f"- [{p.name}]({p.name}{'/' if p.is_dir() else ''})" for p in entries)
        SITE_PATH[path] = site
        _add(config, files, site, f"# `{relative}/`\n\n{listing}\n", path / "index.md", todo)
        return site
    site = f"{MIRROR}/{relative}"
    SITE_PATH[path] = site
    if path.suffix == ".md":
        _add(config, files, site, path.read_text(), path, todo)
    else:
        files.append(File.generated(config, site, abs_src_path=str(path)))
    return site


def _add(config: Any, files: Files, site: str, content: str, origin: Path, todo: list[str]) -> None:
    files.append(File.generated(config, site, content=content, inclusion=InclusionLevel.NOT_IN_NAV))
    ORIGIN[site] = origin
    todo.append(site)


def _relative_url(site_from: str, site_to: str) -> str:
    return posixpath.relpath(site_to, posixpath.dirname(site_from) or ".")


# ------------------------------------------------------------------------------------------
# The hook's events


def on_config(config: Any) -> Any:
    """The nav: the guide, the course chapters that exist, the how-to pages, the reference."""
    docs = REPO / "docs"
    reference = {"benchmarks.md", "architecture.md", "conventions.md", "formats.md", "limits.md"}
    howto = [p.name for p in sorted(docs.glob("*.md")) if p.name not in reference | {"index.md"}]
    course = ["course/index.md", *(f"course/{p.stem}.md" for p in course_files())]
    api = [{name: f"reference/api/{name}.md"} for name in api_modules() if _has_all(name)]
    models = [{n: f"reference/models/{n}.md"} for n in sorted(_model_names())]
    config["nav"] = [
        {"Guide": "index.md"},
        {"Course": course},
        {"How-to": howto},
        {
            "Reference": [
                "reference/cli.md",
                "reference/config.md",
                "reference/players.md",
                {"Shipped models": ["reference/models.md", *models]},
                *sorted(reference),
                {"API": api},
            ]
        },
    ]
    return config


def _model_names() -> list[str]:
    return [p.parent.name for p in PRETRAINED.glob("*/TRAINING.md")]


def on_files(files: Files, config: Any) -> Files:
    """Adds the generated pages, then every repository file their links reach."""
    ORIGIN.clear()
    SITE_PATH.clear()
    docs = REPO / "docs"
    for f in files.documentation_pages():
        ORIGIN[f.src_uri] = docs / f.src_uri
    for f in files:
        SITE_PATH[(docs / f.src_uri).resolve()] = f.src_uri
    SITE_PATH[docs.resolve()] = "index.md"
    todo: list[str] = []
    with contextlib.redirect_stdout(io.StringIO()):  # the CLI's and registry's imports are quiet
        generated: dict[str, tuple[str, Path]] = {
            **{k: (v, COURSE / (Path(k).stem + ".py")) for k, v in course_pages().items()},
            **{k: (v, docs / k) for k, v in api_pages().items()},
            "reference/cli.md": (cli_page(), docs / "reference/cli.md"),
            "reference/config.md": (config_page(), docs / "reference/config.md"),
            "reference/players.md": (players_page(), docs / "reference/players.md"),
            "reference/models.md": (
                models_index(sorted(_model_names())),
                docs / "reference/models.md",
            ),
            **model_pages(),
        }
    for site, (content, origin) in generated.items():
        files.append(File.generated(config, site, content=content))
        ORIGIN[site] = origin
        if origin.is_relative_to(REPO / "course") or origin.name == "TRAINING.md":
            SITE_PATH[origin.resolve()] = site
    todo += list(ORIGIN)
    while todo:
        site = todo.pop()
        page = files.get_file_from_path(site)
        text = page.content_string if page is not None else ""
        origin = ORIGIN[site]
        for m in [*LINK.finditer(text), *REFERENCE.finditer(text)]:
            target = _repo_target(m[2], origin)
            if target is not None:
                _mirror(target[0], config, files, todo)
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Rewrites each link to a repository file outside ``docs/`` to its copy in the site."""
    site = page.file.src_uri
    origin = ORIGIN.get(site)
    if origin is None:
        return markdown

    def rewrite(target: str) -> str:
        found = _repo_target(target, origin)
        if found is None or found[0] not in SITE_PATH:
            return target
        url = _relative_url(site, SITE_PATH[found[0]])
        return f"{url}#{found[1]}" if found[1] else url

    return _map_links(markdown, rewrite)


os.environ.setdefault("NUMBA_DISABLE_PERFORMANCE_WARNINGS", "1")
