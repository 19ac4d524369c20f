"""Thin Litestar controllers of ``/api/v1/auth/*``: parse, call the flow, answer."""
