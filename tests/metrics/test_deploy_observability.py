"""``deploy/observability/``: the Grafana dashboard and the Prometheus alert rules read
only metrics the services expose (issue 22), and cover what an operator watches.

The exposed names come from the definitions themselves: the families every worker counts
(``idp_common.observability.metrics``) and those read at scrape time (the keys, the
dispatcher's outbox). The expressions were also checked once with ``promtool check rules``
(docs/operations.md "Metrics"); here a small reader takes the metric names out of PromQL.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from idp_common.observability.metrics import WORKER_FAMILIES
from idp_common.web.metrics_sources import KEY_FAMILIES
from logout_dispatcher.outbox_metrics import OUTBOX_FAMILIES

ROOT = Path(__file__).resolve().parents[2]
DASHBOARD = ROOT / "deploy/observability/grafana-dashboard.json"
ALERTS = ROOT / "deploy/observability/alerts.yaml"
#: Series Prometheus makes itself.
PROMETHEUS_OWN = {"up"}
_KEYWORDS = {
    "and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring",
    "group_left", "group_right", "inf", "nan",
}  # fmt: skip
_SUFFIXES = {"counter": ("_total",), "histogram": ("_bucket", "_sum", "_count"), "gauge": ("",)}


def exposed_names() -> set[str]:
    names = {
        family.name + suffix
        for metric in WORKER_FAMILIES
        for family in metric.describe()
        for suffix in _SUFFIXES[family.type]
    }
    return names | set(KEY_FAMILIES) | set(OUTBOX_FAMILIES)


def metric_names(expr: str) -> set[str]:
    """The series names a PromQL expression reads."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'', '""', expr)  # string literals
    text = re.sub(r"\$\w+", "", text)  # Grafana variables
    text = re.sub(r"\{[^}]*\}", "", text)  # label matchers
    text = re.sub(r"\[[^\]]*\]", "", text)  # ranges
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", text)
    found = set()
    for match in re.finditer(r"[A-Za-z_:][A-Za-z0-9_:]*", text):
        rest = text[match.end() :].lstrip()
        if rest.startswith("(") or match.group() in _KEYWORDS:
            continue  # a function or an aggregation, or a keyword
        if match.start() and (text[match.start() - 1].isdigit() or text[match.start() - 1] == "."):
            continue  # the exponent or unit of a number
        found.add(match.group())
    return found


def dashboard_exprs() -> list[tuple[str, str]]:
    board = json.loads(DASHBOARD.read_text())
    return [
        (panel["title"], target["expr"])
        for panel in board["panels"]
        for target in panel.get("targets", [])
    ]


def alert_rules() -> list[dict[str, Any]]:
    document = yaml.safe_load(ALERTS.read_text())
    return [rule for group in document["groups"] for rule in group["rules"]]


def test_the_reader_finds_series_names_and_nothing_else() -> None:
    expr = (
        'sum by (le) (rate(a_bucket{route="/x(y)",q=~"z.*"}[$__rate_interval])) '
        "/ ignoring(state) b_total > 90 * 86400 and on(x) max(c) offset 5m > 1e3"
    )
    assert metric_names(expr) == {"a_bucket", "b_total", "c"}


@pytest.mark.parametrize(("title", "expr"), dashboard_exprs())
def test_every_dashboard_panel_reads_exposed_metrics(title: str, expr: str) -> None:
    names = metric_names(expr)
    assert names, (title, expr)
    assert names <= exposed_names() | PROMETHEUS_OWN, (title, names - exposed_names())


@pytest.mark.parametrize("rule", alert_rules(), ids=lambda rule: rule["alert"])
def test_every_alert_reads_exposed_metrics_and_says_what_to_do(rule: dict[str, Any]) -> None:
    names = metric_names(rule["expr"])
    assert names, rule["alert"]
    assert names <= exposed_names() | PROMETHEUS_OWN, (rule["alert"], names - exposed_names())
    assert rule["labels"]["severity"] in {"critical", "warning", "info"}
    assert rule["annotations"]["summary"] and rule["annotations"]["description"]


def test_the_dashboard_shows_every_family() -> None:
    used = set().union(*(metric_names(expr) for _, expr in dashboard_exprs()))
    families = {re.sub(r"_(total|bucket|sum|count)$", "", name) for name in used}
    expected = {re.sub(r"_(total|bucket|sum|count)$", "", name) for name in exposed_names()}
    assert expected <= families, expected - families


def test_the_alerts_cover_what_the_issue_names() -> None:
    """Error rate, latency, outbox lag, key age; a service down and pool exhaustion."""
    reads = {rule["alert"]: metric_names(rule["expr"]) for rule in alert_rules()}
    for needed in (
        "idp_http_requests_total",
        "idp_http_request_duration_seconds_bucket",
        "idp_outbox_lag_seconds",
        "idp_signing_key_age_seconds",
        "up",
        "idp_db_pool_connections",
    ):
        assert any(needed in names for names in reads.values()), needed
