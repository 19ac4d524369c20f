"""``make chaos``: fault injection under a mixed load, one report row per fault.

``python -m tests.chaos`` (run by ``scripts/chaos.sh``) starts PostgreSQL, Redis and NATS
of its own (:mod:`tests.chaos.deps`), an isolated stack on them (the test harness), a
mixed load (:mod:`tests.chaos.load`), injects the faults of :mod:`tests.chaos.faults` one
at a time, checks the invariants (:mod:`tests.chaos.invariants`) and prints the table
(:mod:`tests.chaos.report`). docs/operations.md "Chaos run" says how to read it.

The modules carry no ``test_`` prefix, so pytest never collects the runner itself.
"""
