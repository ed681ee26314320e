// The text of the desktop notification for a pending approval. Pure, so it is tested (and so a
// notification never shows arguments: they can be long and, redacted or not, belong in the window).
export interface ApprovalLike {
  id: string;
  kind?: 'tool' | 'sampling' | 'elicitation' | 'resource' | 'prompt';
  tool: string;
  advertisedName?: string;
  server: string;
  reason: string;
}

export function approvalNotificationText(req: ApprovalLike): { title: string; body: string } {
  const what =
    req.kind === 'sampling' ? 'Sampling request' : req.kind === 'elicitation' ? 'Elicitation request' : req.kind === 'resource' ? 'Resource read' : req.kind === 'prompt' ? 'Prompt' : 'Approval needed';
  const name = req.advertisedName && req.advertisedName !== req.tool ? `${req.advertisedName} (${req.tool})` : req.tool;
  const reason = req.reason.length > 200 ? `${req.reason.slice(0, 199)}…` : req.reason;
  return { title: `${what}: ${name}`, body: `${req.server} · ${reason}` };
}
