"""Which agents and paths a batch run judges: the bundled crawler table by default, or files.

Agents file format (one agent per line, `#` comments):

    GPTBot                                   a product token (or a full user-agent string)
    Googlebot-News aliases=Googlebot         extra tokens, pooled as Google does (combine="merge")
    - purposes=archiver,indexer name=gemini-archive-indexer
                                             no token: only `*` and the Gemini purposes apply

Paths file: one path per line (`/search?q=x`), judged for every agent besides `/`.
"""

from __future__ import annotations

from pathlib import Path

from robotskit.batch._values import AgentSpec

# Used only when the bundled crawler table (robotskit.crawlers) is not installed.
FALLBACK_TOKENS = (
    "Googlebot",
    "Bingbot",
    "Google-Extended",
    "GPTBot",
    "ChatGPT-User",
    "OAI-SearchBot",
    "ClaudeBot",
    "anthropic-ai",
    "CCBot",
    "PerplexityBot",
    "Applebot",
    "Applebot-Extended",
    "Bytespider",
    "meta-externalagent",
    "Amazonbot",
    "YandexBot",
    "Baiduspider",
    "DuckDuckBot",
)
GEMINI_PURPOSES = ("archiver", "indexer", "researcher", "webproxy")


def default_agents() -> tuple[AgentSpec, ...]:
    """The bundled well-known crawlers, plus Gemini's virtual agents as purposes (docs/profiles/gemini.md)."""
    try:
        from robotskit.core.crawlers import load_crawlers  # noqa: PLC0415 - optional sibling module

        table = load_crawlers()
        tokens = [c.token for c in table if "gemini" not in c.categories]
    except ImportError:
        tokens = list(FALLBACK_TOKENS)
    specs = [AgentSpec(name=token, token=token) for token in tokens]
    # A virtual agent has no token of its own: `*` and the purpose are judged (docs/profiles/gemini.md).
    specs.extend(AgentSpec(name=purpose, token=None, purposes=(purpose,)) for purpose in GEMINI_PURPOSES)
    return tuple(specs)


def parse_agents(text: str) -> tuple[AgentSpec, ...]:
    """Agent specs from the agents-file format described in the module docstring."""
    specs: list[AgentSpec] = []
    names: set[str] = set()
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        head, *options = line.split()
        fields: dict[str, str] = {}
        for option in options:
            key, sep, value = option.partition("=")
            if not sep or key not in ("aliases", "purposes", "name"):
                raise ValueError(f"agents line {number}: unknown option {option!r}")
            fields[key] = value
        token = None if head == "-" else head
        purposes = tuple(p for p in fields.get("purposes", "").split(",") if p)
        aliases = tuple(a for a in fields.get("aliases", "").split(",") if a)
        name = fields.get("name") or token or "+".join(purposes) or "*"
        if name in names:
            raise ValueError(f"agents line {number}: duplicate agent name {name!r}")
        names.add(name)
        specs.append(AgentSpec(name=name, token=token, purposes=purposes, aliases=aliases))
    if not specs:
        raise ValueError("the agents file names no agent")
    return tuple(specs)


def load_agents(path: str | Path | None) -> tuple[AgentSpec, ...]:
    """The agents of a file, or the default list when `path` is None."""
    if path is None:
        return default_agents()
    return parse_agents(Path(path).read_text(encoding="utf-8"))


def load_paths(path: str | Path | None) -> tuple[str, ...]:
    """Sample paths from a file (one per line, `#` comments); none when `path` is None."""
    if path is None:
        return ()
    paths: list[str] = []
    for raw in Path(path).read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            paths.append(line if line.startswith("/") else "/" + line)
    return tuple(paths)
