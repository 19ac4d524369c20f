"""What operators watch: the Prometheus metrics every service exposes at ``GET /metrics``
(docs/operations.md "Metrics").

Imports nothing of the provider, so any layer may count (``state`` counts rate-limit
refusals, a service counts its own events); the web wiring (the request middleware, the
``/metrics`` route, the samplers) lives in ``idp_common.web``.
"""
