// VS Code: `.vscode/mcp.json` (or the user-profile mcp.json), JSONC with `servers` and `inputs`.
// Checked against code.visualstudio.com/docs/copilot/reference/mcp-configuration: servers have
// `type` stdio | http | sse, command/args/env/envFile or url/headers; `inputs` declare values
// VS Code prompts for (promptString, `password: true` for secrets) and that servers use as
// `${input:id}`. Predefined variables such as `${workspaceFolder}` and `${env:NAME}` work too.
//
// Mapping: every `${input:id}` becomes `${secret:ID}` (ID = the input id as an environment
// variable name: `api-key` → API_KEY); `${workspaceFolder}` → `${workspace}`; `envFile` and
// `dev` (watch/debug settings) have no equivalent and are reported.
import { envNameFrom, isObject, type ProfileBuilder } from './common';
import { editorRefs } from './cursor';
import { importJsonFamily, peekJson, slashPath } from './json-family';
import { remoteSignsIn } from './oauth';
import type { Importer } from './types';

interface InputDecl {
  type?: string;
  description?: string;
  password?: boolean;
}

function inputsById(b: ProfileBuilder, root: Record<string, unknown>): Map<string, InputDecl> {
  const byId = new Map<string, InputDecl>();
  const inputs = root.inputs;
  if (inputs === undefined) return byId;
  if (!Array.isArray(inputs)) {
    b.warn('inputs: expected an array; ignored');
    return byId;
  }
  inputs.forEach((input, i) => {
    if (!isObject(input) || typeof input.id !== 'string') {
      b.warn(`inputs[${i}]: expected an object with an id; ignored`);
      return;
    }
    byId.set(input.id, {
      type: typeof input.type === 'string' ? input.type : undefined,
      description: typeof input.description === 'string' ? input.description : undefined,
      password: input.password === true,
    });
  });
  return byId;
}

export const vscodeImporter: Importer = {
  format: 'vscode',
  label: 'VS Code',
  detect(fileName, text) {
    if (/(^|\/)\.vscode\/mcp\.json$/.test(slashPath(fileName))) return true;
    const root = peekJson(text, fileName);
    return !!root && isObject(root.servers) && root.mcpServers === undefined;
  },
  importConfig(text, opts) {
    return importJsonFamily(text, opts, {
      format: 'vscode',
      // The client signs in to a remote server that answers 401; Gatehouse does the same.
      afterEntry: remoteSignsIn,
      label: 'VS Code',
      container: 'servers',
      ignoreTopLevel: (key) => key === 'inputs',
      hooks: (b, root) => {
        const inputs = inputsById(b, root);
        const seen = new Set<string>();
        const inputRef = (body: string): string | undefined => {
          const m = /^input:(.+)$/.exec(body);
          if (!m) return undefined;
          const id = m[1]!;
          const decl = inputs.get(id);
          const name = envNameFrom(id);
          if (!seen.has(id)) {
            seen.add(id);
            if (!decl) b.warn(`\${input:${id}}: no input with this id in \`inputs\`; imported as secret ${name}`);
            else if (decl.type && decl.type !== 'promptString') {
              b.warn(`inputs.${id}: a ${decl.type} input has no Gatehouse equivalent; imported as secret ${name}`);
            }
          }
          return b.referSecret(name, `inputs.${id}`, 'input', decl?.description);
        };
        return {
          translate: editorRefs(b, inputRef),
          extra(key, _value, _d, where) {
            if (key === 'envFile') {
              b.warn(`${where}: not imported (Gatehouse does not read env files; list the variables under env or inherit_env)`);
              return true;
            }
            if (key === 'dev') {
              b.warn(`${where}: VS Code's watch/debug settings have no Gatehouse equivalent; not imported`);
              return true;
            }
            return false;
          },
        };
      },
    });
  },
};
