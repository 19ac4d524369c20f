"""``idp``: the operator tool.

    idp migrate [--to REV]        upgrade (or downgrade) the schema; default: head
    idp keys generate [--alg A] [--if-missing]   add a signing key of A (default RS256),
                                  active now
    idp keys rotate [--alg A] [--lead S] [--dry-run]   add A's next key (signs after the
                                  JWKS cache lifetime), prune A's retired keys whose tokens
                                  expired
    idp keys list                 key files of every algorithm, kid, next / current /
                                  retired, when prunable
    idp seed                      the idp API and scopes, the administrator role, the console client
    idp create-admin              an administrator (SVC_ADMIN_EMAIL/SVC_ADMIN_PASSWORD or generated)
    idp cleanup                   delete codes and refresh tokens past expiry + 1 hour
    idp relay                     publish the event outbox to NATS now (the dispatcher does it too)
    idp serve SERVICE             run a service under Granian after checking the settings
    idp check-settings            validate SVC_* settings and print every problem
    idp mail-catcher [--port 1025] [--dir var/mail]   local SMTP server writing .eml files

Every command reads the same ``SVC_*`` settings as the services. ``seed`` and
``create-admin`` are idempotent.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from idp_common.config import Settings, SettingsError, load_settings
from idp_common.crypto.keys import DEFAULT_RSA_BITS
from idp_common.protocol.constants import SIGNING_ALGORITHM, SIGNING_ALGORITHMS

SERVICES = {
    "token": "token_service.app:create_app",
    "admin": "admin_service.app:create_app",
    "entity": "entity_service.app:create_app",
    "authui-api": "authui_service.app:create_app",
    "logout-dispatcher": "logout_dispatcher.app:create_app",
}
DEFAULT_PORTS = {
    "token": 8101,
    "admin": 8102,
    "entity": 8103,
    "authui-api": 8104,
    "logout-dispatcher": 8105,
}


async def _is_downgrade(settings: Settings, target: str) -> bool:
    """True when ``target`` lies below the database's current revision."""
    from idp_common.storage.db.engine import create_engine
    from idp_common.storage.db.migrate import current_revision, older_revisions

    if target == "base" or target.startswith("-"):
        return True
    if target in ("head", "heads") or target.startswith("+"):
        return False
    engine = create_engine(settings.database_url)
    try:
        current = await current_revision(engine)
    finally:
        await engine.dispose()
    return current is not None and target in older_revisions(current)


def cmd_migrate(settings: Settings, args: argparse.Namespace) -> int:
    from idp_common.storage.db.migrate import downgrade, upgrade

    target = args.to
    if asyncio.run(_is_downgrade(settings, target)):
        asyncio.run(downgrade(settings.database_url, target))
    else:
        asyncio.run(upgrade(settings.database_url, target))
    print(f"migrate: database at {target}")
    return 0


def cmd_keys_generate(settings: Settings, args: argparse.Namespace) -> int:
    from idp_common.crypto.keys import KeySetError
    from idp_common.operations import key_commands

    try:
        return key_commands.generate(
            settings,
            now=datetime.now(UTC),
            bits=args.bits,
            alg=args.alg,
            if_missing=args.if_missing,
            out=sys.stdout,
        )
    except KeySetError as exc:
        print(f"keys: {exc}", file=sys.stderr)
        return 1


def cmd_keys_rotate(settings: Settings, args: argparse.Namespace) -> int:
    from idp_common.crypto.keys import KeySetError
    from idp_common.operations import key_commands

    try:
        return key_commands.rotate(
            settings,
            clock=lambda: datetime.now(UTC),
            bits=args.bits,
            alg=args.alg,
            lead=args.lead,
            dry_run=args.dry_run,
            out=sys.stdout,
        )
    except KeySetError as exc:
        print(f"rotate: {exc}", file=sys.stderr)
        return 1


def cmd_keys_list(settings: Settings, _: argparse.Namespace) -> int:
    from idp_common.crypto.keys import KeySetError
    from idp_common.operations import key_commands

    try:
        return key_commands.list_keys(settings, now=datetime.now(UTC), out=sys.stdout)
    except KeySetError as exc:
        print(f"keys: {exc}", file=sys.stderr)
        return 1


def cmd_seed(settings: Settings, _: argparse.Namespace) -> int:
    from idp_common.operations.seed import seed_catalogue

    report = asyncio.run(seed_catalogue(settings))
    print("seed: " + ", ".join(f"{count} {what}" for what, count in report.items()))
    return 0


def cmd_create_admin(settings: Settings, args: argparse.Namespace) -> int:
    from idp_common.operations.seed import admin_password_matches, create_admin

    email = args.email or os.environ.get("SVC_ADMIN_EMAIL") or "admin@example.com"
    password = args.password or _secret_from_env("SVC_ADMIN_PASSWORD")
    try:
        created, password_shown = asyncio.run(
            create_admin(settings, email=email, password=password)
        )
    except (ValueError, RuntimeError) as exc:
        print(f"create-admin: {exc}", file=sys.stderr)
        return 2
    if created:
        print(
            f"create-admin: administrator created\n  email:    {email}\n"
            f"  password: {password_shown}"
        )
    elif password and asyncio.run(admin_password_matches(settings, email=email, password=password)):
        print(f"create-admin: {email} already exists (the configured password signs in)")
    else:
        print(f"create-admin: {email} already exists; nothing changed")
    return 0


def _secret_from_env(name: str) -> str | None:
    """``NAME`` or the content of the file named by ``NAME_FILE``."""
    if path := os.environ.get(name + "_FILE"):
        return Path(path).read_text().strip()
    return os.environ.get(name)


def cmd_cleanup(settings: Settings, _: argparse.Namespace) -> int:
    from idp_common.operations.seed import cleanup_expired

    counts = asyncio.run(cleanup_expired(settings, now=datetime.now(UTC)))
    print("cleanup: deleted " + ", ".join(f"{n} {what}" for what, n in counts.items()))
    return 0


def cmd_relay(settings: Settings, _: argparse.Namespace) -> int:
    from idp_common.events.relay import relay_once

    try:
        published = asyncio.run(relay_once(settings))
    except TimeoutError:
        print(f"relay: NATS at {settings.nats_url} does not answer", file=sys.stderr)
        return 1
    print(f"relay: published {published} event(s)")
    return 0


def cmd_serve(settings: Settings, args: argparse.Namespace) -> int:
    from granian.constants import Interfaces

    from idp_common.crypto.keys import KeySetError, load_key_set
    from idp_common.crypto.passwords import WORKERS_ENV
    from idp_common.observability.logs import dict_config
    from idp_common.observability.multiprocess import use_replica_dir
    from idp_common.operations.serving import DrainingGranian

    # Every service holds the key set. Read it once here: a key file that cannot be read
    # stops the start with one line naming it, instead of workers that fail to start
    # and are respawned for ever (make chaos, fault 7).
    try:
        load_key_set(settings.key_dir)
    except KeySetError as exc:
        print(f"serve: {exc}", file=sys.stderr)
        return 1
    os.environ[WORKERS_ENV] = str(args.workers)  # the workers size their hashing pools by it
    if settings.metrics_enabled:  # before Granian starts a worker; removed when serve ends
        try:
            use_replica_dir(settings.metrics_dir, args.service)
        except OSError as exc:
            print(f"serve: no metrics directory under SVC_METRICS_DIR ({exc})", file=sys.stderr)
            return 1
    # SIGTERM: drain (ready 503, connections close), then stop; docs/operations.md.
    DrainingGranian(
        SERVICES[args.service],
        drain_seconds=settings.shutdown_drain_seconds,
        factory=True,
        interface=Interfaces.ASGI,
        address=args.host,
        port=args.port or DEFAULT_PORTS[args.service],
        workers=args.workers,
        # A worker that dies (OOM killer, a crash in native code) is replaced; without
        # this Granian shuts the whole service down (make chaos, fault 5).
        respawn_failed_workers=True,
        # In-flight requests get this long to finish once the drain is over.
        workers_kill_timeout=math.ceil(settings.shutdown_timeout_seconds),
        log_access=False,  # query strings may carry tokens (id_token_hint): never logged
        # Granian's own lines in the services' format (JSON by default)
        log_dictconfig=dict_config(
            service=args.service, level=settings.log_level, fmt=settings.log_format
        ),
    ).serve()
    return 0


def cmd_check_settings(settings: Settings, _: argparse.Namespace) -> int:
    print(f"settings: valid (env={settings.env}, issuer={settings.issuer})")
    return 0


def cmd_mail_catcher(_: Settings, args: argparse.Namespace) -> int:
    from idp_common.operations.mailcatcher import serve

    asyncio.run(serve(args.host, args.port, Path(args.dir)))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="idp", description="Identity provider operator tool")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("migrate", help="upgrade the database schema")
    p.add_argument("--to", default="head", help="target revision (default head; 'base' empties)")
    p.set_defaults(func=cmd_migrate)
    keys = sub.add_parser("keys", help="signing keys").add_subparsers(dest="keys", required=True)
    p = keys.add_parser("generate", help="write a new signing key (RSA for RS256 by default)")
    p.add_argument("--if-missing", action="store_true", help="only when the alg has no key")
    p.add_argument("--bits", type=int, default=DEFAULT_RSA_BITS, help="RSA size (RS256, PS256)")
    p.add_argument("--alg", choices=SIGNING_ALGORITHMS, default=SIGNING_ALGORITHM)
    p.set_defaults(func=cmd_keys_generate)
    p = keys.add_parser("rotate", help="write the next key; prune expired retired keys")
    p.add_argument("--lead", type=int, help="seconds until it signs (at least the default)")
    p.add_argument("--dry-run", action="store_true", help="say what would change; change nothing")
    p.add_argument("--bits", type=int, default=DEFAULT_RSA_BITS, help="RSA size (RS256, PS256)")
    p.add_argument("--alg", choices=SIGNING_ALGORITHMS, default=SIGNING_ALGORITHM)
    p.set_defaults(func=cmd_keys_rotate)
    keys.add_parser("list", help="keys, their kid and state").set_defaults(func=cmd_keys_list)
    sub.add_parser("seed", help="seed the scope catalogue").set_defaults(func=cmd_seed)
    p = sub.add_parser("create-admin", help="create an administrator")
    p.add_argument("--email")
    p.add_argument("--password")
    p.set_defaults(func=cmd_create_admin)
    sub.add_parser("cleanup", help="delete expired codes and tokens").set_defaults(func=cmd_cleanup)
    p = sub.add_parser("relay", help="publish the event outbox to NATS now")
    p.set_defaults(func=cmd_relay)
    p = sub.add_parser("serve", help="run a service under Granian")
    p.add_argument("service", choices=sorted(SERVICES))
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--workers", type=int, default=1)
    p.set_defaults(func=cmd_serve)
    sub.add_parser("check-settings", help="validate settings").set_defaults(func=cmd_check_settings)
    p = sub.add_parser("mail-catcher", help="local SMTP server writing each message to a file")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=1025)
    p.add_argument("--dir", default="var/mail", help="directory of the .eml files")
    p.set_defaults(func=cmd_mail_catcher)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        settings = load_settings()
    except SettingsError as exc:
        print(f"idp: {exc}", file=sys.stderr)
        return 2
    func: Callable[[Settings, argparse.Namespace], int] = args.func
    return func(settings, args)


if __name__ == "__main__":
    sys.exit(main())
