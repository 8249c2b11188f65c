import Ajv2020, { ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/**
 * The contract hook: every answer the e2e helpers receive from a documented operation is checked against the api's
 * own OpenAPI document (GET /v1/openapi.json): its status must be documented for the operation, its media type
 * documented for that status, and its JSON body valid against that schema. A mismatch fails the test that made
 * the call, naming the operation and what differs.
 */
interface Document {
  paths: Record<string, Record<string, { responses: Record<string, DocumentedResponse> }>>;
}

interface DocumentedResponse {
  headers?: Record<string, { required?: boolean }>;
  content?: Record<string, unknown>;
}

interface Contract {
  document: Document;
  ajv: Ajv2020;
  templates: { path: string; pattern: RegExp }[];
  validators: Map<string, ValidateFunction>;
}

const DOCUMENT_PATH = '/v1/openapi.json';
const CHECKED_PREFIXES = ['/v1/', '/console/api/'];
let contract: Promise<Contract> | undefined;

export interface ReceivedResponse {
  status: number;
  headers: Headers;
  /** The body as parsed JSON, the text of a non-JSON body, or null when empty. */
  body: unknown;
}

/** Throws when `response` to `method url` is not what the document says that operation answers. */
export async function checkContract(method: string, url: string, response: ReceivedResponse): Promise<void> {
  const { origin, pathname } = new URL(url);
  if (!CHECKED_PREFIXES.some((prefix) => pathname.startsWith(prefix))) return;
  const { document, ajv, templates, validators } = await contractOf(origin);
  const template = templates.find(({ pattern }) => pattern.test(pathname));
  const verb = method.toLowerCase();
  // An unknown route or method is the router's 404, not an operation of the contract.
  const operation = template && document.paths[template.path][verb];
  if (!template || !operation) return;
  const where = `${method.toUpperCase()} ${template.path} answered ${response.status}`;
  const documented = operation.responses[String(response.status)];
  if (!documented) throw new Error(`contract: ${where}, a status the OpenAPI document does not list for it`);
  for (const [name, header] of Object.entries(documented.headers ?? {}))
    if (header.required && !response.headers.has(name))
      throw new Error(`contract: ${where} without the ${name} header the OpenAPI document promises`);
  const mediaType = (response.headers.get('content-type') ?? '').split(';')[0].trim();
  if (!documented.content) {
    if (response.body !== null && response.body !== '')
      throw new Error(`contract: ${where} with a body, where the OpenAPI document says it has none`);
    return;
  }
  if (!(mediaType in documented.content))
    throw new Error(
      `contract: ${where} as ${mediaType || 'no content type'}; documented: ${Object.keys(documented.content).join(', ')}`,
    );
  if (mediaType !== 'application/json') return;
  const pointer = ['paths', template.path, verb, 'responses', String(response.status), 'content', mediaType, 'schema']
    .map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1'))
    .join('/');
  let validate = validators.get(pointer);
  if (!validate) {
    validate = ajv.compile({ $ref: `${DOCUMENT_PATH}#/${pointer}` });
    validators.set(pointer, validate);
  }
  if (!validate(response.body))
    throw new Error(
      `contract: ${where} with a body the OpenAPI document does not allow: ${ajv.errorsText(validate.errors, { separator: '; ' })}\n${JSON.stringify(response.body).slice(0, 2000)}`,
    );
}

/**
 * The document, read once per test file from the first api a check meets: every api of a suite runs the same code,
 * so one closing later (a shutdown test) is never asked for it. A read that fails is tried again at the next check.
 */
function contractOf(origin: string): Promise<Contract> {
  contract ??= loadContract(origin).catch((error: unknown) => {
    contract = undefined;
    throw error;
  });
  return contract;
}

async function loadContract(origin: string): Promise<Contract> {
  const answer = await fetch(`${origin}${DOCUMENT_PATH}`);
  if (answer.status !== 200) throw new Error(`contract: ${DOCUMENT_PATH} answered ${answer.status}`);
  const document = (await answer.json()) as Document;
  // The document is not itself a JSON Schema: its other keywords are ignored, its schemas compiled where used.
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(document, DOCUMENT_PATH);
  // Literal segments before parameters, so /v1/openapi.json is not taken for a parameter's value.
  const templates = Object.keys(document.paths)
    .sort((a, b) => a.split('{').length - b.split('{').length)
    .map((path) => ({
      path,
      pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }));
  return { document, ajv, templates, validators: new Map() };
}

/**
 * fetch with the contract hook: for the suites' own calls and the clients (OpenAI SDK, AI SDK) given it as their
 * fetch. A JSON answer is checked whole (read from a clone), any other by its status and media type, so a stream
 * is left to the caller untouched.
 */
export const checkedFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  const url = input instanceof Request ? input.url : String(input);
  const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
  const json = (response.headers.get('content-type') ?? '').startsWith('application/json');
  const body: unknown = json ? await response.clone().json() : null;
  await checkContract(method, url, { status: response.status, headers: response.headers, body });
  return response;
};
