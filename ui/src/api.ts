// The window's one door to Rust: every Tauri command, typed. The shapes mirror
// the service's views (crates/keyapp/src/service/manage.rs, records.rs) and the
// commands of src-tauri/src/commands.rs; nothing else in the window calls invoke.
import { invoke } from "@tauri-apps/api/core";

export interface PendingItem {
  id: string;
  kind: string;
  agent_name: string;
  fingerprint: string;
  created_at: number;
  expires_at: number;
  /** A pairing whose local user keeps having pairings declined or unanswered: the service's sentence. */
  churn?: string;
}

export type PromptStatus = "pending" | "approved" | "declined" | "expired" | "withdrawn" | "unpaired";

export interface Attention {
  kind: "unverified_identity" | "price" | "price_limit" | "place_away" | "reconfirmation" | "answer_by" | "retention";
  /** The service's own words for the detail (a price, a place, a duration); shown as text. */
  detail?: string;
}

export interface Prompt {
  id: string;
  kind: string;
  status: PromptStatus;
  agent_name: string;
  fingerprint: string;
  consent_text: string;
  created_at: number;
  expires_at: number;
  label?: string;
  attention?: Attention[];
  /** A pairing whose local user keeps having pairings declined or unanswered: the service's sentence. */
  churn?: string;
}

export interface AgentView {
  jkt: string;
  name: string;
  fingerprint: string;
  paired_at: number;
  last_request_at?: number;
  last_request_kind?: string;
}

export interface CredentialView {
  jti: string;
  kind: string;
  aud: string[];
  exp: number;
  status: "active" | "expired" | "revoked";
  remaining?: number;
  /** Hosted status (docs/hosted-status.md): what the status service has not acknowledged yet. */
  publication?: "registration_pending" | "revocation_pending";
  /** `publication` in the person's words, formatted by the service from ui.ftl. */
  publication_note?: string;
  /** How the OS confirmed the person's yes ("polkit"); absent when no one was asked. */
  confirmed_by?: string;
  /** `confirmed_by` in the person's words, from ui.ftl. */
  confirmed?: string;
}

export interface HistoryEntry {
  at: number;
  event: string;
  subject: string;
  detail: string;
  /** How the OS confirmed the person's yes ("polkit"), on an approval's entries. */
  confirmed_by?: string;
  /** `confirmed_by` in the person's words, from ui.ftl. */
  confirmed?: string;
}

export interface Contact {
  principal: string;
  name: string;
  relationship?: string;
}

export interface AttestationView {
  iss: string;
  exp: number;
  compact: string;
}

export interface Settings {
  principal: string;
  jwk: Record<string, string>;
  status_public_base: string;
  keystore: "os" | "file";
  consent_language: string;
}

/** A business met at another domain than it was first verified at (§2.2). */
export interface HostChangeView {
  host_id: string;
  bound_domain: string;
  domain: string;
  seen_at: number;
  /** The change in the person's words (host-change in locales/en/ui.ftl and locales/fr/ui.ftl). */
  words: string;
}

/** Where opening the key stands (src-tauri/src/unlock.rs GateView). */
export type GateView =
  | { state: "starting" }
  | { state: "asking"; purpose: "unlock" | "create"; problem: "wrong" | "mismatch" | "empty" | null }
  | { state: "checking" }
  | { state: "unlocked"; route: string | null }
  | { state: "failed"; message: string };

export interface UiStrings {
  lang: string;
  strings: Record<string, string>;
}

/** A refusal from the service (§9 style): e.g. INVALID_STATE / not_pending. */
export interface CommandError {
  code: string;
  reason: string;
  message: string;
}

export function isCommandError(e: unknown): e is CommandError {
  return typeof e === "object" && e !== null && "code" in e && "reason" in e && "message" in e;
}

export const api = {
  pending: () => invoke<PendingItem[]>("pending"),
  prompt: (id: string) => invoke<Prompt>("prompt", { id }),
  answer: (id: string, approve: boolean) => invoke<unknown>("answer", { id, approve }),
  relabelRule: (id: string, label: string) => invoke<Prompt>("relabel_rule", { id, label }),
  agents: () => invoke<AgentView[]>("agents"),
  unpair: (jkt: string) => invoke<void>("unpair", { jkt }),
  credentials: () => invoke<CredentialView[]>("credentials"),
  revoke: (jti: string) => invoke<void>("revoke", { jti }),
  history: () => invoke<HistoryEntry[]>("history"),
  contacts: () => invoke<Contact[]>("contacts"),
  addContact: (principal: string, name: string, relationship: string | null) =>
    invoke<void>("add_contact", { principal, name, relationship }),
  renameContact: (principal: string, name: string) => invoke<void>("rename_contact", { principal, name }),
  removeContact: (principal: string) => invoke<void>("remove_contact", { principal }),
  attestations: () => invoke<AttestationView[]>("attestations"),
  addAttestation: (jws: string) => invoke<unknown>("add_attestation", { jws }),
  settings: () => invoke<Settings>("settings"),
  hostChanges: () => invoke<HostChangeView[]>("host_changes"),
  acceptHostDomain: (host_id: string, domain: string) => invoke<void>("accept_host_domain", { host_id, domain }),
  uiStrings: () => invoke<UiStrings>("ui_strings"),
  setLanguage: (tag: string) => invoke<UiStrings>("set_language", { tag }),
  unlockState: () => invoke<GateView>("unlock_state"),
  unlock: (passphrase: string, confirmation: string | null) =>
    invoke<GateView>("unlock", { passphrase, confirmation }),
  openMain: () => invoke<void>("open_main"),
  closeWindow: () => invoke<void>("close_window"),
};

export type Api = typeof api;
