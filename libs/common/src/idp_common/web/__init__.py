"""Litestar wiring shared by every service: app factory, security headers, problem+json
errors, caller address, health checks and the bearer-token guard (spec parts 1, 5, 7).

Layer (pyproject.toml): may import usecases and every layer below; only operations sits above it.
"""
