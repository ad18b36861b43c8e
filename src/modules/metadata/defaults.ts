/**
 * The default customer metadata every new project gets (docs/interface.md §9), in display order. Titles and
 * option labels follow the original platform's default configuration.
 */
export interface MetadataDefinition {
  name: string;
  type: 'text' | 'phone' | 'fixedPhone' | 'email' | 'option' | 'group' | 'owner' | 'member';
  title: string;
  required?: boolean;
  readonly?: boolean;
  visiable?: boolean;
  unique?: boolean;
  defaultValue?: string;
  options?: { value: string; label: string }[];
}

const opts = (pairs: [string, string][]) => pairs.map(([value, label]) => ({ value, label }));

export const INDUSTRIES = [
  '金融',
  '电信',
  '教育',
  '高科技',
  '政府',
  '制造业',
  '服务',
  '能源',
  '零售',
  '媒体',
  '娱乐',
  '咨询',
  '非盈利事业',
  '公用事业',
  '其它',
];
export const LEAD_SOURCES = ['400信息', '陌拜信息', '会员信息', '转介绍信息', '其他'];

export const DEFAULT_METADATA: MetadataDefinition[] = [
  { name: 'name', type: 'text', title: '姓名', required: true },
  { name: 'phone', type: 'phone', title: '手机' },
  { name: 'fixedPhone', type: 'fixedPhone', title: '座机' },
  { name: 'email', type: 'email', title: '邮箱' },
  { name: 'title', type: 'text', title: '职位' },
  { name: 'company', type: 'text', title: '公司名称' },
  { name: 'province', type: 'text', title: '省份' },
  { name: 'city', type: 'text', title: '城市' },
  { name: 'county', type: 'text', title: '区县' },
  { name: 'address', type: 'text', title: '详细地址' },
  {
    name: 'sex',
    type: 'option',
    title: '性别',
    defaultValue: '2',
    options: opts([
      ['0', '女'],
      ['1', '男'],
      ['2', '未知'],
    ]),
  },
  {
    name: 'ageState',
    type: 'option',
    title: '年龄段',
    defaultValue: '-1',
    options: opts([
      ['-1', '未选择'],
      ['0', '0-18'],
      ['1', '18-25'],
      ['2', '25-30'],
      ['3', '30-40'],
      ['4', '40-60'],
      ['5', '60-'],
    ]),
  },
  { name: 'industry', type: 'option', title: '行业', options: INDUSTRIES.map((v) => ({ value: v, label: v })) },
  {
    name: 'intentionality',
    type: 'option',
    title: '意向度',
    options: opts([
      ['1', '低'],
      ['2', '中'],
      ['3', '高'],
    ]),
  },
  {
    name: 'grade',
    type: 'option',
    title: '客户等级',
    options: opts([
      ['1', 'A（重点客户）'],
      ['2', 'B（普通客户）'],
      ['3', 'C（非优先客户）'],
    ]),
  },
  { name: 'leadSource', type: 'option', title: '线索来源', options: LEAD_SOURCES.map((v) => ({ value: v, label: v })) },
  { name: 'groupId', type: 'group', title: '客户分组' },
  { name: 'svcUserId', type: 'owner', title: '所属销售' },
  { name: 'promoterId', type: 'member', title: '推广人' },
  {
    name: 'createWay',
    type: 'option',
    title: '创建方式',
    readonly: true,
    options: opts([
      ['0', '其他'],
      ['1', '登录'],
      ['2', '咨询客服'],
      ['3', '关注公众号'],
      ['4', '400电话'],
      ['5', '表单填写'],
      ['6', '手动创建'],
      ['7', '批量上传'],
      ['8', 'CRM产品同步'],
      ['9', 'CRM插件同步'],
      ['11', '注册'],
    ]),
  },
  {
    name: 'platform',
    type: 'option',
    title: '平台',
    readonly: true,
    options: opts([
      ['pc_web', 'PC网页'],
      ['mobile_web', '移动网页'],
      ['app', 'APP'],
      ['weixin', '微信'],
    ]),
  },
  { name: 'from', type: 'text', title: '来源', readonly: true },
  { name: 'utmMedium', type: 'text', title: '媒介', readonly: true, visiable: false },
  { name: 'utmCampaign', type: 'text', title: '活动', readonly: true, visiable: false },
  { name: 'utmContent', type: 'text', title: '内容', readonly: true, visiable: false },
  { name: 'buyedKeyword', type: 'text', title: '购买关键词', readonly: true, visiable: false },
  { name: 'searchKeyword', type: 'text', title: '搜索词', readonly: true, visiable: false },
  { name: 'fromContentTitle', type: 'text', title: '来源内容标题', readonly: true },
  { name: 'fromContentLink', type: 'text', title: '来源内容链接', readonly: true },
  { name: 'fromProvince', type: 'text', title: '来源省份', readonly: true },
  { name: 'fromCity', type: 'text', title: '来源城市', readonly: true },
  {
    name: 'getWay',
    type: 'option',
    title: '获取方式',
    readonly: true,
    options: opts([
      ['0', '免费'],
      ['1', '付费'],
    ]),
  },
  { name: 'source', type: 'text', title: '客户来源', readonly: true },
];
