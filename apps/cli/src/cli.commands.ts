import {
  APPLICATION_TYPES,
  ApplicationsRepository,
  ApplicationType,
  ApiKeysRepository,
  AuditLogRepository,
  UsageDailyRepository,
  UsersRepository,
} from '@gateway/db';
import { AppConfig, formatNanos, sumNanos, UTC_DAY_PATTERN, utcDay, utcDaysBefore } from '@gateway/common';
import { UpstreamDrift, UpstreamReconciler, UsageReconciler } from '@gateway/ledger';
import { CallbackUrls } from '@gateway/outbound';
import {
  accountAccess,
  ApplicationInput,
  auditedApplication,
  auditedKeys,
  AuditTrail,
  changedFields,
  CLI_ACTOR,
  CredentialsService,
  NamedApiKeys,
  OperatorSetup,
  presentAuditRecord,
  ResealReport,
  SecretKeyResealer,
} from '@gateway/tenancy';
import { apiKeyExpiryProblem, apiKeyNameProblem } from '@gateway/contracts';
import { Injectable } from '@nestjs/common';
import { parseArgs, ParseArgsConfig } from 'node:util';

export const USAGE = `Usage: npm run gw -- <command> [options]

  apps:create --name <name> [--description <text>] [--type web|mobile|backend] [--scenario <text>]
              [--volume <calls/day>] [--daily-limit <n>] [--concurrency <n>] [--capabilities a,b] [--models a,b]
              [--ip-whitelist a,b] [--callback-url <url>] [--json]
      Creates an application and prints its App ID, API Key and Secret Key (shown once).
  apps:list [--json]
      Lists applications.
  keys:rotate --app <appId> [--grace-seconds <n>] [--json]
      Issues a new API key; the old one stops at once, or after the grace period.
  keys:list --app <appId> [--json]
      Lists the application's API keys: name, prefix, status, expiry, last use.
  keys:create --app <appId> --name <name> [--expires-at <ISO 8601>] [--json]
      Issues another named API key (at most 20 live per application), shown once.
  keys:revoke --app <appId> --key <keyId>
      Revokes one API key; the application's other keys keep working.
  usage --app <appId> [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--json]
      Calls, errors, tokens, images and cost per UTC day and model (default: the last 30 days), and their total;
      costs are exact decimals of the catalog currency (--json adds costNanos, integer billionths).
  usage:reconcile --day <YYYY-MM-DD> [--dry-run] [--json]
      Recomputes a day's usage from its task records, reports every roll-up that differs and repairs it.
  usage:reconcile --upstream --day <YYYY-MM-DD> [--json]
      What the gateway computed against what upstreams reported, per model and route: tokens, images, cost, and
      calls spent upstream but not delivered. Reads the day's task records; changes nothing.
  secrets:reencrypt [--json]
      Seals every stored Secret Key with the newest master key (the first of MASTER_KEYS) and counts those moved,
      those already current and those no listed key opens (named by App ID; exit code 1). Safe to run again.
  operators:setup-link [--url <origin>] [--hours <n>] [--if-none]
      Prints a one-time link whose sign-up creates an operator account (default: valid 24 hours; a new link revokes
      the previous unused one). With --if-none, prints nothing when an operator who can sign in exists (npm start
      runs it so). --url defaults to PUBLIC_BASE_URL, else http://127.0.0.1:<API_PORT>.
  users:promote --email <email>
      Makes a console account an operator (admin), e.g. on a database whose accounts predate operators.
  audit [--since YYYY-MM-DD] [--app <appId>]
      Prints the audit log as JSON lines, oldest first, from --since (default: 30 days ago) to today.`;

/** Operator commands over the same services the console uses. */
@Injectable()
export class CliCommands {
  constructor(
    private readonly credentials: CredentialsService,
    private readonly callbackUrls: CallbackUrls,
    private readonly applications: ApplicationsRepository,
    private readonly usage: UsageDailyRepository,
    private readonly users: UsersRepository,
    private readonly reconciler: UsageReconciler,
    private readonly upstreamReconciler: UpstreamReconciler,
    private readonly resealer: SecretKeyResealer,
    private readonly apiKeys: ApiKeysRepository,
    private readonly audit: AuditTrail,
    private readonly auditLog: AuditLogRepository,
    private readonly namedKeys: NamedApiKeys,
    private readonly operatorSetup: OperatorSetup,
    private readonly config: AppConfig,
  ) {}

  async run(argv: string[]): Promise<string> {
    const [command, ...rest] = argv;
    switch (command) {
      case 'apps:create':
        return this.createApp(rest);
      case 'apps:list':
        return this.listApps(rest);
      case 'keys:rotate':
        return this.rotateKey(rest);
      case 'keys:list':
      case 'keys:create':
      case 'keys:revoke':
        return this.namedKeyCommand(command, rest);
      case 'usage':
        return this.showUsage(rest);
      case 'usage:reconcile':
        return this.reconcileUsage(rest);
      case 'secrets:reencrypt':
        return this.reencryptSecrets(rest);
      case 'operators:setup-link':
        return this.operatorSetupLink(rest);
      case 'users:promote':
        return this.promote(rest);
      case 'audit':
        return this.exportAudit(rest);
      default:
        throw new UsageError(command ? `unknown command "${command}"` : 'no command given');
    }
  }

  private async createApp(args: string[]): Promise<string> {
    const { values } = parse(args, {
      name: { type: 'string' },
      description: { type: 'string' },
      type: { type: 'string' },
      scenario: { type: 'string' },
      volume: { type: 'string' },
      'daily-limit': { type: 'string' },
      concurrency: { type: 'string' },
      capabilities: { type: 'string' },
      models: { type: 'string' },
      'ip-whitelist': { type: 'string' },
      'callback-url': { type: 'string' },
      json: { type: 'boolean' },
    });
    if (!values.name?.trim()) throw new UsageError('apps:create needs --name');
    const type = (values.type ?? 'backend') as ApplicationType;
    if (!APPLICATION_TYPES.includes(type))
      throw new UsageError(`--type must be one of ${APPLICATION_TYPES.join(', ')}`);
    const input: ApplicationInput = {
      name: values.name.trim(),
      description: values.description ?? '',
      type,
      usageScenario: values.scenario ?? '',
      expectedVolume: count(values.volume, '--volume'),
      scope: { capabilities: list(values.capabilities), models: list(values.models) },
      dailyCallLimit: count(values['daily-limit'], '--daily-limit'),
      concurrencyLimit: count(values.concurrency, '--concurrency'),
      requestsPerMinute: 0,
      tokenQuota: 0,
      ipWhitelist: list(values['ip-whitelist']),
      callbackUrl: values['callback-url'],
    };
    if (input.callbackUrl) await this.callbackUrls.check(input.callbackUrl);
    const issued = await this.credentials.createApplication(input);
    await this.audit.record(CLI_ACTOR, {
      action: 'application.create',
      appId: issued.appId,
      changes: {
        ...changedFields(null, auditedApplication(issued.application)),
        api_keys: { before: [], after: auditedKeys(await this.apiKeys.listForApp(issued.appId)) },
      },
    });
    const shown = {
      appId: issued.appId,
      apiKey: issued.apiKey,
      secretKey: issued.secretKey,
      name: issued.application.name,
    };
    if (values.json) return JSON.stringify(shown);
    return [
      `Application "${shown.name}" created. Keep these now: the keys are not shown again.`,
      `  App ID:     ${shown.appId}`,
      `  API Key:    ${shown.apiKey}`,
      `  Secret Key: ${shown.secretKey}`,
    ].join('\n');
  }

  private async listApps(args: string[]): Promise<string> {
    const { values } = parse(args, { json: { type: 'boolean' } });
    const apps = await this.applications.list();
    const rows = apps.map((app) => ({
      appId: app._id,
      name: app.name,
      type: app.type,
      status: app.status,
      dailyCallLimit: app.dailyCallLimit,
      concurrencyLimit: app.concurrencyLimit,
      createdAt: new Date(app.createdAt).toISOString(),
    }));
    if (values.json) return JSON.stringify(rows);
    if (rows.length === 0) return 'No applications yet: npm run gw -- apps:create --name <name>';
    return rows
      .map(
        (r) =>
          `${r.appId}  ${r.name}  ${r.type}  ${r.status}  daily=${r.dailyCallLimit || '∞'}  concurrency=${r.concurrencyLimit || '∞'}`,
      )
      .join('\n');
  }

  private async showUsage(args: string[]): Promise<string> {
    const { values } = parse(args, {
      app: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      json: { type: 'boolean' },
    });
    if (!values.app) throw new UsageError('usage needs --app <appId>');
    const to = values.to ?? utcDay();
    const from = values.from ?? utcDaysBefore(to, 29);
    if (!UTC_DAY_PATTERN.test(from) || !UTC_DAY_PATTERN.test(to))
      throw new UsageError('--from and --to are UTC days, YYYY-MM-DD');
    const days = await this.usage.listForApp(values.app, from, to);
    const rows = days.map(({ appId: _app, ...row }) => ({ ...row, cost: formatNanos(row.costNanos) }));
    if (values.json) return JSON.stringify(rows);
    if (rows.length === 0) return `No usage for ${values.app} from ${from} to ${to}.`;
    const sum = (counter: 'calls' | 'errors' | 'promptTokens' | 'completionTokens' | 'images') =>
      rows.reduce((total, row) => total + row[counter], 0);
    const total = {
      day: 'total',
      model: '',
      calls: sum('calls'),
      errors: sum('errors'),
      promptTokens: sum('promptTokens'),
      completionTokens: sum('completionTokens'),
      images: sum('images'),
      cost: formatNanos(sumNanos(rows.map((row) => row.costNanos))),
    };
    const header =
      'day         model                         calls  errors  prompt_tokens  completion_tokens  images  cost';
    return [
      header,
      ...[...rows, total].map(
        (r) =>
          `${r.day.padEnd(10)}  ${r.model.padEnd(28)}  ${String(r.calls).padStart(5)}  ${String(r.errors).padStart(6)}  ${String(r.promptTokens).padStart(13)}  ${String(r.completionTokens).padStart(17)}  ${String(r.images).padStart(6)}  ${r.cost}`,
      ),
    ].join('\n');
  }

  private async reconcileUsage(args: string[]): Promise<string> {
    const { values } = parse(args, {
      day: { type: 'string' },
      'dry-run': { type: 'boolean' },
      upstream: { type: 'boolean' },
      json: { type: 'boolean' },
    });
    if (!values.day || !UTC_DAY_PATTERN.test(values.day) || Number.isNaN(Date.parse(values.day)))
      throw new UsageError('usage:reconcile needs --day <YYYY-MM-DD> (a UTC day)');
    if (values.upstream) {
      if (values['dry-run']) throw new UsageError('usage:reconcile --upstream changes nothing; leave out --dry-run');
      return this.reconcileUpstream(values.day, values.json === true);
    }
    const result = await this.reconciler.reconcile(values.day, { repair: !values['dry-run'] });
    if (values.json) return JSON.stringify(result);
    const lines = [`${result.day}: ${result.tasks} task records, ${result.differences.length} roll-ups differ.`];
    for (const { appId, model, recorded, rolledUp } of result.differences) {
      const changed = (Object.keys(recorded) as (keyof typeof recorded)[])
        .filter((counter) => recorded[counter] !== rolledUp[counter])
        .map((counter) => `${counter} ${rolledUp[counter]} → ${recorded[counter]}`);
      lines.push(`  ${appId} ${model}: ${changed.join(', ')}`);
    }
    if (result.repaired) lines.push('Repaired: the roll-ups now equal the task records.');
    else if (result.unsettled) lines.push(`Not repaired: ${result.unsettled}; run it again once the day has settled.`);
    else if (result.differences.length > 0) lines.push('Not repaired (--dry-run).');
    return lines.join('\n');
  }

  private async reconcileUpstream(day: string, json: boolean): Promise<string> {
    const result = await this.upstreamReconciler.reconcile(day);
    if (json) return JSON.stringify(result);
    const lines = [`${result.day}: ${result.tasks} task records, ${result.routes.length} upstream routes.`];
    if (result.routes.length > 0)
      lines.push(
        'model / route                                  tokens computed → reported   images computed → reported   cost computed → reported     spent, not delivered',
      );
    for (const row of result.routes) lines.push(...driftLines(row));
    return lines.join('\n');
  }

  private async reencryptSecrets(args: string[]): Promise<string> {
    const { values } = parse(args, { json: { type: 'boolean' } });
    const report = await this.resealer.reseal();
    const output = values.json ? JSON.stringify(report) : resealLines(report).join('\n');
    if (report.unreadable.length + report.deploymentSecrets.unreadable.length > 0) throw new CommandFailed(output);
    return output;
  }

  private async exportAudit(args: string[]): Promise<string> {
    const { values } = parse(args, { since: { type: 'string' }, app: { type: 'string' } });
    const since = values.since ?? utcDaysBefore(utcDay(), 30);
    if (!UTC_DAY_PATTERN.test(since) || Number.isNaN(Date.parse(since)))
      throw new UsageError('--since is a UTC day, YYYY-MM-DD');
    const lines: string[] = [];
    for await (const line of auditLines(this.auditLog, since, values.app)) lines.push(line);
    return lines.join('\n');
  }

  private async operatorSetupLink(args: string[]): Promise<string> {
    const { values } = parse(args, {
      url: { type: 'string' },
      hours: { type: 'string' },
      'if-none': { type: 'boolean' },
    });
    const hours = values.hours === undefined ? undefined : count(values.hours, '--hours');
    if (hours === 0 || (hours ?? 0) > 720) throw new UsageError('--hours must be from 1 to 720');
    if (values['if-none'] && (await this.operatorSetup.hasOperator())) return '';
    const origin = values.url ?? this.config.PUBLIC_BASE_URL ?? `http://127.0.0.1:${this.config.API_PORT}`;
    const { link, expiresAt } = await this.operatorSetup.issueLink(origin, hours);
    return [
      `Create the operator account of this gateway with this one-time link (until ${expiresAt.toISOString()}):`,
      `  ${link}`,
    ].join('\n');
  }

  private async promote(args: string[]): Promise<string> {
    const { values } = parse(args, { email: { type: 'string' } });
    if (!values.email) throw new UsageError('users:promote needs --email <email>');
    const user = await this.users.findByEmail(values.email.toLowerCase());
    if (!user) throw new UsageError(`no console account ${values.email}`);
    const promoted = await this.users.update(user._id, { role: 'admin', disabled: false });
    await this.audit.record(CLI_ACTOR, {
      action: 'user.update',
      userId: user._id,
      changes: changedFields(accountAccess(user), promoted && accountAccess(promoted)),
    });
    return `${user.email} is now an operator of this gateway.`;
  }

  private async rotateKey(args: string[]): Promise<string> {
    const { values } = parse(args, {
      app: { type: 'string' },
      'grace-seconds': { type: 'string' },
      json: { type: 'boolean' },
    });
    if (!values.app) throw new UsageError('keys:rotate needs --app <appId>');
    const app = await this.applications.findById(values.app);
    if (!app) throw new UsageError(`no application ${values.app}`);
    const keysBefore = auditedKeys(await this.apiKeys.listForApp(values.app));
    const apiKey = await this.credentials.rotateApiKey(
      values.app,
      count(values['grace-seconds'], '--grace-seconds') * 1000,
    );
    await this.audit.record(CLI_ACTOR, {
      action: 'key.rotate',
      appId: values.app,
      ownerId: app.ownerId,
      changes: { api_keys: { before: keysBefore, after: auditedKeys(await this.apiKeys.listForApp(values.app)) } },
    });
    return values.json
      ? JSON.stringify({ appId: values.app, apiKey })
      : `New API Key for ${values.app} (shown once):\n  ${apiKey}`;
  }

  /** keys:list, keys:create and keys:revoke, by the rules of the console's key routes (docs/contracts.md). */
  private async namedKeyCommand(command: 'keys:list' | 'keys:create' | 'keys:revoke', args: string[]) {
    const { values } = parse(args, {
      app: { type: 'string' },
      name: { type: 'string' },
      'expires-at': { type: 'string' },
      key: { type: 'string' },
      json: { type: 'boolean' },
    });
    if (!values.app) throw new UsageError(`${command} needs --app <appId>`);
    const app = await this.applications.findById(values.app);
    if (!app) throw new UsageError(`no application ${values.app}`);
    const owner = { appId: app._id, ownerId: app.ownerId };
    if (command === 'keys:list') {
      const keys = await this.namedKeys.list(app._id);
      if (values.json) return JSON.stringify(keys);
      return keys
        .map((key) =>
          [
            key.id,
            key.name,
            key.prefix,
            key.status,
            `expires ${key.expires_at ?? 'never'}`,
            `last used ${key.last_used_at ?? 'never'}`,
          ].join('  '),
        )
        .join('\n');
    }
    if (command === 'keys:revoke') {
      if (!values.key) throw new UsageError('keys:revoke needs --key <keyId>');
      const revoked = await this.namedKeys.revoke(owner, values.key, CLI_ACTOR);
      return values.json ? JSON.stringify(revoked) : `Revoked ${revoked.id} (${revoked.name})`;
    }
    const problem =
      apiKeyNameProblem(values.name) ??
      (values['expires-at'] === undefined ? null : apiKeyExpiryProblem(values['expires-at']));
    if (problem)
      throw new UsageError(`keys:create: ${problem.replace(/^expires_at/, '--expires-at').replace(/^name/, '--name')}`);
    const expiresAt = values['expires-at'] === undefined ? undefined : new Date(values['expires-at']);
    const created = await this.namedKeys.create(owner, { name: values.name ?? '', expiresAt }, CLI_ACTOR);
    return values.json
      ? JSON.stringify(created)
      : `New API Key "${created.name}" (${created.id}) for ${app._id} (shown once):\n  ${created.api_key}`;
  }
}

/** JSON lines of the audit log, a day at a time (each day one indexed read), oldest first. */
async function* auditLines(log: AuditLogRepository, since: string, appId: string | undefined): AsyncGenerator<string> {
  for (let day = since, today = utcDay(); day <= today; day = utcDaysAfter(day, 1)) {
    for (const record of await log.listDay(day))
      if (appId === undefined || record.appId === appId) yield JSON.stringify(presentAuditRecord(record));
  }
}

function utcDaysAfter(day: string, days: number): string {
  return utcDaysBefore(day, -days);
}

/** One route's drift: a line naming it, a line of figures; a side an upstream did not state shows `-`. */
function driftLines(row: UpstreamDrift): string[] {
  const { computed, reported, spentNotDelivered: spent } = row;
  const tokens = (side: { promptTokens?: number; completionTokens?: number }) =>
    side.promptTokens === undefined && side.completionTokens === undefined
      ? '-'
      : `${side.promptTokens ?? 0}+${side.completionTokens ?? 0}`;
  const stated = (value: number | undefined, show: (v: number) => string = String) =>
    value === undefined ? '-' : show(value);
  const pair = (left: string, right: string) => `${left} → ${right}`.padEnd(29);
  return [
    `${row.model} ${row.route} (${row.tasks} ${row.tasks === 1 ? 'task' : 'tasks'})`,
    `  ${''.padEnd(45)}${pair(tokens(computed), tokens(reported))}${pair(String(computed.images), stated(reported.images))}${pair(formatNanos(computed.costNanos), stated(reported.costNanos, formatNanos))}${spent.calls} (${formatNanos(spent.costNanos)})`,
  ];
}

function resealLines(report: ResealReport): string[] {
  const lines = [
    `Secret Keys sealed with master key ${report.keyId}: ${report.moved} moved, ${report.alreadyCurrent} already current, ${report.unreadable.length} unreadable.`,
  ];
  if (report.changedMeanwhile > 0)
    lines.push(
      `${report.changedMeanwhile} were reset while this ran and kept their new value; run it again to check them.`,
    );
  if (report.unreadable.length > 0) {
    lines.push(
      'No listed master key opens the Secret Key of these applications (list the key that sealed them, or reset their Secret Keys):',
    );
    for (const { appId, reason } of report.unreadable) lines.push(`  ${appId}: ${reason}`);
  }
  const secrets = report.deploymentSecrets;
  lines.push(
    `Deployment secrets (API-key checksum keys): ${secrets.moved} moved, ${secrets.alreadyCurrent} already current, ${secrets.unreadable.length} unreadable.`,
  );
  for (const { id, reason } of secrets.unreadable) lines.push(`  ${id}: ${reason}`);
  return lines;
}

export class UsageError extends Error {}

/** A command that ran to its end but found something wrong: its output is printed, and the exit code is 1. */
export class CommandFailed extends Error {
  constructor(readonly output: string) {
    super('command failed');
  }
}

type Flags = Record<string, string | undefined> & { json?: boolean };

function parse(args: string[], options: NonNullable<ParseArgsConfig['options']>): { values: Flags } {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }) as { values: Flags };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function count(value: string | undefined, flag: string): number {
  if (value === undefined) return 0;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`${flag} must be a whole number ≥ 0`);
  return n;
}

function list(value: string | undefined): string[] {
  return value
    ? value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : [];
}
