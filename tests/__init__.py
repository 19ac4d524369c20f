"""Cross-service tests: integration (one service, real dependencies) and end-to-end
(through the real proxy). Per-service tests live beside each service."""
