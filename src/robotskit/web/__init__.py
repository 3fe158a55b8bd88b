"""A robots.txt tester in the browser: `robotskit serve` (needs the `web` extra: Starlette, uvicorn).

`create_app()` is the ASGI application; `robotskit.web.server.serve` binds and runs it. The
page and its JSON endpoints are documented in docs/web.md. This package sits at the top of the
layers: it uses the public API, the client, lint and audit, and nothing imports it.
"""

from robotskit.web.app import create_app

__all__ = ["create_app"]
