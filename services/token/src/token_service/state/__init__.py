"""State the token service alone keeps in Redis: the spent ``jti`` of client assertions
(``assertion_replay``) and pushed authorization requests (``pushed_requests``)."""
