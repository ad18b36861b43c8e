import { useSyncExternalStore } from 'react';
import { session } from '../shared/api/session.ts';

/** Whether a session is open; re-renders when it opens or ends. */
export function useSignedIn(): boolean {
  return useSyncExternalStore(session.subscribe, session.signedIn);
}
