import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { fixture } from './files.ts';
import { type ProcessDatabase, freePort, newClient, registerByPhone, runCli, until, waitForOk } from './process.ts';

/** A signed-in member of the team: their user id and the header their token goes in. */
export interface Account {
  id: number;
  auth: { authorization: string };
}

/** The server, its team (a Master and a Sales member of one project) and the Sales member's rendered deck. */
export interface ViewerTeam {
  base: string;
  master: Account;
  sales: Account;
  appId: string;
  fileId: string;
  /** The API's `data`, as `who`; a failure throws with the answer. */
  api<T>(method: string, url: string, who: Account, body?: unknown): Promise<T>;
  /** Removes the server's DATA_DIR (the server itself is stopped with the database). */
  cleanUp(): void;
}

/**
 * `rapport serve` on a free port with a DATA_DIR of its own and `env`, a new OAuth client, a Master
 * and a Sales member registered by phone (`phoneStem` + 0/1 + the process id's last digits), their
 * project, and the Sales member's 3-page deck uploaded as "Q3 review.pdf" and rendered. The browser
 * tests of the viewer start from here.
 */
export async function startViewerTeam(
  processes: ProcessDatabase,
  o: { label: string; phoneStem: string; project: string; env?: (base: string) => Record<string, string> },
): Promise<ViewerTeam> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `rapport-${o.label}-`));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = { ...processes.db.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', PUBLIC_BASE_URL: base, ...o.env?.(base) };
  const server = processes.started(runCli(['serve'], env));
  await waitForOk(`${base}/healthz`);

  async function api<T>(method: string, url: string, who: Account, body?: unknown): Promise<T> {
    const res = await fetch(`${base}${url}`, {
      method,
      headers: { ...who.auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json = (await res.json()) as { status: number; data: T };
    if (json.status !== 1) throw new Error(`${method} ${url}: ${JSON.stringify(json)}`);
    return json.data;
  }

  const basic = await newClient(env, `${o.label} e2e`);
  async function account(phone: string): Promise<Account> {
    const token = await registerByPhone(base, basic, phone);
    const info = await fetch(`${base}/svcuser/oauth2/getUserInfoByAccessToken?access_token=${token}`);
    return { id: ((await info.json()) as { id: number }).id, auth: { authorization: `Bearer ${token}` } };
  }
  const stamp = String(process.pid % 10000).padStart(4, '0');
  const master = await account(`${o.phoneStem}0${stamp}`);
  const sales = await account(`${o.phoneStem}1${stamp}`);
  const appId = (await api<{ appId: string }>('POST', '/api/v1.7/apps', master, { name: o.project })).appId;
  await api('POST', `/api/v1.7/app/${appId}/members`, master, { svc_user_id: sales.id, role: 'Sales' });

  const form = new FormData();
  form.append('file', new Blob([fixture('deck.pdf')], { type: 'application/pdf' }), 'Q3 review.pdf');
  const uploaded = await fetch(`${base}/api/v1.7/app/${appId}/files`, { method: 'POST', headers: sales.auth, body: form });
  const fileId = ((await uploaded.json()) as { data: { id: string } }).data.id;
  await until(
    'the deck to be rendered',
    () => api<{ status: string }>('GET', `/api/v1.7/app/${appId}/file/${fileId}`, sales),
    (f) => f.status === 'ready',
  );
  expect(server.output()).not.toContain('"level":50');
  return { base, master, sales, appId, fileId, api, cleanUp: () => fs.rmSync(dataDir, { recursive: true, force: true }) };
}
