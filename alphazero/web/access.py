"""Who may drive the web board.

The board listens on this machine only, but every web page open in a browser on this machine is
on this machine too. A page from another site cannot read the board's answers (the browser's
same-origin rule) unless it rebinds its own host name to 127.0.0.1 (DNS rebinding): then its
requests reach the server with the other site's name in `Host`. So:

- every request's `Host` must be an address the server listens on (`listen_hosts`: 127.0.0.1,
  localhost or [::1], or the --host given, with the port), else 403;
- every /api/ request must carry the token this process put into the page it served
  (`TOKEN_HEADER`; a new one each start), else 403: a page elsewhere cannot send it, since a
  custom header makes the browser ask the server first, and the server never says yes.
"""

from __future__ import annotations

import secrets
import socket

TOKEN_HEADER = "X-Board-Token"
WILDCARD_HOSTS = ("0.0.0.0", "::", "")


class Refused(Exception):
    """A request the board does not serve (403): from another site, or without the page's token.
    The message says what to do."""


def new_token() -> str:
    return secrets.token_urlsafe(24)


def listen_hosts(host: str, port: int) -> frozenset[str]:
    """The `Host` values (lower case) a request to this server may carry: the loopback names and
    `host` (the --host given), each with `port`; bare too on port 80, where browsers leave the port
    out. Listening on every interface (0.0.0.0, ::) adds this machine's own names, since clients
    then type those; an address of another name (another site's) is never one of them."""
    names = {"127.0.0.1", "localhost", "[::1]", f"[{host}]" if ":" in host else host}
    if host in WILDCARD_HOSTS:
        names |= {socket.gethostname(), socket.getfqdn()}
    names = {name.lower() for name in names if name}
    return frozenset({f"{name}:{port}" for name in names} | (names if port == 80 else set()))
