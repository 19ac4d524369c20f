#!/usr/bin/env python3
"""Render proxy/nginx.conf.template into a run directory (stdlib only).

Used by scripts/up.sh, the test harness and compose.yaml, so every way of running the
stack serves the same configuration. Writes RUN_DIR/nginx.conf, the included snippets
and the temp folders nginx needs; WWW_ROOT must hold auth/ and console/ (the builds).
"""

from __future__ import annotations

import argparse
import getpass
import os
import re
import shutil
from pathlib import Path

HERE = Path(__file__).resolve().parent
# CSP of the two static frontends: same-origin only, no inline code, no third party.
STATIC_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "media-src 'self' blob:; connect-src 'self'; font-src 'self'; object-src 'none'; "
    "base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
)
HSTS = "max-age=63072000; includeSubDomains"


def security_headers(prod: bool) -> str:
    lines = [
        f'add_header Content-Security-Policy "{STATIC_CSP}" always;',
        'add_header X-Content-Type-Options "nosniff" always;',
        'add_header Referrer-Policy "no-referrer" always;',
        'add_header Cache-Control "no-store" always;',
    ]
    if prod:
        lines.append(f'add_header Strict-Transport-Security "{HSTS}" always;')
    return "\n".join(lines) + "\n"


# What nginx answers when it refuses a request itself (docs/security.md "Hostile input"):
# nginx's status -> (status sent, title, detail, problem code, RFC 6749 error). 494 is
# nginx's own number for a header or cookie over large_client_header_buffers; the client
# gets 431 (RFC 6585). 408 is mostly a plain close: nginx answers nothing to a client
# that stopped sending.
REFUSALS = {
    "400": (
        "400",
        "Bad Request",
        "the request is not valid HTTP",
        "proxy.bad_request",
        "invalid_request",
    ),
    "404": ("404", "Not Found", "no such path", "not_found", "invalid_request"),
    "405": (
        "405",
        "Method Not Allowed",
        "this path does not take that method",
        "proxy.method_not_allowed",
        "invalid_request",
    ),
    "408": (
        "408",
        "Request Timeout",
        "the request did not arrive in time",
        "proxy.timeout",
        "invalid_request",
    ),
    "413": (
        "413",
        "Content Too Large",
        "the request body is too large",
        "proxy.body_too_large",
        "invalid_request",
    ),
    "414": (
        "414",
        "URI Too Long",
        "the request line (path and query) is too long",
        "proxy.uri_too_long",
        "invalid_request",
    ),
    "494": (
        "431",
        "Request Header Fields Too Large",
        "a request header or cookie is too large, or there are too many of them",
        "proxy.header_too_large",
        "invalid_request",
    ),
    "500": (
        "500",
        "Internal Server Error",
        "the proxy failed to handle the request",
        "proxy.internal_error",
        "server_error",
    ),
    "501": (
        "501",
        "Not Implemented",
        "the transfer coding of the request is not supported",
        "proxy.not_implemented",
        "invalid_request",
    ),
    "502 503 504": (
        "502",
        "Bad Gateway",
        "the service is unavailable",
        "proxy.upstream_unavailable",
        "temporarily_unavailable",
    ),
}


def refusals(run_dir: Path) -> str:
    """error_page lines and one internal location per refusal and format: an RFC 6749
    error object on /oauth2/*, RFC 9457 problem+json everywhere else ($refusal_format)."""
    headers = f"include {run_dir}/security_headers.conf;"
    out = []
    for nginx_codes, (status, title, detail, code, error) in REFUSALS.items():
        assert "'" not in detail and '"' not in detail, detail  # quoted in nginx and JSON
        out.append(f"error_page {nginx_codes} = /.refused/$refusal_format/{status};")
        problem = (
            f'{{"type":"about:blank","title":"{title}","status":{status},'
            f'"detail":"{detail}","code":"{code}"}}'
        )
        oauth2 = f'{{"error":"{error}","error_description":"{detail}"}}'
        out.append(
            f"location = /.refused/problem/{status} {{ internal; {headers} "
            f"default_type application/problem+json; return {status} '{problem}'; }}"
        )
        out.append(
            f"location = /.refused/oauth2/{status} {{ internal; {headers} "
            'add_header Pragma "no-cache" always; '
            f"default_type application/json; return {status} '{oauth2}'; }}"
        )
    return "\n".join(out) + "\n"


# One upstream server: host:port (a name, an IPv4 address or a bracketed IPv6 address).
SERVER = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):[0-9]{1,5}")
#: The services behind the proxy, as (option, template placeholder, default address).
UPSTREAMS = (
    ("token", "TOKEN_SERVERS", "127.0.0.1:8101"),
    ("admin", "ADMIN_SERVERS", "127.0.0.1:8102"),
    ("entity", "ENTITY_SERVERS", "127.0.0.1:8103"),
    ("authui", "AUTHUI_SERVERS", "127.0.0.1:8104"),
)


def servers(given: list[str] | None, default: str, fail_timeout: int) -> str:
    """The ``server`` lines of one upstream: every replica given (repeated options and
    comma lists both work), or the default address. A replica that failed is skipped for
    ``fail_timeout`` seconds (nginx's passive check), then tried again."""
    addresses = [a.strip() for value in (given or [default]) for a in value.split(",")]
    for address in addresses:
        if not SERVER.fullmatch(address):
            raise SystemExit(f"render: {address!r} is not an upstream address (host:port)")
    lines = [f"server {a} max_fails=1 fail_timeout={fail_timeout}s;" for a in addresses]
    return "\n        ".join(lines)


def check_drain(args: argparse.Namespace) -> None:
    """A replica that drains (docs/operations.md "Rolling restart") must outlast the idle
    connections nginx keeps to it, and nginx must use a restarted replica again before
    the next one stops: both timeouts below the services' SVC_SHUTDOWN_DRAIN_SECONDS."""
    if args.drain_seconds is None:
        return
    if args.upstream_keepalive_timeout >= args.drain_seconds:
        raise SystemExit(
            f"render: --upstream-keepalive-timeout {args.upstream_keepalive_timeout} must be "
            f"below the services' drain ({args.drain_seconds:g} s)"
        )
    if args.upstream_fail_timeout > args.drain_seconds:
        raise SystemExit(
            f"render: --upstream-fail-timeout {args.upstream_fail_timeout} must not exceed "
            f"the services' drain ({args.drain_seconds:g} s)"
        )


def mime_types() -> str:
    for candidate in ("/etc/nginx/mime.types", "/usr/local/nginx/conf/mime.types"):
        if Path(candidate).exists():
            return candidate
    raise SystemExit("render: cannot find nginx's mime.types")


def render(args: argparse.Namespace) -> Path:
    check_drain(args)
    run_dir = Path(args.run_dir).resolve()
    for sub in ("tmp/body", "tmp/proxy", "tmp/fastcgi", "tmp/uwsgi", "tmp/scgi", "cache/jwks"):
        (run_dir / sub).mkdir(parents=True, exist_ok=True)
    (run_dir / "security_headers.conf").write_text(security_headers(args.prod))
    (run_dir / "refuse_403.conf").write_text(
        f"include {run_dir}/security_headers.conf;\n"
        "default_type application/problem+json;\n"
        'return 403 \'{"type":"about:blank","title":"Forbidden","status":403,'
        '"detail":"health and metrics endpoints are not public","code":"proxy.forbidden"}\';\n'
    )
    (run_dir / "not_found.conf").write_text(
        f"include {run_dir}/security_headers.conf;\n"
        "default_type application/problem+json;\n"
        'return 404 \'{"type":"about:blank","title":"Not Found","status":404,'
        '"detail":"no such path","code":"not_found"}\';\n'
    )
    (run_dir / "refusals.conf").write_text(refusals(run_dir))
    www = Path(args.www_root).resolve() if args.www_root else run_dir / "www"
    if not args.www_root:  # link the two builds into one root: /auth/... and /console/...
        www.mkdir(exist_ok=True)
        for name, target in (("auth", args.auth_dist), ("console", args.console_dist)):
            link = www / name
            if link.is_symlink() or link.exists():
                link.unlink() if link.is_symlink() else shutil.rmtree(link)
            link.symlink_to(Path(target).resolve(), target_is_directory=True)
    user = args.user or getpass.getuser()
    values = {
        # nginx started as root drops its workers to `nobody` unless told; they must be
        # able to read the builds and write the temp folders of the run directory.
        "USER_DIRECTIVE": f"user {user};" if os.geteuid() == 0 else "",
        "WORKERS": str(args.workers),
        "RUN_DIR": str(run_dir),
        "DAEMON": "daemon off;" if args.foreground else "",
        "MIME_TYPES": args.mime_types or mime_types(),
        "LISTEN": args.listen,
        **{
            placeholder: servers(getattr(args, option), default, args.upstream_fail_timeout)
            for option, placeholder, default in UPSTREAMS
        },
        "UPSTREAM_KEEPALIVE_TIMEOUT": str(args.upstream_keepalive_timeout),
        "WWW_ROOT": str(www),
        "PHOTO_BODY_MAX": str(args.avatar_max_bytes + 1024 * 1024),
        "FACE_JSON_BODY_MAX": str(args.avatar_max_bytes * 4 // 3 + 1024 * 1024),
        "SIGNIN_RATE": args.signin_rate,
        "SIGNIN_BURST": str(args.signin_burst),
        "AUTHORIZE_RATE": args.authorize_rate,
        "AUTHORIZE_BURST": str(args.authorize_burst),
        "RETRY_AFTER": str(args.retry_after),
        "CLIENT_HEADER_TIMEOUT": str(args.client_header_timeout),
        "CLIENT_BODY_TIMEOUT": str(args.client_body_timeout),
        "SEND_TIMEOUT": str(args.send_timeout),
        "KEEPALIVE_TIMEOUT": str(args.keepalive_timeout),
    }
    template = (HERE / "nginx.conf.template").read_text()
    text = re.sub(r"\{\{([A-Z_]+)\}\}", lambda m: values[m.group(1)], template)
    out = run_dir / "nginx.conf"
    out.write_text(text)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--run-dir", required=True)
    p.add_argument("--listen", default="127.0.0.1:8080")
    # Each service's replicas: repeat the option or give a comma list (default: one, on
    # the service's port of `make up`).
    for option, _, default in UPSTREAMS:
        p.add_argument(f"--{option}", action="append", metavar="HOST:PORT", help=default)
    # Idle connections nginx keeps to a service are closed after this many seconds, and a
    # replica that failed is left out this long; both below the services' drain.
    p.add_argument("--upstream-keepalive-timeout", type=int, default=2)
    p.add_argument("--upstream-fail-timeout", type=int, default=2)
    p.add_argument("--drain-seconds", type=float, help="SVC_SHUTDOWN_DRAIN_SECONDS, checked")
    p.add_argument("--auth-dist", default=str(HERE.parent / "web/auth/dist"))
    p.add_argument("--console-dist", default=str(HERE.parent / "web/console/dist"))
    p.add_argument("--www-root", default="", help="a folder already holding auth/ and console/")
    p.add_argument("--avatar-max-bytes", type=int, default=5 * 1024 * 1024)
    p.add_argument("--signin-rate", default="10r/s", help="nginx limit_req rate per address")
    p.add_argument("--signin-burst", type=int, default=50)
    p.add_argument(
        "--authorize-rate", default="10r/s", help="limit_req rate of /oauth2/authorize per address"
    )
    p.add_argument("--authorize-burst", type=int, default=50)
    p.add_argument("--retry-after", type=int, default=1)
    # Slow clients (slow-loris): seconds nginx waits for a whole request header, between
    # two reads of a body, between two writes to a client, and on an idle keep-alive.
    p.add_argument("--client-header-timeout", type=int, default=10)
    p.add_argument("--client-body-timeout", type=int, default=10)
    p.add_argument("--send-timeout", type=int, default=10)
    p.add_argument("--keepalive-timeout", type=int, default=15)
    p.add_argument("--workers", default="1")
    p.add_argument("--mime-types", default="")
    p.add_argument("--user", default="", help="worker user when started as root (default: me)")
    p.add_argument("--prod", action="store_true", help="also send HSTS")
    p.add_argument("--foreground", action="store_true", help="daemon off (containers)")
    print(render(p.parse_args()))


if __name__ == "__main__":
    main()
