import type { FastifyReply, FastifyRequest } from 'fastify';

/** A cookie the request carries, or undefined (the first of that name; values are not decoded beyond %-escapes). */
export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const raw = part.slice(eq + 1).trim();
    try {
      return decodeURIComponent(raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

export interface CookieOptions {
  path: string;
  maxAgeSeconds: number;
  /** Sent over HTTPS only (the server's public address is https). */
  secure: boolean;
}

/** Adds a first-party cookie: HttpOnly, SameSite=Lax (it travels when a shared link is opened from another site). */
export function setCookie(reply: FastifyReply, name: string, value: string, o: CookieOptions): void {
  const cookie = `${name}=${encodeURIComponent(value)}; Path=${o.path}; Max-Age=${o.maxAgeSeconds}; HttpOnly; SameSite=Lax${o.secure ? '; Secure' : ''}`;
  const before = reply.getHeader('set-cookie');
  const list = before === undefined ? [] : Array.isArray(before) ? before.map(String) : [String(before)];
  reply.header('set-cookie', [...list, cookie]);
}
