/** The measured scenarios and their targets, as ratios to the same-run bare baseline. */
export interface Dataset {
  appId: string;
  token: string;
  refreshToken: string;
  basic: string;
  username: string;
  password: string;
  customerId: string;
  bigCustomerId: string;
  smallCustomerId: string;
  phone: string;
  linkId: string;
  customers: number;
}

export interface Scenario {
  name: string;
  method: 'GET' | 'POST';
  path(d: Dataset): string;
  headers(d: Dataset): Record<string, string>;
  body?(d: Dataset): string;
  /** Minimum ratio to the baseline [sqlite, postgres]. */
  target: [number, number];
  /** Slow on purpose: shorter runs, no target. */
  reportOnly?: boolean;
}

const bearer = (d: Dataset) => ({ authorization: `Bearer ${d.token}` });
const form = (d: Dataset) => ({ authorization: d.basic, 'content-type': 'application/x-www-form-urlencoded' });

export const SCENARIOS: Scenario[] = [
  { name: 'customer detail', method: 'GET', path: (d) => `/api/v1.7/customer/${d.customerId}/detail`, headers: bearer, target: [0.5, 0.3] },
  {
    name: 'customer list, first page',
    method: 'GET',
    path: (d) => `/api/v1.7/app/${d.appId}/member/all/customers?start_index=0&count=20`,
    headers: bearer,
    target: [0.25, 0.15],
  },
  {
    name: 'customer list, deep page',
    method: 'GET',
    path: (d) => `/api/v1.7/app/${d.appId}/member/all/customers?start_index=${Math.min(500_000, Math.floor(d.customers / 2))}&count=20`,
    headers: bearer,
    target: [0.05, 0.05],
  },
  {
    name: 'search by phone',
    method: 'GET',
    path: (d) => `/api/v1.7/app/${d.appId}/customer/appSearch?condition=${d.phone}`,
    headers: bearer,
    target: [0.25, 0.15],
  },
  {
    name: 'behaviour list, big customer',
    method: 'GET',
    path: (d) => `/api/v1.7/app/${d.appId}/member/customer/${d.bigCustomerId}/behaviour?count=20`,
    headers: bearer,
    target: [0.25, 0.15],
  },
  {
    name: 'overview, big customer',
    method: 'GET',
    path: (d) => `/api/v1.7/customer/${d.bigCustomerId}/overview`,
    headers: bearer,
    target: [0.3, 0.3],
  },
  {
    name: 'overview, small customer',
    method: 'GET',
    path: (d) => `/api/v1.7/customer/${d.smallCustomerId}/overview`,
    headers: bearer,
    target: [0.3, 0.3],
  },
  {
    // A page of 20 customers with their reasons in words (10 KB): aimed at the list pages' level.
    name: 'hot leads',
    method: 'GET',
    path: (d) => `/api/v1.7/app/${d.appId}/hot-leads?count=20`,
    headers: bearer,
    target: [0.1, 0.05],
  },
  {
    name: 'hot leads by company',
    method: 'GET',
    path: (d) => `/api/v1.7/app/${d.appId}/hot-leads?count=20&group_by=company`,
    headers: bearer,
    target: [0, 0],
    reportOnly: true,
  },
  {
    name: 'customer list by score',
    method: 'GET',
    path: (d) => `/api/v1.7/app/${d.appId}/member/all/customers?start_index=0&count=20&sort=score`,
    headers: bearer,
    target: [0.1, 0.05],
  },
  { name: 'calls list', method: 'GET', path: (d) => `/api/v1.7/calls?app_id=${d.appId}&count=20`, headers: bearer, target: [0.25, 0.15] },
  { name: 'view logs', method: 'GET', path: (d) => `/api/v1.7/link/${d.linkId}/view-logs?count=20`, headers: bearer, target: [0.25, 0.15] },
  {
    name: 'token refresh',
    method: 'POST',
    path: () => '/svcuser/oauth2/access_token',
    headers: form,
    body: (d) => `grant_type=refresh_token&refresh_token=${encodeURIComponent(d.refreshToken)}`,
    target: [0, 0],
    reportOnly: true,
  },
  {
    name: 'password login (scrypt, slow on purpose)',
    method: 'POST',
    path: () => '/svcuser/oauth2/access_token',
    headers: form,
    body: (d) => `grant_type=password&username=${d.username}&password=${encodeURIComponent(d.password)}`,
    target: [0, 0],
    reportOnly: true,
  },
];

/**
 * Write loads: 32 connections cycling through `cycle` (a one-record ingestion request, 'write', and
 * read paths), measured after a warm-up. Targets are absolute: [sqlite, postgres].
 */
export interface Load {
  name: string;
  cycle(d: Dataset): string[];
  /** Records/s for the ingestion-only load, requests/s for the mixed one. */
  rate: [number, number];
  p99All: [number, number];
  p99Reads?: [number, number];
}

export const LOADS: Load[] = [
  { name: 'single-record ingestion', cycle: () => ['write'], rate: [10_000, 5_000], p99All: [100, 100] },
  {
    name: 'mixed load (¼ one-record writes, ¾ reads)',
    cycle: (d) => [
      'write',
      `/api/v1.7/app/${d.appId}/member/all/customers?start_index=0&count=20`,
      `/api/v1.7/app/${d.appId}/members`,
      '/svcuser/oauth2/getUserInfoByAccessToken',
    ],
    rate: [11_000, 3_400],
    p99All: [100, 100],
    p99Reads: [25, 50],
  },
];
