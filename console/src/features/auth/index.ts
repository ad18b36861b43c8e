/** The auth area's public entry: what the other areas use of it, the server's public facts (server-info), the frame of signed-out pages. */
export { authQueries } from './api.ts';
export { AuthFrame } from './components/AuthFrame.tsx';
