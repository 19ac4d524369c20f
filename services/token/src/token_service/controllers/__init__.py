"""Thin Litestar controllers of the token service."""
