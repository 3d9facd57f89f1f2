// The window's one door to Rust: every Tauri command, typed. The types are
// generated from the service's views (crates/keyapp/src/views.rs) into
// bindings.ts, never written here; the commands are src-tauri/src/commands.rs.
// Nothing else in the window calls invoke.
import { invoke } from "@tauri-apps/api/core";
import type {
  AgentView,
  AutoBackupView,
  FirstChoice,
  KitView,
  BookingView,
  AttestationView,
  CommandError,
  Contact,
  ElsewhereView,
  CredentialPage,
  CredentialQuery,
  CredentialView,
  ExportFormat,
  FilterChoices,
  GateView,
  HistoryPage,
  HistoryQuery,
  HostChangeView,
  PendingChange,
  PendingItem,
  Prompt,
  Settings,
  SetupChoice,
  StatusSetupView,
  UiStrings,
  UnpairedView,
} from "./bindings";

// Every type the commands return, generated from the Rust views (bindings.ts).
export type {
  AgentView,
  AutoBackupView,
  FirstChoice,
  KitView,
  BookingView,
  ManagerView,
  AttentionView,
  AttestationView,
  CommandError,
  Contact,
  ElsewhereView,
  CredentialPage,
  CredentialQuery,
  CredentialState,
  CredentialStatus,
  CredentialView,
  ExportFormat,
  FilterChoice,
  FilterChoices,
  GateView,
  HistoryAnswer,
  HistoryEntry,
  HistoryPage,
  HistoryQuery,
  HostChangeView,
  MeetingView,
  OfferTermsView,
  PendingChange,
  PendingItem,
  PriceLineView,
  Prompt,
  PromptStatus,
  PublicationState,
  RefusedPublicationView,
  RequestedStatusView,
  Settings,
  SetupChoice,
  StatusSetupView,
  UiStrings,
  UnpairedView,
} from "./bindings";

/** A refusal from the service (§9 style): e.g. INVALID_STATE / not_pending. */
export function isCommandError(e: unknown): e is CommandError {
  return typeof e === "object" && e !== null && "code" in e && "reason" in e && "message" in e;
}

export const api = {
  pending: () => invoke<PendingItem[]>("pending"),
  prompt: (id: string) => invoke<Prompt>("prompt", { id }),
  answer: (id: string, approve: boolean) => invoke<unknown>("answer", { id, approve }),
  relabelRule: (id: string, label: string) => invoke<Prompt>("relabel_rule", { id, label }),
  agents: () => invoke<AgentView[]>("agents"),
  unpair: (jkt: string, revokeCredentials: boolean) =>
    invoke<UnpairedView>("unpair", { jkt, revoke_credentials: revokeCredentials }),
  liftCooldown: (jkt: string) => invoke<void>("lift_cooldown", { jkt }),
  /** What a terminal or another program asks the OS to confirm now, if anything (its request or pairing, if one). */
  askedElsewhere: () => invoke<ElsewhereView | null>("asked_elsewhere"),
  credentials: () => invoke<CredentialView[]>("credentials"),
  bookings: () => invoke<BookingView[]>("bookings"),
  revoke: (jti: string) => invoke<void>("revoke", { jti }),
  /** One page of History: what the query finds, with where the next page starts. */
  searchHistory: (query: HistoryQuery) => invoke<HistoryPage>("search_history", { query }),
  /** One page of Credentials, newest first. */
  searchCredentials: (query: CredentialQuery) => invoke<CredentialPage>("search_credentials", { query }),
  filterChoices: () => invoke<FilterChoices>("filter_choices"),
  exportPath: (format: ExportFormat) => invoke<string>("export_path", { format }),
  /** Writes the records to `path`; answers with where, in the person's words. */
  exportRecords: (path: string, format: ExportFormat) => invoke<string>("export_records", { path, format }),
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
  statusSetup: () => invoke<StatusSetupView>("status_setup"),
  chooseStatus: (setup: SetupChoice) => invoke<StatusSetupView>("choose_status", { setup }),
  confirmConfiguredStatus: () => invoke<StatusSetupView>("confirm_configured_status"),
  uiStrings: () => invoke<UiStrings>("ui_strings"),
  setLanguage: (tag: string) => invoke<UiStrings>("set_language", { tag }),
  unlockState: () => invoke<GateView>("unlock_state"),
  unlock: (passphrase: string, confirmation: string | null) =>
    invoke<GateView>("unlock", { passphrase, confirmation }),
  openMain: () => invoke<void>("open_main"),
  openConsent: (id: string) => invoke<void>("open_consent", { id }),
  closeWindow: () => invoke<void>("close_window"),
  /** Answers once the service's records change after `seen` (src-tauri commands.rs). */
  waitChange: (seen: number | null) => invoke<number>("wait_change", { seen }),
  /** Like waitChange, with the pending list and the oldest one's prompt after the change. */
  waitPending: (seen: number | null) => invoke<PendingChange>("wait_pending", { seen }),
  /** The recovery kit, after the OS confirmed the person (main window only; src-tauri recovery.rs). */
  recoveryKit: () => invoke<KitView>("recovery_kit"),
  confirmRecoveryWords: (words: string[]) => invoke<boolean>("confirm_recovery_words", { words }),
  backupNow: (path: string) => invoke<string>("backup_now", { path }),
  autoBackup: () => invoke<AutoBackupView>("auto_backup"),
  setAutoBackup: (folder: string | null, keep: number) =>
    invoke<AutoBackupView>("set_auto_backup", { folder, keep }),
  /** The first run's answer before any key exists: a new key, or a restore. */
  firstRunChoice: (choice: FirstChoice) => invoke<GateView>("first_run_choice", { choice }),
};

export type Api = typeof api;
