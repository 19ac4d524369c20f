"""The token service's own repositories: reads only it needs (docs/style.md §1: code moves into
``idp_common.storage.repos`` when a second service needs it)."""
