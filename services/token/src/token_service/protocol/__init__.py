"""The token service's pure protocol rules, named after their RFC (or profile): decided on
plain values, tested without HTTP (docs/style.md §2). They live here, not in
``idp_common.protocol``, because only the token service uses them.

- ``rfc6749_client_auth``: client authentication by secret (RFC 6749 §2.3.1, OIDC Core §9);
- ``rfc7523_client_assertion``: client authentication by a JWT assertion (RFC 7523 §2.2, §3);
- ``rfc8414_metadata``: the discovery document of contract §4 "Discovery" (OpenID Connect
  Discovery 1.0 §3 and RFC 8414 §2);
- ``rfc8693_token_exchange``: the token exchange grant (RFC 8693);
- ``rfc8707_resource``: resource indicators (RFC 8707);
- ``rfc9110_conditional``: conditional GET by entity tag (RFC 9110 §8.8.3, §13.1.2);
- ``fapi2_security_profile``: the FAPI 2.0 Security Profile (§5.3).

Pure code: no Litestar, SQLAlchemy, Redis or NATS (pyproject.toml, the "Protocol and crypto
code is pure" contract).
"""
