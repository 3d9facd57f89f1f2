# Why the key app refused what the person did in a window, in the person's
# words (keyapp::ui_words::refusal). Keyed by the refusal's §9 reason; a
# protocol object's reason missing here falls back to the plain
# refusal-verification, any other to refusal-other.

refusal-not_pending = This request is no longer waiting for an answer: it is { $status }. Nothing was signed.
refusal-not_found = This is no longer in your records; it may have been removed meanwhile.
refusal-busy = Your records are busy for a moment; try again.
refusal-bad_label = A rule’s label is 1 to { $max } characters of plain text, on one line.
refusal-not_a_rule = Only a rule’s label can be edited.
refusal-bad_name = A contact’s name is 1 to { $max } characters, with no control characters.
refusal-bad_principal = A contact is named by a principal id beginning with { $prefix }.
refusal-not_revocable = This credential cannot be revoked: no host could learn of it. It lapses on its own when it expires.
refusal-wrong_subject = This attestation is about someone else, so it was not added.
## An attestation the person adds is checked as a host that trusts its verifier would check it (SchCP §7.5).
refusal-not_an_attestation = This is not a verifier’s code the key app can read: check that you pasted all of it and nothing else. Nothing was added.
refusal-attestation_too_large = This is far longer than any verifier’s code, so it was not added.
refusal-unknown_attester = No business your assistant has asked you about trusts this verifier yet, so the key app cannot check its code. Nothing was added; add it again once one that trusts it has been asked about.
refusal-attestation_forged = This code was not signed by the verifier it names, so it was not added.
refusal-attestation_not_yet_valid = This code is dated later than now, so it was not added; check your computer’s clock, or ask your verifier for a new code.
refusal-attestation_expired = This code has expired, so it was not added; ask your verifier for a new one.
refusal-attestation_held = This code is already among your attestations; nothing was added.
refusal-verification = This could not be verified, so nothing was changed.
refusal-other = The key app could not do this, and nothing was changed. If it happens again, close the key app and open it again.
refusal-not_asking = The key app is not asking for a passphrase now.
refusal-unknown_language = The key app speaks English and French only.

# User verification: the OS did not confirm that the person gave this yes.
refusal-user_not_verified = Your computer did not confirm it was you, so nothing was approved or signed. It is still waiting for your answer.
refusal-verification_cancelled = The confirmation on your computer was cancelled, so nothing was approved or signed. It is still waiting for your answer.
refusal-verification_timed_out = Your computer’s confirmation got no answer in time, so nothing was approved or signed. It is still waiting for your answer.
refusal-verification_unavailable = Your computer has no way to confirm it is you (polkit is not running or not installed), so nothing was approved or signed. Install it with “sudo apt install polkitd pkexec”, then try again.
refusal-verification_underway = Your computer is already asking you to confirm something else, so nothing was approved here. Answer that first, or cancel it if you did not ask for it, then try again.
refusal-verification-underway-window = Your computer is asking you to confirm something the key app itself asked for (in its window, or as it started), so nothing was approved here. Answer that first, then try again. That confirmation is for: { $what }
refusal-verification-underway-window-unnamed = Your computer is asking you to confirm something the key app itself asked for (in its window, or as it started), so nothing was approved here. Answer that first, then try again.
refusal-verification-underway-program = The confirmation on your screen is not for this: a terminal or another program asked for it. If you did not ask for that, cancel it; nothing was approved here. That confirmation is for: { $what }
## What the person reads cannot be disguised or buried.
refusal-text_too_long = This text would be too long to read on one screen, so it was not shown; nothing was changed or signed.
## Hosts cannot read the key app's status address (SchCP §3.3 "Status URLs", §5.8).
refusal-status_unreachable = Hosts cannot reach this key app’s status address, so it cannot keep a booking limit shared across hosts; set a hosted status service ([status_api] hosted) or a public https address ([status_api] public_base) in the key app’s configuration.

## What the records do not hold, and what in them cannot be read (keyapp::ui_words::not_found_id, stored_id).
refusal-not_found-request = This request is not in your records; it may have been removed meanwhile.
refusal-not_found-rule_request = This request is not for a rule, so it has no label to edit.
refusal-not_found-credential = This credential is not in your records.
refusal-not_found-contact = This contact is not in your records; it may have been removed meanwhile.
refusal-not_found-host_domain_change = This business was never met at that address, so there is no move to accept.
refusal-not_found-pairing = This pairing is not in your records; it may have expired meanwhile.
refusal-not_found-paired_agent = This assistant is not paired with your key app.
refusal-not_found-configured_status_address = The configuration asks for no new status address to confirm.
refusal-corrupt = Part of your records cannot be read ({ $what }), so nothing was changed.
refusal-tampered = Part of your records ({ $what }) was changed by another program, or written before this app checked its records, so this app neither shows it nor signs anything from it.
stored-request = a request
stored-pairing = a pairing
stored-history = your history
stored-credential = a credential
stored-booking_claim = a shared booking limit
stored-meeting = a meeting contract
stored-outbox = what waits for the status service
stored-management_link = a booking’s management mandate
stored-host_binding = where a business was verified
stored-attention = what a request points out
stored-receipt = a booking's receipt
stored-database = the records' database

## A search of the person's records the key app will not run (keyapp::record_query::QueryError).
refusal-query-cursor = This list cannot continue from there; search again from the start.
refusal-query-too-long = This search is too long; use fewer words.
refusal-query-control = A search holds only plain text, on one line.
refusal-query-range = The start date is after the end date; nothing can be between them.
refusal-query-unknown = This filter is not one the key app knows.

## A protocol object that does not verify, in words: one sentence per reason (keyapp::ui_words::words).
refusal-malformed = What was sent cannot be read as written, so nothing was changed.
refusal-duplicate_member = What was sent names the same thing twice, so it cannot be read one way only; nothing was changed.
refusal-bad_key = A key in what was sent is not a usable key, so nothing was changed.
refusal-unknown_kid = What was sent is signed with a key its signer does not publish, so nothing was changed.
refusal-wrong_typ = What was sent is another kind of document than the one expected here, so nothing was changed.
refusal-alg_mismatch = What was sent is signed in a way its key does not allow, so nothing was changed.
refusal-bad_signature = The signature on what was sent does not match it; it may have been altered, so nothing was changed.
refusal-schema_invalid = What was sent lacks something it needs or holds a value it may not, so nothing was changed.
refusal-money_invalid = A price in what was sent is not a valid amount, so nothing was changed.
refusal-duration_invalid = A length of time in what was sent cannot be read, so nothing was changed.
refusal-date_time_invalid = A date or time in what was sent cannot be read, so nothing was changed.
refusal-expired = What was sent has expired, so nothing was changed; the assistant can ask again.
refusal-issued_in_future = What was sent is dated in the future, so it cannot be trusted yet; check your computer’s clock. Nothing was changed.
refusal-wrong_issuer = What was sent is signed by someone other than the one it names, so nothing was changed.
refusal-unknown_time_zone = What was sent names a time zone the key app does not know, so nothing was changed.
refusal-lines_do_not_sum = The price’s lines do not add up to its total, so nothing was changed.
refusal-mixed_currencies = The price mixes currencies, so nothing was changed.
refusal-bad_slot = The appointment’s times do not hold together (it would end before it starts, for example), so nothing was changed.
refusal-receipt_mismatch = The booking’s receipt does not match what was approved, so nothing was changed.
refusal-mandate_invalid = The permission this rests on does not check out (it may be altered, or not for this business), so nothing was changed.
refusal-mandate_expired = The permission this rests on has expired, so nothing was changed.
refusal-out_of_scope = This is not among what you allowed the assistant to do, so nothing was changed.
refusal-constraint_not_met = This goes beyond the limits you set, so nothing was changed.
refusal-meeting_invalid = This meeting’s terms do not hold together (its members, calendars or times), so nothing was changed.
refusal-acceptance_invalid = This answer to a meeting does not check out, so nothing was changed.
refusal-person_required = This member must answer in person, not by a standing rule, so nothing was changed.
refusal-rule_invalid = This standing rule does not check out, so nothing was changed.
refusal-host_id_conflict = Your records tie this business’s name to another web address, so nothing was changed; a business that moved must be confirmed by you first.
refusal-discovery_url_refused = The business’s address is not a public secure web address, so the key app did not visit it and nothing was changed.
refusal-discovery_failed = The business’s site did not answer as it should, so it could not be checked and nothing was changed; try again later.
refusal-discovery_invalid = The business’s site describes itself in a way that does not check out, so nothing was changed.
refusal-text_not_inert = A text sent holds hidden or look-alike characters, so it was not shown and nothing was changed.
refusal-already_started = This appointment has already started, so nothing was changed.
refusal-contract_mismatch = This does not match the meeting it claims to belong to, so nothing was changed.
refusal-own_contract = You organized this meeting, and your signature on it is already your yes, so nothing was changed.
refusal-not_a_member = You are not one of this meeting’s members, so nothing was changed.
refusal-booking_not_confirmed = This booking is cancelled, declined, expired or over, so there is nothing to manage and nothing was changed.
refusal-stale_receipt = A newer receipt for this booking exists, so this one no longer counts and nothing was changed.
refusal-participant_not_booker = This booking names you as a guest, not as the one who booked it, so nothing was changed; the assistant can ask you to answer the invitation instead.
refusal-not_tentative = This booking is not waiting for its guests’ answers, so nothing was changed.
refusal-not_a_participant = This booking does not name you as a guest, so nothing was changed.
refusal-duplicate_participant = This booking names you more than once, so it cannot be answered and nothing was changed.
refusal-not_invited = This booking does not ask you for an answer, so nothing was changed.
refusal-already_answered = You have already answered this booking, so nothing was changed.
refusal-no_deadline = This booking gives you no date to answer by, so nothing was changed.
refusal-deadline_passed = The date to answer this booking has passed; it follows what was set for no answer, and nothing was changed.
refusal-no_contract = The business sent this booking without its offer, so it cannot be checked and nothing was changed.
refusal-booking_mismatch = The booking the business shows differs from the one its receipt signs, so nothing was changed.
refusal-not_my_calendar = This offer is not for a booking on your own calendar, so nothing was changed.
