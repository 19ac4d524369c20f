"""``SVC_REPLICAS``: the one parser, the ports of each replica, the lines ``make up`` reads."""

from __future__ import annotations

import pytest

from idp_common.operations.replicas import (
    MAX_REPLICAS,
    SERVICE_NAMES,
    Replica,
    ReplicasError,
    main,
    parse_replicas,
    replica_port,
    replicas_of,
)

EVERY_SERVICE_ONCE = dict.fromkeys(SERVICE_NAMES, 1)


@pytest.mark.parametrize("value", ["", " ", ",", " , ,"])
def test_nothing_named_runs_every_service_once(value: str) -> None:
    assert parse_replicas(value) == EVERY_SERVICE_ONCE


def test_named_services_get_their_count_and_the_others_one() -> None:
    counts = parse_replicas("token=3,authui-api=2,admin=2,entity=2")
    assert counts == {
        "token": 3,
        "admin": 2,
        "entity": 2,
        "authui-api": 2,
        "logout-dispatcher": 1,
    }


def test_spaces_around_names_counts_and_commas_are_ignored() -> None:
    assert parse_replicas(" token = 2 , entity=3 ,")["token"] == 2
    assert parse_replicas(" token = 2 , entity=3 ,")["entity"] == 3


BAD_COUNT = f"the count must be a whole number from 1 to {MAX_REPLICAS}"
KNOWN = "known: token, admin, entity, authui-api, logout-dispatcher"


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("tokens=2", f"'tokens': unknown service ({KNOWN})"),
        ("token", "'token': expected SERVICE=COUNT"),
        ("token:2", "'token:2': expected SERVICE=COUNT"),
        ("token=0", f"token=0: {BAD_COUNT}"),
        ("token=-1", f"token=-1: {BAD_COUNT}"),
        ("token=2.5", f"token=2.5: {BAD_COUNT}"),
        ("token=", f"token=: {BAD_COUNT}"),
        ("token=\u0663", f"token=\u0663: {BAD_COUNT}"),  # an Arabic-Indic three
        ("token=101", f"token=101: {BAD_COUNT}"),
        ("token=2,token=3", "token: named twice"),
    ],
)
def test_a_bad_value_is_refused_with_a_message_naming_it(value: str, problem: str) -> None:
    with pytest.raises(ReplicasError) as caught:
        parse_replicas(value)
    assert str(caught.value) == "SVC_REPLICAS: " + problem


def test_every_problem_is_reported_at_once() -> None:
    with pytest.raises(ReplicasError) as caught:
        parse_replicas("token=0,nope=2,admin")
    assert len(caught.value.problems) == 3


def test_replica_i_listens_on_the_base_port_plus_ten_times_i() -> None:
    assert [replica_port(8101, i) for i in range(3)] == [8101, 8111, 8121]


def test_the_replicas_of_make_up_and_their_labels() -> None:
    replicas = replicas_of(parse_replicas("token=3,admin=2"))
    assert replicas[:5] == [
        Replica("token", 0, 8101),
        Replica("token", 1, 8111),
        Replica("token", 2, 8121),
        Replica("admin", 0, 8102),
        Replica("admin", 1, 8112),
    ]
    assert [r.label for r in replicas[:3]] == ["token", "token-1", "token-2"]
    assert len(replicas) == 3 + 2 + 1 + 1 + 1
    assert len({r.port for r in replicas}) == len(replicas)


def test_ports_of_different_services_never_collide_at_the_largest_count() -> None:
    everything = ",".join(f"{name}={MAX_REPLICAS}" for name in SERVICE_NAMES)
    ports = [r.port for r in replicas_of(parse_replicas(everything))]
    assert len(set(ports)) == len(ports) == MAX_REPLICAS * len(SERVICE_NAMES)
    assert max(ports) < 10_000


def test_the_command_prints_one_line_per_replica(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["authui-api=2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        "token 0 8101 token",
        "admin 0 8102 admin",
        "entity 0 8103 entity",
        "authui-api 0 8104 authui-api",
        "authui-api 1 8114 authui-api-1",
        "logout-dispatcher 0 8105 logout-dispatcher",
    ]


def test_the_command_refuses_a_bad_value_with_status_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["token=0"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("SVC_REPLICAS: token=0:")


def test_the_command_takes_the_base_ports_it_is_given(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["token=2", "--base", "token=9101", "--base", "admin=9102"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:3] == ["token 0 9101 token", "token 1 9111 token-1", "admin 0 9102 admin"]
    assert lines[3] == "entity 0 8103 entity"


@pytest.mark.parametrize("base", ["tokens=9101", "token=", "token=x"])
def test_the_command_refuses_a_bad_base_port(capsys: pytest.CaptureFixture[str], base: str) -> None:
    assert main(["--base", base]) == 2
    assert capsys.readouterr().err.startswith(f"--base {base}:")
