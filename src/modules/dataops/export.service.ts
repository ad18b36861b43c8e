import type { Readable } from 'node:stream';
import type { AppContext } from '../../context.ts';
import type { Actor } from '../access/service.ts';
import type { AuditRecorder } from '../audit/service.ts';
import type { CustomerDataOps, CustomerFilter, CustomerResponse, CustomerScope } from '../customers/service.ts';
import { type ExportFormat, encode } from './streams.ts';

/** Rows per export page (a primary-key walk). */
const EXPORT_PAGE = 1000;

/** Ids per read of a bulk export of chosen customers. */
const SELECTED_BATCH = 500;

/** A customer's export row: each column's value as text. */
function cells(c: CustomerResponse, columns: { key: string; title: string }[]): string[] {
  const record = c as unknown as Record<string, unknown>;
  return columns.map((col) => {
    const v = record[col.key];
    return v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v as string | number);
  });
}

/** What an export asks for: the list's filters and the file's format; Master/Admin may name one member's customers (`ownerId`). */
export interface ExportRequest {
  filter: CustomerFilter;
  format: ExportFormat;
  ownerId?: number | undefined;
}

/**
 * Customer exports (docs/data-operations.md): the customers a caller may see, read through the
 * customers service a page at a time along the primary key, streamed as CSV or XLSX as they are
 * read, and recorded in the audit log. Members export through the route; the CLI's operator
 * (`rapport export customers`) sees every customer of the project.
 */
export function createCustomerExport(ctx: AppContext, deps: { customers: CustomerDataOps; audit: AuditRecorder }) {
  const { customers, audit } = deps;
  const db = ctx.database.db;

  async function exportColumns(appId: string): Promise<{ key: string; title: string }[]> {
    const attributes = await customers.importAttributes(appId);
    return [
      { key: 'id', title: 'id' },
      ...attributes.map((a) => ({ key: a.name, title: a.title })),
      { key: 'createdAt', title: 'createdAt' },
      { key: 'updatedAt', title: 'updatedAt' },
    ];
  }

  /** The export's rows (header first) as text cells, a page at a time. */
  async function* exportRows(
    scope: CustomerScope,
    filter: CustomerFilter,
    columns: { key: string; title: string }[],
  ): AsyncGenerator<string[]> {
    yield columns.map((c) => c.title);
    let after: string | null = null;
    for (;;) {
      const { customers: page, last } = await customers.exportPage(scope, filter, after, EXPORT_PAGE);
      for (const c of page) {
        yield cells(c, columns);
      }
      if (last === null) return;
      after = last;
    }
  }

  /** The rows of the chosen customers the scope holds (header first), a batch of ids at a time. */
  async function* selectedRows(scope: CustomerScope, ids: string[], columns: { key: string; title: string }[]): AsyncGenerator<string[]> {
    yield columns.map((c) => c.title);
    for (let i = 0; i < ids.length; i += SELECTED_BATCH) {
      for (const c of await customers.exportByIds(scope, ids.slice(i, i + SELECTED_BATCH))) yield cells(c, columns);
    }
  }

  /** The scope's customers as the requested file, the export recorded in the audit log (by `actorId`; null for the operator). */
  async function exported(scope: CustomerScope, request: ExportRequest, actorId: number | null): Promise<Readable> {
    const { filter, format } = request;
    const columns = await exportColumns(scope.appId);
    await audit(db, {
      appId: scope.appId,
      actorId,
      action: 'customer.export',
      targetType: 'project',
      targetId: scope.appId,
      detail: {
        format,
        ownerId: scope.ownerId,
        ...(filter.keyword ? { keyword: filter.keyword } : {}),
        ...(filter.groupId !== undefined ? { groupId: filter.groupId } : {}),
      },
    });
    return encode(exportRows(scope, filter, columns), format, 'customers');
  }

  return {
    /**
     * The customers the caller may see (a Sales member: their own, unless the project switched Sales
     * export off), with the list's filters (Master/Admin: `ownerId`, one member's), as CSV or XLSX,
     * streamed. Recorded in the audit log.
     */
    async exportCustomers(actor: Actor, request: ExportRequest): Promise<Readable> {
      const scope = await customers.exportScope(actor.app.id, actor.userId, request.ownerId);
      return exported(scope, request, actor.userId);
    },

    /**
     * Chosen customers (a bulk action's, `ids` in the order asked) as CSV or XLSX, streamed: those
     * the caller may export (as `exportCustomers`) that are live; recorded in the audit log.
     */
    async exportSelected(actor: Actor, request: { ids: string[]; format: ExportFormat }): Promise<Readable> {
      const scope = await customers.exportScope(actor.app.id, actor.userId);
      const columns = await exportColumns(scope.appId);
      const detail = { format: request.format, ownerId: scope.ownerId, selected: request.ids.length };
      await audit(db, {
        appId: scope.appId,
        actorId: actor.userId,
        action: 'customer.export',
        targetType: 'project',
        targetId: scope.appId,
        detail,
      });
      return encode(selectedRows(scope, request.ids, columns), request.format, 'customers');
    },

    /** The operator's export (the CLI): every customer of the project, or one member's (`ownerId`). */
    exportAsOperator(appId: string, request: ExportRequest): Promise<Readable> {
      return exported({ appId, ownerId: request.ownerId ?? null }, request, null);
    },
  };
}

export type CustomerExport = ReturnType<typeof createCustomerExport>;
