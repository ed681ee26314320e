// A profile for the keyboard and accessibility specs: the workspace tools in a temp workspace,
// reads allowed, writes asked for (so approval cards are on screen).
export const keysProfile = (name: string) => `
name: ${name}
workspace: \${scratch}
tool_surface: friendly
servers:
  workspace:
    builtin: workspace-tools
policy:
  default: deny
  approval_timeout_s: 300
  rules:
    - match: fs.read
      decision: allow
    - match: fs.write
      decision: approve
      reason: Changes to the workspace need a person's OK.
`;
