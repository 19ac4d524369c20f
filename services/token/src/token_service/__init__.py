"""The token service: ``/oauth2/*`` and ``/.well-known/*`` (OpenID Connect Core, RFC 6749,
RFC 8414 discovery, RFC 7517 JWKS)."""
