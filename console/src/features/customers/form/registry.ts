/**
 * The customer form, driven by the project's metadata (docs/metadata.md): each attribute's type picks
 * a widget and its rules; names stay exactly as the API spells them. Pure, so it is tested alone.
 */

/** A metadata item as the API answers it (the fields the form reads). */
export interface MetadataField {
  name: string;
  type: string;
  title: string;
  required: boolean;
  visiable: boolean;
  index: number;
  defaultValue: string | null;
  optionValues: string | null;
  readonly: number;
  isExt: boolean;
}

export interface FieldOption {
  value: string;
  label: string;
}

/** The widget of a field: a text box (with the input mode of its type), a choice, or read-only text. */
export type Widget =
  | { kind: 'text'; inputType: 'text' | 'tel' | 'email'; multiline: boolean }
  | { kind: 'select'; options: FieldOption[]; multiple?: boolean }
  /** A custom number or date field. */
  | { kind: 'number' }
  | { kind: 'date' }
  /** One of the owner's groups / a member of the project: the options come from the API. */
  | { kind: 'group' }
  | { kind: 'member' }
  | { kind: 'readonly' };

export interface FormField {
  name: string;
  /** The metadata's title (the console shows its own label for the built-in attributes). */
  title: string;
  widget: Widget;
  required: boolean;
  /** Filled in on a new customer. */
  initialValue: string | undefined;
  isExt: boolean;
}

export type FormMode = 'create' | 'edit';

/** Attributes set by the system, never in the form: the owner comes from the path (the acting member). */
const NOT_IN_FORM = new Set(['svcUserId']);
const MULTILINE = new Set(['address', 'source']);

/** The options of an option attribute; undefined when its JSON is not a list of {value, label}. */
export function parseOptions(json: string | null): FieldOption[] | undefined {
  if (json === null || json === '') return undefined;
  try {
    const parsed: unknown = JSON.parse(json);
    if (!Array.isArray(parsed)) return undefined;
    const options: FieldOption[] = [];
    for (const o of parsed) {
      if (typeof o !== 'object' || o === null) return undefined;
      const { value, label } = o as { value?: unknown; label?: unknown };
      if (value === undefined || value === null) return undefined;
      options.push({ value: String(value), label: label === undefined || label === null ? String(value) : String(label) });
    }
    return options;
  } catch {
    return undefined;
  }
}

function widgetOf(item: MetadataField): Widget {
  switch (item.type) {
    case 'text':
      return { kind: 'text', inputType: 'text', multiline: MULTILINE.has(item.name) };
    case 'phone':
    case 'fixedPhone':
      return { kind: 'text', inputType: 'tel', multiline: false };
    case 'email':
      return { kind: 'text', inputType: 'email', multiline: false };
    case 'option': {
      const options = parseOptions(item.optionValues);
      return options ? { kind: 'select', options } : { kind: 'readonly' };
    }
    case 'multiOption': {
      const options = parseOptions(item.optionValues);
      return options ? { kind: 'select', options, multiple: true } : { kind: 'readonly' };
    }
    case 'number':
      return { kind: 'number' };
    case 'date':
      return { kind: 'date' };
    case 'group':
      return { kind: 'group' };
    case 'owner':
    case 'member':
      return { kind: 'member' };
    default:
      // A type this console does not know is shown, never edited.
      return { kind: 'readonly' };
  }
}

/**
 * The fields of the form, in metadata order. Hidden attributes (`visiable` false) are left out; the
 * read-only ones (set by the system or ingestion) are left out of a new customer and shown, not
 * editable, on an existing one.
 */
export function formFields(metadata: readonly MetadataField[], mode: FormMode): FormField[] {
  return [...metadata]
    .sort((a, b) => a.index - b.index)
    .filter((m) => m.visiable && !NOT_IN_FORM.has(m.name))
    .filter((m) => mode === 'edit' || m.readonly !== 1)
    .map((m) => {
      const widget = m.readonly === 1 ? ({ kind: 'readonly' } as const) : widgetOf(m);
      return {
        name: m.name,
        title: m.title,
        widget,
        required: m.required && widget.kind !== 'readonly',
        initialValue: mode === 'create' && m.defaultValue !== null && m.defaultValue !== '' ? m.defaultValue : undefined,
        isExt: m.isExt,
      };
    });
}

/**
 * The request body of a save: every editable field by its metadata name. A new customer sends what
 * was filled in; an edit sends every editable field, '' for one that was cleared (which the server
 * refuses for a required one, on that field).
 */
export function requestBody(
  fields: readonly FormField[],
  values: Record<string, unknown>,
  mode: FormMode,
): Record<string, string | string[]> {
  const body: Record<string, string | string[]> = {};
  for (const f of fields) {
    if (f.widget.kind === 'readonly') continue;
    const raw = values[f.name];
    if (f.widget.kind === 'select' && f.widget.multiple) {
      const picked = Array.isArray(raw) ? raw.map(String) : [];
      if (picked.length > 0 || mode === 'edit') body[f.name] = picked;
      continue;
    }
    const text = raw === undefined || raw === null ? '' : String(raw).trim();
    if (text !== '' || mode === 'edit') body[f.name] = text;
  }
  return body;
}

const FIELD_CODE = /^(.+)_(required|invalid|readonly|unique)$/;
const camel = (snake: string) => snake.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

/**
 * The form field a failure code names (`phone_invalid`, `age_state_invalid`, `groupId_invalid`), or
 * undefined when the code is not a field's or names no field of the form.
 */
export function fieldOfError(code: string, fields: readonly FormField[]): string | undefined {
  const m = FIELD_CODE.exec(code);
  if (!m?.[1]) return undefined;
  const named = m[1];
  const names = new Set(fields.map((f) => f.name));
  if (names.has(named)) return named;
  const asCamel = camel(named);
  return names.has(asCamel) ? asCamel : undefined;
}

/** A customer's value of a field: a built-in one's key, or a custom field's in `exts`. */
export function customerValue(customer: Record<string, unknown>, field: { name: string; isExt: boolean }): unknown {
  if (!field.isExt) return customer[field.name];
  const exts = customer.exts as Record<string, unknown> | undefined;
  return exts?.[field.name];
}

/** A customer's stored values as the form's initial values (strings, as the widgets hold them; a multi-option's list). */
export function formValues(fields: readonly FormField[], customer: Record<string, unknown>): Record<string, string | string[] | undefined> {
  const values: Record<string, string | string[] | undefined> = {};
  for (const f of fields) {
    const v = customerValue(customer, f);
    if (Array.isArray(v)) values[f.name] = v.map(String);
    else values[f.name] = v === undefined || v === null || v === '' ? undefined : String(v);
  }
  return values;
}

/**
 * Built-in attributes of the original platform's Chinese form: province and county, sex and age band.
 * The form shows them in a project whose region is China, or to a user reading the console in Chinese;
 * elsewhere they are left out (the API's metadata keeps them), unless required or already filled in.
 */
const CHINESE_FORM_FIELDS = new Set(['province', 'county', 'sex', 'ageState']);
/** Values of those attributes that say nothing: the metadata defaults of sex (unknown) and age band (not selected). */
const SAYS_NOTHING: Readonly<Record<string, string>> = { sex: '2', ageState: '-1' };

export function regionalFields(
  fields: readonly FormField[],
  context: { region: string | undefined; language: string; current?: Record<string, unknown> | undefined },
): FormField[] {
  const chinese = context.region === 'CN' || context.language.toLowerCase().startsWith('zh');
  if (chinese) return [...fields];
  const filled = (name: string) => {
    const v = context.current?.[name];
    return v !== undefined && v !== null && v !== '' && String(v) !== SAYS_NOTHING[name];
  };
  return fields.filter((f) => !CHINESE_FORM_FIELDS.has(f.name) || f.required || filled(f.name));
}
