"""Which well-known crawlers a robots.txt blocks, fully or partly, and rules that do nothing."""

from robotskit.audit.report import (
    AuditReport,
    CrawlerAudit,
    IgnoredRule,
    UnknownAgent,
    audit,
    sample_paths,
)

__all__ = [
    "AuditReport",
    "CrawlerAudit",
    "IgnoredRule",
    "UnknownAgent",
    "audit",
    "sample_paths",
]
