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
settings-status-base = Status address hosts check
settings-status-reachable = Hosts can check your credentials at this address.
settings-status-this-machine = Only hosts on this computer can check your credentials at this address (hosts_on_this_machine).
settings-status-unreachable = Hosts cannot check your credentials: this address is not a public https address. Your credentials cannot be withdrawn before they expire, and booking limits shared across hosts are refused.
settings-keystore = Where your key is kept
keystore-os = In this computer's keychain (Secret Service, Keychain or Credential Manager).
keystore-file = In an encrypted file protected by your passphrase.
settings-consent-language = Language of consent texts

confirm-yes = Yes
confirm-no = No

attention-unverified_identity = The host's identity is not verified: it is named only as it names itself.
attention-price = A price is stated:
attention-price_limit = A limit on each booking’s all-in total, not a price:
attention-place_away = The place is not at the host's own address:
attention-reconfirmation = You will be asked to reconfirm; if you stay silent:
attention-answer_by = Your answer has a deadline, and a default if you do not give it:
attention-retention = The host keeps your data for:

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
notify-pairing = { $agent } asks to pair with your key app.
notify-request = { $agent } asks for your consent.

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
unlock-failed = The key app could not start:

## The consent window: what the person reads cannot be swapped or buried.
consent-announce = Another request is waiting. It will not replace this one until you choose to see it.
consent-announce-show = Show the other request
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
verification-confirmed-polkit = confirmed with your password or fingerprint (polkit)

## Typed refusals: a pairing's status, as a refusal names it.
status-unpaired = unpaired

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
recovery-page-restore = On a new computer, install the SchCP key app, then run schcp-keyapp restore in a terminal and type the words on one line. To bring your records back too, add --backup and your latest backup file.
recovery-confirm-ask = To check that you wrote the words down, type word { $first } and word { $second }.
recovery-confirm-wrong = Those are not the words at those places. Look at what you wrote down and try again.
