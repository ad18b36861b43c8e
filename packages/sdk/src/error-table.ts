/**
 * Every error code the API answers, with its HTTP answers and its English and Chinese texts (docs/errors.md).
 * Generated from the server's src/http/error-codes.ts by `npm run docs:errors`: edit that table, not this file.
 */
export interface ErrorCodeSpec {
  readonly http: readonly { readonly status: number; readonly body: 'envelope' | 'error' }[];
  readonly en: string;
  readonly zh: string;
}

export const ERROR_CODES: Readonly<Record<string, ErrorCodeSpec>> = {
  'Bad Request': {
    http: [
      { status: 200, body: 'envelope' },
      { status: 400, body: 'envelope' },
    ],
    en: 'The request is malformed, or a parameter is missing or invalid',
    zh: '请求格式错误，或参数缺失、无效',
  },
  payload_too_large: { http: [{ status: 413, body: 'envelope' }], en: 'Request body is too large', zh: '请求体过大' },
  unsupported_media_type: {
    http: [{ status: 415, body: 'envelope' }],
    en: 'Unsupported Content-Type; send form fields or JSON',
    zh: '不支持的 Content-Type，请发送表单字段或 JSON',
  },
  internal_error: { http: [{ status: 500, body: 'envelope' }], en: 'Internal server error', zh: '服务器内部错误' },
  rate_limited: {
    http: [{ status: 429, body: 'envelope' }],
    en: 'Too many requests for this token, project or address; try again after the seconds given in Retry-After',
    zh: '该令牌、项目或地址的请求过于频繁，请在 Retry-After 给出的秒数后重试',
  },
  body_too_slow: {
    http: [{ status: 408, body: 'envelope' }],
    en: 'The request body arrived too slowly and was cut off; send it again faster or in smaller parts',
    zh: '请求体传输过慢，已被中断：请更快地重新发送，或分成更小的部分发送',
  },
  length_required: {
    http: [{ status: 411, body: 'envelope' }],
    en: 'A multipart body must be sent with its Content-Length',
    zh: 'multipart 请求体必须带有 Content-Length',
  },
  overloaded: {
    http: [{ status: 503, body: 'envelope' }],
    en: 'The server is overloaded and did nothing with the request: try again after the seconds given in Retry-After',
    zh: '服务器过载，未处理本次请求：请在 Retry-After 给出的秒数后重试',
  },
  access_denied: {
    http: [{ status: 403, body: 'error' }],
    en: 'No access token, or an invalid or expired one',
    zh: '缺少访问令牌，或令牌无效、已过期',
  },
  forbidden: {
    http: [
      { status: 403, body: 'error' },
      { status: 200, body: 'envelope' },
    ],
    en: 'Not allowed: the account is not activated or is disabled, or the caller may not do this',
    zh: '无权操作：账号未激活或已停用，或调用者无此权限',
  },
  NEED_AUTH: { http: [{ status: 200, body: 'envelope' }], en: 'No permission to call this API', zh: '无权调用此接口' },
  too_many_requests: {
    http: [{ status: 429, body: 'error' }],
    en: 'Too many requests; try again after the seconds given in Retry-After',
    zh: '请求过于频繁，请在 Retry-After 给出的秒数后重试',
  },
  invalid_request: {
    http: [
      { status: 400, body: 'error' },
      { status: 408, body: 'error' },
      { status: 411, body: 'error' },
      { status: 413, body: 'error' },
      { status: 415, body: 'error' },
    ],
    en: 'The request is malformed, or a parameter is missing or invalid',
    zh: '请求格式错误，或参数缺失、无效',
  },
  invalid_client: {
    http: [{ status: 400, body: 'error' }],
    en: 'Unknown client, wrong client secret, or malformed client credentials',
    zh: '客户端不存在、客户端密钥错误，或客户端凭据格式错误',
  },
  invalid_grant: {
    http: [{ status: 400, body: 'error' }],
    en: 'Invalid username or password, or an invalid or expired refresh token',
    zh: '用户名或密码错误，或刷新令牌无效、已过期',
  },
  unsupported_grant_type: { http: [{ status: 400, body: 'error' }], en: 'This grant_type is not supported', zh: '不支持此 grant_type' },
  code_not_correct: {
    http: [{ status: 400, body: 'error' }],
    en: 'The verification code is incorrect or has expired',
    zh: '验证码错误或已过期',
  },
  phone_num_existed: { http: [{ status: 400, body: 'error' }], en: 'The mobile number is already registered', zh: '该手机号已被注册' },
  email_existed: {
    http: [
      { status: 400, body: 'error' },
      { status: 200, body: 'envelope' },
    ],
    en: 'The e-mail is already registered',
    zh: '该电子邮箱已被注册',
  },
  signup_closed: {
    http: [{ status: 400, body: 'error' }],
    en: 'Sign-up is closed on this server: ask a project administrator to add you',
    zh: '本服务器未开放注册：请联系项目管理员添加您',
  },
  user_not_found: { http: [{ status: 200, body: 'envelope' }], en: 'User not found', zh: '用户不存在' },
  sex_invalid: { http: [{ status: 200, body: 'envelope' }], en: 'sex must be 1 (male) or 2 (female)', zh: '性别必须为 1（男）或 2（女）' },
  email_invalid: { http: [{ status: 200, body: 'envelope' }], en: 'The e-mail address is not valid', zh: '电子邮箱地址无效' },
  app_not_found: { http: [{ status: 200, body: 'envelope' }], en: 'Project not found', zh: '项目不存在' },
  name_required: { http: [{ status: 200, body: 'envelope' }], en: 'name is required', zh: '名称为必填项' },
  name_invalid: { http: [{ status: 200, body: 'envelope' }], en: 'name is too long', zh: '名称过长' },
  description_invalid: { http: [{ status: 200, body: 'envelope' }], en: 'description is too long', zh: '描述过长' },
  share_domain_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: "share_domain must be a domain name (share.example.com): no scheme, path or port, not an IP address, not the server's own host",
    zh: 'share_domain 必须是域名（如 share.example.com）：不含协议、路径或端口，不能是 IP 地址，也不能是服务器自身的主机名',
  },
  share_domain_taken: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'The share domain is already claimed by another project',
    zh: '该分享域名已被其他项目占用',
  },
  svc_user_id_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'svc_user_id (svc-user-id) must be the caller, or an active member of the project',
    zh: 'svc_user_id（svc-user-id）必须是调用者本人，或项目的有效成员',
  },
  role_invalid: { http: [{ status: 200, body: 'envelope' }], en: 'role must be Admin or Sales', zh: '角色必须为 Admin 或 Sales' },
  post_roles_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'post_roles must name MarketPost and/or SalesPost',
    zh: 'post_roles 只能为 MarketPost 和/或 SalesPost',
  },
  member_not_found: { http: [{ status: 200, body: 'envelope' }], en: 'Member not found', zh: '成员不存在' },
  invitation_not_found: {
    http: [
      { status: 200, body: 'envelope' },
      { status: 400, body: 'error' },
    ],
    en: 'The invitation link is not valid: it expired, was revoked or was already used. Ask for a new one',
    zh: '邀请链接无效：已过期、已撤销或已被使用。请向邀请人索取新的链接',
  },
  setup_code_invalid: {
    http: [{ status: 400, body: 'error' }],
    en: "The setup code is missing or wrong: it is printed in the server's log when the server starts without any account",
    zh: '设置码缺失或错误：服务器在没有任何账户时启动，会在日志中打印设置码',
  },
  cannot_remove_owner: { http: [{ status: 200, body: 'envelope' }], en: 'The project creator cannot be removed', zh: '不能移除项目创建者' },
  customer_not_found: { http: [{ status: 200, body: 'envelope' }], en: 'Customer not found', zh: '客户不存在' },
  group_not_found: { http: [{ status: 200, body: 'envelope' }], en: 'Customer group not found', zh: '客户分组不存在' },
  datas_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'datas is not valid: every item needs a customerId, and no customer may appear twice',
    zh: 'datas 无效：每一项都需要 customerId，且同一客户不能出现两次',
  },
  field_exists: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'The project already has a customer field of this name',
    zh: '该项目已有同名的客户字段',
  },
  field_not_found: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'The project has no customer field of this name',
    zh: '该项目没有此名称的客户字段',
  },
  field_builtin: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'A built-in customer field keeps its type and read-only flag and cannot be removed',
    zh: '内置客户字段的类型和只读属性不能修改，且不能删除',
  },
  field_duplicates: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'Not made unique: some values are held by several customers (see duplicates)',
    zh: '无法设为唯一：部分取值已被多个客户使用（见 duplicates）',
  },
  target_svc_userid_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'The target is not a member of this project',
    zh: '目标用户不是该项目的成员',
  },
  srouceSvcUserId_mismatch: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'A customer is not owned by the given srouceSvcUserId',
    zh: '客户的负责人不是所给的 srouceSvcUserId',
  },
  srouceGroupId_mismatch: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'A customer is not in the given srouceGroupId',
    zh: '客户不在所给的 srouceGroupId 分组中',
  },
  sort_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: "The customer list's sort is not one of updated, created, name, last_activity, score, or its order not asc or desc",
    zh: '客户列表的排序字段须为 updated、created、name、last_activity、score 之一，顺序须为 asc 或 desc',
  },
  scoring_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'A scoring rule is not valid; nothing was changed',
    zh: '评分规则无效，未作任何更改',
  },
  group_by_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: "The hot leads' grouping is not company",
    zh: '热门线索的分组方式须为 company',
  },
  activity_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'The activity filter is not any, link_open, file_read, form_fill, site_visit or mail_open',
    zh: '活动筛选须为 any、link_open、file_read、form_fill、site_visit、mail_open 之一',
  },
  period_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'The activity period is invalid: a period such as 7d or 24h (at most 366 days), or since and until in epoch milliseconds with since before until, not both',
    zh: '活动时间段无效：请给出时长（如 7d 或 24h，最多 366 天），或以毫秒时间戳给出 since 与 until（since 早于 until），二者不可同时给出',
  },
  customer_not_in_group: { http: [{ status: 200, body: 'envelope' }], en: 'A customer is not in the source group', zh: '客户不在源分组中' },
  customer_already_merged: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'A customer has already been merged into another one',
    zh: '客户已被合并到其他客户',
  },
  merge_user_ids_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'merge_user_ids is not valid: between 1 and 100 customer ids besides the main customer, each once',
    zh: 'merge_user_ids 无效：除主客户外需要 1 到 100 个客户 id，不能重复',
  },
  merge_target_id_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'The merge target is not an active member of this project',
    zh: '合并后的负责人不是该项目的有效成员',
  },
  group_owner_mismatch: {
    http: [{ status: 200, body: 'envelope' }],
    en: "The target group belongs to another member than the customer's owner",
    zh: '目标分组属于客户负责人以外的成员',
  },
  link_not_found: { http: [{ status: 200, body: 'envelope' }], en: 'Link not found', zh: '链接不存在' },
  invalid_events: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'The batch was not stored: `errors` lists the invalid items ({index, msg})',
    zh: '该批次未保存：`errors` 列出了无效的条目（{index, msg}）',
  },
  client_id_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: "client_id is not valid: 3 to 64 letters, digits, dots, dashes or underscores, not the console's own, and not in use",
    zh: 'client_id 无效：须为 3 到 64 个字母、数字、点、连字符或下划线，不能是控制台自用的，且未被占用',
  },
  client_secret_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'client_secret is not valid: 16 to 200 printable characters without spaces',
    zh: 'client_secret 无效：须为 16 到 200 个不含空格的可打印字符',
  },
  client_name_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'name must be 1 to 100 characters',
    zh: 'name 须为 1 到 100 个字符',
  },
  client_not_found: { http: [{ status: 200, body: 'envelope' }], en: 'OAuth client not found', zh: 'OAuth 客户端不存在' },
  webhook_not_found: { http: [{ status: 200, body: 'envelope' }], en: 'Webhook not found', zh: 'Webhook 不存在' },
  url_required: { http: [{ status: 200, body: 'envelope' }], en: 'url is required', zh: 'url 为必填项' },
  url_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'url is not valid: too long, not an absolute http(s) URL, or an address the server may not call',
    zh: 'url 无效：过长、不是绝对的 http(s) 地址，或是服务器不允许访问的地址',
  },
  domain_types_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'domain_types names an unknown domain type',
    zh: 'domain_types 中有未知的领域类型',
  },
  too_many_webhooks: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'The project has as many webhooks as it may have',
    zh: '该项目的 Webhook 数量已达上限',
  },
  event_not_found: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'Event not found, or no longer stored, for this project',
    zh: '该项目没有此事件，或事件已不再保存',
  },
  import_file_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'The import file was not accepted: it is missing, too large, not CSV or XLSX, not in a readable encoding, or has no header row',
    zh: '导入文件未被接受：缺少文件、文件过大、不是 CSV 或 XLSX、编码无法识别，或没有表头行',
  },
  import_not_found: { http: [{ status: 200, body: 'envelope' }], en: 'Import not found', zh: '导入任务不存在' },
  bulk_not_found: { http: [{ status: 200, body: 'envelope' }], en: 'Bulk action not found', zh: '批量操作不存在' },
  bulk_too_many: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'Too many customers for one bulk action: narrow the selection or the filters',
    zh: '一次批量操作的客户过多：请缩小选择范围或筛选条件',
  },
  bulk_busy: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'This project already has as many bulk actions under way as it may: wait for one to finish',
    zh: '该项目进行中的批量操作已达上限：请等待其中一个完成',
  },
  bulk_file_not_ready: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'The bulk export has no file to download: it is not finished, it failed, or it is not an export',
    zh: '该批量导出没有可下载的文件：尚未完成、已失败，或不是导出',
  },
  post_not_open: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'Customers can be added only to a campaign that has not started sending: one scheduled for later, or paused',
    zh: '只能向尚未开始发送的群发邮件添加客户：定时发送的或已暂停的',
  },
  note_not_found: { http: [{ status: 200, body: 'envelope' }], en: 'Note not found', zh: '备注不存在' },
  note_not_yours: {
    http: [{ status: 200, body: 'envelope' }],
    en: "Only a note's author edits it; its author, the Master and Admins delete it",
    zh: '只有备注的作者可以编辑；作者、项目创建者和管理员可以删除',
  },
  content_required: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'content is required: a note needs some text',
    zh: 'content 为必填项：备注需要有内容',
  },
  content_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'content is not valid: at most 10,000 characters and at most 50 members mentioned',
    zh: 'content 无效：最多 10,000 个字符，最多提及 50 位成员',
  },
  task_not_found: { http: [{ status: 200, body: 'envelope' }], en: 'Task not found', zh: '任务不存在' },
  title_required: { http: [{ status: 200, body: 'envelope' }], en: 'title is required', zh: 'title 为必填项' },
  title_invalid: { http: [{ status: 200, body: 'envelope' }], en: 'title must be at most 200 characters', zh: 'title 最多 200 个字符' },
  due_at_required: { http: [{ status: 200, body: 'envelope' }], en: 'due_at is required', zh: 'due_at 为必填项' },
  due_at_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'due_at must be a date between 2000 and 2100: yyyy-MM-dd HH:mm:ss in the server time zone, or ISO 8601 with an offset',
    zh: 'due_at 须为 2000 年至 2100 年之间的时间：服务器时区的 yyyy-MM-dd HH:mm:ss，或带时差的 ISO 8601',
  },
  assignee_id_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'The assignee must be an active member of the project who may see the customer',
    zh: '负责人必须是项目的有效成员，且能查看该客户',
  },
  task_kind_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'kind must be call, email or todo',
    zh: 'kind 须为 call、email 或 todo',
  },
  task_status_invalid: { http: [{ status: 200, body: 'envelope' }], en: 'status must be open or done', zh: 'status 须为 open 或 done' },
  notes_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: "A task's notes must be at most 4,000 characters",
    zh: '任务说明最多 4,000 个字符',
  },
  time_zone_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'time_zone must be an IANA time zone such as Asia/Shanghai or Europe/Berlin',
    zh: 'time_zone 须为 IANA 时区，例如 Asia/Shanghai 或 Europe/Berlin',
  },
  call_time_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'call_time must be a past time: yyyy-MM-dd HH:mm:ss in the server time zone, or ISO 8601 with an offset',
    zh: 'call_time 须为过去的时间：服务器时区的 yyyy-MM-dd HH:mm:ss，或带时差的 ISO 8601',
  },
  direction_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'direction must be out (the member called) or in (the customer called)',
    zh: 'direction 须为 out（成员呼出）或 in（客户来电）',
  },
  sequence_not_found: { http: [{ status: 200, body: 'envelope' }], en: 'Sequence not found', zh: '序列不存在' },
  sequence_version_not_found: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'That version of the sequence does not exist',
    zh: '该序列版本不存在',
  },
  enrollment_not_found: { http: [{ status: 200, body: 'envelope' }], en: 'Enrollment not found', zh: '序列注册不存在' },
  enrollment_state_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'The enrollment is not in a state this allows: only an active one is paused, a paused one resumed, and a finished or exited one is over',
    zh: '该注册当前状态不允许此操作：只有进行中的可暂停，已暂停的可恢复，已完成或已退出的不可再改',
  },
  already_enrolled: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'The customer is already enrolled in this sequence (in any state): skipped',
    zh: '该客户已注册过此序列（任何状态），已跳过',
  },
  signals_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'Signals must be a comma list of deck_opened, deck_read, revisit, forward, hot_lead, task_due and mention',
    zh: '信号须为以逗号分隔的 deck_opened、deck_read、revisit、forward、hot_lead、task_due、mention',
  },
  read_threshold_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'read_threshold must be a whole percentage from 0 to 100',
    zh: 'read_threshold 须为 0 到 100 的整数百分比',
  },
  revisit_days_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'revisit_days must be a whole number of days from 1 to 90',
    zh: 'revisit_days 须为 1 到 90 的整数天数',
  },
  email_mode_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'email must be off, instant or digest',
    zh: 'email 须为 off、instant 或 digest',
  },
  digest_hour_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'digest_hour must be an hour from 0 to 23',
    zh: 'digest_hour 须为 0 到 23 的小时',
  },
  locale_invalid: { http: [{ status: 200, body: 'envelope' }], en: 'locale must be en-US or zh-CN', zh: 'locale 须为 en-US 或 zh-CN' },
  scope_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: "A project's scope must be mine, all or none",
    zh: '项目的范围须为 mine、all 或 none',
  },
  projects_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'projects must be a JSON array of at most 200 objects with app_id and optionally scope, signals and read_threshold',
    zh: 'projects 须为最多 200 个对象的 JSON 数组，每项含 app_id，可选 scope、signals、read_threshold',
  },
  notification_not_found: { http: [{ status: 200, body: 'envelope' }], en: 'Notification not found', zh: '通知不存在' },
  channel_not_found: { http: [{ status: 200, body: 'envelope' }], en: 'Notification channel not found', zh: '通知渠道不存在' },
  channel_kind_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'kind must be slack, wecom, dingtalk, feishu or webhook',
    zh: 'kind 须为 slack、wecom、dingtalk、feishu 或 webhook',
  },
  channel_secret_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'secret is not valid for this kind of channel: none for slack and wecom, else 1–200 printable ASCII characters',
    zh: '该类渠道的 secret 无效：slack 与 wecom 不需要，其余须为 1–200 个可打印 ASCII 字符',
  },
  channel_name_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: "A channel's name must be at most 100 characters",
    zh: '渠道名称最多 100 个字符',
  },
  playbook_not_found: { http: [{ status: 200, body: 'envelope' }], en: 'Playbook not found', zh: '自动规则不存在' },
  playbook_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'The playbook is not valid: its trigger, filters, actions or limit (the message says which)',
    zh: '自动规则无效：触发条件、筛选、动作或频次有误（详见消息）',
  },
  too_many_playbooks: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'The project has as many playbooks as it may have',
    zh: '该项目的自动规则数量已达上限',
  },
  too_many_channels: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'The project has as many notification channels as it may have',
    zh: '该项目的通知渠道数量已达上限',
  },
  room_not_found: { http: [{ status: 200, body: 'envelope' }], en: 'Data room not found', zh: '资料室不存在' },
  invalid_file: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'The file was not stored: it is missing, too large, not a PDF, PNG or JPEG, encrypted, unreadable, or has too many pages or pixels',
    zh: '文件未保存：缺少文件、文件过大、不是 PDF、PNG 或 JPEG、已加密、无法读取，或页数、像素过多',
  },
  file_not_found: { http: [{ status: 200, body: 'envelope' }], en: 'File not found', zh: '文件不存在' },
  page_not_found: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'The file has no such page, or its rendering failed',
    zh: '文件没有该页，或文件渲染失败',
  },
  page_not_ready: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'The page is still being rendered; try again shortly',
    zh: '该页仍在渲染中，请稍后重试',
  },
  post_not_found: { http: [{ status: 200, body: 'envelope' }], en: 'E-mail campaign not found', zh: '群发邮件不存在' },
  post_state_invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'The campaign cannot do that in its state: only a sending campaign pauses, only a paused one resumes, and a finished or cancelled one stays so',
    zh: '群发邮件当前状态不允许该操作：只有发送中的可暂停，只有已暂停的可恢复，已完成或已取消的不可更改',
  },
  no_recipients: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'No recipient can be mailed: the customers named are unknown, not yours, have no e-mail address, or their addresses are unsubscribed or bounced',
    zh: '没有可发送的收件人：客户不存在、不属于你、没有邮箱，或其邮箱已退订或退信',
  },
  mail_not_configured: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'The server sends no e-mail: SMTP_URL is not set',
    zh: '服务器未配置邮件发送：未设置 SMTP_URL',
  },
  account_email_missing: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'Your account has no e-mail address to send the test mail to',
    zh: '你的账号没有邮箱地址，无法接收测试邮件',
  },
  mail_send_failed: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'The SMTP server did not take the mail; nothing was sent',
    zh: '邮件服务器未接受该邮件，未发送',
  },
  mail_token_invalid: {
    http: [{ status: 400, body: 'envelope' }],
    en: 'The e-mail tracking address is not valid: forged, cut short, or of a campaign that no longer exists',
    zh: '邮件跟踪地址无效：伪造、不完整，或所属群发邮件已不存在',
  },
  link_unavailable: {
    http: [{ status: 400, body: 'envelope' }],
    en: 'The link does not open: it is unknown, disabled or expired, or locked by a passcode, an e-mail gate or an agreement not yet passed',
    zh: '链接无法打开：链接不存在、已停用或已过期，或尚未通过访问密码、邮箱验证或同意协议',
  },
  beacon_invalid: {
    http: [{ status: 400, body: 'envelope' }],
    en: 'The beacon is malformed: not a JSON object of type, seq, token, page and dwell within their limits',
    zh: '信标格式错误：不是字段 type、seq、token、page、dwell 均在限制内的 JSON 对象',
  },
  view_token_invalid: {
    http: [{ status: 400, body: 'envelope' }],
    en: 'The view token is not valid for this link: forged, made for another link, or expired',
    zh: '浏览令牌对该链接无效：伪造、属于其他链接，或已过期',
  },
  view_not_found: {
    http: [{ status: 400, body: 'envelope' }],
    en: 'No such view: a view starts with its open beacon',
    zh: '浏览不存在：浏览需以 open 信标开始',
  },
  form_invalid: {
    http: [{ status: 400, body: 'envelope' }],
    en: 'The form is not valid: a field is too long or malformed, or it names no one (a name, an e-mail address or a mobile number)',
    zh: '表单无效：有字段过长或格式错误，或未填写姓名、邮箱或手机号中的任何一项',
  },
  site_key_invalid: {
    http: [{ status: 400, body: 'envelope' }],
    en: 'The site key is unknown, or was replaced by a new one: take the snippet again from the project',
    zh: '站点密钥无效或已更换：请从项目重新获取代码片段',
  },
  origin_not_allowed: {
    http: [{ status: 403, body: 'envelope' }],
    en: "The page's origin is not on the project's list of site origins",
    zh: '页面来源不在项目的站点来源列表中',
  },
  collect_invalid: {
    http: [{ status: 400, body: 'envelope' }],
    en: 'The collect call is malformed: not a JSON object of visitor, visit and events within their limits',
    zh: '采集请求格式错误：不是访客、访问和事件均在限制内的 JSON 对象',
  },
  quota_exceeded: {
    http: [{ status: 429, body: 'envelope' }],
    en: "The project's daily quota of anonymous site records is spent; nothing was written: try again after the seconds given in Retry-After",
    zh: '项目今日的匿名站点记录配额已用完，未写入：请在 Retry-After 给出的秒数后重试',
  },
};

/** The texts of `<parameter>_<problem>` codes, by problem. */
export const FIELD_ERROR_CODES: Readonly<Record<string, ErrorCodeSpec>> = {
  invalid: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'The parameter is not valid: wrong type or format, too long, not an allowed value, or not a member',
    zh: '参数无效：类型或格式错误、过长、不是允许的取值，或不是项目成员',
  },
  required: { http: [{ status: 200, body: 'envelope' }], en: 'The parameter is required', zh: '该参数为必填项' },
  readonly: {
    http: [{ status: 200, body: 'envelope' }],
    en: 'The attribute is read-only and cannot be edited',
    zh: '该属性为只读，不能修改',
  },
  unique: { http: [{ status: 200, body: 'envelope' }], en: 'Another customer already has this value', zh: '已有其他客户使用该值' },
};

const FIELD_CODE = /_(invalid|required|readonly|unique)$/;

/** The table's entry for any code the API answers (a fixed code, else a field code), or undefined. */
export function errorCodeSpec(code: string): ErrorCodeSpec | undefined {
  if (Object.hasOwn(ERROR_CODES, code)) return ERROR_CODES[code];
  const problem = FIELD_CODE.exec(code)?.[1];
  return problem === undefined || code.length === problem.length + 1 ? undefined : FIELD_ERROR_CODES[problem];
}
