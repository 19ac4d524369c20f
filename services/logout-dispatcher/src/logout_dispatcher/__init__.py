"""The logout dispatcher: consumes ``session.ended`` events from NATS JetStream and
delivers OIDC Back-Channel Logout tokens (spec part 6). The fan-out arrives with its
issue; for now the service holds its NATS connection and reports it in ``/health``."""
