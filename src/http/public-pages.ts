/**
 * The OpenAPI entry of a route for browsers rather than API clients: the share-link viewer, the site
 * snippet and its collect call, and the tracking and unsubscribe addresses in campaign mail. They
 * take no token, answer HTML, images, scripts or redirects (the beacon calls answer JSON), and are
 * listed under one tag of their own so an integrator sees what a page or a mail reaches, and a client
 * generator can leave them out.
 */
export const PUBLIC_PAGES_TAG = 'Public pages, scripts and beacons';

export function publicPage(summary: string, description: string) {
  return { tags: [PUBLIC_PAGES_TAG], summary, description, security: [] as never[] };
}
