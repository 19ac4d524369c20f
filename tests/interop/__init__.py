"""Interoperability with relying-party libraries (issue 24, item 4).

Five libraries that applications really use talk to the stack through the proxy, each
configured for one signing algorithm (RS256, PS256, ES256, EdDSA): openid-client,
oauth4webapi and jose (Node, ``node/``) and Authlib and PyJWT (Python). Each discovers the
provider, runs the code flow with PKCE (OIDC Core §3.1, RFC 7636), validates the ID token
(OIDC Core §3.1.3.7) and the access token as an RFC 9068 JWT for an API's audience, calls
userinfo (signed, OIDC Core §5.3.2, when the client registered an algorithm), refreshes
(with rotation) and runs client_credentials (RFC 6749 §4.4).
"""
