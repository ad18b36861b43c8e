import type { MembersTable, UsersTable } from '../../db/index.ts';
import type { Selectable } from 'kysely';
import type { Clock } from '../../lib/time.ts';

/** A stored member record. Other modules (access) name it from here, as a type. */
export type MemberRow = Selectable<MembersTable>;

type UserRow = Selectable<UsersTable>;

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

export const ONLINE_WINDOW_MS = 5 * 60 * 1000;

export interface MemberResponse {
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

export function toMember(m: MemberRow, clock: Clock): MemberResponse {
  return {
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
      phoneNum: r.u_phone_num,
      phoneStatus: r.u_phone_num_status,
      email: r.u_email,
      onlineStatus: r.u_last_seen_at !== null && now - r.u_last_seen_at <= ONLINE_WINDOW_MS ? 1 : 0,
    },
  };
}
