import type { AccessService } from '../access/service.ts';
import type { AccountsService } from '../accounts/service.ts';
import type { CustomerWritePath, CustomersService } from '../customers/service.ts';
import type { FileViewer } from '../files/service.ts';
import type { LinkReads } from '../links/service.ts';
import type { ProjectsService } from '../projects/service.ts';
import type { NotificationChannels } from '../webhooks/service.ts';

/** How alert e-mails leave: the campaigns' SMTP transport (its pool, its send rate, a project's From). */
export interface AlertMailer {
  /** Whether the server can send mail (SMTP_URL). */
  configured(): boolean;
  mailer(): Promise<{ sendMail(mail: Record<string, unknown>): Promise<unknown> } | null>;
  /** Resolves when the next mail may be handed to SMTP (MAIL_RATE_PER_SECOND, shared with campaigns). */
  turn(): Promise<void>;
  from(appId: string): Promise<{ name: string; address: string }>;
}

/** What the alerts module is built with (src/services.ts). */
export interface AlertsDeps {
  /** Members: who is active, with which role. */
  access: Pick<AccessService, 'memberRecord'>;
  /** Names and e-mail addresses of members. */
  accounts: Pick<AccountsService, 'userById'>;
  /** Live customers, their owner and name. */
  customers: Pick<CustomersService, 'liveCustomers'>;
  /** Links' direction and name, views' readings, their readers and the views of a link before one. */
  links: Pick<LinkReads, 'alertLinks' | 'readings' | 'viewReaders' | 'earlierViews'>;
  /** The live customer with an e-mail address (whether a view's reader gave their own). */
  contacts: Pick<CustomerWritePath, 'viewerCustomerByContact'>;
  /** A deck's page count. */
  files: Pick<FileViewer, 'viewerFile'>;
  /** The project's chat channels, and their deliveries. */
  channels: Pick<NotificationChannels, 'active' | 'enqueue'>;
  /** Projects' names (the inbox, the digest). */
  projects: Pick<ProjectsService, 'name'>;
  mail: AlertMailer;
}

/** Where a customer opens in the console. */
export function customerUrl(publicBaseUrl: string, appId: string, customerId: string): string {
  return `${publicBaseUrl}/console/p/${encodeURIComponent(appId)}/customers/${encodeURIComponent(customerId)}`;
}
