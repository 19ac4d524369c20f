#!/usr/bin/env bash
# Set up and start the whole stack on this machine: installs what is missing, reuses the
# PostgreSQL, Redis and NATS already listening on their default ports, migrates, creates
# a signing key if none exists, seeds, creates an administrator, starts the five
# services, the proxy, a local mail catcher and a local S3-compatible photo store (moto),
# and prints the URL and the administrator's credentials.
# Running it again changes nothing and prints the same.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ROOT"

LISTEN=${IDP_LISTEN:-127.0.0.1:8080}
PROXY_PORT=${LISTEN##*:}
RUN="$VAR/run"; LOG="$VAR/log"
declare -A PORTS=([token]=8101 [admin]=8102 [entity]=8103 [authui-api]=8104 [logout-dispatcher]=8105)

ensure_system_packages
ensure_servers
ensure_idp_redis
ensure_python
ensure_frontends
mkdir -p "$RUN" "$LOG"

# --- settings: written once, then kept (var/idp.env, mode 0600) -----------------------
if [ ! -f "$VAR/idp.env" ]; then
  say "writing var/idp.env"
  db_base=${IDP_PG_ADMIN_URL%/*}
  admin_password=$(head -c 32 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 20)
  (umask 077; cat > "$VAR/idp.env" <<ENV
SVC_ENV=dev
SVC_ISSUER=http://localhost:$PROXY_PORT
SVC_DATABASE_URL=${db_base/postgresql:/postgresql+asyncpg:}/idp
SVC_REDIS_URL=redis://127.0.0.1:$IDP_REDIS_PORT/0
SVC_REDIS_PREFIX=idp:
SVC_NATS_URL=nats://127.0.0.1:4222
SVC_NATS_PREFIX=idp
SVC_SMTP_URL=smtp://127.0.0.1:1025
SVC_KEY_DIR=$VAR/keys
SVC_FORWARDED_ALLOW_IPS=127.0.0.1/32
SVC_AVATAR_MAX_BYTES=5242880
SVC_SECRETS_KEY=$(head -c 32 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')
SVC_ADMIN_EMAIL=admin@example.com
SVC_ADMIN_PASSWORD=$admin_password
ENV
  )
fi
# Settings added by later releases are appended to an existing var/idp.env.
if grep -q '^SVC_REDIS_URL=redis://127.0.0.1:6379/' "$VAR/idp.env"; then
  say "note: var/idp.env uses the Redis on 6379, which keeps nothing on disk; the provider's own (append-only) is on $IDP_REDIS_PORT: set SVC_REDIS_URL=redis://127.0.0.1:$IDP_REDIS_PORT/0 to use it"
fi
# Development: applications on this machine may receive back-channel logouts.
grep -q '^SVC_BACKCHANNEL_ALLOW_PRIVATE=' "$VAR/idp.env" || \
  echo "SVC_BACKCHANNEL_ALLOW_PRIVATE=true" >> "$VAR/idp.env"
grep -q '^SVC_SECRETS_KEY=' "$VAR/idp.env" || \
  echo "SVC_SECRETS_KEY=$(head -c 32 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')" >> "$VAR/idp.env"
# Photos: a local S3-compatible store (moto accepts any credentials). A line
# SVC_S3_ENDPOINT_URL= (empty) or another endpoint and keys in var/idp.env is kept.
grep -q '^SVC_S3_ENDPOINT_URL=' "$VAR/idp.env" || cat >> "$VAR/idp.env" <<ENV
SVC_S3_ENDPOINT_URL=http://127.0.0.1:${IDP_S3_PORT:-9000}
SVC_S3_BUCKET=idp-avatars
AWS_ACCESS_KEY_ID=idp-local
AWS_SECRET_ACCESS_KEY=idp-local-secret
AWS_EC2_METADATA_DISABLED=true
ENV
set -a; . "$VAR/idp.env"; set +a
ensure_s3 "${SVC_S3_ENDPOINT_URL:-}"
IDP="$ROOT/.venv/bin/idp"

# --- database, keys, catalogue, administrator -----------------------------------------
db_name=${SVC_DATABASE_URL##*/}
if ! psql "$IDP_PG_ADMIN_URL" -Atqc "SELECT 1 FROM pg_database WHERE datname = '$db_name'" | grep -q 1; then
  say "creating database $db_name"
  psql "$IDP_PG_ADMIN_URL" -qc "CREATE DATABASE \"$db_name\""
fi
"$IDP" migrate
"$IDP" keys generate --if-missing
"$IDP" seed
admin_out=$("$IDP" create-admin)
echo "$admin_out" | sed 's/^\(  password:\).*/\1 (see below)/'
case "$admin_out" in
  *"administrator created"*|*"configured password signs in"*) admin_password_line="$SVC_ADMIN_PASSWORD" ;;
  *) admin_password_line="(not the one in var/idp.env: $SVC_ADMIN_EMAIL existed before; \`idp create-admin --email NEW\` adds another)" ;;
esac

# --- services and proxy ---------------------------------------------------------------
running() {  # running NAME: its pid file names a live process
  [ -f "$RUN/$1.pid" ] && kill -0 "$(cat "$RUN/$1.pid")" 2>/dev/null
}

for name in token admin entity authui-api logout-dispatcher; do
  port=${PORTS[$name]}
  if running "$name"; then continue; fi
  listening "$port" && die "port $port (for $name) is taken by another program"
  say "starting $name on 127.0.0.1:$port"
  setsid nohup "$IDP" serve "$name" --port "$port" >> "$LOG/$name.log" 2>&1 < /dev/null &
  echo $! > "$RUN/$name.pid"
done

# --- local mail catcher: reset links land in var/mail/*.eml (SVC_SMTP_URL's default port) --
if ! running mail-catcher; then
  if listening 1025; then
    say "port 1025 is taken: not starting the mail catcher (mail goes to what listens there)"
  else
    say "starting the mail catcher on 127.0.0.1:1025 (var/mail/)"
    setsid nohup "$IDP" mail-catcher --port 1025 --dir "$VAR/mail" >> "$LOG/mail-catcher.log" 2>&1 < /dev/null &
    echo $! > "$RUN/mail-catcher.pid"
  fi
fi

if ! running proxy; then
  listening "$PROXY_PORT" && die "port $PROXY_PORT (for the proxy) is taken by another program"
  say "starting the proxy on $LISTEN"
  conf=$(python3 proxy/render.py --run-dir "$RUN/proxy" --listen "$LISTEN" \
    --token 127.0.0.1:${PORTS[token]} --admin 127.0.0.1:${PORTS[admin]} \
    --entity 127.0.0.1:${PORTS[entity]} --authui 127.0.0.1:${PORTS[authui-api]} \
    --avatar-max-bytes "$SVC_AVATAR_MAX_BYTES")
  nginx -t -q -c "$conf"
  nginx -c "$conf"
  for _ in $(seq 50); do [ -s "$RUN/proxy/nginx.pid" ] && break; sleep 0.1; done
  cp "$RUN/proxy/nginx.pid" "$RUN/proxy.pid"
fi

say "waiting for the services to be ready"
for name in token admin entity authui-api logout-dispatcher; do
  port=${PORTS[$name]}; ok=0
  for _ in $(seq 600); do
    if curl -fsS -o /dev/null "http://127.0.0.1:$port/health/ready" 2>/dev/null; then ok=1; break; fi
    running "$name" || break
    sleep 0.2
  done
  [ "$ok" -eq 1 ] || { tail -n 30 "$LOG/$name.log" >&2; die "$name is not ready (log: var/log/$name.log)"; }
done
curl -fsS -o /dev/null "http://$LISTEN/.well-known/openid-configuration" || die "the proxy does not answer on $LISTEN"

cat <<DONE

The identity provider is running.
  URL:            $SVC_ISSUER/            (console: $SVC_ISSUER/console/)
  Discovery:      $SVC_ISSUER/.well-known/openid-configuration
  Administrator:  $SVC_ADMIN_EMAIL
  Password:       $admin_password_line
  Mail:           var/mail/    (messages the provider sends, as .eml files)
  Photo store:    $S3_STATUS
  Logs:           var/log/     Stop: make down
DONE
