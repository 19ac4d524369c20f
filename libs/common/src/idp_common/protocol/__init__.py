"""Protocol rules as pure functions and constants.

Why it exists: the OAuth 2.0 / OpenID Connect rules are decided here, on plain values,
so that they can be tested without HTTP and shared by every service (docs/style.md §2). A
controller parses the request, calls these functions and renders the result.

What it implements:

- ``constants``: the contract's strings in one place (grant types, scopes, the provider's own
  API scopes of docs/design.md §2, AMR/ACR values, the session cookie, the back-channel logout
  event).
- ``caller_address``: contract §5 "Caller address" and the ``SVC_FORWARDED_ALLOW_IPS``
  setting: when ``X-Forwarded-For`` is believed.

Pure code: no Litestar, SQLAlchemy, Redis or NATS.

Layer (pyproject.toml): pure, beside crypto; may import crypto and errors only (no
framework, database, Redis or NATS).
"""
