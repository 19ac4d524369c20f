"""SCIM 2.0 service provider (RFC 7643, RFC 7644) at ``/scim/v2/*`` (docs/scim.md)."""
