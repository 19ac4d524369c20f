"""Profile photos (contract §2 "Built-in person facts": photo; part 4 "Entity" photo and
"Media"; §8 body size).

- :mod:`.images`: decode an upload with Pillow, check it is the format it claims, refuse
  decompression bombs, and re-encode it from its pixels alone (no EXIF, ICC, XMP or text
  chunks). Pure and CPU-bound: callers run it off the event loop.
- :mod:`.names`: the random, unguessable object names and their strict check.
- :mod:`.store`: the S3-compatible object store (aioboto3), one long-lived client.

Layer (pyproject.toml): beside events, state, face, profile_fields; may import storage,
config, protocol, crypto and errors.
"""
