"""The logout dispatcher: consumes ``session.ended`` events from NATS JetStream and
delivers OIDC Back-Channel Logout tokens (contract §6): the recipients of each ended
session (``recipients``), one delivery per application (``fanout``, ``delivery``); its
NATS connection is reported in ``/health``."""
