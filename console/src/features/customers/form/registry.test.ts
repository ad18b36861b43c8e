import { describe, expect, it } from 'vitest';
import { type MetadataField, fieldOfError, formFields, formValues, parseOptions, regionalFields, requestBody } from './registry.ts';

/** Items as the server answers a new project's metadata (recorded; a few of the defaults). */
const item = (name: string, type: string, rest: Partial<MetadataField> = {}): MetadataField => ({
  name,
  type,
  title: name,
  required: false,
  visiable: true,
  index: 0,
  defaultValue: null,
  optionValues: null,
  readonly: 0,
  isExt: false,
  ...rest,
});
const METADATA: MetadataField[] = [
  item('phone', 'phone', { title: '手机', index: 2 }),
  item('name', 'text', { title: '姓名', index: 1, required: true }),
  item('email', 'email', { index: 4 }),
  item('sex', 'option', {
    index: 5,
    defaultValue: '2',
    optionValues: '[{"value":"0","label":"女"},{"value":"1","label":"男"},{"value":"2","label":"未知"}]',
  }),
  item('groupId', 'group', { index: 6 }),
  item('svcUserId', 'owner', { index: 7 }),
  item('promoterId', 'member', { index: 8 }),
  item('createWay', 'option', { index: 9, readonly: 1, optionValues: '[{"value":6,"label":"手动创建"}]' }),
  item('utmMedium', 'text', { index: 10, readonly: 1, visiable: false }),
  item('address', 'text', { index: 11 }),
  item('hobby', 'colour', { index: 12, isExt: true, title: '爱好' }),
  item('broken', 'option', { index: 13, optionValues: '{not json' }),
];

describe('formFields', () => {
  it('orders by index, maps each type to its widget, and keeps the names as the API spells them', () => {
    const fields = formFields(METADATA, 'create');
    expect(fields.map((f) => f.name)).toEqual(['name', 'phone', 'email', 'sex', 'groupId', 'promoterId', 'address', 'hobby', 'broken']);
    const by = Object.fromEntries(fields.map((f) => [f.name, f]));
    expect(by.name).toMatchObject({ required: true, widget: { kind: 'text', inputType: 'text', multiline: false }, title: '姓名' });
    expect(by.phone?.widget).toEqual({ kind: 'text', inputType: 'tel', multiline: false });
    expect(by.email?.widget).toEqual({ kind: 'text', inputType: 'email', multiline: false });
    expect(by.address?.widget).toMatchObject({ multiline: true });
    expect(by.sex).toMatchObject({
      initialValue: '2',
      widget: {
        kind: 'select',
        options: [
          { value: '0', label: '女' },
          { value: '1', label: '男' },
          { value: '2', label: '未知' },
        ],
      },
    });
    expect(by.groupId?.widget).toEqual({ kind: 'group' });
    expect(by.promoterId?.widget).toEqual({ kind: 'member' });
    // An unknown type, and options that cannot be read, are shown read-only, never edited.
    expect(by.hobby).toMatchObject({ widget: { kind: 'readonly' }, isExt: true });
    expect(by.broken?.widget).toEqual({ kind: 'readonly' });
  });

  it('leaves read-only attributes out of a new customer and shows them, read-only, when editing; hidden ones never', () => {
    const edit = formFields(METADATA, 'edit');
    expect(edit.find((f) => f.name === 'createWay')).toMatchObject({ widget: { kind: 'readonly' }, required: false });
    expect(edit.find((f) => f.name === 'utmMedium')).toBeUndefined();
    expect(edit.find((f) => f.name === 'sex')?.initialValue).toBeUndefined();
  });
});

describe('requestBody', () => {
  const fields = formFields(METADATA, 'edit');
  it('sends filled fields of a new customer by name, trimmed; an edit also sends cleared ones as empty', () => {
    const create = formFields(METADATA, 'create');
    expect(requestBody(create, { name: ' Ada ', phone: '', sex: '1', hobby: 'x' }, 'create')).toEqual({ name: 'Ada', sex: '1' });
    const edit = requestBody(fields, { name: 'Ada', phone: undefined, createWay: '6' }, 'edit');
    expect(edit).toMatchObject({ name: 'Ada', phone: '' });
    expect(edit).not.toHaveProperty('createWay');
    expect(edit).not.toHaveProperty('hobby');
  });
});

describe('fieldOfError', () => {
  const fields = formFields(METADATA, 'create');
  it('finds the field a failure code names, by its name or its snake_case spelling', () => {
    expect(fieldOfError('phone_invalid', fields)).toBe('phone');
    expect(fieldOfError('name_required', fields)).toBe('name');
    expect(fieldOfError('group_id_invalid', fields)).toBe('groupId');
    expect(fieldOfError('promoterId_invalid', fields)).toBe('promoterId');
    expect(fieldOfError('email_unique', fields)).toBe('email');
  });
  it('is undefined for other codes and fields the form does not have', () => {
    expect(fieldOfError('app_not_found', fields)).toBeUndefined();
    expect(fieldOfError('utm_medium_readonly', fields)).toBeUndefined();
    expect(fieldOfError('_invalid', fields)).toBeUndefined();
  });
});

describe('parseOptions and formValues', () => {
  it('reads numbers as strings and labels defaulting to the value', () => {
    expect(parseOptions('[{"value":1},{"value":"2","label":"B"}]')).toEqual([
      { value: '1', label: '1' },
      { value: '2', label: 'B' },
    ]);
    expect(parseOptions('[1,2]')).toBeUndefined();
    expect(parseOptions(null)).toBeUndefined();
  });
  it("turns a customer's values into the widgets' strings", () => {
    const fields = formFields(METADATA, 'edit');
    expect(formValues(fields, { name: 'Ada', sex: 1, phone: null, email: '' })).toMatchObject({
      name: 'Ada',
      sex: '1',
      phone: undefined,
      email: undefined,
    });
  });
});

describe('custom fields', () => {
  const CUSTOM: MetadataField[] = [
    item('name', 'text', { index: 0, required: true }),
    item('seats', 'number', { index: 1, isExt: true, title: 'Seats' }),
    item('renewal', 'date', { index: 2, isExt: true, title: 'Renewal' }),
    item('tags', 'multiOption', {
      index: 3,
      isExt: true,
      title: 'Tags',
      optionValues: '[{"value":"vip","label":"VIP"},{"value":"press","label":"Press"}]',
    }),
  ];
  it('get number, date and multiple-choice widgets, read their values from exts, and send a multi-option as a list', () => {
    const fields = formFields(CUSTOM, 'edit');
    expect(fields.map((f) => f.widget.kind)).toEqual(['text', 'number', 'date', 'select']);
    expect(fields[3]?.widget).toMatchObject({ kind: 'select', multiple: true });
    const customer = { name: 'Ada', exts: { seats: 12, renewal: '2027-01-31', tags: ['vip'] } };
    expect(formValues(fields, customer)).toEqual({ name: 'Ada', seats: '12', renewal: '2027-01-31', tags: ['vip'] });
    expect(requestBody(fields, { name: 'Ada', seats: '13', renewal: '', tags: ['vip', 'press'] }, 'edit')).toEqual({
      name: 'Ada',
      seats: '13',
      renewal: '',
      tags: ['vip', 'press'],
    });
    expect(requestBody(fields, { name: 'New', tags: [] }, 'create')).toEqual({ name: 'New' });
  });
});

describe('the default fields of a region and a language', () => {
  const withChinese = [
    ...METADATA,
    item('province', 'text', { index: 10 }),
    item('county', 'text', { index: 11 }),
    item('city', 'text', { index: 12 }),
    item('ageState', 'option', { index: 13, defaultValue: '-1', optionValues: '[{"value":"-1","label":"未选择"}]' }),
  ];
  const names = (region: string | undefined, language: string, current?: Record<string, unknown>) =>
    regionalFields(formFields(withChinese, current ? 'edit' : 'create'), { region, language, current }).map((f) => f.name);

  it('shows province, county, sex and age band in a CN project or to a reader of Chinese, and leaves them out elsewhere', () => {
    for (const [region, language] of [
      ['CN', 'en-US'],
      ['GB', 'zh-CN'],
    ] as const)
      expect(names(region, language)).toEqual(expect.arrayContaining(['province', 'county', 'sex', 'ageState', 'city']));
    const gb = names('GB', 'en-US');
    expect(gb).toEqual(expect.arrayContaining(['name', 'phone', 'email', 'city']));
    for (const name of ['province', 'county', 'sex', 'ageState']) expect(gb).not.toContain(name);
  });

  it('keeps one a customer already has filled in, and one the project made required', () => {
    const edit = names('US', 'en-US', { province: 'California', sex: 2, ageState: -1 });
    expect(edit).toContain('province');
    expect(edit).not.toContain('sex');
    expect(edit).not.toContain('ageState');
    const required = regionalFields(
      formFields(
        withChinese.map((m) => (m.name === 'county' ? { ...m, required: true } : m)),
        'create',
      ),
      {
        region: 'US',
        language: 'en-US',
      },
    );
    expect(required.map((f) => f.name)).toContain('county');
  });
});
