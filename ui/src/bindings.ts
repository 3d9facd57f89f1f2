// Generated from the Rust views (src-tauri/src/bindings.rs, ts-rs): do not edit.
// Regenerate: SCHCP_WRITE_BINDINGS=1 cargo test -p schcp-desktop --test bindings

/**
 * A paired agent with the time and kind of its last request.
 */
export type AgentView = { jkt: string, name: string, fingerprint: string, paired_at: number, last_request_at?: number, 
/**
 * `last_request_at` in words, in the person's language and time zone.
 */
last_request?: string, last_request_kind?: string, 
/**
 * While the agent may not ask (its last two requests declined or left
 * unanswered): until when, in words; the person may let it ask again.
 */
cooldown?: string, 
/**
 * What unpairing it could take back.
 */
holds: HoldsView, };

/**
 * How much a callout weighs (`schcp_consent::attention::Grade`).
 */
export type AttentionGrade = "grave" | "caution" | "notice";

/**
 * One look-twice callout (`schcp_consent::AttentionKind::as_str`: `wide_mandate`,
 * `unverified_identity`, `price`, …), its grade, and its detail in the consent
 * language. Stored with the request, gravest first.
 */
export type AttentionView = { kind: string, 
/**
 * Callouts stored before grades existed read as notices.
 */
grade: AttentionGrade, detail?: string, };

export type AttestationView = { iss: string, exp: number, 
/**
 * `exp` in words, in the person's language and time zone.
 */
expires: string, compact: string, };

/**
 * The daily backup as Settings shows it.
 */
export type AutoBackupView = { folder: string | null, keep: number, 
/**
 * Where the choice is kept: in the config file the key app read, or in the records.
 */
in_config_file: boolean, };

/**
 * Which rule of §2.2 authorized the host's document.
 */
export type Basis = "own_domain" | "operator" | "operator_trust";

/**
 * One of the person's bookings, from its latest verified receipt (§5.3), in
 * the person's words: My bookings.
 */
export type BookingView = { 
/**
 * The host's booking id (shown only under Details).
 */
booking_id: string, 
/**
 * The host id (shown only under Details).
 */
host_id: string, 
/**
 * The booked service, as the host's receipt names it.
 */
what: string, 
/**
 * Its time, in the person's language, in the booking's own zone (as the
 * consent text gave the offer's).
 */
when: string, 
/**
 * The host: its name beside the domain the key app verified it at
 * (§2.2), that domain alone where no name is known, or its id marked
 * unverified.
 */
host: string, place?: string, price?: string, 
/**
 * The booking's state in words (confirmed, cancelled, …).
 */
state: string, 
/**
 * Still to come (pending, tentative or confirmed, and not yet over).
 */
upcoming: boolean, 
/**
 * The start, as a NumericDate, for ordering.
 */
start: number, 
/**
 * What the person approved that it rests on, in one line, when the key
 * app issued the credential the receipt names.
 */
rests_on?: string, 
/**
 * The management mandates that let an assistant change it (§3.3).
 */
managers: Array<ManagerView>, };

/**
 * What the person chose, in the words Settings uses for it.
 */
export type ChoiceKind = "hosted" | "own_base" | "not_now";

/**
 * A refusal as the window shows it: the service's §9-style code, reason and
 * sentence (e.g. `INVALID_STATE`/`not_pending` for a request that expired).
 */
export type CommandError = { 
/**
 * A §9 code (SchCP §9.2): the window branches on it and on `reason` only.
 */
code: string, reason: string, 
/**
 * The refusal in the person's words, to show as it is.
 */
message: string, };

export type Contact = { principal: string, name: string, relationship?: string, };

/**
 * One page of Credentials.
 */
export type CredentialPage = { items: Array<CredentialView>, 
/**
 * Where the next page starts; none on the last page.
 */
next?: string, };

/**
 * What the person looks for in Credentials, newest first.
 */
export type CredentialQuery = { 
/**
 * Its state now.
 */
state?: CredentialState, 
/**
 * Words to find in what it is about (its one-line summary), the
 * assistant's name, a contact's name, or a host's id or domain.
 */
text?: string, 
/**
 * A host, by its id or the domain the key app verified it at.
 */
host?: string, 
/**
 * An assistant, by its key thumbprint, its fingerprint or the name it paired under.
 */
agent?: string, 
/**
 * From this instant on (NumericDate, included): when an entry happened,
 * when a credential was issued.
 */
since?: number, 
/**
 * Before this instant (NumericDate, excluded).
 */
until?: number, 
/**
 * Entries per page: [`DEFAULT_PAGE`] when none, at most [`MAX_PAGE`].
 */
limit?: number, 
/**
 * The `next` of the page before, to continue after it.
 */
cursor?: string, };

/**
 * A credential's state as a filter names it (`CredentialStatus`, the status API's word).
 */
export type CredentialState = "active" | "revoked" | "expired";

/**
 * Whether hosts are told a credential holds: `GET /status/{jti}`'s word.
 */
export type CredentialStatus = "active" | "revoked" | "expired";

/**
 * A credential the key app issued, as the person's surfaces list it.
 */
export type CredentialView = { jti: string, kind: RequestKind, 
/**
 * What it allows, in one line: the summary of the request the person
 * approved for it (`schcp_consent::summary`), when there was one.
 */
summary?: string, aud: Array<string>, exp: number, 
/**
 * `exp` in words, in the person's language and time zone.
 */
expires: string, status: CredentialStatus, 
/**
 * Whether the person can take it back now ([`CredentialView::can_revoke`]):
 * the surfaces offer Revoke on exactly these.
 */
revocable: boolean, remaining?: number, 
/**
 * Hosted mode (docs/hosted-status.md): what the status service has not yet acknowledged.
 */
publication?: Publication, 
/**
 * `publication` in words, in the person's language (ui.ftl of each locale).
 */
publication_note?: string, 
/**
 * For a meeting contract or an acceptance: the meeting it is about.
 */
meeting?: MeetingView, 
/**
 * How the OS confirmed the person's yes to it (`"polkit"`), on the
 * person's own listing only; none where no person was asked (§3.3).
 */
confirmed_by?: string, 
/**
 * `confirmed_by` in the person's words (ui.ftl of each locale).
 */
confirmed?: string, 
/**
 * Set when the record of what it allows was changed by another program
 * (record_seal): why no summary is shown, in the person's words.
 */
changed?: string, };

/**
 * A confirmation a terminal or another program asked the OS for, as the
 * consent window says it: the OS's prompt reads the same for every approval,
 * so a window showing anything but what it approves (another request, a
 * request already answered, none) names what it is for.
 */
export type ElsewhereView = { 
/**
 * The pending request or pairing it would approve, if it is one.
 */
id: string | null, 
/**
 * The sentence for a window showing anything else, naming what it is for.
 */
other: string, };

/**
 * Which document an export writes.
 */
export type ExportFormat = "json" | "html";

/**
 * One choice: the value a query names, and what the person reads.
 */
export type FilterChoice = { value: string, label: string, };

/**
 * What a search can be narrowed to, for the window's choices.
 */
export type FilterChoices = { hosts: Array<FilterChoice>, agents: Array<FilterChoice>, };

/**
 * The first run's question, before any key exists: a new key, or the
 * person's own, brought back from the recovery kit (and a backup).
 */
export type FirstChoice = { "choice": "new" } | { "choice": "restore", words: string, backup: string | null, key_seed: boolean, };

/**
 * What the window shows.
 */
export type GateView = { "state": "starting" } | { "state": "asking", purpose: PassphrasePurpose, problem: PassphraseProblem | null, } | { "state": "checking" } | { "state": "unlocked", route: string | null, } | { "state": "failed", message: string, } | { "state": "welcome", problem: string | null, } | { "state": "restoring" };

/**
 * What became of what a history entry is about.
 */
export type HistoryAnswer = "approved" | "declined" | "expired" | "withdrawn" | "revoked";

export type HistoryEntry = { at: number, 
/**
 * `at` in words, in the person's language and time zone.
 */
when: string, 
/**
 * What happened, in one sentence in the person's language
 * (`history_words::sentence`); the fields below are its details.
 */
sentence: string, event: string, subject: string, detail: string, 
/**
 * How the OS confirmed the person's yes (`"polkit"`), on an approval's entries.
 */
confirmed_by?: string, 
/**
 * `confirmed_by` in the person's words (ui.ftl of each locale).
 */
confirmed?: string, };

/**
 * One page of History.
 */
export type HistoryPage = { items: Array<HistoryEntry>, 
/**
 * Where the next page starts; none on the last page.
 */
next?: string, };

/**
 * What the person looks for in History. The list's members and the search's
 * stand side by side on the wire (`flatten`), and no other member is read.
 */
export type HistoryQuery = { 
/**
 * What became of it: the person's answer, or what happened instead.
 */
answer?: HistoryAnswer, 
/**
 * Words to find in what it is about (its one-line summary), the
 * assistant's name, a contact's name, or a host's id or domain.
 */
text?: string, 
/**
 * A host, by its id or the domain the key app verified it at.
 */
host?: string, 
/**
 * An assistant, by its key thumbprint, its fingerprint or the name it paired under.
 */
agent?: string, 
/**
 * From this instant on (NumericDate, included): when an entry happened,
 * when a credential was issued.
 */
since?: number, 
/**
 * Before this instant (NumericDate, excluded).
 */
until?: number, 
/**
 * Entries per page: [`DEFAULT_PAGE`] when none, at most [`MAX_PAGE`].
 */
limit?: number, 
/**
 * The `next` of the page before, to continue after it.
 */
cursor?: string, };

/**
 * The credentials a paired agent holds, as unpairing asks about them (§3.3
 * check 7): how many a revocation reaches, and the others named.
 */
export type HoldsView = { 
/**
 * How many it holds that revoking reaches the hosts of.
 */
revocable: number, 
/**
 * "Also revoke the N credentials it holds?", when it holds any revocable.
 */
question?: string, 
/**
 * Each credential it holds that cannot be revoked, in a sentence saying
 * so and when it lapses.
 */
not_revocable: Array<string>, };

/**
 * A host id met at another place than its binding (§2.2), as the person's
 * surfaces show it.
 */
export type HostChangeView = { 
/**
 * The change in the person's words.
 */
words: string, host_id: string, bound_domain: string, bound_basis: Basis, domain: string, basis: Basis, seen_at: number, };

/**
 * Whether hosts can read the status base (`status_reach`), as Settings says
 * it: each value names its words, `settings-status-{value}` in ui.ftl.
 */
export type HostsCanCheck = "reachable" | "this-machine" | "unreachable";

/**
 * Where the principal key is kept.
 */
export type KeystoreKind = "os" | "file";

/**
 * The kit as the window shows it once: the words, what they restore, the two
 * places to type back, and the printable page's content (keyapp::recovery::page).
 */
export type KitView = { words: Array<string>, principal: string, 
/**
 * The key was made before recovery phrases: the words are its seed.
 */
key_seed: boolean, 
/**
 * Word numbers (1-based) the person types back.
 */
confirm: Array<number>, 
/**
 * The printable page's body (escaped HTML, no script, no outside resource).
 */
page: string, };

/**
 * A management mandate over one booking, on My bookings.
 */
export type ManagerView = { jti: string, 
/**
 * The assistant it lets change the booking, by the name it paired under.
 */
agent_name: string, status: CredentialStatus, 
/**
 * Its expiry, in words.
 */
expires: string, 
/**
 * Whether the person can take it back now.
 */
revocable: boolean, 
/**
 * Who may change the booking and until when, or that it no longer can,
 * in one sentence.
 */
sentence: string, };

/**
 * The meeting a contract or acceptance record is about (§5.12).
 */
export type MeetingView = { meeting_id: string, revision: number, contract_sha256: string, 
/**
 * The members by the names the contract gives them.
 */
members: Array<string>, 
/**
 * Whether this is the meeting's latest revision kept here; an earlier one
 * was replaced by a revision the organizer signed (§5.12).
 */
current: boolean, };

/**
 * The offer's price lines and the host's address (§5.2), in the consent
 * language, computed from the verified claims when the request is created and
 * stored with it, so the window lays them out without reading the text.
 */
export type OfferTermsView = { 
/**
 * The host's name.
 */
host: string, 
/**
 * The host's one-line address as it signed it.
 */
address?: string, 
/**
 * Every line of the total, in the signed order.
 */
lines: Array<PriceLineView>, 
/**
 * The all-in total in words, when a price is stated.
 */
total?: string, };

/**
 * Why the last answer was asked again; the keystore decides, the surface only shows it.
 */
export type PassphraseProblem = "wrong" | "mismatch" | "empty";

export type PassphrasePurpose = "unlock" | "create";

/**
 * What the consent window waits for, in one answer: the change counter and,
 * as the service has them after that change, the pending pairings and
 * requests with the oldest one's prompt, so a window with nothing on screen
 * shows a new request without asking again (`Requests::wait_pending`).
 */
export type PendingChange = { 
/**
 * The change counter to wait past next.
 */
seen: number, 
/**
 * Every pending pairing and request, oldest first.
 */
pending: Array<PendingItem>, 
/**
 * The first of `pending`, as `Requests::prompt` shows it.
 */
oldest?: Prompt, };

/**
 * A pending pairing or request, as the Requests screen and `schcp-keyapp
 * pending` list it.
 */
export type PendingItem = { id: string, 
/**
 * `pairing`, or the request kind.
 */
kind: string, 
/**
 * What is asked, in one line: "Synthetic oil change with Maple Street
 * Auto …" (`schcp_consent::summary`), in the consent language.
 */
summary: string, agent_name: string, fingerprint: string, created_at: number, 
/**
 * `created_at` in words, in the person's language and time zone.
 */
created: string, expires_at: number, 
/**
 * `expires_at` in words, in the person's language and time zone.
 */
expires: string, 
/**
 * Beside a pairing whose local user's earlier pairings keep being declined
 * or going unanswered: the sentence telling the person (`churn_notice`).
 */
churn?: string, };

/**
 * One line of an offer's total: `kind` is §5.2's (`service`, `fee`,
 * `surcharge`, `tax`); `label` the host's, inert; `amount` in words.
 */
export type PriceLineView = { kind: string, label: string, amount: string, };

/**
 * Everything the consent window shows for one pairing or request.
 */
export type Prompt = { id: string, kind: string, 
/**
 * A [`PromptStatus`]: the window answers only a pending one.
 */
status: PromptStatus, agent_name: string, fingerprint: string, 
/**
 * Exactly the text the service stored (requests) or renders (pairings).
 */
consent_text: string, created_at: number, expires_at: number, 
/**
 * A rule's label (§7.9), which the person may edit before signing.
 */
label?: string, 
/**
 * What to look at twice (schcp_consent::attention), each also in the text.
 */
attention: Array<AttentionView>, 
/**
 * A pairing whose local user's earlier pairings keep being declined or
 * going unanswered: the sentence telling the person (`churn_notice`).
 */
churn?: string, 
/**
 * The money and premises of the offer the request is about, from its
 * verified claims (`schcp_consent::offer_terms`); none for a pairing,
 * a mandate, a meeting or a rule.
 */
terms?: OfferTermsView, };

/**
 * Where a prompt stands: a request's status, or a pairing's.
 */
export type PromptStatus = "pending" | "approved" | "declined" | "expired" | "withdrawn" | "unpaired";

/**
 * What the hosted status service still lacks about a credential.
 */
export type Publication = "registration_pending" | "revocation_pending" | "registration_refused" | "revocation_refused";

/**
 * How publishing to a hosted status service stands; each value names its
 * words, `status-publication-{value}` in ui.ftl.
 */
export type PublicationState = "nothing" | "reached" | "failing";

/**
 * An update the status service refused for good.
 */
export type RefusedPublicationView = { jti: string, 
/**
 * The service's §9 reason (`namespace_full`, `namespace_not_allowed`).
 */
reason: string, 
/**
 * What was refused, when and why, in words.
 */
words: string, };

/**
 * What an agent asks the person for; each is verified, shown and issued by
 * its own module of `service`.
 */
export type RequestKind = "mandate" | "closed_mandate" | "management_mandate" | "meeting_contract" | "acceptance" | "rule" | "invitation" | "booking_acceptance" | "booking_read";

/**
 * A status address the config asks for, not yet confirmed.
 */
export type RequestedStatusView = { base: string, 
/**
 * What it is and that it is not in force, in words.
 */
words: string, };

/**
 * The Settings screen's facts.
 */
export type Settings = { principal: string, jwk: Record<string, string>, status_public_base: string, 
/**
 * Whether hosts can check the person's credentials at that address.
 */
hosts_can_check: HostsCanCheck, 
/**
 * A [`KeystoreKind`]; the window says it in words.
 */
keystore: KeystoreKind, 
/**
 * The language consent text is rendered in (`en`, `fr`).
 */
consent_language: string, };

/**
 * One of setup's three answers (`schcp-keyapp setup`, the window's first run).
 */
export type SetupChoice = { "choice": "hosted", url: string, } | { "choice": "own_base", url: string, } | { "choice": "not_now" };

/**
 * Where hosts check the person's credentials (SchCP §3.3 "Status URLs"), as
 * Settings and the window's first run show it (`service::status_setup`).
 */
export type StatusSetupView = { 
/**
 * Whether the person has answered setup; the window's first run asks until then.
 */
answered: boolean, 
/**
 * The address in force, as setup's three answers name it.
 */
choice: ChoiceKind, 
/**
 * The base the status URLs of new credentials start with.
 */
base: string, hosts_can_check: HostsCanCheck, 
/**
 * The choice in words, with what it means for hosts.
 */
words: string, 
/**
 * An address the config asks for that the person has not confirmed: not
 * in force until they confirm it to the OS.
 */
requested?: RequestedStatusView, 
/**
 * Whether what the key app publishes reached the hosted status service.
 */
publication: PublicationState, 
/**
 * `publication`, with what waits to be published, in words.
 */
publication_words: string, 
/**
 * Updates waiting to be published.
 */
waiting: number, 
/**
 * Registrations and revocations the status service refused for good.
 */
refused: Array<RefusedPublicationView>, };

/**
 * The window's strings in one language: message id → text.
 */
export type UiStrings = { lang: string, strings: { [key in string]: string }, };

/**
 * What unpairing did, in words.
 */
export type UnpairedView = { 
/**
 * The credentials revoked with it (their ids).
 */
revoked: Array<string>, 
/**
 * "Unpaired. 2 credentials were revoked."
 */
words: string, 
/**
 * Each credential it still holds, in a sentence: that it cannot be
 * revoked, or (when the person chose not to) that it stays in force.
 */
kept: Array<string>, };
