// The e2e profiles of the workspace tools in a temp workspace, every other call denied, with
// `approval_timeout_s` and the rules given: by default reads allowed and writes asked for (so
// approval cards are on screen), as the keyboard, accessibility, approvals and exchanges specs use it.
export const READS_ALLOWED = `    - match: fs.read
      decision: allow
`;
export const WRITES_ASKED = `    - match: fs.write
      decision: approve
      reason: Changes to the workspace need a person's OK.
`;

export const workspaceToolsProfile = (name: string, timeoutS: number, rules = READS_ALLOWED + WRITES_ASKED) => `
name: ${name}
workspace: \${scratch}
tool_surface: friendly
servers:
  workspace:
    builtin: workspace-tools
policy:
  default: deny
  approval_timeout_s: ${timeoutS}
  rules:
${rules}`;

/** The keyboard and accessibility specs' profile: cards wait five minutes. */
export const keysProfile = (name: string) => workspaceToolsProfile(name, 300);
