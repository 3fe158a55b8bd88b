"""AI-era usage preferences in robots.txt, typed: Content-Signal, Content-Usage, LLM-Policy, License.

The lookups live in `lookup`, the value classes in `model`, the RFC 9651 Dictionary parser in
`structured_fields`; this package is the public home of every name.
"""

from robotskit.ai_prefs.lookup import (
    CONTENT_SIGNAL,
    CONTENT_USAGE,
    LICENSE,
    LLM_POLICY,
    SIGNAL_KEYS,
    USAGE_LABELS,
    ContentSignal,
    ContentUsage,
    Signal,
    UsagePreference,
    content_signal,
    content_usage,
    licenses,
    llm_policies,
    parse_sf_dictionary,
)

__all__ = [
    "CONTENT_SIGNAL",
    "CONTENT_USAGE",
    "LICENSE",
    "LLM_POLICY",
    "SIGNAL_KEYS",
    "USAGE_LABELS",
    "ContentSignal",
    "ContentUsage",
    "Signal",
    "UsagePreference",
    "content_signal",
    "content_usage",
    "licenses",
    "llm_policies",
    "parse_sf_dictionary",
]
