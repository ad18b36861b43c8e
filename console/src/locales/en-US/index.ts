import admin from './admin.json' with { type: 'json' };
import auth from './auth.json' with { type: 'json' };
import campaigns from './campaigns.json' with { type: 'json' };
import common from './common.json' with { type: 'json' };
import customer from './customer.json' with { type: 'json' };
import customers from './customers.json' with { type: 'json' };
import histories from './histories.json' with { type: 'json' };
import links from './links.json' with { type: 'json' };
import live from './live.json' with { type: 'json' };
import members from './members.json' with { type: 'json' };
import projects from './projects.json' with { type: 'json' };
import settings from './settings.json' with { type: 'json' };
import site from './site.json' with { type: 'json' };
import webhooks from './webhooks.json' with { type: 'json' };

/** The reference language: its keys type every `t()` call (src/shared/i18n/i18n.ts). */
const enUS = { common, auth, projects, members, customers, customer, live, site, links, settings, webhooks, histories, campaigns, admin };
export default enUS;
