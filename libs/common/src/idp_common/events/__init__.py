"""Events: the transactional outbox, its relay to NATS JetStream, and the stream itself
(DESIGN.md "Events"). Writers call :func:`announce` in the transaction that adds an
outbox row; :class:`OutboxRelay` publishes the rows; consumers read the stream."""

from idp_common.events.outbox import OUTBOX_CHANNEL, announce
from idp_common.events.relay import OutboxRelay
from idp_common.events.stream import ensure_stream, stream_config

__all__ = ["OUTBOX_CHANNEL", "OutboxRelay", "announce", "ensure_stream", "stream_config"]
