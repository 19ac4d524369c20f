"""Cryptographic building blocks of the provider: signing keys, JWTs and password hashes.

Why it exists: every service signs or verifies tokens with the same keys and rules, and
the sign-in and self-service APIs hash passwords the same way; keeping that here makes one
implementation to review and test.

What it implements:

- ``keys``: contract §5 "Signing keys" (rotation by file name, all are published) and the
  JWKS of contract §4 "Discovery"; ``kid`` is the RFC 7638 thumbprint.
  ``key_schedule``: rotation without restarts (a file named by its activation time;
  next / current / retired; when a retired key may go is the command line's
  ``idp_common.operations.key_retention``);
  ``key_files``: the directory on disk.
- ``jwt``: RS256 JWTs (RFC 7519, RFC 7515), RFC 9068 access tokens, and the offline
  validation rules of contract §5 "Validation rules for a resource API".
- ``passwords``: argon2id password hashes (RFC 9106; docs/design.md §2 "Sign-in").

Pure code: no Litestar, SQLAlchemy, Redis or NATS. Time and keys are passed in.

Layer (pyproject.toml): pure, beside protocol; may import protocol and errors only (no
framework, database, Redis or NATS).
"""
