import type { AppsTable } from '../../db/index.ts';
import type { Selectable } from 'kysely';
import type { Clock } from '../../lib/time.ts';
import type { projectReadModel } from './repository.ts';

/** A stored project (an `apps` row). Other modules (access) name it from here, as a type. */
export type AppRow = Selectable<AppsTable>;

/** The read model of projects another module's repository joins its rows to (the projects service exports it). */
export type ProjectReadModel = typeof projectReadModel;

export interface ProjectResponse {
  id: string;
  creatorId: number;
  name: string;
  type: string | null;
  description: string | null;
  iconURL: string | null;
  iconWidth: number | null;
  iconHeight: number | null;
  iosBundleId: string | null;
  androidPackageName: string | null;
  conferenceId: string | null;
  status: number;
  redirectUri: string | null;
  createTime: string;
  editTime: string;
  /** The site snippet's public key (docs/site-tracking.md). */
  siteKey: string | null;
  /** The origins the snippet may send from, comma-separated; '' when none. */
  siteOrigins: string;
  /** The region its phone numbers are read against (ISO 3166-1 alpha-2). */
  region: string;
  /** Its own share domain (a host name), '' when none (docs/projects.md). */
  shareDomain: string;
}

export function toProject(a: AppRow, clock: Clock): ProjectResponse {
  return {
    id: a.id,
    creatorId: a.creator_id,
    name: a.name,
    type: a.type,
    description: a.description,
    iconURL: a.icon_url,
    iconWidth: a.icon_width,
    iconHeight: a.icon_height,
    iosBundleId: a.ios_bundle_id,
    androidPackageName: a.android_package_name,
    conferenceId: a.conference_id,
    status: a.status,
    redirectUri: a.redirect_uri,
    createTime: clock.format(a.create_time),
    editTime: clock.format(a.edit_time),
    siteKey: a.site_key,
    siteOrigins: a.site_origins ?? '',
    region: a.region,
    shareDomain: a.share_domain ?? '',
  };
}
