// A reader and validator for FIAM v0.2 documents, derived from the specimen Gatehouse is built from
// (../shared/contracts/fiam-specimen.yaml; a copy is tests/fixtures/contracts/fiam-specimen.yaml).
// Every key the specimen uses is here with the shape it has there; the few keys Gatehouse adds
// are named below as extensions (optional, so the specimen still reads). Unknown keys are refused:
// a typo in the export must fail its own check, not slip out as a new "kind". After the shapes,
// every reference (an owner, a contract, a port, a binding, a subject, an object_ref) must point at
// an entity of the right collection.
//
// Extensions (docs/fiam.md): `description` on nodes and contracts; `schema` (JSON Schema) on
// information shapes; `observed` on evidence (counts, first/last seen, the audit rows cited).
import { parse } from 'yaml';
import { z } from 'zod';

/** Entity ids: dotted lowercase words (`node.agent-host`, `operation.mcp.tools-list`). */
export const FIAM_ID = /^[a-z][a-z0-9-]*(\.[a-z0-9][a-z0-9_-]*)+$/;
/** Vocabulary terms: `fiam.<category>.<term>` (`fiam.protocol.json-rpc-2.0`). */
export const FIAM_TERM = /^fiam\.[a-z][a-z0-9-]*\.[a-z0-9][a-z0-9.-]*$/;

const Id = z.string().regex(FIAM_ID, { error: (i) => `expected an id like node.agent-host, got ${JSON.stringify(i.input)}` });
const Term = z.string().regex(FIAM_TERM, { error: (i) => `expected a FIAM term like fiam.protocol.mcp, got ${JSON.stringify(i.input)}` });
const Text = z.string().min(1);

const Citation = z.strictObject({
  session: Text,
  exchange: Text.optional(),
  agent_session: Text.optional(),
  audit_seq: z.number().int().min(0),
  at: z.iso.datetime(),
});

/** Extension: what the audit store saw, for `mode: fiam.evidence.observed`. */
const Observed = z.strictObject({
  count: z.number().int().min(1),
  errors: z.number().int().min(0).optional(),
  first_seen: z.iso.datetime(),
  last_seen: z.iso.datetime(),
  sessions: z.array(Text).min(1),
  first: Citation,
  last: Citation,
});

export const EVIDENCE_MODES = ['fiam.evidence.declared', 'fiam.evidence.inferred', 'fiam.evidence.observed'] as const;

const Evidence = z
  .strictObject({
    mode: z.enum(EVIDENCE_MODES),
    source: Text,
    confidence: z.number().min(0).max(1),
    observed: Observed.optional(),
  })
  .refine((e) => (e.mode === 'fiam.evidence.observed') === (e.observed !== undefined), {
    error: 'observed evidence carries `observed` (counts, first/last seen, citations), and only observed evidence does',
  });

const Node = z.strictObject({ id: Id, kind: z.literal('system-node'), name: Text, node_type: Term, description: Text.optional() });

const Participation = z.strictObject({ contract: Id, mode: z.enum(['requires', 'offers']), roles: z.array(Term).min(1) });
const Port = z.strictObject({ id: Id, owner: Id, participations: z.array(Participation).min(1) });

const Operation = z.strictObject({ id: Id, name: Text, interaction_style: Term });
const Contract = z.strictObject({
  id: Id,
  kind: z.literal('interface-contract'),
  name: Text.optional(),
  description: Text.optional(),
  purpose: z.array(Term).min(1),
  contract_forms: z.array(Term).optional(),
  operations: z.array(Operation).min(1),
  family_labels: z.array(Term).optional(),
});

const Binding = z.strictObject({
  id: Id,
  contract: Id,
  provider_port: Id,
  consumer_ports: z.array(Id).min(1),
  binding_profile: Term,
  communication_stack: z.array(z.strictObject({ role: Term, term: Term })).min(1),
  addressing: z.strictObject({ kind: Term, value: Text }),
  session_model: Term,
});

const Channel = z.strictObject({ id: Id, kind: z.literal('channel'), channel_type: Term, mediation: Term });

const Interaction = z.strictObject({
  id: Id,
  kind: z.literal('interaction').optional(),
  operation: Id,
  binding: Id,
  channel: Id,
  temporal_semantics: Term,
  participants: z.strictObject({ initiator: Id, responder: Id }),
  realization_status: Term.optional(),
});

const Facets = z.record(z.string().regex(/^[a-z_]+$/), z.union([Text, z.number()]));
const AssertionBase = { id: Id, subject: Id, predicate: Term, evidence: Evidence, polarity: z.enum(['asserted', 'denied']), facets: Facets.optional() };
const PropertyAssertion = z.strictObject({ ...AssertionBase, assertion_kind: z.literal('property'), value: z.union([Term, Text, z.number(), z.boolean()]) });
const RelationAssertion = z.strictObject({ ...AssertionBase, assertion_kind: z.literal('relation'), object_ref: Id });
const Assertion = z.discriminatedUnion('assertion_kind', [PropertyAssertion, RelationAssertion]);

const Shape = z.strictObject({
  id: Id,
  kind: z.literal('information-shape'),
  name: Text,
  shape_kind: Term,
  schema: z.record(z.string(), z.unknown()).optional(),
});

export const FiamDocumentSchema = z
  .strictObject({
    fiam_version: z.literal('0.2'),
    instance: z.strictObject({ id: Id, kind: z.literal('model'), title: Text, status: z.enum(['provisional', 'draft', 'final']), intent: Text }),
    nodes: z.array(Node).min(1),
    ports: z.array(Port),
    contracts: z.array(Contract),
    bindings: z.array(Binding),
    channels: z.array(Channel),
    interactions: z.array(Interaction),
    assertions: z.array(Assertion),
    information_shapes: z.array(Shape),
  })
  .superRefine((doc, ctx) => {
    const where = new Map<string, string>();
    const collections = ['nodes', 'ports', 'contracts', 'bindings', 'channels', 'interactions', 'information_shapes'] as const;
    for (const c of collections) {
      doc[c].forEach((e, i) => {
        if (where.has(e.id)) ctx.addIssue({ code: 'custom', path: [c, i, 'id'], message: `duplicate id ${e.id} (also in ${where.get(e.id)})` });
        else where.set(e.id, c);
      });
    }
    doc.contracts.forEach((c, i) =>
      c.operations.forEach((o, j) => {
        if (where.has(o.id)) ctx.addIssue({ code: 'custom', path: ['contracts', i, 'operations', j, 'id'], message: `duplicate id ${o.id}` });
        else where.set(o.id, 'operations');
      }),
    );
    doc.assertions.forEach((a, i) => {
      if (where.has(a.id)) ctx.addIssue({ code: 'custom', path: ['assertions', i, 'id'], message: `duplicate id ${a.id}` });
      else where.set(a.id, 'assertions');
    });
    const ref = (path: (string | number)[], id: string, ...allowed: string[]) => {
      const found = where.get(id);
      if (!found) ctx.addIssue({ code: 'custom', path, message: `${id} is not defined (expected one of the ${allowed.join(' or ')})` });
      else if (!allowed.includes(found)) ctx.addIssue({ code: 'custom', path, message: `${id} is one of the ${found}, expected one of the ${allowed.join(' or ')}` });
    };
    doc.ports.forEach((p, i) => {
      ref(['ports', i, 'owner'], p.owner, 'nodes');
      p.participations.forEach((x, j) => ref(['ports', i, 'participations', j, 'contract'], x.contract, 'contracts'));
    });
    doc.bindings.forEach((b, i) => {
      ref(['bindings', i, 'contract'], b.contract, 'contracts');
      ref(['bindings', i, 'provider_port'], b.provider_port, 'ports');
      b.consumer_ports.forEach((p, j) => ref(['bindings', i, 'consumer_ports', j], p, 'ports'));
    });
    doc.interactions.forEach((x, i) => {
      ref(['interactions', i, 'operation'], x.operation, 'operations');
      ref(['interactions', i, 'binding'], x.binding, 'bindings');
      ref(['interactions', i, 'channel'], x.channel, 'channels');
      ref(['interactions', i, 'participants', 'initiator'], x.participants.initiator, 'nodes');
      ref(['interactions', i, 'participants', 'responder'], x.participants.responder, 'nodes');
    });
    const anything = [...collections, 'operations', 'assertions'];
    doc.assertions.forEach((a, i) => {
      ref(['assertions', i, 'subject'], a.subject, ...anything);
      if (a.assertion_kind === 'relation') ref(['assertions', i, 'object_ref'], a.object_ref, ...anything);
    });
  });

export type FiamDocument = z.output<typeof FiamDocumentSchema>;
export type FiamAssertion = FiamDocument['assertions'][number];
export type FiamEvidence = FiamAssertion['evidence'];

/** Reads a FIAM YAML text; throws one Error listing every problem as `path: message`. */
export function readFiam(text: string, label = 'FIAM document'): FiamDocument {
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (err) {
    throw new Error(`${label}: not YAML: ${(err as Error).message}`);
  }
  const r = FiamDocumentSchema.safeParse(raw);
  if (!r.success) {
    const lines = r.error.issues.slice(0, 50).map((i) => `  ${i.path.join('.') || '(top)'}: ${i.message}`);
    throw new Error(`${label} is not a valid FIAM v0.2 document:\n${lines.join('\n')}`);
  }
  return r.data;
}

/**
 * The kinds a document uses, by category: the vocabulary a consumer must understand to read it.
 * The export is checked to use every kind the specimen uses (a superset), by this one function.
 */
export function fiamKinds(doc: FiamDocument): Record<string, Set<string>> {
  const k: Record<string, Set<string>> = {};
  const add = (cat: string, v: string | undefined) => {
    if (v !== undefined) (k[cat] ??= new Set()).add(v);
  };
  for (const n of doc.nodes) add('node_type', n.node_type);
  for (const p of doc.ports) for (const x of p.participations) for (const r of x.roles) add('port_participation', `${x.mode} ${r}`);
  for (const c of doc.contracts) {
    c.purpose.forEach((t) => add('contract_purpose', t));
    c.contract_forms?.forEach((t) => add('contract_form', t));
    c.family_labels?.forEach((t) => add('family_label', t));
    c.operations.forEach((o) => add('interaction_style', o.interaction_style));
  }
  for (const b of doc.bindings) {
    add('binding_profile', b.binding_profile);
    b.communication_stack.forEach((s) => add('communication_stack', `${s.role} ${s.term}`));
    add('addressing', b.addressing.kind);
    add('session_model', b.session_model);
  }
  for (const c of doc.channels) {
    add('channel_type', c.channel_type);
    add('mediation', c.mediation);
  }
  for (const x of doc.interactions) {
    add('temporal_semantics', x.temporal_semantics);
    add('realization_status', x.realization_status);
  }
  for (const a of doc.assertions) {
    add('assertion', `${a.assertion_kind} ${a.predicate}`);
    add('evidence_mode', a.evidence.mode);
    for (const [key, v] of Object.entries(a.facets ?? {})) if (key === 'role' || key === 'representation') add(`facet_${key}`, String(v));
    if (a.assertion_kind === 'property' && typeof a.value === 'string' && FIAM_TERM.test(a.value)) add('property_value', `${a.predicate} ${a.value}`);
  }
  for (const s of doc.information_shapes) add('shape_kind', s.shape_kind);
  return k;
}
