"""The sign-in API, ``/api/v1/auth/*`` (contract §4 "Sign-in and recovery"; docs/design.md §2
"Sign-in" and "Wire contracts").

It moves a challenge that ``/oauth2/authorize`` created through its steps (password →
TOTP code when enrolled → consent when needed → done), starts the browser session
(contract §5 "Browser session", cookie ``svc_session``) and hands the browser back to the
authorization endpoint. It also runs password reset by mail. Every answer on error is
RFC 9457 problem+json.
"""
