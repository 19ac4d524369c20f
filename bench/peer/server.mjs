// node-oidc-provider configured for the same work as the token service (bench/peer/run.py
// starts it; bench/README.md "Side by side with node-oidc-provider").
//
// A node `cluster` primary and PEER_WORKERS (2) workers, each listening on its own port of
// PEER_PORTS (the proxy keeps each client connection on one worker: the mem adapter is per
// process). Environment:
//   PEER_ADAPTER        mem | pg
//   PEER_DATABASE_URL   postgres://... (pg)
//   PEER_ISSUER         the issuer, the URL of the proxy's server block for this peer
//   PEER_PORTS          one port per worker, comma-separated
//   PEER_CLIENT_SECRET  the secret of both clients
//   PEER_RESOURCE       the API's resource indicator (RFC 8707)
//   PEER_ACCOUNTS       how many people (person-0 ... person-N-1)
//   PEER_REDIRECT_URI   the clients' redirect URI
//   PEER_ACCOUNT_STORE  db (pg: findAccount reads the account table) | memory (a Map)
// Signals: SIGUSR2 ends the setup's replication of the mem store (adapters.mjs); SIGTERM
// and SIGINT stop the workers and the primary.

import cluster from 'node:cluster';
import crypto from 'node:crypto';
import http from 'node:http';

import Provider, { errors } from 'oidc-provider';

import {
  applyReplicated, createMemAdapter, createPgAdapter, prepareDatabase, stopReplication,
} from './adapters.mjs';

const env = process.env;
const ADAPTER = env.PEER_ADAPTER || 'mem';
const PORTS = (env.PEER_PORTS || '').split(',').filter(Boolean).map(Number);
const WORKERS = Number(env.PEER_WORKERS || PORTS.length || 2);
const RESOURCE = env.PEER_RESOURCE;
const API_SCOPE = 'bench:read';

function accounts() {
  return Array.from({ length: Number(env.PEER_ACCOUNTS || 64) }, (_, i) => ({
    sub: `person-${i}`,
    name: `Person ${i}`,
    email: `person-${i}@example.com`,
    email_verified: true,
  }));
}

// --- primary ---------------------------------------------------------------------------------
async function primary() {
  if (PORTS.length !== WORKERS) throw new Error('PEER_PORTS needs one port per worker');
  if (ADAPTER === 'pg') await prepareDatabase(env.PEER_DATABASE_URL, accounts());
  // Two RSA-2048 keys, as the token service publishes two (the older and the newer); the
  // first signs.
  const keys = [0, 1].map(() => {
    const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
    return { ...privateKey.export({ format: 'jwk' }), kid: crypto.randomUUID(), use: 'sig', alg: 'RS256' };
  });
  const cookieKey = crypto.randomBytes(32).toString('base64url');
  let stopping = false;
  let replicating = true;
  const workers = PORTS.map((port, index) => cluster.fork({
    PEER_PORT: String(port), PEER_WORKER_INDEX: String(index),
    PEER_JWKS: JSON.stringify({ keys }), PEER_COOKIE_KEY: cookieKey,
  }));
  for (const worker of workers) {
    worker.on('message', (message) => {
      if (!replicating || !message.replicate) return;
      for (const other of workers) {
        if (other !== worker && other.isConnected()) other.send(message);
      }
    });
  }
  cluster.on('exit', (worker, code, signal) => {
    if (!stopping) {
      console.error(`peer: worker ${worker.process.pid} exited (${signal || code}); stopping`);
      stop(1);
    }
  });
  const stop = (code) => {
    stopping = true;
    for (const worker of workers) worker.process.kill('SIGTERM');
    setTimeout(() => process.exit(code), 200).unref();
    Promise.all(workers.map((w) => new Promise((r) => (w.isDead() ? r() : w.on('exit', r)))))
      .then(() => process.exit(code));
  };
  process.on('SIGTERM', () => stop(0));
  process.on('SIGINT', () => stop(0));
  process.on('SIGUSR2', () => {
    replicating = false;
    for (const worker of workers) worker.send({ stopReplication: true });
  });
}

// --- worker ----------------------------------------------------------------------------------
function configuration(Adapter, findClaims) {
  const secret = env.PEER_CLIENT_SECRET;
  const client = (id, method) => ({
    client_id: id,
    client_secret: secret,
    grant_types: ['client_credentials', 'authorization_code', 'refresh_token'],
    response_types: ['code'],
    redirect_uris: [env.PEER_REDIRECT_URI],
    token_endpoint_auth_method: method,
  });
  return {
    adapter: Adapter,
    clients: [client('bench-basic', 'client_secret_basic'), client('bench-post', 'client_secret_post')],
    jwks: JSON.parse(env.PEER_JWKS),
    cookies: { keys: [env.PEER_COOKIE_KEY] },
    claims: { openid: ['sub'], profile: ['name'], email: ['email', 'email_verified'] },
    scopes: ['openid', 'offline_access', 'profile', 'email'],
    findAccount: async (ctx, id) => {
      const claims = await findClaims(id);
      return claims && { accountId: id, claims: async () => claims };
    },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: {
        enabled: true,
        // the default policy, without its notice: a public client may only introspect its own
        allowedPolicy: (ctx, caller, token) => caller.clientAuthMethod !== 'none'
          || token.clientId === ctx.oidc.client.clientId,
      },
      userinfo: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => false,
        getResourceServerInfo: (ctx, resource) => {
          if (resource !== RESOURCE) throw new errors.InvalidTarget();
          return {
            scope: API_SCOPE,
            audience: RESOURCE,
            accessTokenTTL: 3600,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
    pkce: { required: () => true },
    rotateRefreshToken: true,
    // A refresh token with every code the client may refresh with, as the token service's
    // code flow row asks for one (offline_access); oidc-provider drops offline_access from
    // an authorization request without prompt=consent, which would always show the consent
    // page, so the default (offline_access granted) is widened to the client's grant types.
    issueRefreshToken: (ctx, client) => client.grantTypeAllowed('refresh_token'),
    // oidc-provider's defaults, written out (it asks for them to be set)
    ttl: {
      AccessToken: 3600,
      AuthorizationCode: 60,
      ClientCredentials: 3600,
      IdToken: 3600,
      RefreshToken: 14 * 24 * 3600,
      Interaction: 3600,
      Session: 14 * 24 * 3600,
      Grant: 14 * 24 * 3600,
    },
    // Errors of the browser-facing endpoints as JSON (the load generator keeps a sample).
    renderError: (ctx, out) => {
      ctx.type = 'json';
      ctx.body = out;
    },
    interactions: { url: (ctx, interaction) => `/oauth2/interaction/${interaction.uid}` },
    routes: {
      authorization: '/oauth2/authorize',
      token: '/oauth2/token',
      userinfo: '/oauth2/userinfo',
      introspection: '/oauth2/introspect',
      revocation: '/oauth2/revoke',
      end_session: '/oauth2/logout',
      jwks: '/.well-known/jwks.json',
    },
  };
}

// The sign-in and consent pages of a real deployment, reduced to what the setup needs: the
// person named by login_hint (or the session's) is signed in and every scope asked for is
// granted, in a new Grant. Only bench/peer/run.py's setup calls it, before any measurement.
async function interaction(provider, req, res) {
  try {
    const { params, session } = await provider.interactionDetails(req, res);
    const accountId = session?.accountId ?? params.login_hint;
    const grant = new provider.Grant({ accountId, clientId: params.client_id });
    grant.addOIDCScope(params.scope);
    if (params.resource) grant.addResourceScope(params.resource, API_SCOPE);
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { login: { accountId }, consent: { grantId } }, {
      mergeWithLastSubmission: false,
    });
  } catch (error) {
    res.statusCode = 500;
    res.end(`interaction failed: ${error}`);
  }
}

async function worker() {
  let Adapter;
  let findClaims;
  const people = new Map(accounts().map((a) => [a.sub, a]));
  findClaims = async (id) => people.get(id);
  if (ADAPTER === 'pg') {
    const pgAdapter = createPgAdapter(env.PEER_DATABASE_URL);
    ({ Adapter } = pgAdapter);
    if (env.PEER_ACCOUNT_STORE !== 'memory') findClaims = pgAdapter.findAccount;
  } else {
    Adapter = createMemAdapter();
    process.on('message', (message) => {
      if (message.stopReplication) stopReplication();
      else if (message.replicate) applyReplicated(message.replicate);
    });
  }
  const provider = new Provider(env.PEER_ISSUER, configuration(Adapter, findClaims));
  provider.proxy = true; // behind nginx: X-Forwarded-Proto
  const callback = provider.callback();
  let requests = 0;
  const server = http.createServer((req, res) => {
    requests += 1;
    if (req.url.startsWith('/oauth2/interaction/')) return interaction(provider, req, res);
    return callback(req, res);
  });
  server.keepAliveTimeout = 65_000;
  server.listen({ port: Number(env.PEER_PORT), host: '127.0.0.1', exclusive: true });
  process.on('SIGTERM', () => {
    console.log(`peer worker ${env.PEER_WORKER_INDEX}: ${requests} requests`);
    process.exit(0);
  });
  process.on('SIGINT', () => {});
}

if (cluster.isPrimary) {
  primary().catch((error) => {
    console.error(error);
    process.exit(1);
  });
} else {
  worker().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
