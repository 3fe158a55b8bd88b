"""What every `--help` ends with: examples and the exit codes (one table, also in docs/cli.md)."""

from __future__ import annotations

__all__ = ["EXIT_CODES", "epilog"]

#: The one exit-code table (docs/cli.md repeats it).
EXIT_CODES = """\
exit status:
  0  allowed / clean / nothing changed / fetched
  1  disallowed (check, explain, fetch --agent) / findings (lint) / verdicts changed (diff)
  2  usage error, unreadable input, ambiguous argument, or a failed fetch (fetch)
  130 interrupted"""

_EXAMPLES = {
    "robotskit": [
        "robotskit check robots.txt /private/x --agent MyBot",
        "robotskit explain https://example.com/robots.txt /shop --agent Googlebot --profile google",
        "robotskit lint https://example.com/robots.txt",
        "robotskit diff https://example.com/robots.txt new-robots.txt",
    ],
    "check": [
        "robotskit check robots.txt /private/a /public/b --agent MyBot",
        "robotskit check https://example.com/robots.txt /cart --agent MyBot --agent OtherBot",
        "robotskit check https://example.com/a https://example.org/b --agent MyBot --json",
        "robotskit check gemini://example.org/robots.txt /gemlog/ --agent MyBot --purpose archiver",
        "curl -s https://example.com/robots.txt | robotskit check - /x --agent MyBot",
    ],
    "explain": [
        "robotskit explain robots.txt /private/report.pdf --agent MyBot",
        "robotskit explain https://example.com/robots.txt /dir/ --agent Googlebot --profile google",
    ],
    "lint": [
        "robotskit lint robots.txt",
        "robotskit lint https://example.com/robots.txt --ignore RK3 --json",
        "robotskit lint gemini://example.org/robots.txt   # judged with the gemini profile",
    ],
    "fetch": [
        "robotskit fetch https://example.com/robots.txt",
        "robotskit fetch https://example.com/private/x --agent MyBot --refresh",
        "robotskit fetch gemini://example.org/robots.txt   # shows the pinned certificate",
    ],
    "audit": [
        "robotskit audit robots.txt",
        "robotskit audit https://example.com/robots.txt --json",
    ],
    "diff": [
        "robotskit diff https://example.com/robots.txt robots.txt   # before deploying",
        "robotskit diff old.txt new.txt --urls urls.txt --agent Googlebot --agent GPTBot",
        "git show HEAD:robots.txt | robotskit diff - robots.txt --json",
    ],
    "batch": [
        "robotskit batch crawl.warc.gz --out results.parquet",
        "robotskit batch robots-dir/ hosts.txt --agents agents.txt --scheduler sync",
        "robotskit batch report results.parquet",
    ],
    "cache": [
        "robotskit cache info",
        "robotskit cache clear example.com",
        "robotskit cache clear --cache /tmp/robots.db",
    ],
}


def epilog(command: str) -> str:
    """The examples for `command`, then the exit-code table."""
    lines = "\n".join(f"  {example}" for example in _EXAMPLES.get(command, ()))
    return f"examples:\n{lines}\n\n{EXIT_CODES}"
