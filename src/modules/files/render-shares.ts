/**
 * Each project's share of a process's renderer (docs/files.md, "Rendering"): the renderer time each
 * project with work has had here. The project that has had least goes next, and the file being
 * rendered gives way once its project is a turn (`turnMs`) ahead of another project with work. A
 * project is remembered only while it has work; one that comes (back) starts a turn behind the least
 * served, so it goes next without being owed the time it was away.
 */
export class RenderShares {
  private readonly used = new Map<string, number>();
  private current: { appId: string; since: number } | null = null;

  constructor(
    private readonly turnMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The project's renderer time so far, with the file under way. */
  usedBy(appId: string): number {
    const running = this.current?.appId === appId ? this.now() - this.current.since : 0;
    return (this.used.get(appId) ?? 0) + running;
  }

  /** Brings the projects that have work now up to date: the others are forgotten, newcomers get their place. */
  present(appIds: Iterable<string>): void {
    const present = new Set(appIds);
    if (this.current) present.add(this.current.appId);
    for (const appId of this.used.keys()) if (!present.has(appId)) this.used.delete(appId);
    const floor = this.used.size === 0 ? 0 : Math.max(0, Math.min(...this.used.values()) - this.turnMs);
    for (const appId of present) if (!this.used.has(appId)) this.used.set(appId, floor);
  }

  /** `candidates` in the order they are served: least renderer time first, then the oldest waiting. */
  order<T extends { appId: string; oldest: number }>(candidates: T[]): T[] {
    return [...candidates].sort((a, b) => this.usedBy(a.appId) - this.usedBy(b.appId) || a.oldest - b.oldest);
  }

  /** A file of the project is being rendered from now. */
  started(appId: string): void {
    this.current = { appId, since: this.now() };
  }

  /** The file under way stopped (done, failed, or gave way): its time is added to its project's. */
  ended(): void {
    if (!this.current) return;
    this.used.set(this.current.appId, this.usedBy(this.current.appId));
    this.current = null;
  }

  /** Whether another of the `present` projects is a turn behind `appId`: the file being rendered should give way. */
  shouldGiveWay(appId: string, present: Iterable<string>): boolean {
    this.present(present);
    const mine = this.usedBy(appId);
    for (const [other, used] of this.used) if (other !== appId && used + this.turnMs < mine) return true;
    return false;
  }
}
