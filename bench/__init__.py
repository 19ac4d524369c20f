"""Throughput and latency benchmark of the token and sign-in endpoints (``bash bench/run.sh``)."""
