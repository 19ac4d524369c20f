"""Administrator-defined profile fields and their values (contract §2 "Profile field",
docs/design.md "Profile fields").

Shared by the administration API and the self-service API (``/entity/profile``):

- :mod:`.schema`: the wire Structs (creation body, update body, read shape, validators);
- :mod:`.rules`: pure checks of a field definition (key syntax, validators per data type,
  ``enumValues``, the claim pair and the reserved claim names);
- :mod:`.values`: pure conversion and validation of one value (text stored, typed at the
  edges: contract §2 rule 10);
- :mod:`.store`: fields and values with these rules applied, over their repository
  :mod:`idp_common.storage.repos.profile_fields` (Postgres enforces ``unique``).

Layer (pyproject.toml): beside events, state, face, avatars; may import storage, config,
protocol, crypto and errors.
"""
