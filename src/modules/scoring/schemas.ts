import { Type } from '@sinclair/typebox';
import { PagingQuery } from '../../http/paging.ts';

const KINDS = ['deck_read', 'key_page', 'site_key_page', 'mail_click', 'form', 'return'] as const;
const Kind = Type.Union(
  KINDS.map((k) => Type.Literal(k)),
  { description: 'what earned the points: deck_read, key_page, site_key_page, mail_click, form or return' },
);

/** One reason of a score (docs/scoring.md, "Reasons"). */
export const ScoreReason = Type.Object({
  kind: Kind,
  text: Type.String({ description: 'in English, e.g. "read 8 of 10 pages of \'Pricing\' twice since Monday"' }),
  points: Type.Number({ description: 'the points it counts for now (decayed, one decimal)' }),
  count: Type.Integer({ description: 'how many times it happened' }),
  lastAt: Type.String({ description: 'when it last happened (yyyy-MM-dd HH:mm:ss)' }),
  firstAt: Type.String({ description: 'when it first happened, as far as the score remembers' }),
  title: Type.Optional(Type.String({ description: "the file's, link's or page's title" })),
  fileId: Type.Optional(Type.String()),
  linkId: Type.Optional(Type.String()),
  pages: Type.Optional(Type.Integer({ description: 'deck_read: the most pages read in one reading' })),
  pageCount: Type.Optional(Type.Integer({ description: "deck_read: the file's pages" })),
  keyPages: Type.Optional(Type.Array(Type.Integer(), { description: 'key_page: the key pages read' })),
  seconds: Type.Optional(Type.Integer({ description: 'key_page: the time on them that counted' })),
  url: Type.Optional(Type.String()),
  prefix: Type.Optional(Type.String({ description: 'site_key_page: the key page prefix the page is under' })),
});

export const ScoreFields = {
  score: Type.Number({ description: 'the engagement score now (decayed, one decimal; 0 for none): docs/scoring.md' }),
  scoreReasons: Type.Array(ScoreReason, { description: 'its largest contributions, at most five, largest first' }),
};

const Weights = Type.Object(
  {
    deck_read: Type.Number(),
    key_page_second: Type.Number(),
    site_key_page: Type.Number(),
    mail_click: Type.Number(),
    form: Type.Number(),
    return: Type.Number(),
  },
  { description: 'points per behaviour (key_page_second: per second)' },
);

const KeyPages = Type.Object({ fileId: Type.String(), pages: Type.Array(Type.Integer()) });

export const ScoringSettings = Type.Object({
  halfLifeDays: Type.Integer({ description: 'days after which a point counts half' }),
  deckShare: Type.Number({ description: "the share of a file's pages a reading must reach to count as the deck read" }),
  returnDays: Type.Integer({ description: 'a new view more than an hour and at most this many days after the previous one is a return' }),
  weights: Weights,
  keyPages: Type.Array(KeyPages, { description: "files' key pages" }),
  siteKeyPages: Type.Array(Type.String(), { description: "URL prefixes of the site's key pages" }),
  hotScore: Type.Number({ description: 'a rise that brings a score to at least this announces the customer as a hot lead (0: never)' }),
  keyPageCapSeconds: Type.Integer({ description: 'seconds on one key page that count in one reading, at most' }),
  recomputing: Type.Boolean({ description: "the project's customers are being scored again from their records" }),
  updatedAt: Type.Union([Type.String(), Type.Null()]),
});

const numberParam = (description: string) => Type.Optional(Type.Union([Type.Number(), Type.String({ maxLength: 32 })], { description }));
const jsonParam = (description: string) => Type.Optional(Type.Unknown({ description: `${description} (JSON text in a form)` }));

export const ScoringBody = Type.Object({
  half_life_days: numberParam('1 to 365 (camelCase halfLifeDays also taken, as for each setting)'),
  halfLifeDays: numberParam('as half_life_days'),
  deck_share: numberParam('0.05 to 1'),
  deckShare: numberParam('as deck_share'),
  return_days: numberParam('1 to 90'),
  returnDays: numberParam('as return_days'),
  weights: jsonParam('points by behaviour, each 0 to 1000: deck_read, key_page_second, site_key_page, mail_click, form, return'),
  key_pages: jsonParam('[{fileId, pages:[n…]}]: at most 100 files, 200 pages each, replacing the list'),
  keyPages: jsonParam('as key_pages'),
  site_key_pages: jsonParam("[prefix…]: at most 50 URL prefixes ('example.com/pricing', or a path '/pricing'), replacing the list"),
  siteKeyPages: jsonParam('as site_key_pages'),
  hot_score: numberParam('0 to 100000: the score a rise must reach to announce a hot lead (0: never)'),
  hotScore: numberParam('as hot_score'),
});

const Signal = Type.Object({
  kind: Kind,
  action: Type.String({ description: 'the behaviour action of the record' }),
  at: Type.String(),
  points: Type.Number(),
  title: Type.Optional(Type.String()),
  linkId: Type.Optional(Type.String()),
  fileId: Type.Optional(Type.String()),
  url: Type.Optional(Type.String()),
});

export const HotLead = Type.Object({
  customerId: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  company: Type.Union([Type.String(), Type.Null()]),
  email: Type.Union([Type.String(), Type.Null()]),
  phone: Type.Union([Type.String(), Type.Null()]),
  svcUserId: Type.String(),
  score: Type.Number(),
  rise: Type.Number({ description: 'the points of the latest rise' }),
  risenAt: Type.String({ description: 'when the score last rose' }),
  lastSignal: Type.Union([Signal, Type.Null()], { description: 'the signal of the latest rise' }),
  scoreReasons: Type.Array(ScoreReason),
});

export const HotAccount = Type.Object({
  account: Type.String({ description: "the company, the e-mail domain, or the customer's name when neither" }),
  accountType: Type.Union([Type.Literal('company'), Type.Literal('domain'), Type.Literal('customer')]),
  score: Type.Number({ description: "its members' scores summed" }),
  maxScore: Type.Number({ description: 'the largest of them' }),
  risenAt: Type.String({ description: 'the latest rise of a member' }),
  memberCount: Type.Integer(),
  members: Type.Array(HotLead, { description: 'at most 20, most recent rise first' }),
});

export const HotLeadsQuery = Type.Object({
  ...PagingQuery,
  svc_user_id: Type.Optional(Type.String({ maxLength: 16, description: "a member's platform user id, or all (the default)" })),
  group_by: Type.Optional(Type.String({ maxLength: 32, description: 'company: buying groups as one account' })),
});
