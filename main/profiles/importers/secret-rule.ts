// The secret rule of the importers (see common.ts's header): which names and shapes of values
// are secrets, and the pieces the profile builder uses to cut them out of a value.
const SECRET_WORD = /TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|APIKEY|PRIVATEKEY|ACCESSKEY/;

/** True for names like GITHUB_TOKEN, X-Api-Key, OPENAI_API_KEY, DB_PASSWORD, --auth-token. */
export function isSecretName(name: string): boolean {
  const parts = name.toUpperCase().split(/[^A-Z0-9]+/).filter(Boolean);
  if (SECRET_WORD.test(parts.join(''))) return true;
  return parts.some(
    (p) =>
      p === 'KEY' ||
      p === 'PAT' ||
      (p.endsWith('KEY') && p.length <= 10 && !/^(MON|HOT|TUR|DON|JOC)KEY$/.test(p)) ||
      p === 'AUTH' ||
      p === 'AUTHORIZATION' ||
      (p.startsWith('AUTH') && !p.startsWith('AUTHOR')) ||
      p.includes('CREDENTIAL'),
  );
}

/** Values that are plainly not secrets even under a secret-sounding name (flags, counts). */
export function isTrivialValue(v: string): boolean {
  return v === '' || /^(true|false|yes|no|on|off|none|null|\d{1,6})$/i.test(v);
}

export const TOKEN_SHAPES: RegExp[] = [
  /sk-[A-Za-z0-9_-]{16,}/g, // OpenAI / Anthropic (sk-ant-…, sk-proj-…)
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g, // GitHub tokens
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, // Slack
  /\bglpat-[A-Za-z0-9_-]{20,}/g, // GitLab
  /\bAKIA[0-9A-Z]{16}\b/g, // AWS access key id
  /\bAIza[0-9A-Za-z_-]{35}/g, // Google API key
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, // JWT
  /\b[0-9a-fA-F]{32,}\b/g, // long hex
  /[A-Za-z0-9+_-]{40,}={0,2}/g, // long base64(url); checked for mixed case and digits below
];

/** `Bearer x`, `Basic x`, `Token x` anywhere in a literal: the credential after the scheme. */
export const AUTH_SCHEME = /\b(Bearer|Basic|Token)(\s+)([A-Za-z0-9._~+/=-]{8,})/g;
/** Flags that take a `Name: value` header (mcp-remote, curl-like wrappers). */
export const HEADER_FLAG = /^(--header|--headers|-H|--http-header)$/i;
export const HEADER_FLAG_EQ = /^(--header|--headers|-H|--http-header)=(.*)$/is;
/** An Authorization header as a bare argument, whatever flag came before it. */
export const AUTH_HEADER_ARG = /^(proxy-)?authorization\s*:/i;

export function looksLikeToken(match: string, re: RegExp): boolean {
  if (re === TOKEN_SHAPES[8]) return /[0-9]/.test(match) && /[a-fA-F]/.test(match);
  if (re === TOKEN_SHAPES[9]) return /[a-z]/.test(match) && /[A-Z]/.test(match) && /[0-9]/.test(match);
  return true;
}

/** Splits a Gatehouse-syntax string into literal text and `${…}` references. */
export function segments(value: string): Array<{ ref: boolean; text: string }> {
  const out: Array<{ ref: boolean; text: string }> = [];
  let lit = '';
  let i = 0;
  while (i < value.length) {
    if (value.startsWith('$${', i)) {
      // An escaped `${NAME}` is the source's own reference (a wrapper such as mcp-remote expands
      // it from its environment): a name, never a value to hide.
      const end = value.indexOf('}', i);
      if (end > 0 && /^\$\$\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(value.slice(i, end + 1))) {
        if (lit) out.push({ ref: false, text: lit });
        lit = '';
        out.push({ ref: true, text: value.slice(i, end + 1) });
        i = end + 1;
        continue;
      }
      lit += '$${';
      i += 3;
      continue;
    }
    if (value.startsWith('${', i)) {
      const end = value.indexOf('}', i);
      if (end > 0) {
        if (lit) out.push({ ref: false, text: lit });
        lit = '';
        out.push({ ref: true, text: value.slice(i, end + 1) });
        i = end + 1;
        continue;
      }
    }
    lit += value[i];
    i++;
  }
  if (lit) out.push({ ref: false, text: lit });
  return out;
}

export const WHOLE_ENV_REF = /^\$\{env:([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}$/;
export const WHOLE_SECRET_REF = /^\$\{secret:([A-Za-z_][A-Za-z0-9_]*)\}$/;
