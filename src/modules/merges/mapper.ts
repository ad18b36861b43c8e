import type { mergeReadModel } from './repository.ts';

/** The read model of customer merges another module's repository builds its statements with (the merges service exports it). */
export type MergeReadModel = typeof mergeReadModel;
