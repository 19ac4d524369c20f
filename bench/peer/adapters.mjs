// The two storage adapters of the peer (bench/README.md "Side by side with node-oidc-provider").
//
// mem: oidc-provider's own MemoryAdapter (lib/adapters/memory_adapter.js), nothing persisted,
//   one store per worker process. Its default store is an LRU of 1,000 entries, which a run
//   overflows in well under a second (sessions and the introspected token would be evicted
//   mid-row); the store here is the same LRU class with room for every record of a run.
//   While the orchestrator sets up (sign-ins, the tokens the rows start from) every write is
//   also sent to the other worker through the cluster primary, so that records made by real
//   flows on one worker are known to both; SIGUSR2 to the primary ends that before anything
//   is measured, and from then on each worker's store is a plain in-process one.
// pg: a table per model, JSONB payload, synchronous commit on (the server's default, never
//   changed here), the lookups the adapter interface needs indexed as people write them:
//   grant_id on the grantable tokens, uid on sessions, user_code on device codes. One pool
//   per worker (node-postgres defaults: 10 connections).

import pg from 'pg';
import MemoryAdapter, { setStorage } from 'oidc-provider/lib/adapters/memory_adapter.js';
import LRU from 'oidc-provider/lib/helpers/lru.js';

// --- mem -------------------------------------------------------------------------------------
let replicating = true;

export function stopReplication() {
  replicating = false;
}

function send(message) {
  if (replicating && process.send) {
    process.send({ replicate: message });
  }
}

export function createMemAdapter() {
  setStorage(new LRU({ maxSize: 50_000_000 }));
  class ReplicatedDuringSetup extends MemoryAdapter {
    async upsert(id, payload, expiresIn) {
      await super.upsert(id, payload, expiresIn);
      send({ model: this.model, op: 'upsert', args: [id, payload, expiresIn] });
    }

    async consume(id) {
      await super.consume(id);
      send({ model: this.model, op: 'consume', args: [id] });
    }

    async destroy(id) {
      await super.destroy(id);
      send({ model: this.model, op: 'destroy', args: [id] });
    }

    async revokeByGrantId(grantId) {
      await super.revokeByGrantId(grantId);
      send({ model: this.model, op: 'revokeByGrantId', args: [grantId] });
    }
  }
  return ReplicatedDuringSetup;
}

// A write another worker made during the setup, applied here without sending it back.
export async function applyReplicated({ model, op, args }) {
  const adapter = new MemoryAdapter(model);
  if (op === 'consume' && !(await adapter.find(args[0]))) {
    return;
  }
  await adapter[op](...args);
}

// --- pg --------------------------------------------------------------------------------------
const MODELS = {
  Session: ['uid'],
  AccessToken: ['grant_id'],
  AuthorizationCode: ['grant_id'],
  RefreshToken: ['grant_id'],
  DeviceCode: ['grant_id', 'user_code'],
  BackchannelAuthenticationRequest: ['grant_id'],
  ClientCredentials: [],
  Client: [],
  InitialAccessToken: [],
  RegistrationAccessToken: [],
  Interaction: [],
  ReplayDetection: [],
  PushedAuthorizationRequest: [],
  Grant: [],
};

const table = (model) => `oidc_${model.replace(/[A-Z]/g, (c, i) => (i ? '_' : '') + c.toLowerCase())}`;

// The tables, their indexes and the people the server answers for (run once, by the primary).
export async function prepareDatabase(url, accounts) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const [model, lookups] of Object.entries(MODELS)) {
      const name = table(model);
      const extra = lookups.map((column) => `, ${column} text`).join('');
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${name} (id text PRIMARY KEY, payload jsonb NOT NULL${extra},`
        + ' expires_at timestamptz, consumed_at timestamptz)',
      );
      for (const column of lookups) {
        await client.query(`CREATE INDEX IF NOT EXISTS ${name}_${column} ON ${name} (${column})`);
      }
    }
    await client.query(
      'CREATE TABLE IF NOT EXISTS account (id text PRIMARY KEY, claims jsonb NOT NULL)',
    );
    for (const account of accounts) {
      await client.query(
        'INSERT INTO account (id, claims) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING',
        [account.sub, account],
      );
    }
  } finally {
    await client.end();
  }
}

export function createPgAdapter(url) {
  const pool = new pg.Pool({ connectionString: url });

  class PostgresAdapter {
    constructor(model) {
      this.model = model;
      this.table = table(model);
      this.lookups = MODELS[model] ?? [];
      const columns = ['id', 'payload', ...this.lookups, 'expires_at'];
      const values = columns.map((_, i) => `$${i + 1}`);
      values[values.length - 1] = `now() + $${columns.length} * interval '1 second'`;
      const updates = columns.slice(1).map((c) => `${c} = excluded.${c}`).join(', ');
      this.upsertSql = `INSERT INTO ${this.table} (${columns.join(', ')}) VALUES (${values.join(', ')})`
        + ` ON CONFLICT (id) DO UPDATE SET ${updates}, consumed_at = NULL`;
    }

    async upsert(id, payload, expiresIn) {
      const lookups = this.lookups.map((column) => ({
        grant_id: payload.grantId, user_code: payload.userCode, uid: payload.uid,
      })[column] ?? null);
      await pool.query(this.upsertSql, [id, payload, ...lookups, expiresIn ?? null]);
    }

    async #findBy(column, value) {
      const { rows } = await pool.query(
        `SELECT payload, extract(epoch FROM consumed_at)::int AS consumed FROM ${this.table}`
        + ` WHERE ${column} = $1 AND (expires_at IS NULL OR expires_at > now())`,
        [value],
      );
      if (!rows.length) return undefined;
      const [{ payload, consumed }] = rows;
      return consumed ? { ...payload, consumed } : payload;
    }

    find(id) {
      return this.#findBy('id', id);
    }

    findByUid(uid) {
      return this.#findBy('uid', uid);
    }

    findByUserCode(userCode) {
      return this.#findBy('user_code', userCode);
    }

    async consume(id) {
      await pool.query(`UPDATE ${this.table} SET consumed_at = now() WHERE id = $1`, [id]);
    }

    async destroy(id) {
      await pool.query(`DELETE FROM ${this.table} WHERE id = $1`, [id]);
    }

    async revokeByGrantId(grantId) {
      if (this.lookups.includes('grant_id')) {
        await pool.query(`DELETE FROM ${this.table} WHERE grant_id = $1`, [grantId]);
      }
    }
  }

  const findAccount = async (id) => {
    const { rows } = await pool.query('SELECT claims FROM account WHERE id = $1', [id]);
    return rows.length ? rows[0].claims : undefined;
  };
  return { Adapter: PostgresAdapter, findAccount, end: () => pool.end() };
}
