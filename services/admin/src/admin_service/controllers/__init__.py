"""Thin Litestar controllers of the administration API."""
