/** The scoring card's anchor on the project's settings page (`/p/:appId/settings#scoring`): the home page links to it. */
export const SCORING_ANCHOR = 'scoring';
