// Renderer-side names for the contract's shapes (types only; the schemas stay in common/).
import type { z } from 'zod';
import type {
  AdvertisedToolSchema,
  ApprovalChoiceSchema,
  ApprovalOutcomeSchema,
  AuditSessionSchema,
  BufferStatsSchema,
  ClientConfigSchema,
  DecisionEventSchema,
  InboxNoticeSchema,
  LaunchSummarySchema,
  PendingApprovalSchema,
  ProfileSummarySchema,
  ServerStatusSchema,
  StderrLineSchema,
  TrafficEventSchema,
} from '../../common/host-api';

export type LaunchSummary = z.infer<typeof LaunchSummarySchema>;
export type ServerStatus = z.infer<typeof ServerStatusSchema>;
export type ProfileSummary = z.infer<typeof ProfileSummarySchema>;
export type PendingApproval = z.infer<typeof PendingApprovalSchema>;
export type InboxNotice = z.infer<typeof InboxNoticeSchema>;
export type ApprovalOutcome = z.infer<typeof ApprovalOutcomeSchema>;
export type ApprovalChoice = z.infer<typeof ApprovalChoiceSchema>;
export type DecisionEvent = z.infer<typeof DecisionEventSchema>;
export type AdvertisedTool = z.infer<typeof AdvertisedToolSchema>;
export type AuditSession = z.infer<typeof AuditSessionSchema>;
export type ClientConfig = z.infer<typeof ClientConfigSchema>;
export type TrafficEvent = z.infer<typeof TrafficEventSchema>;
export type StderrLine = z.infer<typeof StderrLineSchema>;
export type BufferStats = z.infer<typeof BufferStatsSchema>;
