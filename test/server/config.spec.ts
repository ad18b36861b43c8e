import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';

describe('the public address', () => {
  const isLocal = (env: Record<string, string>) => loadConfig(env).publicBaseUrlIsLocal;

  it('is a trap while PUBLIC_BASE_URL names this machine alone and others can connect', () => {
    // Unset: http://localhost:PORT, on HOST 0.0.0.0 (the defaults).
    expect(isLocal({})).toBe(true);
    expect(loadConfig({}).publicBaseUrl).toBe('http://localhost:8080');
    expect(isLocal({ HOST: '0.0.0.0', PUBLIC_BASE_URL: 'http://127.0.0.1:8080' })).toBe(true);
    expect(isLocal({ HOST: '::', PUBLIC_BASE_URL: 'http://[::1]:8080/' })).toBe(true);
    expect(isLocal({ HOST: '10.0.0.5', PUBLIC_BASE_URL: 'http://app.localhost:8080' })).toBe(true);
  });

  it('is not while the server listens on this machine alone, or PUBLIC_BASE_URL names another address', () => {
    for (const HOST of ['127.0.0.1', 'localhost', '::1', '127.0.0.2']) expect(isLocal({ HOST }), HOST).toBe(false);
    for (const PUBLIC_BASE_URL of ['https://rapport.example.com', 'http://192.168.1.20:8080', 'http://[2001:db8::1]:8080']) {
      expect(isLocal({ PUBLIC_BASE_URL }), PUBLIC_BASE_URL).toBe(false);
    }
  });
});
