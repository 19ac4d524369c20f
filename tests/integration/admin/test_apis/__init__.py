"""Spec part 4 "Admin: APIs and scopes": every route's success, 401, 403, 404 and 422,
uniqueness (409), the protected provider API and OIDC scopes, cascading deletes, audit
rows and keyset paging."""
