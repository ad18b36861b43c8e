import { Type } from '@sinclair/typebox';
import { PagingQuery } from '../../http/paging.ts';
import { Link, ViewLog } from '../histories/schemas.ts';
import { Note, Task } from '../tasks/schemas.ts';
import { Nullable } from '../../http/schema-types.ts';

const N = Nullable;
const S = N(Type.String());

export const CustomerIdParams = Type.Object({ customerId: Type.String({ maxLength: 64 }) });
export const AppCustomerParams = Type.Object({ appId: Type.String({ maxLength: 64 }), customerId: Type.String({ maxLength: 64 }) });

export const OverviewQuery = Type.Object({
  time_range_type: Type.Optional(
    Type.Integer({ enum: [1, 2, 3, 4], description: '1 all (default), 2 three months, 3 one month, 4 one week' }),
  ),
});

export const BehaviourQuery = Type.Object({
  ...PagingQuery,
  start_time: Type.Optional(Type.String({ maxLength: 40, description: 'yyyy-MM-dd HH:mm:ss (inclusive)' })),
  end_time: Type.Optional(Type.String({ maxLength: 40, description: 'yyyy-MM-dd HH:mm:ss (inclusive)' })),
});

const counter = Type.Integer();
export const Overview = Type.Object({
  total: counter,
  linkCount: counter,
  clueCount: counter,
  callCount: counter,
  smsCount: counter,
  sendCount: counter,
  accessSiteCount: counter,
  remoteDemoCount: counter,
  appLaunchCount: counter,
  submitFormCount: counter,
  downloadFileCount: counter,
  playMediaCount: counter,
  contactServiceCount: counter,
  appSubmitFormCount: counter,
  appDownloadFileCount: counter,
  appPlayMediaCount: counter,
  appContactServiceCount: counter,
  appViewAppPageCount: counter,
  webAccessData: Type.Array(Type.Object({ site: Type.String(), num: Type.Integer() })),
  customerTag: Type.Array(Type.Object({ tag: Type.String(), num: Type.Integer(), color: Type.String() })),
  appViewPageList: Type.Array(Type.Object({ num: Type.Integer(), title: Type.String() })),
});

const Loose = Type.Object({}, { additionalProperties: true });

export const BehaviourRecord = Type.Object({
  id: Type.String(),
  appId: Type.String(),
  svcUserId: S,
  dealUserId: S,
  dealUserName: S,
  action: Type.String(),
  params: S,
  remote_duration: N(Type.Integer()),
  description: S,
  when: Type.String(),
  content: S,
  clientName: S,
  clientVersion: S,
  os: S,
  osVersion: S,
  net: S,
  ip: S,
  location: S,
  province: S,
  city: S,
  type: Type.Integer(),
  createdTime: Type.String(),
  linkViewLog: Type.Optional(N(ViewLog)),
  linkDetail: Type.Optional(N(Link)),
  clue: Type.Optional(N(Loose)),
  handleState: Type.Optional(Type.String({ description: '1 audio processed, 0 in progress' })),
  audioUrl: Type.Optional(S),
  callTime: Type.Optional(S),
  duration: Type.Optional(N(Type.Integer())),
  endTime: Type.Optional(S),
  progressText: Type.Optional(Type.String()),
  progressVal: Type.Optional(Type.Integer()),
  webAccessLog: Type.Optional(N(Loose)),
  webPageViewLogs: Type.Optional(Type.Array(Loose)),
  // member_note and member_task: the note or task as it is now (docs/tasks.md).
  note: Type.Optional(N(Note)),
  task: Type.Optional(N(Task)),
});
