#!/usr/bin/env bash
# Set up and start the whole stack on this machine: installs what is missing, reuses the
# PostgreSQL, Redis and NATS already listening on their default ports, migrates, creates
# a signing key if none exists, seeds, creates an administrator, starts the five
# services, the proxy, a local mail catcher and a local S3-compatible photo store (moto),
# and prints the URL and the administrator's credentials.
# SVC_REPLICAS=token=3,authui-api=2 (given in the environment, it is kept in var/idp.env)
# runs that many processes of a service, replica i on its base port + 10*i, all behind the
# proxy; run again with other counts, it starts the new replicas, reloads the proxy, then
# stops the replicas no longer wanted (each drains first: docs/operations.md "Scaling").
# Running it again changes nothing and prints the same.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ROOT"

RUN="$VAR/run"; LOG="$VAR/log"
CALLER_REPLICAS=${SVC_REPLICAS:-}  # the caller's wins over var/idp.env's

ensure_system_packages
ensure_servers
ensure_idp_redis
ensure_python
ensure_frontends
mkdir -p "$RUN" "$LOG"

# The services, their ports and the proxy's port: deploy/stack.toml (compose.yaml and
# deploy/kubernetes/ are tested against it). The services' ports are the first replicas'.
eval "declare -A PORTS=($(python3 deploy/stack.py ports))"
LISTEN=${IDP_LISTEN:-127.0.0.1:$(python3 deploy/stack.py proxy-port)}
PROXY_PORT=${LISTEN##*:}

# --- settings: written once, then kept (var/idp.env, mode 0600) -----------------------
# Which settings and their values: deploy/stack.toml [native.settings]. A setting missing
# from an existing var/idp.env (added by a later release) is appended; the rest is kept.
db_base=${IDP_PG_ADMIN_URL%/*}
PROXY_PORT=$PROXY_PORT DATABASE_URL="${db_base/postgresql:/postgresql+asyncpg:}/idp" \
  REDIS_PORT=$IDP_REDIS_PORT KEY_DIR="$VAR/keys" S3_PORT=${IDP_S3_PORT:-9000} \
  python3 deploy/stack.py native-env "$VAR/idp.env" | while read -r line; do say "$line"; done
if grep -q '^SVC_REDIS_URL=redis://127.0.0.1:6379/' "$VAR/idp.env"; then
  say "note: var/idp.env uses the Redis on 6379, which keeps nothing on disk; the provider's own (append-only) is on $IDP_REDIS_PORT: set SVC_REDIS_URL=redis://127.0.0.1:$IDP_REDIS_PORT/0 to use it"
fi
set -a; . "$VAR/idp.env"; set +a
SVC_REPLICAS=${CALLER_REPLICAS:-${SVC_REPLICAS:-}}
IDP="$ROOT/.venv/bin/idp"
# One line per replica: SERVICE INDEX PORT LABEL (the one parser of SVC_REPLICAS).
bases=(); for name in "${!PORTS[@]}"; do bases+=(--base "$name=${PORTS[$name]}"); done
REPLICAS=$("$ROOT/.venv/bin/python" -m idp_common.operations.replicas "$SVC_REPLICAS" "${bases[@]}") \
  || die "SVC_REPLICAS=$SVC_REPLICAS: see above (example: token=3,authui-api=2)"
if [ -n "$CALLER_REPLICAS" ]; then  # remembered: a later `make up` keeps this scale
  sed -i '/^SVC_REPLICAS=/d' "$VAR/idp.env" && echo "SVC_REPLICAS=$CALLER_REPLICAS" >> "$VAR/idp.env"
fi
ensure_s3 "${SVC_S3_ENDPOINT_URL:-}"

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
running() {  # running LABEL: its pid file names a live process
  [ -f "$RUN/$1.pid" ] && kill -0 "$(cat "$RUN/$1.pid")" 2>/dev/null
}

while read -r name index port label; do
  if running "$label"; then continue; fi
  listening "$port" && die "port $port (for $label) is taken by another program"
  say "starting $label on 127.0.0.1:$port"
  setsid nohup "$IDP" serve "$name" --port "$port" >> "$LOG/$label.log" 2>&1 < /dev/null &
  echo $! > "$RUN/$label.pid"
done <<< "$REPLICAS"

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

say "waiting for the services to be ready"
while read -r name index port label; do
  ok=0
  for _ in $(seq 600); do
    if curl -fsS -o /dev/null "http://127.0.0.1:$port/health/ready" 2>/dev/null; then ok=1; break; fi
    running "$label" || break
    sleep 0.2
  done
  [ "$ok" -eq 1 ] || { tail -n 30 "$LOG/$label.log" >&2; die "$label is not ready (log: var/log/$label.log)"; }
done <<< "$REPLICAS"

# The proxy lists every ready replica; a running proxy is reloaded when that list changed.
upstreams=()
while read -r name index port label; do
  case "$name" in token|admin|entity) upstreams+=("--$name" "127.0.0.1:$port") ;;
    authui-api) upstreams+=(--authui "127.0.0.1:$port") ;; esac
done <<< "$REPLICAS"
render_proxy() {
  conf=$(python3 proxy/render.py --run-dir "$RUN/proxy" --listen "$LISTEN" "${upstreams[@]}" \
    --drain-seconds "${SVC_SHUTDOWN_DRAIN_SECONDS:-5}" --avatar-max-bytes "$SVC_AVATAR_MAX_BYTES")
  nginx -t -q -c "$conf"
  echo "${upstreams[*]}" > "$RUN/proxy/upstreams"
}
if ! running proxy; then
  listening "$PROXY_PORT" && die "port $PROXY_PORT (for the proxy) is taken by another program"
  say "starting the proxy on $LISTEN"
  render_proxy
  nginx -c "$conf"
  for _ in $(seq 50); do [ -s "$RUN/proxy/nginx.pid" ] && break; sleep 0.1; done
  cp "$RUN/proxy/nginx.pid" "$RUN/proxy.pid"
elif [ "$(cat "$RUN/proxy/upstreams" 2>/dev/null)" != "${upstreams[*]}" ]; then
  say "reloading the proxy (replicas changed)"
  render_proxy
  nginx -c "$conf" -s reload
  sleep 1  # nginx's old workers finish what they hold; the new ones use the new list
fi

# Replicas no longer wanted (SVC_REPLICAS lowered): out of the proxy now, so stop them.
wanted=" $(awk '{printf "%s ", $4}' <<< "$REPLICAS")"
surplus=()
for label in $(replica_labels_running); do
  case "$wanted" in *" $label "*) ;; *) surplus+=("$label") ;; esac
done
[ ${#surplus[@]} -eq 0 ] || stop_pids "${surplus[@]}"
curl -fsS -o /dev/null "http://$LISTEN/.well-known/openid-configuration" || die "the proxy does not answer on $LISTEN"

cat <<DONE

The identity provider is running.
  URL:            $SVC_ISSUER/            (console: $SVC_ISSUER/console/)
  Discovery:      $SVC_ISSUER/.well-known/openid-configuration
  Administrator:  $SVC_ADMIN_EMAIL
  Password:       $admin_password_line
  Mail:           var/mail/    (messages the provider sends, as .eml files)
  Photo store:    $S3_STATUS
  Replicas:       $(awk '!($1 in n) {order[++k] = $1} {n[$1]++}
                    END {for (i = 1; i <= k; i++) printf "%s x%d  ", order[i], n[order[i]]}' <<< "$REPLICAS")
  Logs:           var/log/     Stop: make down
DONE
