import { Type } from '@sinclair/typebox';
import { PagingQuery } from '../../http/paging.ts';
import { Nullable } from '../../http/schema-types.ts';

const N = Nullable;
const S = N(Type.String());
const I = N(Type.Integer());

export const CallsQuery = Type.Object({
  app_id: Type.String({ maxLength: 64, description: 'project id (required)' }),
  svc_user_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647, description: 'caller or receiver (platform user id)' })),
  call_status: Type.Optional(Type.Integer({ enum: [0, 1], description: '0 not connected, 1 connected' })),
  time_range_type: Type.Optional(
    Type.Integer({ enum: [-1, 1, 2, 3, 4], description: 'duration: -1 all, 1 0~1 min, 2 1~5 min, 3 5~15 min, 4 over 15 min' }),
  ),
  ...PagingQuery,
});

export const LinksQuery = Type.Object({
  svc_user_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647, description: 'links created by this platform user' })),
  with_url: Type.Optional(Type.Integer({ enum: [0, 1], description: '1 adds the full url' })),
  ...PagingQuery,
});

export const PostsQuery = Type.Object({
  app_id: Type.String({ maxLength: 64, description: 'project id (required)' }),
  owner_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647, description: 'sends owned by this platform user' })),
  ...PagingQuery,
});

export const LinkIdParams = Type.Object({ linkId: Type.String({ maxLength: 64 }) });

export const CallCustomer = Type.Object({
  id: Type.String(),
  appId: Type.String(),
  name: S,
  title: S,
  email: S,
  phone: S,
  company: S,
  status: Type.Integer(),
  mergedCustomerId: Type.String(),
  headportraitUrl: S,
  groupId: S,
  sex: I,
  address: S,
  ageState: I,
  fixedPhone: S,
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export const LinkCustomer = Type.Object({
  id: Type.String(),
  appId: Type.String(),
  name: S,
  title: S,
  email: S,
  phone: S,
  mergedCustomerId: Type.String(),
  headportraitUrl: S,
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export const Call = Type.Object({
  id: Type.String(),
  appId: Type.String(),
  audioUrl: S,
  m4aAudioUrl: S,
  duration: Type.Integer(),
  callStatus: Type.Integer(),
  audioStatus: Type.Integer(),
  callTime: Type.String(),
  endTime: S,
  asyncTaskId: S,
  fromUserType: Type.Integer(),
  fromUserId: Type.String(),
  toUserType: Type.Integer(),
  toUserId: Type.String(),
  photoURI: S,
  name: S,
  phoneNum: S,
  customer: N(CallCustomer),
});

export const Link = Type.Object({
  id: Type.String(),
  appId: Type.String(),
  name: S,
  shortName: S,
  creatorId: S,
  creatorName: S,
  conferenceId: S,
  remark: S,
  file1: S,
  file2: S,
  file3: S,
  file4: S,
  shareToken: Type.String(),
  formType: S,
  formPosition: I,
  type: Type.Integer(),
  website: S,
  clueId: S,
  src: S,
  formPopTime: S,
  isDirectional: Type.Integer(),
  customerId: S,
  newViewCount: Type.Integer(),
  newViewerCount: Type.Integer(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  officialAccountId: S,
  weixinGrantType: I,
  utmSource: S,
  utmMedium: S,
  utmCampaign: S,
  utmContent: S,
  utmTerm: S,
  linkViewLogCount: Type.Integer(),
  clueCount: Type.Integer(),
  viewerCount: Type.Integer(),
  tags: Type.Array(Type.String(), { description: 'interest tags (feed the overview customerTag)' }),
  status: Type.Integer({ description: '1 active, 0 disabled (its page answers 410 Gone); beyond the interface' }),
  expiresAt: { ...S, description: 'after this time the link no longer opens; null: never (beyond the interface)' },
  hasPasscode: Type.Boolean({ description: 'the viewer asks for a passcode (beyond the interface)' }),
  allowDownload: Type.Integer({ description: '1: the viewer offers the original file for download (beyond the interface)' }),
  emailGate: Type.Integer({ description: '1: the viewer asks for an e-mail address before the first page (beyond the interface)' }),
  embed: Type.Integer({ description: '1: a web page link is shown in a frame rather than redirected to (beyond the interface)' }),
  watermark: Type.Integer({
    description:
      "1: the viewer's page images carry the reader's e-mail address (or visitor id), the time and their address, and its download is a PDF of them (beyond the interface)",
  }),
  roomId: { ...S, description: 'the data room a link of type 4 shows; null for the other types (beyond the interface; docs/rooms.md)' },
  formFields: Type.Array(Type.String(), { description: "the form's fields, in order (beyond the interface)" }),
  emailVerify: Type.Integer({
    description: '1: the e-mail gate mails a six-digit code to the address and opens on it (beyond the interface)',
  }),
  allowList: Type.Array(Type.String(), {
    description: 'addresses and domains the e-mail gate lets through, none other; empty: anyone (beyond the interface)',
  }),
  denyList: Type.Array(Type.String(), { description: 'addresses and domains the e-mail gate refuses (beyond the interface)' }),
  agreement: { ...S, description: 'the text the reader accepts before the document; null: none (beyond the interface)' },
  agreementVersion: Type.Integer({
    description: "the agreement's version: 1 for its first text, one more for each change; 0: never had one (beyond the interface)",
  }),
  title: {
    ...S,
    description:
      "what the viewer shows its readers; null: the file's name, or the web page's host (beyond the interface: `name` is the team's own)",
  },
  url: Type.Optional(Type.String({ description: 'present only with with_url=1' })),
  customer: Type.Optional(N(LinkCustomer)),
});

export const Duration = Type.Object({
  id: Type.String(),
  fileId: S,
  fileName: S,
  fileURL: S,
  pageIndex: S,
  duration: S,
  linkViewLogId: Type.String(),
  sortIndex: I,
  createdAt: S,
  endedAt: S,
  total: I,
});

export const ViewLog = Type.Object({
  id: Type.String(),
  viewerId: S,
  viewerName: S,
  ip: S,
  location: S,
  system: S,
  client: S,
  linkId: Type.String(),
  linkName: S,
  clueId: S,
  viewTime: Type.String(),
  leaveTime: S,
  spreadId: S,
  utmSource: S,
  utmMedium: S,
  utmCampaign: S,
  utmContent: S,
  utmTerm: S,
  totalDuration: I,
  totalPage: I,
  canBeCreateCustomer: Type.Boolean(),
  durations: Type.Array(Duration),
});

export const Post = Type.Object({
  appId: Type.String(),
  ownerId: S,
  ownerName: S,
  postId: Type.String(),
  title: S,
  sendWay: Type.String(),
  sendTime: Type.String(),
  senderCount: Type.Integer(),
  successLogCount: Type.Integer(),
  viewLogCount: Type.Integer(),
  viewLogUserCount: Type.Integer(),
  linkViewLogCount: Type.Integer(),
  linkViewLogUserCount: Type.Integer(),
  returnLogCount: Type.Integer(),
  returnLogUserCount: Type.Integer(),
});
