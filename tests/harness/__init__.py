"""The test harness: starts an isolated stack for one test run.

Each run gets its own database, Redis key prefix, NATS prefix, key directory and free
ports, runs the real operator tool (migrate, seed), starts the five services under
Granian and the real nginx proxy, and removes everything afterwards. Nothing is mocked:
the point is to test what ships. Loaded for every test by the root ``conftest.py``.
"""
