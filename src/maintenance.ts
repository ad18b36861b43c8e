import type { AppContext } from './context.ts';
import type { AccountsService } from './modules/accounts/service.ts';

const EVERY_MS = 10 * 60 * 1000;

/**
 * Periodic clean-up so nothing grows without bound: expired access and refresh tokens, expired
 * verification codes and failed log-ins older than the throttle window. Returns a stop function.
 */
export function startMaintenance(ctx: AppContext, accounts: AccountsService): () => void {
  const run = async () => {
    try {
      const removed = await accounts.pruneExpired();
      if (removed > 0) ctx.logger.debug({ removed }, 'pruned expired tokens and codes');
    } catch (err) {
      ctx.logger.warn({ err }, 'maintenance failed; will retry');
    }
  };
  const timer = setInterval(() => void run(), EVERY_MS);
  timer.unref();
  void run();
  return () => clearInterval(timer);
}
