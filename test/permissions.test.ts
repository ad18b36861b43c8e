import fs from 'node:fs';
import type { LightMyRequestResponse } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { type TestClient, type TestUser, activeUser, createClient } from './helpers/fixtures.ts';
import { type TestServer, useTestServer } from './helpers/harness.ts';

/**
 * Walks docs/permissions.md: every row of the matrix is an endpoint probed as each role, and the
 * answer must be what the cell says. The document cannot drift from the code.
 */
const t = useTestServer();
const ROLES = ['Master', 'Admin', 'Sales', 'Non-member'] as const;
type RoleName = (typeof ROLES)[number];

interface World {
  server: TestServer;
  client: TestClient;
  appId: string;
  users: Record<RoleName, TestUser>;
  /** A fresh active user who is not yet in the project. */
  newUser(): Promise<TestUser>;
  /** A fresh member of the project with the given role. */
  newMember(role: 'Sales' | 'Admin'): Promise<TestUser>;
}

type Probe = (w: World, caller: TestUser, role: RoleName) => Promise<LightMyRequestResponse>;

/** One probe per matrix row; the key is the row's first cell without backticks. */
const probes: Record<string, Probe> = {
  'POST /api/v1.7/apps': (w, u) => w.server.api.post('/api/v1.7/apps', { name: 'Probe' }, { token: u.token }),
  'POST /api/v1.7/app/{app-id}': (w, u) => w.server.api.post(`/api/v1.7/app/${w.appId}`, { name: 'Renamed' }, { token: u.token }),
  'GET /api/v1.7/app/{app-id}': (w, u) => w.server.api.get(`/api/v1.7/app/${w.appId}`, { token: u.token }),
  'GET /api/v1.7/my-apps': (w, u) => w.server.api.get('/api/v1.7/my-apps', { token: u.token }),
  'POST /api/v1.7/app/{app-id}/members (role Sales)': async (w, u) =>
    w.server.api.post(`/api/v1.7/app/${w.appId}/members`, { svc_user_id: (await w.newUser()).id, role: 'Sales' }, { token: u.token }),
  'POST /api/v1.7/app/{app-id}/members (role Admin)': async (w, u) =>
    w.server.api.post(`/api/v1.7/app/${w.appId}/members`, { svc_user_id: (await w.newUser()).id, role: 'Admin' }, { token: u.token }),
  'GET /api/v1.7/app/{app-id}/members': (w, u) => w.server.api.get(`/api/v1.7/app/${w.appId}/members`, { token: u.token }),
  'POST /api/v1.7/app/{app-id}/member/{svc-user-id} (a Sales member)': async (w, u) =>
    w.server.api.post(`/api/v1.7/app/${w.appId}/member/${(await w.newMember('Sales')).id}`, {}, { token: u.token }),
  'POST /api/v1.7/app/{app-id}/member/{svc-user-id} (an Admin)': async (w, u) =>
    w.server.api.post(`/api/v1.7/app/${w.appId}/member/${(await w.newMember('Admin')).id}`, {}, { token: u.token }),
  'POST /api/v1.7/app/{app-id}/member/{svc-user-id} (the creator)': (w, u) =>
    w.server.api.post(`/api/v1.7/app/${w.appId}/member/${w.users.Master.id}`, {}, { token: u.token }),
};

interface Row {
  endpoint: string;
  cells: Record<RoleName, string>;
}

function readMatrix(): Row[] {
  const doc = fs.readFileSync(new URL('../docs/permissions.md', import.meta.url), 'utf8');
  const block = doc.split('<!-- matrix:start -->')[1]?.split('<!-- matrix:end -->')[0] ?? '';
  const lines = block.split('\n').filter((l) => l.startsWith('|'));
  return lines.slice(2).map((line) => {
    const cols = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    const endpoint = (cols[0] ?? '').replace(/`/g, '');
    const cells = Object.fromEntries(ROLES.map((r, i) => [r, cols[i + 1] ?? ''])) as Record<RoleName, string>;
    return { endpoint, cells };
  });
}

/** The answer's class in the matrix's vocabulary. */
function outcome(res: LightMyRequestResponse): string {
  const body = res.json() as { status?: number; code?: string; error?: string } | unknown[];
  if (res.statusCode === 403 && !Array.isArray(body)) return `403 ${body.error}`;
  if (res.statusCode !== 200) return `HTTP ${res.statusCode}`;
  if (Array.isArray(body) || body.status === 1) return '200';
  return String(body.code);
}

/** The expected class: the cell's leading token(s), before any parenthesised note. */
function expected(cell: string): string {
  const head = cell.replace(/\(.*\)/, '').trim();
  if (head.startsWith('200')) return '200';
  return head;
}

const rows = readMatrix();
let world: World;

beforeAll(async () => {
  const server = t.server;
  const client = await createClient(server);
  const [m, a, s, n] = (await Promise.all(ROLES.map(() => activeUser(server, client)))) as [TestUser, TestUser, TestUser, TestUser];
  const appId = (await server.api.post('/api/v1.7/apps', { name: 'Matrix' }, { token: m.token })).json().data.appId as string;
  await server.api.post(`/api/v1.7/app/${appId}/members`, { svc_user_id: a.id, role: 'Admin' }, { token: m.token });
  await server.api.post(`/api/v1.7/app/${appId}/members`, { svc_user_id: s.id, role: 'Sales' }, { token: m.token });
  world = {
    server,
    client,
    appId,
    users: { Master: m, Admin: a, Sales: s, 'Non-member': n },
    newUser: () => activeUser(server, client),
    async newMember(role) {
      const u = await activeUser(server, client);
      const res = await server.api.post(`/api/v1.7/app/${appId}/members`, { svc_user_id: u.id, role }, { token: m.token });
      expect(res.json().status).toBe(1);
      return u;
    },
  };
});

describe('docs/permissions.md matrix', () => {
  it('has a probe for every row and a row for every probe', () => {
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.map((r) => r.endpoint).sort()).toEqual(Object.keys(probes).sort());
  });

  for (const row of rows) {
    for (const role of ROLES) {
      it(`${row.endpoint} as ${role} → ${row.cells[role]}`, async () => {
        const probe = probes[row.endpoint];
        if (!probe) throw new Error(`no probe for ${row.endpoint}`);
        const res = await probe(world, world.users[role], role);
        expect(outcome(res), res.body).toBe(expected(row.cells[role]));
      });
    }
  }

  it('every project endpoint refuses a request without a token with 403 access_denied', async () => {
    for (const path of ['/api/v1.7/my-apps', `/api/v1.7/app/${world.appId}`, `/api/v1.7/app/${world.appId}/members`]) {
      const res = await world.server.api.get(path);
      expect(res.statusCode).toBe(403);
      expect(res.json().error).toBe('access_denied');
    }
  });
});
