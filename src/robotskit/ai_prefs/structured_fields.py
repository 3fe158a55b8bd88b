"""RFC 9651 Structured Field Dictionaries: just what the AI-preference records need.

Owns: turning a field value into `{key: "<kind>:<text>"}` members (section 4.2.2), or None when
the text is not a Dictionary. Only Tokens carry meaning for Content-Usage
(draft-ietf-aipref-vocab section 6.5); every other bare item is validated and kept as text, and
parameters are parsed only to be skipped (vocab 6.4). Pure: no I/O.
"""

from __future__ import annotations

__all__ = ["parse_sf_dictionary"]

_LCALPHA = "abcdefghijklmnopqrstuvwxyz"
_KEY_FIRST = frozenset(_LCALPHA + "*")
_KEY_REST = frozenset(_LCALPHA + "0123456789_-.*")
_ALPHA = frozenset(_LCALPHA + _LCALPHA.upper())
_TCHAR = frozenset("!#$%&'*+-.^_`|~0123456789") | _ALPHA
_TOKEN_REST = _TCHAR | frozenset(":/")
_BASE64 = frozenset(_LCALPHA + _LCALPHA.upper() + "0123456789+/=")


class _SFError(ValueError):
    """The text is not an RFC 9651 Dictionary."""


class _Reader:
    """A cursor over the field value; each method consumes one production of RFC 9651 section 4.2."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def skip(self, chars: str) -> None:
        while self.peek() and self.peek() in chars:
            self.pos += 1

    def key(self) -> str:
        if self.peek() not in _KEY_FIRST:
            raise _SFError("bad key")
        start = self.pos
        while self.peek() in _KEY_REST:
            self.pos += 1
        return self.text[start : self.pos]

    def bare_item(self) -> str:
        """Return `tok:<token>` for Tokens, else `<kind>:<text>` (only Tokens carry preferences)."""
        char = self.peek()
        start = self.pos
        if char == "-" or char.isdigit():
            self.pos += 1
            self.skip("0123456789.")
            return "num:" + self.text[start : self.pos]
        if char == '"':
            self.pos += 1
            while True:
                char = self.peek()
                if not char or not (" " <= char <= "~"):
                    raise _SFError("unterminated string")
                self.pos += 1
                if char == "\\":
                    if self.peek() not in ('"', "\\"):
                        raise _SFError("bad escape")
                    self.pos += 1
                elif char == '"':
                    return "str:" + self.text[start : self.pos]
        if char == "*" or char in _ALPHA:
            self.pos += 1
            while self.peek() in _TOKEN_REST:
                self.pos += 1
            return "tok:" + self.text[start : self.pos]
        if char == ":":
            self.pos += 1
            while self.peek() in _BASE64:
                self.pos += 1
            if self.peek() != ":":
                raise _SFError("bad byte sequence")
            self.pos += 1
            return "bin:" + self.text[start : self.pos]
        if char == "?":
            self.pos += 1
            if self.peek() not in ("0", "1"):
                raise _SFError("bad boolean")
            self.pos += 1
            return "bool:" + self.text[start : self.pos]
        raise _SFError("bad item")

    def parameters(self) -> None:
        # vocab 6.4: parameters carry no meaning; they are parsed only to be skipped.
        while self.peek() == ";":
            self.pos += 1
            self.skip(" ")
            self.key()
            if self.peek() == "=":
                self.pos += 1
                self.bare_item()

    def item_or_inner_list(self) -> str:
        if self.peek() == "(":
            self.pos += 1
            while True:
                self.skip(" ")
                if self.peek() == ")":
                    self.pos += 1
                    self.parameters()
                    return "list:"
                self.bare_item()
                self.parameters()
                if self.peek() not in (" ", ")"):
                    raise _SFError("bad inner list")
        value = self.bare_item()
        self.parameters()
        return value

    def dictionary(self) -> dict[str, str]:
        """RFC 9651 4.2.2: members separated by `,` and optional whitespace; no trailing comma."""
        result: dict[str, str] = {}
        self.skip(" ")
        while self.peek():
            key = self.key()
            if self.peek() == "=":
                self.pos += 1
                result[key] = self.item_or_inner_list()
            else:
                result[key] = "bool:?1"
                self.parameters()
            self.skip(" \t")
            if not self.peek():
                break
            if self.peek() != ",":
                raise _SFError("expected ','")
            self.pos += 1
            self.skip(" \t")
            if not self.peek():
                raise _SFError("trailing ','")
        return result


def parse_sf_dictionary(text: str) -> dict[str, str] | None:
    """Parse an RFC 9651 Dictionary; values are `tok:<token>`, `str:...`, `bool:?1` etc.

    Returns None when the text is not a Dictionary (vocab 6.5: then every preference is
    unknown). A repeated key keeps its last value (RFC 9651 4.2.2).
    """
    try:
        return _Reader(text).dictionary()
    except _SFError:
        return None
