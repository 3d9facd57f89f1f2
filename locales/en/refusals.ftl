# Why the key app refused what the person did in a window, in the person's
# words (keyapp::ui_words::refusal). Keyed by the refusal's §9 reason; a
# reason missing here falls back to refusal-verification (code
# VERIFICATION_FAILED) or refusal-other.

refusal-not_pending = This request is no longer waiting for an answer: it is { $status }. Nothing was signed.
refusal-not_found = This is no longer in your records; it may have been removed meanwhile.
refusal-busy = Your records are busy for a moment; try again.
refusal-bad_label = A rule’s label is 1 to { $max } characters of plain text, on one line.
refusal-not_a_rule = Only a rule’s label can be edited.
refusal-bad_name = A contact’s name cannot be empty or hold control characters.
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
refusal-verification = This could not be verified ({ $reason }), so nothing was changed.
refusal-other = The key app could not do this ({ $reason }): { $message }
refusal-not_asking = The key app is not asking for a passphrase now.
refusal-unknown_language = The key app speaks English and French only.

# User verification: the OS did not confirm that the person gave this yes.
refusal-user_not_verified = Your computer did not confirm it was you, so nothing was approved or signed. It is still waiting for your answer.
refusal-verification_cancelled = The confirmation on your computer was cancelled, so nothing was approved or signed. It is still waiting for your answer.
refusal-verification_timed_out = Your computer’s confirmation got no answer in time, so nothing was approved or signed. It is still waiting for your answer.
refusal-verification_unavailable = Your computer has no way to confirm it is you (polkit is not running or not installed), so nothing was approved or signed. Install it with “sudo apt install polkitd pkexec”, then try again.
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
