import type { Clock } from '../../lib/time.ts';
import type { UserRow, userReadModel } from './repository.ts';

/** The read model of users another module's repository joins to its rows (the accounts service exports it). */
export type UserReadModel = typeof userReadModel;

/** The interface's Platform user object (every field; `password` is always null). */
export interface PlatformUser {
  id: number;
  password: null;
  name: string | null;
  email: string | null;
  emailStatus: number;
  phoneNum: string | null;
  phoneNumStatus: number;
  photoURI: string | null;
  openid: string | null;
  unionid: string | null;
  sex: number | null;
  city: string | null;
  province: string | null;
  company: string | null;
  position: string | null;
  industry: string | null;
  ccNum: number;
  status: number;
  channel: number | null;
  weixinNickname: string | null;
  salesCount: number;
  personInfoStatus: number;
  createdAt: string;
  updatedAt: string;
  unionidStatus: number;
}

/** Profile complete: every profile text the update call can set is filled. */
function personInfoComplete(u: UserRow): boolean {
  return [u.name, u.city, u.province, u.company, u.position, u.industry].every((v) => v !== null && v !== '') && u.sex !== null;
}

export function toPlatformUser(u: UserRow, salesCount: number, clock: Clock): PlatformUser {
  return {
    id: u.id,
    password: null,
    name: u.name,
    email: u.email,
    emailStatus: u.email_status,
    phoneNum: u.phone_num,
    phoneNumStatus: u.phone_num_status,
    photoURI: u.photo_uri,
    openid: u.openid,
    unionid: u.unionid,
    sex: u.sex,
    city: u.city,
    province: u.province,
    company: u.company,
    position: u.position,
    industry: u.industry,
    ccNum: u.cc_num,
    status: u.status,
    channel: u.channel,
    weixinNickname: u.weixin_nickname,
    salesCount,
    personInfoStatus: personInfoComplete(u) ? 1 : 0,
    createdAt: clock.format(u.created_at),
    updatedAt: clock.format(u.updated_at),
    unionidStatus: u.unionid ? 1 : 0,
  };
}
