"""The admin service's own data access: groups (the one writer of ``groups``,
``group_members`` and ``group_roles``), the SCIM reads and filters, and people as the
administration API answers them, over the shared repositories of
:mod:`idp_common.storage.repos`."""
