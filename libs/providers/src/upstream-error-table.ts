// The published error table of the upstreams, one row per code (and message, where one code means two things),
// each citing its documentation page: which of them are the route's, the caller's, or worth another try.
import { ProviderFailure } from './provider.types';

/** Where each row of FAILURE_RULES comes from. */
const DOCS = {
  /** Alibaba Cloud Model Studio: Error codes (HTTP status, code, message, cause), English and Chinese editions. */
  dashScope: 'https://www.alibabacloud.com/help/en/model-studio/error-code',
  dashScopeZh: 'https://help.aliyun.com/zh/model-studio/error-code',
  openAi: 'https://platform.openai.com/docs/guides/error-codes',
} as const;

/** One row of the error table: an upstream code (and, where one code means two things, its message) → whose failure. */
interface FailureRule {
  /** Matches the whole code. */
  code: RegExp;
  /** Only answers whose message matches this. */
  message?: RegExp;
  /** Only answers with a 4xx status. */
  clientStatus?: true;
  /** Only DashScope's answers (native, or compatible mode's, which carry a body `request_id`), or only others'. */
  upstream?: 'dashscope' | 'other';
  failure: ProviderFailure;
  /** What the caller is told before the upstream's own message, where that alone would not say what to change. */
  describe?: string;
  /** The documentation page the row follows. */
  source: string;
}

/**
 * Upstream error codes whose meaning the HTTP status alone would misread, checked in order before the status:
 * DashScope answers an overdue bill with 429 and a caller's unreachable file with 400 or 500, OpenAI an account
 * out of credit with 429. docs/contracts.md ("Upstream errors") shows the table as the caller sees it.
 */
export const FAILURE_RULES: readonly FailureRule[] = [
  // Our account or subscription, not the caller's request: another route may work, this one will not.
  { code: /^(PrepaidBillOverdue|PostpaidBillOverdue)$/, failure: 'route', source: DOCS.dashScopeZh },
  {
    code: /^(Arrearage|CommodityNotPurchased|AllocationQuota\.FreeTierOnly)$/,
    failure: 'route',
    source: DOCS.dashScope,
  },
  // "Free allocated quota exceeded.": the free quota is used up and the model has no paid use; waiting does not cure it.
  {
    code: /^(Throttling\.AllocationQuota|insufficient_quota)$/,
    message: /Free allocated quota exceeded/i,
    failure: 'route',
    source: DOCS.dashScopeZh,
  },
  // Otherwise a TPS/TPM throttle ("Allocated quota exceeded" / compatible mode's "You exceeded your current quota").
  { code: /^insufficient_quota$/, upstream: 'dashscope', failure: 'retryable', source: DOCS.dashScopeZh },
  // OpenAI's own insufficient_quota: the account is out of credit.
  { code: /^insufficient_quota$/, upstream: 'other', failure: 'route', source: DOCS.openAi },
  { code: /^(InvalidApiKey|invalid_api_key)$/, failure: 'route', source: DOCS.dashScope },
  {
    code: /^(AccessDenied|AccessDenied\.Unpurchased|Model\.AccessDenied|Workspace\.AccessDenied)$/,
    failure: 'route',
    source: DOCS.dashScope,
  },
  // Content moderation refused the input (or what the model made of it): the caller's to change.
  {
    code: /^(DataInspectionFailed|data_inspection_failed|content_policy_violation)$/,
    failure: 'content',
    source: DOCS.dashScope,
  },
  // The caller's input file: the upstream could not fetch it or cannot read it; asking again gets the same answer.
  {
    code: /^InternalError\.Algo/,
    message: /Missing Content-Length of multimodal url/i,
    failure: 'request',
    describe: 'the upstream could not fetch an input file: its URL answered without a Content-Length',
    source: DOCS.dashScopeZh,
  },
  {
    code: /^(BadRequest\.InputDownloadFailed|InvalidURL(\.\w+)?)$/,
    failure: 'request',
    describe: 'the upstream could not fetch an input file',
    source: DOCS.dashScopeZh,
  },
  {
    code: /^(BadRequest\.)?UnsupportedFileFormat$/,
    failure: 'request',
    describe: 'the upstream does not support the format of an input file',
    source: DOCS.dashScopeZh,
  },
  // InternalError.Algo… on a 4xx is about the input ("<400> InternalError.Algo.InvalidParameter: …"), not the service.
  { code: /^InternalError\.Algo/, clientStatus: true, failure: 'request', source: DOCS.dashScopeZh },
  // Throttles and passing outages: worth another try after a pause.
  {
    code: /^(Throttling(\.\w+)?|LimitRequests|limit_requests|limit_burst_rate|rate_limit_exceeded)$/,
    failure: 'retryable',
    source: DOCS.dashScopeZh,
  },
  {
    code: /^(RequestTimeOut|ModelUnavailable|ServiceUnavailable|InternalError(\.\w+)*)$/,
    failure: 'retryable',
    source: DOCS.dashScope,
  },
];

/** The first row of FAILURE_RULES that fits an answer. */
export function ruleFor(
  status: number,
  code: string,
  message: string | undefined,
  upstream: 'dashscope' | 'other',
): FailureRule | undefined {
  return FAILURE_RULES.find(
    (rule) =>
      rule.code.test(code) &&
      (!rule.message || rule.message.test(message ?? '')) &&
      (!rule.clientStatus || (status >= 400 && status < 500)) &&
      (!rule.upstream || rule.upstream === upstream),
  );
}
