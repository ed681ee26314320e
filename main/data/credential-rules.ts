// Credentials in common formats, recognised by secretlint's recommended rule set
// (@secretlint/secretlint-rule-preset-recommend: AWS, GCP, GitHub, Slack, npm, OpenAI, Anthropic,
// Linear, SendGrid, Shopify, 1Password, private keys, basic-auth and database URLs) rather than
// regexes of our own. The config is built once. Two of the preset's defaults are changed:
//  - the AWS rule's access-key-id scan is on (off by default: a bare `AKIA…` id is what a file an
//    agent reads most often holds, without the `aws_secret_access_key =` context);
//  - `filter-comments` is off: it honours `secretlint-disable` comments in the scanned text, and
//    here the text comes from a server or an agent, who could switch the scan off by saying so.
// lintSource is async and costs ~200 µs on 1 KB of text that holds nothing (measured here, Node
// 20, 2 cores), so a prefilter that every rule's match must pass keeps it off calls that carry no
// candidate at all (bench/data-scan.mjs measures both). secretlint itself is loaded on the first
// text the prefilter lets through: a gateway whose traffic never holds a candidate does not carry
// it (docs/gateway.md "Memory"; tests/integration/gateway-startup-imports.test.ts).
import type { lintSource } from '@secretlint/core';
import type { rules as presetRulesType } from '@secretlint/secretlint-rule-preset-recommend';

// The preset's rules one by one rather than the preset: its `rules` config honours options but
// not `disabled` (11.7.1: a `secretlint-disable` comment still switched the scan off), so the
// filter is left out of the list instead (credential-rules.test.ts tries the comment).
const FILTER_COMMENTS = '@secretlint/secretlint-rule-filter-comments';
const RULE_OPTIONS: Record<string, Record<string, unknown>> = { '@secretlint/secretlint-rule-aws': { enableIDScanRule: true } };
type Config = Parameters<typeof lintSource>[0]['options']['config'];

function configOf(presetRules: typeof presetRulesType): Config {
  return {
    rules: presetRules
      .filter((rule) => rule.meta.id !== FILTER_COMMENTS)
      .map((rule) => ({ id: rule.meta.id, rule, ...(RULE_OPTIONS[rule.meta.id] ? { options: RULE_OPTIONS[rule.meta.id] } : {}) })),
  };
}

let engine: Promise<{ lint: typeof lintSource; config: Config }> | undefined;
/** secretlint and the config, loaded and built once, on first use. */
function secretlint(): Promise<{ lint: typeof lintSource; config: Config }> {
  engine ??= Promise.all([import('@secretlint/core'), import('@secretlint/secretlint-rule-preset-recommend')]).then(([core, preset]) => ({ lint: core.lintSource, config: configOf(preset.rules) }));
  // A failed load is tried again next time rather than failing every scan for good.
  engine.catch(() => (engine = undefined));
  return engine;
}

/**
 * Text no rule of the preset can match has none of these. Each alternative is a literal every
 * match of some rule contains (read from the rules' patterns in the preset's 11.x source):
 * AWS ids and `secret…key =` / `account…id =`, PEM private keys, `://` (basic auth, database and
 * webhook URLs, x-oauth-basic), the token prefixes (GitHub, npm, Slack, OpenAI and Anthropic
 * `sk-`, Linear, SendGrid `SG.`, Shopify, 1Password `ops_`), npm's `_authToken=`, and GCP's
 * service-account `private_key`. credential-rules.test.ts runs one sample per rule through both.
 */
const CANDIDATE = new RegExp(
  [
    '\\b(?:A3T[A-Z0-9]|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA)[A-Z0-9]{16}',
    'key["\']?\\s*(?::|=>|=)',
    'account_?(?:id)?["\']?\\s*(?::|=>|=)',
    'private[ _]key',
    ':\\/\\/',
    'gh[pousr]_',
    'github_pat_',
    'npm_',
    '_authToken=',
    'xox[bpaor]-',
    'xapp-',
    'sk-',
    'lin_api_',
    'SG\\.',
    'shp(?:pa|ca|at|ss)_',
    'ops_ey',
  ].join('|'),
  'i',
);

/** Whether `text` could hold anything a rule matches (no false negatives; many false positives). */
export function mayHoldCredential(text: string): boolean {
  return CANDIDATE.test(text);
}

export interface CredentialMatch {
  /** The rule's short id: `@secretlint/secretlint-rule-github` → `github`. */
  rule: string;
  /** The rule's message id (`GITHUB_TOKEN`). */
  detail?: string;
  start: number;
  end: number;
}

/** Every credential the rules find in `text`, with its range; never the value. */
export async function findCredentials(text: string): Promise<CredentialMatch[]> {
  if (!mayHoldCredential(text)) return [];
  const { lint, config } = await secretlint();
  const result = await lint({
    source: { content: text, filePath: 'gatehouse-data-scan.txt', contentType: 'text' },
    options: { config, maskSecrets: true, noPhysicFilePath: true },
  });
  return result.messages.map((m) => ({
    rule: m.ruleId.replace(/^@secretlint\/secretlint-rule-/, ''),
    ...(m.messageId ? { detail: m.messageId } : {}),
    start: m.range[0],
    end: m.range[1],
  }));
}
