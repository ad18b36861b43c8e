import { oauthError } from '../../http/errors.ts';
import { isEmail, isPhone } from '../../lib/formats.ts';
import { CONSOLE_CLIENT_ID, type ClientsService } from '../clients/service.ts';

/** What the accounts services share: the input types of sign-up and profile, and how a user is named. */

export interface RegisterInput {
  phoneNum?: string | undefined;
  email?: string | undefined;
  password?: string | undefined;
  channel?: number | undefined;
  nickname?: string | undefined;
  sex?: number | undefined;
  city?: string | undefined;
  province?: string | undefined;
  code?: string | undefined;
  /** The console's first sign-up on a server without accounts: the setup code the server logged (docs/accounts.md). */
  setupCode?: string | undefined;
}

export interface UpdateUserInput {
  user_id?: number | undefined;
  name?: string | undefined;
  sex?: number | undefined;
  city?: string | undefined;
  province?: string | undefined;
  company?: string | undefined;
  industry?: string | undefined;
  position?: string | undefined;
  email?: string | undefined;
}

/** A mobile number or an e-mail address: exactly one is set. */
export interface Identifier {
  phoneNum?: string | undefined;
  email?: string | undefined;
}

export function blank(v: string | undefined): v is undefined {
  return v === undefined || v.trim() === '';
}

/** A password of the length every account's must have. */
export function passwordLengthOk(password: string): boolean {
  return password.length >= 8 && password.length <= 128;
}

export const codeNotCorrect = () => oauthError('code_not_correct', 'The verification code is incorrect or has expired');

/** Whom a verification code is for: `email:<lower-case address>` or `phone:<number>`. */
export function codeTarget(input: Identifier): string {
  return input.email !== undefined ? `email:${input.email.toLowerCase()}` : `phone:${input.phoneNum ?? ''}`;
}

/** Exactly one of phoneNum / email, well formed. */
export function identifier(input: Identifier): Identifier {
  const phoneNum = blank(input.phoneNum) ? undefined : input.phoneNum.trim();
  const email = blank(input.email) ? undefined : input.email.trim();
  if ((phoneNum === undefined) === (email === undefined)) {
    throw oauthError('invalid_request', 'Exactly one of phoneNum or email is required');
  }
  if (phoneNum !== undefined && !isPhone(phoneNum)) throw oauthError('invalid_request', 'phoneNum is not a valid mobile number');
  if (email !== undefined && !isEmail(email)) throw oauthError('invalid_request', 'email is not a valid e-mail address');
  return { phoneNum, email };
}

/** A sign-in name (mobile number or e-mail) as the identifier it is; invalid_request when it is neither. */
export function usernameIdentifier(username: string | undefined): Identifier {
  if (blank(username)) throw oauthError('invalid_request', 'Missing parameter: username');
  const name = username.trim();
  if (name.includes('@') ? !isEmail(name) : !isPhone(name)) {
    throw oauthError('invalid_request', 'username must be a mobile number or an e-mail address');
  }
  return name.includes('@') ? { email: name } : { phoneNum: name };
}

/** The console's client, unless the operator revoked it (`rapport client revoke console`): what its calls check first. */
export function consoleClientOf(clients: Pick<ClientsService, 'isLive'>): () => Promise<string> {
  return async () => {
    if (!(await clients.isLive(CONSOLE_CLIENT_ID))) throw oauthError('invalid_client', 'The console client is revoked on this server');
    return CONSOLE_CLIENT_ID;
  };
}
