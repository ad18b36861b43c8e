/**
 * An import's column mapping (docs/data-operations.md): which customer attribute each column of
 * the file fills. Automatic from the header — an attribute's metadata name (`fixedPhone`), its
 * request parameter (`fixed_phone`), its title in the project's metadata (`座机`), or a common
 * English or Chinese label — compared without case, spaces, `_`, `-` and `*`; a mapping given with
 * the import wins for the columns it names (and takes their attributes from automatic ones). A column that maps to nothing is ignored; no two columns fill one
 * attribute (the first wins).
 */
export interface MappableAttribute {
  name: string;
  /** The request parameter (snake_case), when it differs from the name. */
  param?: string | undefined;
  /** The project's title of the attribute (Chinese by default). */
  title: string;
}

/** English labels of the built-in attributes, as a spreadsheet's header might say them. */
export const ENGLISH_LABELS: Record<string, string[]> = {
  name: ['name', 'full name', 'customer name', 'contact', 'contact name'],
  phone: ['mobile', 'mobile phone', 'mobile number', 'cell', 'cellphone', 'phone number', 'phone'],
  fixedPhone: ['landline', 'telephone', 'tel', 'office phone', 'fixed phone'],
  email: ['email', 'e-mail', 'email address', 'mail'],
  title: ['title', 'job title', 'position'],
  company: ['company', 'company name', 'organization', 'organisation'],
  province: ['province', 'state'],
  city: ['city'],
  county: ['county', 'district'],
  address: ['address', 'street'],
  sex: ['sex', 'gender'],
  ageState: ['age', 'age range', 'age state'],
  industry: ['industry'],
  intentionality: ['intention', 'intentionality', 'intent'],
  grade: ['grade', 'level', 'rating'],
  leadSource: ['lead source', 'source of lead'],
  groupId: ['group', 'group id'],
  svcUserId: ['owner', 'owner id', 'sales', 'sales user id'],
  promoterId: ['promoter', 'promoter id'],
};

/** Chinese labels a spreadsheet's header might use besides the project's titles. */
export const CHINESE_LABELS: Record<string, string[]> = {
  name: ['名字', '客户名称', '客户姓名', '联系人'],
  phone: ['手机号', '手机号码', '移动电话', '电话'],
  fixedPhone: ['固定电话', '座机号码'],
  email: ['邮件', '电子邮件', '电子邮箱', '邮箱地址'],
  title: ['职务', '职称'],
  company: ['公司', '单位', '企业', '企业名称'],
  address: ['地址'],
};

/** A header or label as compared: lower case, without spaces, `_`, `-`, `*` and a required-mark. */
export function normalizedLabel(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s_\-*（）()]/g, '');
}

/**
 * The attribute each column fills (null: ignored). `overrides` maps a header (as written, or
 * its normalized form) or a column number as text ("0", "1", …) to an attribute name, or to ""
 * to ignore the column.
 */
export function mapColumns(
  headers: readonly string[],
  attributes: readonly MappableAttribute[],
  overrides: Readonly<Record<string, string>> = {},
): (string | null)[] {
  const byLabel = new Map<string, string>();
  const add = (label: string, name: string) => {
    const key = normalizedLabel(label);
    if (key !== '' && !byLabel.has(key)) byLabel.set(key, name);
  };
  // Names and parameters first, then the project's titles, then English labels: an exact name wins.
  for (const a of attributes) add(a.name, a.name);
  for (const a of attributes) if (a.param) add(a.param, a.name);
  for (const a of attributes) add(a.title, a.name);
  for (const a of attributes)
    for (const label of [...(ENGLISH_LABELS[a.name] ?? []), ...(CHINESE_LABELS[a.name] ?? [])]) add(label, a.name);
  const known = new Set(attributes.map((a) => a.name));
  // A key that is a column's position names that column, never a header spelled like the number.
  const isPosition = (k: string) => /^\d+$/.test(k) && Number(k) < headers.length;
  const byHeader = new Map<string, string>();
  const normalizedOverrides = new Map<string, string>();
  for (const [k, v] of Object.entries(overrides)) {
    if (isPosition(k)) continue;
    byHeader.set(k, v);
    normalizedOverrides.set(normalizedLabel(k), v);
  }

  // Overridden columns first: what they name is theirs, whatever the automatic mapping of another column says.
  const chosen: (string | undefined)[] = headers.map((header, i) => {
    const target =
      (Object.hasOwn(overrides, String(i)) ? overrides[String(i)] : undefined) ??
      byHeader.get(header) ??
      normalizedOverrides.get(normalizedLabel(header));
    if (target === undefined || target === '') return target;
    return known.has(target) ? target : (byLabel.get(normalizedLabel(target)) ?? '');
  });
  const used = new Set<string>();
  for (const target of chosen) if (target) used.add(target);
  const claimed = new Set<string>();
  return headers.map((header, i) => {
    const override = chosen[i];
    if (override !== undefined) {
      if (override === '' || claimed.has(override)) return null;
      claimed.add(override);
      return override;
    }
    const target = byLabel.get(normalizedLabel(header));
    if (target === undefined || used.has(target)) return null;
    used.add(target);
    return target;
  });
}
