/**
 * The activity a list row marks as new beside the customer's "New" tag. A new (or newly transferred)
 * customer's `newCount` holds every record stored before the owner first opens them, its own
 * creation record among them: the tag says that one, so the mark counts the rest ("New" alone for a
 * customer just made or imported, "New · 2 new" once they have also done something).
 */
export function newActivity(row: { isNew: number; newCount: number }): number {
  return Math.max(0, row.isNew === 1 ? row.newCount - 1 : row.newCount);
}
