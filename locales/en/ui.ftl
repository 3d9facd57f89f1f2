# The desktop window's own words, English. Formatted in Rust (src-tauri,
# ui_strings) and handed to the window whole, so the window has no second i18n
# system. What a person agrees to is never here: that is consent.ftl, rendered
# by crates/consent and shown verbatim.

app-title = SchCP Key App
nav-label = Sections
nav-requests = Requests
nav-agents = Agents
nav-credentials = Credentials
nav-history = History
nav-contacts = Contacts
nav-attestations = Attestations
nav-settings = Settings

loading = Loading…
error-prefix = Something went wrong:
empty-list = Nothing here yet.
refresh = Refresh

requests-heading = Waiting for your answer
requests-open = Review
col-kind = Kind
col-agent = Assistant
col-fingerprint = Code
col-age = Asked
col-expires = Expires
col-status = Status
col-actions = Actions
col-audience = Hosts
col-remaining = Remaining
col-when = When
col-event = Event
col-subject = About
col-detail = Detail
col-name = Name
col-principal = Principal
col-relationship = Relationship
col-issuer = Issuer
col-last-request = Last request

kind-pairing = Pairing
kind-mandate = Mandate
kind-closed_mandate = Booking mandate
kind-management_mandate = Management mandate
kind-meeting_contract = Meeting contract
kind-acceptance = Acceptance
kind-rule = Rule
kind-invitation = Invitation

consent-window-title = Your consent — SchCP Key App
consent-heading = An assistant asks for your consent
consent-heading-pairing = An assistant asks to pair with your key app
consent-expires = Expires
consent-from = From
consent-code = Pairing code
consent-code-hint = Check that your assistant shows the same code.
consent-text-label = What you are agreeing to
consent-look-twice = Look twice
consent-approve = Approve
consent-decline = Decline
consent-wait = Read the text above; Approve becomes available in a moment.
consent-focus = Click in this window to enable Approve.
consent-none = Nothing is waiting for your answer.
consent-gone-withdrawn = The assistant withdrew this request. Nothing was signed.
consent-gone-expired = This request expired before you answered. Nothing was signed.
consent-gone-declined = This request was declined. Nothing was signed.
consent-gone-approved = This request was already approved.
consent-gone-other = This request is no longer waiting for an answer. Nothing was signed.
consent-done-approved = Approved.
consent-done-declined = Declined. Nothing was signed.
consent-close = Close
consent-next = Next request
consent-open-main = Open the key app
consent-label-edit = Label of this rule (you may change it before approving)
consent-label-save = Use this label

agents-heading = Paired assistants
agents-unpair = Unpair
agents-unpair-confirm = Unpair this assistant? Its next request will be refused.
agents-never = never

credentials-heading = What you have signed
credentials-revoke = Revoke
credentials-revoke-confirm = Revoke this credential? Hosts will refuse it from now on.
credentials-not-revocable = not revocable
credential-changed = Another program changed part of your records about this one, so what it allows is not shown here. If you are unsure of it, revoke it.
credentials-revocation-unpublished = revocation not yet published
credentials-registration-unpublished = not yet published to the status service; your assistant receives it once it is
credentials-registration-refused = { $why ->
    [namespace_full] refused for good by the status service, which has no room for more of your credentials: hosts cannot check it, and your assistant did not receive it
   *[other] refused for good by the status service, which does not serve your key: hosts cannot check it, and your assistant did not receive it
}
credentials-revocation-refused = { $why ->
    [namespace_full] revoked here, but the status service, which has no room for more of your credentials, refused to publish it: hosts may read it as active until it expires
   *[other] revoked here, but the status service, which does not serve your key, refused to publish it: hosts may read it as active until it expires
}
status-active = active
status-expired = expired
status-revoked = revoked
status-pending = pending
status-approved = approved
status-declined = declined
status-withdrawn = withdrawn

history-heading = History
history-show-text = Show the text
history-hide-text = Hide the text

## Searching History and Credentials, and exporting the records (record_query, export).
search-legend = Find
search-text = Words to find
search-host = Host
search-host-any = Any host
search-agent = Assistant
search-agent-any = Any assistant
search-answer = What became of it
search-answer-any = Anything
search-answer-approved = You approved
search-answer-declined = You declined
search-answer-expired = Nobody answered in time
search-answer-withdrawn = The assistant withdrew it
search-answer-revoked = You withdrew it
search-state = State
search-state-any = Any state
search-since = From
search-until = To
search-submit = Search
search-clear = Clear
search-none = Nothing matches this search.
load-more = Load more
export-heading = Export your records
export-explain = A copy of your history, what you signed, your bookings and contacts, for you to keep or print. It holds no key: nobody can sign as you with it.
export-path = File to write (full path)
export-format = Format
export-format-json = Data file (JSON)
export-format-html = Printable page (HTML; open it and print)
export-submit = Export
export-done = Your records were written to { $path }.
export-failed = The file could not be written ({ $detail }); choose a file in a folder you can write to.
export-title = Your key app records
export-made = Exported { $when }.
export-principal = Your principal id:

contacts-heading = Contacts
contacts-add = Add contact
contacts-rename = Rename
contacts-remove = Remove
contacts-remove-confirm = Remove this contact?
contacts-save = Save
contacts-cancel = Cancel

attestations-heading = Attestations
attestations-add = Add attestation
attestations-jws = Attestation (compact JWS)

settings-heading = Settings
settings-language = Language
settings-principal = Your principal id
settings-jwk = Your public key (JWK)
settings-copy = Copy
settings-copied = Copied.
settings-card = Your contact card
settings-card-hint = Give it to another household so their key app knows you: they paste it into Contacts.
settings-card-code = Your code:
settings-card-code-hint = When someone adds you, read them this code, in person or by phone: the code they see must be the same.
settings-card-name = Your name on the card
settings-status-base = Status address hosts check
settings-status-reachable = Hosts can check your credentials at this address.
settings-status-this-machine = Only hosts on this computer can check your credentials at this address.
settings-status-unreachable = Hosts cannot check your credentials: this address is not a public https address. Your credentials cannot be withdrawn before they expire, and booking limits shared across hosts are refused.
settings-keystore = Where your key is kept
keystore-os = In this computer's keychain (Secret Service, Keychain or Credential Manager).
keystore-file = In an encrypted file protected by your passphrase.
settings-consent-language = Language of consent texts

confirm-yes = Yes
confirm-no = No

attention-unverified_identity = The host's identity is not verified: it is named only as it names itself.
attention-price = You will pay the host:
attention-price_limit = A limit on each booking’s all-in total, not a price:
attention-place_away = The place is not at the host's own address:
attention-reconfirmation = You must reconfirm by
attention-answer_by = Your answer is due by
attention-retention = The host keeps your data for

no-tray = No system tray was found on this desktop, so the key app stays in this window. Closing it quits the app.

## The tray menu and notifications (formatted in Rust, with arguments).
tray-open = Open the key app
tray-pending =
    { $count ->
        [0] Nothing waiting
        [one] 1 waiting for your answer
       *[other] { $count } waiting for your answer
    }
tray-quit = Quit
notify-title = Your consent is asked
notify-pairing = An assistant named “{ $agent }” asks to pair with your key app.
notify-request = Your assistant “{ $agent }” asks for your consent.
notify-request-what = Your assistant “{ $agent }” asks for your consent: { $what }
notify-elsewhere-title = A program asks you to confirm
notify-elsewhere = A terminal or another program asked your computer for the confirmation on your screen. It is for: { $what }. If you did not ask for it, cancel it.

# The file keystore's passphrase, asked in the window where no OS keychain answers.
unlock-heading = Unlock your key
unlock-create-heading = Choose a passphrase for your key
unlock-intro = Your signing key is kept in a file encrypted under your passphrase, because this computer has no keychain the key app can use. Type the passphrase to unlock it.
unlock-create-intro = This computer has no keychain the key app can use, so your new signing key will be kept in a file encrypted under a passphrase. Choose one and type it twice. Nothing can recover the key without it.
unlock-passphrase = Passphrase
unlock-confirm = The same passphrase again
unlock-submit = Unlock
unlock-create-submit = Create my key
unlock-checking = Checking the passphrase…
unlock-wrong = That passphrase does not unlock the key. Try again.
unlock-mismatch = The two passphrases are not the same. Type them again.
unlock-empty = The passphrase cannot be empty.
unlock-weak-hint = Weak: this passphrase would be easy to guess. Longer is safer, for example four unrelated words.
unlock-strong-hint = Not easy to guess.
unlock-weak-ask = This passphrase is weak: anyone who copies your key file could guess it. Choose a longer one, or use this one anyway.
unlock-weak-keep = Use it anyway
unlock-weak-change = Choose another
unlock-failed = The key app could not start:

## The consent window: what the person reads cannot be swapped or buried.
consent-announce = Another request is waiting. It will not replace this one until you choose to see it.
consent-announce-show = Show the other request
consent-asked-elsewhere = A terminal or another program is asking your computer to approve this now, in the confirmation on your screen. If you did not ask for that, cancel it: nothing is approved until you confirm.
consent-asked-elsewhere-other = The confirmation on your screen is not for what this window shows: a terminal or another program asked your computer for it. If you did not ask for that, cancel it; nothing is approved until you confirm. It is for: { $what }
consent-announce-after = A new request is waiting.
consent-announce-review = Review it
consent-ready = You can approve now, with the mouse or with Tab and Enter.
consent-verify = After Approve, your system asks you to confirm it is you (your password or fingerprint). Nothing is signed before you do.
consent-terms-heading = Price and address
consent-price = Line by line
consent-terms-price = Price
consent-total = Total
consent-address = Address
## Host binding (§2.2): a business met at another domain than the one it was first verified at.
## host-change and host-change-operator-trust are formatted in Rust, with arguments.
host-change = { $host } was first verified at { $bound }. On { $seen } a document claiming to be it came from { $domain }, and was refused. Accept { $domain } only if the business told you it moved there.
host-change-operator-trust = { $host } was first verified at { $bound }. On { $seen } a document claiming to be it came from { $domain }, a platform that vouches for it on its own word, and was refused. Accept only if the business told you it moved there.
settings-host-changes = Businesses met at another address
settings-host-changes-none = None.
settings-host-accept = Accept the new address
settings-host-accept-confirm = Accept the new address? From now on, requests for this business must come from it, and the old address is refused.
## Pairing prompts kept coming from one local user (the key app proving itself; bounds per local user).
# Shown beside a pending pairing in `schcp-keyapp pending` and the Requests screen.
pairing-churn = { $count } other pairing requests from the same user account on this computer were declined or went unanswered in the last { $minutes } minutes; a program may be trying to wear you down. Approve only a pairing you started yourself, and only if the codes match.
# User verification: what the OS's prompt names, and how a yes was confirmed
# (history and credentials).
verification-pairing-summary = Pair { $agent } (code { $code })
verification-confirmed-polkit = confirmed with your password or fingerprint

## Typed refusals: a pairing's status, as a refusal names it.
status-unpaired = unpaired

## Look-twice callouts: the kinds a root mandate adds, and the grades.
attention-wide_mandate = This permission has no limit on some things:
attention-delegate = The assistant could pass this permission on to another assistant.
attention-several_hosts = One permission for several hosts:
attention-long_lived = It lasts more than a day, until
attention-shared_limit = Its hosts share one count of bookings, and ask your key app what is left.
attention-new_host = You have not dealt with this host before:
attention-grade-grave = Serious
attention-grade-caution = Check
attention-grade-notice = Note

## History entries as sentences (history_words.rs): $agent is the assistant's
## name, $what the request in one line, $detail the entry's own detail.
history-an-assistant = an assistant
# An assistant's name where the person's surfaces show it (ui_words::assistant_name).
assistant-quoted = “{ $name }”
history-a-request = a request
history-request_created = { $agent } asked: { $what }
history-request_approved = You approved: { $what }
history-request_declined = You declined: { $what }
history-request_expired = Nobody answered in time: { $what }
history-request_withdrawn = { $agent } withdrew its request: { $what }
history-credential_issued = Signed for { $agent }: { $what }
history-revoked = You withdrew: { $what }
history-pairing_requested = { $agent } asked to pair with your key app
history-pairing_approved = You paired { $agent } with your key app
history-pairing_declined = You refused to pair { $agent }
history-pairing_expired = { $agent } asked to pair, and nobody answered in time
history-agent_unpaired = You unpaired { $agent }
history-contact_added = You added { $detail } to your contacts
history-contact_renamed = You renamed a contact { $detail }
history-contact_removed = You removed a contact
history-attestation_added = You added an attestation about you
history-host_domain_accepted = You accepted that a host now answers at { $detail }
history-event-other = The key app recorded something this version cannot name; see Details.
history-unverified = Another program wrote or changed this entry in your records; the key app cannot vouch for it, so it is not shown.
history-details = Details
col-what = What happened
col-asked = What is asked
col-allows = What it allows

## My bookings: each booking the key app holds a verified receipt for.
nav-bookings = My bookings
bookings-heading = My bookings
bookings-upcoming = Upcoming
bookings-past = Past
bookings-host-unverified = { $host } (not verified)
bookings-title-too-long = A title too long to show ({ $chars } characters)
bookings-rests-on = Rests on what you approved:
bookings-managed-by = { $agent } may cancel or move it until { $until }.
bookings-manager-ended = { $agent } can no longer change it.
bookings-stop-manager = Stop this assistant changing it
bookings-stop-confirm = Stop this assistant from cancelling or moving this booking?
bookings-no-manager = No assistant may change it.
col-booking = Booking
col-host = Host
col-price = Price
col-state = State
booking-state-pending_host = waiting for the host
booking-state-tentative = waiting for the others invited
booking-state-confirmed = confirmed
booking-state-declined = declined by the host
booking-state-expired = lapsed
booking-state-cancelled = cancelled
booking-state-completed = took place
booking-state-no_show = missed

## An agent's cooldown on Agents.
agents-cooldown = Its last two requests were declined or went unanswered, so it may not ask again until { $until }.
agents-lift-cooldown = Let it ask again now
history-cooldown_lifted = You let { $agent } ask again

## Adding a contact from the card the other person copies.
contacts-card = Their contact card or key app id
contacts-card-hint = Ask them to copy it from Settings in their key app. It looks like: Ellis <urn:schcp:principal:…>. Their name is filled in for you; you may change it.
contacts-code = Their code:
contacts-code-hint = Ask them to read you the code under the contact card in their Settings, in person or by phone. Add them only if it is the same: another code means the card you pasted is not theirs.
attestations-code = The code your verifier gave you
attestations-code-hint = Paste it exactly as you received it.
# The person's own yes to a booking on their calendar (§7.7, §7.9)
kind-booking_acceptance = My own yes to a booking
kind-booking_read = Reading a booking
## Status service setup (SchCP §3.3): where hosts check the person's credentials,
## setup's refusals, and publishing to a hosted status service. Formatted in Rust.
status-choice-hosted = Hosts check your credentials at the hosted status service { $base }.
status-choice-own-base = Hosts check your credentials at your own address { $base }.
status-choice-not-now = You have not chosen a status service: your credentials point at this computer ({ $base }).
status-requested = Your configuration file asks for { $base }, but you have not confirmed it, so credentials still point at { $kept }. Confirm it only if you changed the file yourself.
status-confirm-summary = Let hosts check your credentials at { $base }
status-publication-nothing = Nothing has been published to a status service yet. { $waiting ->
    [0] Nothing is waiting.
    [one] One update is waiting to be published.
   *[other] { $waiting } updates are waiting to be published.
}
status-publication-reached = The last update reached the status service on { $at }. { $waiting ->
    [0] Nothing is waiting.
    [one] One update is waiting to be published.
   *[other] { $waiting } updates are waiting to be published.
}
status-publication-failing = The status service has not answered the last { $attempts ->
    [one] attempt
   *[other] { $attempts } attempts
}; the key app keeps trying. { $waiting ->
    [one] One update is waiting to be published.
   *[other] { $waiting } updates are waiting to be published.
}
status-refused-register = On { $at } the status service refused to keep a credential: { $why } Hosts cannot check it, so it was not given to the assistant.
status-refused-revoke = On { $at } the status service refused to publish a withdrawal: { $why }
status-refused-full = it holds as many credentials as its operator allows for you.
status-refused-not-allowed = its operator does not serve your key.
status-refused-other = it did not say why.
setup-error-not-a-base = "{ $url }" is not a web address the key app can use. Type it whole, starting with https://, with nothing after a ? or #.
setup-error-unreachable = Hosts could not check your credentials at { $url }: { $why } Choose a public https address.
setup-why-not-https = it is not https.
setup-why-credentials = it holds a user name or password.
setup-why-this-machine = it is this computer, which hosts elsewhere cannot reach.
setup-why-local-name = { $name } is a name on your local network only.
setup-why-private = { $address } is an address of a private or local network.
setup-why-not-a-url = it is not a web address.
setup-error-no-answer = The status service at { $base } did not answer over https. Check the address and your connection, then try again. Nothing was changed.
setup-error-not-a-status-service = { $base } answered, but not as a SchCP status service. Check the address. Nothing was changed.
setup-error-not-allowed = The status service at { $base } does not serve your key. Ask its operator to add you, or choose another service. Nothing was changed.
setup-error-full = The status service at { $base } holds as many credentials as it allows for you. Ask its operator, or choose another service. Nothing was changed.
setup-error-refused = The status service at { $base } refused this key app's updates. Check this computer's clock, or choose another service. Nothing was changed.
setup-error-config-file = The configuration file { $path } could not be written. Check its permissions. Nothing was changed.
first-run-heading = Where will hosts check your credentials?
first-run-intro = When a business checks a credential you signed, it asks a status address whether you withdrew it. This computer sleeps and moves between networks, so hosts cannot reach it. Choose an always-on address.
first-run-hosted = A hosted status service
first-run-hosted-help = Type the https address your provider gave you. The key app checks that it answers before anything changes.
first-run-own-base = My own public address
first-run-own-base-help = For someone who runs a reverse proxy in front of this key app's status API: its public https address.
first-run-not-now = Not now
first-run-not-now-help = Booking limits shared across businesses are refused, and credentials cannot be withdrawn before they expire.
first-run-url = Address
first-run-save = Save
first-run-skip = Skip for now
first-run-saved = Saved.
settings-status-setup = Where hosts check your credentials
settings-status-change = Change
settings-status-confirm-requested = Confirm this address
settings-status-refused = Refused by the status service
setup-cli-hosted = A hosted status service (its https address)
setup-cli-own-base = My own public https address for this key app (I run a reverse proxy)
setup-cli-not-now = Not now: shared booking limits are refused, and credentials cannot be withdrawn before they expire
setup-cli-choose = Choose 1, 2 or 3 (anything else leaves it as it is):
setup-cli-hosted-url = The status service's address:
setup-cli-own-base-url = Your public https address:
setup-cli-left = Left as it is.
## Unpairing takes back what the assistant holds (SchCP §3.3 check 7).
agents-unpair-revoke-question = { $count ->
    [one] Also revoke the credential it holds?
   *[other] Also revoke the { $count } credentials it holds?
}
agents-unpair-only = Unpair only
agents-unpair-and-revoke = Unpair and revoke
agents-unpair-not-revocable = { $kind }: cannot be revoked, because no host checks it with this key app. It lapses on its own on { $until }.
agents-unpair-kept = { $kind }: not revoked, in force until { $until }.
agents-unpaired = { $count ->
    [0] Unpaired. Nothing was revoked.
    [one] Unpaired. 1 credential was revoked.
   *[other] Unpaired. { $count } credentials were revoked.
}
## Recovery kit, records backup and restore (schcp-keyapp recovery-phrase, backup, restore; the Recovery window).
recovery-no-profile = There is no key app profile in { $dir } yet, so there is no key to show or back up; start the key app once, or name its data directory in the configuration.
recovery-verification-summary = Show your recovery phrase
recovery-not-verified = Your OS did not confirm it was you, so the recovery phrase was not shown; run the command again and confirm with your password or fingerprint.
recovery-kit-title = Your recovery phrase, 24 words:
recovery-kit-principal = These words bring back this principal: { $principal }
recovery-kit-key-seed = Your key was made before recovery phrases existed, so these words are the key itself. To restore without a backup, add --key-seed.
recovery-kit-keep = Anyone who has these words can act as you, exactly as if they held this computer's key. Write them on paper and keep it where you keep your passport. Never photograph them, type them into a website or a chat, or give them to an assistant.
recovery-backup-written = Your records were written to { $file }, encrypted: only your recovery phrase opens them.
recovery-restore-ask = Type your recovery phrase (the 24 words on one line), then press Enter:
recovery-no-phrase = No recovery phrase was given, so nothing was restored; type the 24 words on one line.
recovery-not-a-terminal = The recovery phrase is shown only in a terminal window, never written to a file or a pipe; run the command in a terminal, or open Settings › Recovery kit in the window.
recovery-restore-ask-hidden = Type your recovery phrase (the 24 words on one line; nothing shows as you type), then press Enter:
recovery-restored = You are back: { $principal }
recovery-restored-records = Your records are back. { $pairings ->
    [0] No assistant was paired.
    [one] One assistant pairing is paused: the assistant must ask to pair again, and you confirm it.
   *[other] { $pairings } assistant pairings are paused: each assistant must ask to pair again, and you confirm it.
}
recovery-page-title = Your SchCP recovery kit
recovery-page-date = Made on { $date }
recovery-page-principal = These words bring back this principal:
recovery-page-keep-title = How to keep it
recovery-page-restore-title = How to restore
recovery-page-restore = On a new computer, install the SchCP key app and open it, choose “{ welcome-have-kit }” and type the words. To bring your records back too, choose your latest backup file there. In a terminal instead, run schcp-keyapp restore and type the words on one line, adding --backup and your latest backup file for your records.
recovery-confirm-ask = To check that you wrote the words down, type word { $first } and word { $second }.
recovery-confirm-wrong = Those are not the words at those places. Look at what you wrote down and try again.

## The first run (a short sequence, skippable, and in Settings later), and the
## recovery kit, the backup and the restore in the window.
welcome-heading = Welcome to the SchCP key app
welcome-what = This app holds your signing key and answers for you when an assistant asks to act in your name: book an appointment, pay a deposit, share your details with a business.
welcome-can = An assistant can ask. It can book, change or cancel only what you approved here, within the limits you saw, until they end.
welcome-cannot = An assistant cannot sign anything itself, see your key, or read your recovery kit. Every yes is yours, confirmed by your computer.
welcome-key-os = Your key is kept in this computer's keychain, unlocked only after your computer confirms it is you.
welcome-key-file = Your key is kept in a file on this computer, encrypted under your passphrase.
welcome-next = Next
welcome-back = Back
welcome-skip = Skip the introduction
welcome-done = Done
welcome-show-again = Show the introduction again
welcome-step-about = What this app does
welcome-step-key = Where your key is kept
welcome-step-status = Where hosts check your credentials
welcome-step-kit = Your recovery kit
welcome-new-heading = Is this your first key app?
welcome-new-intro = Make a new key if you never used the SchCP key app. If you had it on another computer, bring your key back with your recovery kit.
welcome-new-key = Make a new key
welcome-have-kit = I have a recovery kit
restore-heading = Bring your key back
restore-intro = Type the 24 words of your recovery kit. If you have a backup file of your records, give its full path too. Nothing is written until everything checks out.
restore-words = Your 24 words
restore-backup = Backup file (optional)
restore-key-seed = My kit says my key was made before recovery phrases existed
restore-submit = Restore
restore-working = Checking your words and your backup…
restore-cancel = Make a new key instead
restore-refused-phrase = Those words are not a recovery phrase: check that there are 24 of them, each spelled as on your kit. Nothing was written.
restore-refused-wrong-phrase = These words do not open that backup. Check each word against your recovery kit. Nothing was written.
restore-refused-tampered = That backup was changed or damaged after it was written, so nothing was restored from it. Use another backup. Nothing was written.
restore-refused-not-backup = That file is not a key app backup. Choose a file the key app's backup wrote. Nothing was written.
restore-refused-newer = That backup was made by a newer key app. Install the newer key app and restore again. Nothing was written.
restore-refused-backup-unreadable = That backup file could not be read. Check its path and that you may read it. Nothing was written.
restore-refused-another-principal = That backup holds someone else's records, not those of these words. Use the backup made with this recovery kit. Nothing was written.
restore-refused-records-exist = This computer already holds key app records, and a restore never replaces them. Nothing was written.
restore-refused-failed = The key could not be kept on this computer, so nothing was restored. Try again.
restore-done-notice = Your key and your records are back. Assistants paired on your old computer are paused: each must ask to pair again, and you confirm it.
kit-heading = Your recovery kit
kit-intro = If this computer is lost, these 24 words bring your key back on another one. Your computer will ask you to confirm it is you before they are shown.
kit-show = Show my recovery kit
kit-words = Your 24 words
kit-principal = These words bring back this principal
kit-key-seed = Your key was made before recovery phrases existed, so these words are the key itself. When you restore, tick the box that says so.
kit-print = Print the kit
kit-confirm-heading = Check that you wrote them down
kit-word = Word
kit-confirm-submit = Check
kit-confirmed = Those are the right words. Keep the paper safe.
kit-hide = Hide the words
kit-later = Later (from Settings)
recovery-window-not-verified = Your computer did not confirm it was you, so your recovery kit was not shown. Try again and confirm with your password or fingerprint.
recovery-window-main-only = Your recovery kit can only be reached from the key app's main window.
recovery-window-bad-path = Give the full path of a file, starting with /.
recovery-window-bad-folder = That folder does not exist or you may not write there. Choose an existing folder.
recovery-window-keep-range = Keep between 1 and 365 backups.
recovery-window-auto-failed = The automatic backup could not be changed. Try again.
backup-heading = Backups of your records
backup-intro = A backup holds your contacts, credentials, history and bookings, encrypted: only your recovery kit's words open it.
backup-file = Back up to this file
backup-now = Back up now
backup-auto-heading = Every day, automatically
backup-auto-folder = Folder (empty: no automatic backup)
backup-auto-keep = How many to keep
backup-auto-save = Save
backup-auto-saved = Saved. The automatic backup runs once a day while the key app runs.
backup-auto-off = No automatic backup.
recovery-window-backup-failed = Your records could not be written to { $file }. Check that the folder exists and that you may write there.
## A lost computer's switch: revoke everything the old computer issued (schcp-keyapp revoke-everything; the Recovery window).
verification-revoke-everything-summary = Revoke everything your old computer issued
revoke-everything-records = { $count ->
    [0] Your records held no credential still in force.
    [one] The one credential in force in your records is revoked.
   *[other] The { $count } credentials in force in your records are revoked.
}
revoke-everything-service-done = The status service at { $base } revoked { $count ->
    [0] nothing more: every credential registered there under your key was revoked already.
    [one] one credential registered under your key; hosts checking it read “revoked” from now on.
   *[other] { $count } credentials registered under your key; hosts checking them read “revoked” from now on.
}
revoke-everything-service-unknown = { $count ->
    [one] One of them was not in your records: your old computer issued it after your last backup.
   *[other] { $count } of them were not in your records: your old computer issued them after your last backup.
}
revoke-everything-service-unreached = The status service at { $base } could not be reached, so what your old computer issued after your last backup is still in force there. What your records hold will be revoked there as soon as it answers; run this again then, to reach the rest.
revoke-everything-no-service = No status service holds your credentials, so those your old computer issued after your last backup cannot be found from here: they stay valid until they end on their own, within 30 days for a mandate and 180 for a rule.
revoke-everything-served-here = { $count ->
    [one] Hosts checked this one at your old computer's own address, so they read it as revoked only if that address now reaches this computer:
   *[other] Hosts checked these { $count } at your old computer's own address, so they read them as revoked only if that address now reaches this computer:
}
revoke-everything-not-revocable = { $count ->
    [one] This one cannot be taken back, since no host ever checks it; it ends on its own:
   *[other] These { $count } cannot be taken back, since no host ever checks them; they end on their own:
}
revoke-everything-item = • { $kind }, ends { $end }
revoke-everything-item-hosts = • { $kind } for { $hosts }, ends { $end }
revoke-everything-not-verified = Your OS did not confirm it was you, so nothing was revoked; run the command again and confirm with your password or fingerprint.
revoke-everything-phrase-no-service = Without your records, only a status service can find what your old computer issued, and none is named; add --hosted and the address of your status service, or restore your records and run schcp-keyapp revoke-everything.
revoke-everything-phrase-records = Credentials whose status only your old computer answered for are not reached from the phrase alone: restore your latest backup and run schcp-keyapp revoke-everything to revoke them too.
revoke-everything-phrase-unreached = The status service at { $base } did not take the revocation, so nothing was revoked there; check the address and your connection, then run the command again.

# Choosing a path in the system's own file window
choose-file = Choose a file…
choose-folder = Choose a folder…
choose-failed = The file window could not open here; type the full path in the field instead.
choose-export-title = Where to write your records
choose-backup-title = Where to write the backup
choose-folder-title = The folder for the daily backups
choose-restore-title = Your backup file

# Settings: the public key behind a disclosure
settings-key-details = Details for developers

# Hosts by name: My bookings, and the records' host filter where two hosts share a name
host-named = { $name } ({ $domain })
# Contacts: the OS confirms a name the consent text will trust
verification-contact-summary = Name a contact { $name }
verification-attestation-summary = Keep the attestation { $issuer } gave about you
verification-host-move-summary = Accept that { $host } is now at { $domain }
