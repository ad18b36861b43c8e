import type { InvitationsTable, MembersTable, UsersTable } from '../../db/index.ts';
import type { Selectable } from 'kysely';
import type { Clock } from '../../lib/time.ts';
import type { AppRow } from '../projects/mapper.ts';

/** A stored member record. Other modules (access) name it from here, as a type. */
export type MemberRow = Selectable<MembersTable>;

type UserRow = Selectable<UsersTable>;

/**
 * A project with the caller's member record in it (null columns when they are not a member): the
 * membership read access resolves every project-scoped request with.
 */
export type MembershipRow = AppRow & {
  m_id: string | null;
  m_status: number | null;
  m_role: string | null;
  m_conference_id: string | null;
  m_post_roles: string | null;
  m_create_time: number | null;
  m_edit_time: number | null;
  m_accepted_at: number | null;
};

/** A member with what the list shows of its platform user (the members repository's list). */
export type MemberListRow = MemberRow & {
  u_name: UserRow['name'];
  u_photo_uri: UserRow['photo_uri'];
  u_created_at: UserRow['created_at'];
  u_updated_at: UserRow['updated_at'];
  u_phone_num: UserRow['phone_num'];
  u_phone_num_status: UserRow['phone_num_status'];
  u_email: UserRow['email'];
  /** Null when the user never made an authenticated request. */
  u_last_seen_at: number | null;
};

/** One of a user's own memberships, with what they see of its project. */
export type UserMembershipRow = MemberRow & {
  app_name: string;
  app_description: string | null;
  app_creator_id: number;
};

export interface UserMembership extends MemberResponse {
  app: { id: string; name: string; description: string | null; creatorId: number };
}

export function toUserMembership(r: UserMembershipRow, clock: Clock): UserMembership {
  return {
    ...toMember(r, clock),
    app: { id: r.app_id, name: r.app_name, description: r.app_description, creatorId: r.app_creator_id },
  };
}

export const ONLINE_WINDOW_MS = 5 * 60 * 1000;

export interface MemberResponse {
  /** Beyond the interface: false while the user has not accepted the membership. */
  accepted: boolean;
  id: string;
  appId: string;
  svcUserId: number;
  conferenceId: string | null;
  status: number;
  role: string;
  createTime: string;
  editTime: string;
}

export interface MemberListItem extends MemberResponse {
  postRoles: string[];
  isOwner: boolean;
  user: {
    id: number;
    conferenceId: string | null;
    userId: number;
    userName: string | null;
    userPhotoURL: string | null;
    createdAt: string;
    updatedAt: string;
    phoneNum: string | null;
    phoneStatus: number;
    email: string | null;
    onlineStatus: number;
  };
}

/**
 * A pending member's mobile number as the member list shows it: the first three and last four
 * characters around `****` (`138****5678`); numbers of eight characters or fewer keep only the
 * first and last character (`1****8`).
 */
export function maskPhone(phone: string | null): string | null {
  if (phone === null || phone === '') return phone;
  if (phone.length <= 8) return `${phone.slice(0, 1)}****${phone.slice(-1)}`;
  return `${phone.slice(0, 3)}****${phone.slice(-4)}`;
}

/** A pending member's e-mail as the member list shows it: the first character, `***`, then the domain (`a***@example.com`). */
export function maskEmail(email: string | null): string | null {
  if (email === null || email === '') return email;
  const at = email.lastIndexOf('@');
  if (at < 1) return '***';
  return `${email.slice(0, 1)}***${email.slice(at)}`;
}

export function toMember(m: MemberRow, clock: Clock): MemberResponse {
  return {
    accepted: m.accepted_at !== null,
    id: m.id,
    appId: m.app_id,
    svcUserId: m.user_id,
    conferenceId: m.conference_id,
    status: m.status,
    role: m.role,
    createTime: clock.format(m.create_time),
    editTime: clock.format(m.edit_time),
  };
}

export function toMemberListItem(r: MemberListRow, creatorId: number, clock: Clock): MemberListItem {
  const now = clock.now();
  // Until the user accepts, the project learns neither their number nor their address.
  const accepted = r.accepted_at !== null;
  return {
    ...toMember(r, clock),
    postRoles: r.post_roles === '' ? [] : r.post_roles.split(','),
    isOwner: r.user_id === creatorId,
    user: {
      id: r.user_id,
      conferenceId: r.conference_id,
      userId: r.user_id,
      userName: r.u_name,
      userPhotoURL: r.u_photo_uri,
      createdAt: clock.format(r.u_created_at),
      updatedAt: clock.format(r.u_updated_at),
      phoneNum: accepted ? r.u_phone_num : maskPhone(r.u_phone_num),
      phoneStatus: r.u_phone_num_status,
      email: accepted ? r.u_email : maskEmail(r.u_email),
      // Nor when they are online: adding an arbitrary user must not let a project watch their presence.
      onlineStatus: accepted && r.u_last_seen_at !== null && now - r.u_last_seen_at <= ONLINE_WINDOW_MS ? 1 : 0,
    },
  };
}

/** A stored invitation (docs/projects.md, "Invitations"). */
export type InvitationRow = Selectable<InvitationsTable>;

/** A pending invitation as the members page lists it: never its link (the token is not stored). */
export interface InvitationListItem {
  id: string;
  email: string;
  role: string;
  invitedBy: number;
  createdAt: string;
  sentAt: string;
  expiresAt: string;
}

/** An invitation just made or resent: its link is answered this once. */
export interface InvitationIssued {
  id: string;
  email: string;
  role: string;
  url: string;
  expiresAt: string;
}

export function toInvitationListItem(r: InvitationRow, clock: Clock): InvitationListItem {
  return {
    id: r.id,
    email: r.email,
    role: r.role,
    invitedBy: r.invited_by,
    createdAt: clock.format(r.created_at),
    sentAt: clock.format(r.sent_at),
    expiresAt: clock.format(r.expires_at),
  };
}

export function toInvitationIssued(r: InvitationRow, url: string, clock: Clock): InvitationIssued {
  return { id: r.id, email: r.email, role: r.role, url, expiresAt: clock.format(r.expires_at) };
}
