"""Side by side with node-oidc-provider (issue 24, item 1): ``make bench-peer``.

node-oidc-provider 9.13.3 (``bench/peer/server.mjs``, pinned by ``package-lock.json``) doing
the same work as the token service, with an in-memory and a Postgres adapter, behind the
same nginx; both driven by the same load generators in one run (``bench/peer/run.py``).
How fairness is kept and how to read the table: ``bench/README.md``.
"""
