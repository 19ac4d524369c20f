"""Events: the transactional outbox, its relay to NATS JetStream, and the stream itself
(docs/design.md "Events"). Writers add an outbox row and call :func:`announce` in one
transaction (``idp_common.storage.repos.outbox``, the table's owner); :class:`OutboxRelay`
publishes the rows; consumers read the stream.

Layer (pyproject.toml): beside state, face, avatars, profile_fields; may import storage,
config, protocol, crypto and errors.
"""

from idp_common.events.relay import OutboxRelay
from idp_common.events.stream import ensure_stream, stream_config
from idp_common.storage.repos.outbox import OUTBOX_CHANNEL, announce

__all__ = ["OUTBOX_CHANNEL", "OutboxRelay", "announce", "ensure_stream", "stream_config"]
