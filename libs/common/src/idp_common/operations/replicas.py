"""How many replicas of each service run on one machine, and on which ports.

``SVC_REPLICAS=token=3,authui-api=2`` asks for three token processes and two sign-in API
processes; every service not named runs once. A *replica* is one ``idp serve SERVICE``
process (a Granian master and its workers) on a port of its own: replica ``i`` (0-based)
listens on the service's base port + 10 * i (token 8101, 8111, 8121 ...).

:func:`parse_replicas` is the one parser of the value: ``make up`` calls it through
``python -m idp_common.operations.replicas`` (which prints one line per replica), the test
harness calls it directly. Nothing else reads ``SVC_REPLICAS``; the services never do.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from idp_common.operations.cli import DEFAULT_PORTS

SERVICE_NAMES: tuple[str, ...] = tuple(DEFAULT_PORTS)
PORT_STEP = 10  # replica i listens on the base port + PORT_STEP * i
#: Ports 8101-8105 + 10 * i stay distinct (each service keeps its last digit) and below
#: 10000 for up to this many replicas of one service on one machine.
MAX_REPLICAS = 100
ENV_VAR = "SVC_REPLICAS"
BAD_COUNT = f"the count must be a whole number from 1 to {MAX_REPLICAS}"


class ReplicasError(ValueError):
    """Every problem of one ``SVC_REPLICAS`` value, one per line."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n".join(f"{ENV_VAR}: {p}" for p in problems))


def parse_replicas(value: str, services: Sequence[str] = SERVICE_NAMES) -> dict[str, int]:
    """``"token=3, authui-api=2"`` -> a count for every service (1 when not named).

    Refused, all problems together: an entry without ``=``, an unknown service, a service
    named twice, a count that is not a whole number from 1 to :data:`MAX_REPLICAS`.
    """
    counts = dict.fromkeys(services, 1)
    named: set[str] = set()
    problems: list[str] = []
    for entry in (part.strip() for part in value.split(",")):
        if not entry:
            continue
        name, equals, raw = (piece.strip() for piece in entry.partition("="))
        if not equals:
            problems.append(f"{entry!r}: expected SERVICE=COUNT")
        elif name not in counts:
            problems.append(f"{name!r}: unknown service (known: {', '.join(services)})")
        elif name in named:
            problems.append(f"{name}: named twice")
        elif not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= MAX_REPLICAS:
            problems.append(f"{name}={raw}: {BAD_COUNT}")
        else:
            counts[name] = int(raw)
            named.add(name)
    if problems:
        raise ReplicasError(problems)
    return counts


def replica_port(base_port: int, index: int) -> int:
    return base_port + PORT_STEP * index


@dataclass(frozen=True)
class Replica:
    service: str
    index: int
    port: int

    @property
    def label(self) -> str:
        """Its pid and log file name under ``make up``: ``token`` for the first replica
        (the name a single-replica install always had), ``token-1``, ``token-2`` after."""
        return self.service if self.index == 0 else f"{self.service}-{self.index}"


def replicas_of(
    counts: Mapping[str, int], base_ports: Mapping[str, int] = DEFAULT_PORTS
) -> list[Replica]:
    """Every replica, service by service in ``counts``'s order, first replica first."""
    return [
        Replica(name, index, replica_port(base_ports[name], index))
        for name, count in counts.items()
        for index in range(count)
    ]


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m idp_common.operations.replicas [VALUE] [--base SERVICE=PORT ...]``
    (VALUE default: ``$SVC_REPLICAS``; base ports default: ``idp serve``'s, which
    tests/deploy holds equal to deploy/stack.toml): one line ``SERVICE INDEX PORT LABEL``
    per replica, or the problems and exit status 2."""
    parser = argparse.ArgumentParser(prog="python -m idp_common.operations.replicas")
    parser.add_argument("value", nargs="?", default=os.environ.get(ENV_VAR, ""))
    parser.add_argument("--base", action="append", default=[], metavar="SERVICE=PORT")
    args = parser.parse_args(argv)
    base = dict(DEFAULT_PORTS)
    for pair in args.base:
        name, _, port = pair.partition("=")
        if name not in base or not port.isdigit():
            print(f"--base {pair}: expected SERVICE=PORT of a known service", file=sys.stderr)
            return 2
        base[name] = int(port)
    try:
        counts = parse_replicas(args.value)
    except ReplicasError as exc:
        print(exc, file=sys.stderr)
        return 2
    for replica in replicas_of(counts, base):
        print(replica.service, replica.index, replica.port, replica.label)
    return 0


if __name__ == "__main__":
    sys.exit(main())
