/**
 * The scoring area's public entry: the project's scoring rules as a card of the settings page (loaded
 * with it), and its anchor there, which the home page links to.
 */
export { LazyScoringCard as ScoringCard } from './LazyScoringCard.tsx';
export { SCORING_ANCHOR } from './anchor.ts';
