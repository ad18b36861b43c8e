import { createRapportClient } from '@rapport/sdk';
import { useEffect, useState } from 'react';

/** What the page knows about the server it was loaded from. */
type Server = { state: 'checking' } | { state: 'up'; title: string; version: string } | { state: 'down'; reason: string };

const api = createRapportClient({ baseUrl: window.location.origin });

async function checkServer(): Promise<Server> {
  try {
    const health = await api.GET('/healthz');
    if (!health.response.ok) return { state: 'down', reason: `/healthz answered ${health.response.status}` };
    // The document is not one of its own paths, so it is fetched directly.
    const doc = (await (await fetch('/openapi.json')).json()) as { info?: { title?: string; version?: string } };
    return { state: 'up', title: doc.info?.title ?? 'Rapport API', version: doc.info?.version ?? '?' };
  } catch (e) {
    return { state: 'down', reason: e instanceof Error ? e.message : String(e) };
  }
}

export function App() {
  const [server, setServer] = useState<Server>({ state: 'checking' });
  useEffect(() => {
    let live = true;
    void checkServer().then((s) => live && setServer(s));
    return () => {
      live = false;
    };
  }, []);

  return (
    <main style={{ fontFamily: 'system-ui, sans-serif', maxWidth: '40rem', margin: '3rem auto', padding: '0 1rem' }}>
      <h1>Rapport</h1>
      {server.state === 'checking' && <p>Checking the server…</p>}
      {server.state === 'up' && (
        <p role="status">
          The server is up: {server.title} {server.version}. <a href="/docs">API reference</a>
        </p>
      )}
      {server.state === 'down' && <p role="alert">The server is not answering ({server.reason}).</p>}
    </main>
  );
}
