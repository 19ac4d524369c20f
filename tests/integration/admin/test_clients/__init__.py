"""``/admin/clients`` (contract §4 "Admin: clients", docs/design.md "Wire contracts" → Clients).

Each route: success, 401, 403, 404 for an unknown ``client_id``, 422 naming the field.
Also: the secret is returned once and stored only as its SHA-256 digest, never audited;
rotation works end to end at the token endpoint (issue 4, acceptance 5); deleting a client
takes its secret, scopes, codes, refresh tokens and consents with it; the console stays.
"""
