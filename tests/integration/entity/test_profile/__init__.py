"""``GET/PATCH /entity/profile`` and ``GET /entity/profile/schema`` (contract §4 "Entity
(self-service)"; part 2 "Profile field"; issue 5 acceptance 1 and 2): the built-in facts
and readable fields, PATCH of exactly the ``userWritable`` fields that apply (any other key
is a 422 and nothing changes), validators and ``unique`` as in the admin API, group fields
only for members, and the built-in ``displayName``/``username``."""
