// lanes: sqlite
import { beforeAll, describe, expect, it } from 'vitest';
import { type TestUser, activeUser, createClient } from '../../helpers/fixtures.ts';
import { useTestServer } from '../../helpers/harness.ts';

/**
 * A share domain behind a proxy that rewrites `Host` (docs/operations.md, "Share domains"): with
 * TRUST_PROXY, the host is the trusted proxy's `X-Forwarded-Host`, its last entry (the one the proxy
 * wrote; what a client wrote itself comes before it). From an address TRUST_PROXY does not trust, the
 * header is the client's word and names nothing.
 */
const DOMAIN = 'share.proxied.example';
const PROXY = '10.9.8.7';
const t = useTestServer({ PUBLIC_BASE_URL: 'https://rapport.example', TRUST_PROXY: PROXY });
let owner: TestUser;
let appId: string;

const get = (url: string, headers: Record<string, string>, from = PROXY) =>
  t.server.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${owner.token}`, ...headers }, remoteAddress: from });

beforeAll(async () => {
  owner = await activeUser(t.server, await createClient(t.server));
  const res = await t.server.api.post('/api/v1.7/apps', { name: 'Proxied' }, { token: owner.token });
  appId = (res.json() as { data: { appId: string } }).data.appId;
  expect((await t.server.api.post(`/api/v1.7/app/${appId}`, { share_domain: DOMAIN }, { token: owner.token })).json().status).toBe(1);
});

describe('X-Forwarded-Host', () => {
  it('from the trusted proxy names the host: its last entry, whatever a client put before it', async () => {
    const detail = `/api/v1.7/app/${appId}`;
    expect((await get(detail, { host: 'upstream:8080', 'x-forwarded-host': DOMAIN })).statusCode).toBe(404);
    expect((await get(detail, { host: 'upstream:8080', 'x-forwarded-host': `rapport.example, ${DOMAIN}` })).statusCode).toBe(404);
    // A client's own X-Forwarded-Host comes first; the proxy's own entry, last, is the server's host.
    const served = await get(detail, { host: 'upstream:8080', 'x-forwarded-host': `${DOMAIN}, rapport.example` });
    expect(served.json()).toMatchObject({ status: 1, data: { shareDomain: DOMAIN } });
  });

  it('from any other address is not believed: the Host header decides', async () => {
    const detail = `/api/v1.7/app/${appId}`;
    const client = '203.0.113.50';
    expect((await get(detail, { host: 'rapport.example', 'x-forwarded-host': DOMAIN }, client)).json()).toMatchObject({ status: 1 });
    expect((await get(detail, { host: DOMAIN, 'x-forwarded-host': 'rapport.example' }, client)).statusCode).toBe(404);
  });
});
